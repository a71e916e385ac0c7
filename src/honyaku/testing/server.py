"""Running an ASGI app on 127.0.0.1 in a background thread: a real server for tests and demos."""

from __future__ import annotations

import threading
import time
from typing import Any, Self

import uvicorn

START_TIMEOUT_S = 10.0


class BackgroundServer:
    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", ws="none", lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="honyaku-server", daemon=True)

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on {self.host}:{self.port} did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=START_TIMEOUT_S)

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Served:
    """Start, stop and ``with`` for a fake server with ``host``, ``port`` and an ``app()``."""

    host: str
    port: int
    _server: BackgroundServer | None

    def app(self) -> Any:
        raise NotImplementedError

    def start(self) -> Self:
        self._server = BackgroundServer(self.app(), host=self.host, port=self.port).start()
        self.port = self._server.port
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
