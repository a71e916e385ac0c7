"""A model server that goes quiet, at the TCP level, for tests of honyaku's time bounds.

Real servers die in ways an ASGI app cannot imitate: one accepts the connection and never
answers, one sends its headers and then nothing (a local server reading a long prompt, or a
hung one), one stops in the middle of a reply. This server does exactly one of those on every
connection, with plain sockets, and keeps each connection open until it stops. It counts the
connections, so a test can tell how many attempts a client made.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Self

ACCEPT_POLL_S = 0.05
HEADERS = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"transfer-encoding: chunked\r\ncache-control: no-cache\r\n\r\n"
)
FIRST_CHUNK = {
    "id": "chatcmpl-silent",
    "object": "chat.completion.chunk",
    "created": 0,
    "model": "silent",
    "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Once"}}],
}


class Silence(StrEnum):
    NEVER_ANSWERS = "never_answers"
    """Accepts the connection, reads the request, sends nothing."""
    HEADERS_ONLY = "headers_only"
    """Sends 200 and event-stream headers, then nothing."""
    STALLS_MID_REPLY = "stalls_mid_reply"
    """Sends the headers and the first chunk of a reply, then nothing."""


@dataclass
class SilentServer:
    silence: Silence
    host: str = "127.0.0.1"
    port: int = 0
    connections: int = 0
    _listener: socket.socket | None = None
    _open: list[socket.socket] = field(default_factory=list)
    _thread: threading.Thread | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        """A base URL for any provider: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> Self:
        self._listener = socket.create_server((self.host, self.port))
        self._listener.settimeout(ACCEPT_POLL_S)
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, name="silent-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        for connection in [*self._open, self._listener]:
            if connection is not None:
                connection.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            self._open.append(connection)
            self._answer(connection)

    def _answer(self, connection: socket.socket) -> None:
        connection.settimeout(ACCEPT_POLL_S)
        _read_request_head(connection)
        if self.silence is Silence.NEVER_ANSWERS:
            return
        connection.sendall(HEADERS)
        if self.silence is Silence.STALLS_MID_REPLY:
            event = f"data: {json.dumps(FIRST_CHUNK)}\n\n".encode()
            connection.sendall(b"%x\r\n%s\r\n" % (len(event), event))


def _read_request_head(connection: socket.socket) -> None:
    """Read until the end of the request's headers, or until the client has sent no more."""
    received = b""
    while b"\r\n\r\n" not in received:
        try:
            data = connection.recv(65536)
        except TimeoutError:
            return
        if not data:
            return
        received += data
