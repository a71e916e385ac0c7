"""The browser as a front end of the broker: questions and approvals on every open page.

The broker hands over one request at a time. It is shown on every page of the workbench
that is open, as one full-screen dialog; the first answer, from any page, closes it
everywhere. Pages follow the dialog through ``watch``: that stream also tells who
is there. With no page open, a request waits a short grace period (a page reloading comes
back), then fails with the readable no-front-end reason, as in a terminal-less run: the
model is never left hanging on nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from honyaku.agent.broker import (
    ApprovalRequest,
    PersonReply,
    PersonRequest,
)
from honyaku.agent.replies import checked_reply, request_record
from honyaku.errors import NoFrontEndError, NotFoundError

GRACE_S = 10.0
NOBODY = (
    "nobody can answer: no page of the honyaku workbench is open to ask the translator. "
    "Decide yourself and go on; mention the doubt in your work if it matters."
)


@dataclass
class _Shown:
    id: str
    request: PersonRequest
    reply: asyncio.Future[PersonReply] = field(default_factory=asyncio.Future)


class WebFrontEnd:
    def __init__(self, grace_s: float = GRACE_S) -> None:
        self.grace_s = grace_s
        self._shown: _Shown | None = None
        self._pages: set[asyncio.Queue[dict[str, Any]]] = set()
        self._present = asyncio.Event()
        self._absent = asyncio.Event()
        self._absent.set()

    @property
    def shown(self) -> dict[str, Any] | None:
        """The request on screen now, as pages draw it."""
        return _describe(self._shown) if self._shown else None

    async def ask(self, request: PersonRequest) -> PersonReply:
        await self._someone_there()
        shown = _Shown(secrets.token_hex(4), request)
        self._shown = shown
        self._tell({"type": "shown", **_describe(shown)})
        try:
            return await self._reply_to(shown)
        finally:
            self._shown = None
            self._tell({"type": "closed", "id": shown.id})

    def answer(self, request_id: str, reply: dict[str, Any]) -> None:
        """The person's answer, from any page; checked against what was asked."""
        shown = self._shown
        if shown is None or shown.id != request_id or shown.reply.done():
            raise NotFoundError(
                "nothing with id {request_id!r} is waiting for an answer", request_id=request_id
            )
        shown.reply.set_result(checked_reply(shown.request, reply))

    async def watch(self) -> AsyncIterator[dict[str, Any]]:
        """What a page shows, from now on: the request on screen, then every change."""
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._pages.add(queue)
        self._present.set()
        self._absent.clear()
        try:
            if self._shown is not None:
                yield {"type": "shown", **_describe(self._shown)}
            while True:
                yield await queue.get()
        finally:
            self._pages.discard(queue)
            if not self._pages:
                self._present.clear()
                self._absent.set()

    def _tell(self, message: dict[str, Any]) -> None:
        for queue in self._pages:
            queue.put_nowait(message)

    async def _someone_there(self) -> None:
        try:
            await asyncio.wait_for(self._present.wait(), self.grace_s)
        except TimeoutError:
            raise NoFrontEndError(NOBODY) from None

    async def _reply_to(self, shown: _Shown) -> PersonReply:
        """The answer; or, once every page has been gone for the grace period, no one's."""
        while True:
            gone = asyncio.ensure_future(self._absent.wait())
            either: set[asyncio.Future[Any]] = {shown.reply, gone}
            try:
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            finally:
                gone.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await gone
            if shown.reply.done():
                return shown.reply.result()
            await self._someone_there()


def _describe(shown: _Shown) -> dict[str, Any]:
    request = shown.request
    if isinstance(request, ApprovalRequest):
        return {
            "id": shown.id,
            "kind": "approval",
            "asker": request.asker,
            "tool": request.tool,
            "arguments": dict(request.arguments),
        }
    return {"id": shown.id, "kind": "question", **request_record(request)}
