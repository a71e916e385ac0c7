"""The web workbench as an ASGI app: every resource's routes (its pages and its API), static
files, one error format.

Errors never show a traceback: honyaku's own errors become their one line, with the HTTP
status that fits (400 for the person's mistake, 404 for what is not there, 502 when a model's
server failed); anything else is logged and answered "something went wrong". API paths
answer JSON, pages answer a page.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from honyaku import __version__
from honyaku.errors import (
    DuplicateBookError,
    HonyakuError,
    NotFoundError,
    ProviderError,
    UserError,
)
from honyaku.web import (
    books,
    cast,
    chat,
    editions,
    glossary,
    i18n,
    jobs,
    keys,
    left,
    models,
    quality,
    questions,
    ratings,
    search,
    trials,
)
from honyaku.web.guard import BodyLimit, Guard, SecurityHeaders
from honyaku.web.i18n import Language, _, language_of, message_of, speak
from honyaku.web.templating import error_page
from honyaku.web.words import N_
from honyaku.web.workbench import Workbench

log = logging.getLogger("honyaku.web")


def create_app(
    bench: Workbench, *, hosts: Collection[str] | None, token: str | None = None
) -> FastAPI:
    """The app serving ``bench``; see ``web.guard`` for ``hosts`` and ``token``."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        with bench.honyaku.broker.attached(bench.front_end):
            yield
            await bench.honyaku.aclose()

    app = FastAPI(
        title="honyaku",
        version=__version__,
        description="The honyaku workbench: books, jobs, and the person's questions.",
        lifespan=lifespan,
        # Swagger UI and ReDoc load their scripts from a CDN, which the workbench's own
        # policy (scripts from the workbench only) blocks: not served, rather than served
        # blank. The API is described at /openapi.json.
        docs_url=None,
        redoc_url=None,
    )
    app.state.workbench = bench
    # In this order /openapi.json lists their operations.
    resources = (
        books,
        models,
        keys,
        jobs,
        questions,
        editions,
        chat,
        glossary,
        cast,
        quality,
        ratings,
        left,
        trials,
        search,
    )
    for resource in resources:
        app.include_router(resource.router, dependencies=[Depends(books.no_trial_copy)])
    app.include_router(i18n.router)  # the language switch
    app.mount("/static", StaticFiles(directory=Path(__file__).with_name("static")), "static")
    app.add_exception_handler(HonyakuError, _honyaku_error)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
    app.add_middleware(BodyLimit, limit_bytes=lambda: bench.upload_limit_bytes)
    app.add_middleware(Guard, hosts=hosts, token=token)
    app.add_middleware(_HeadAsGet)
    app.add_middleware(Language)
    app.add_middleware(SecurityHeaders)
    return app


class _HeadAsGet:
    """``HEAD`` answers what ``GET`` would, without the body: FastAPI's routes know only the
    methods they name, and a page or a download should answer both."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        ended = False

        async def headers_only(message: Message) -> None:
            nonlocal ended
            if message["type"] == "http.response.body":
                if ended:
                    return
                ended, message = True, {**message, "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def _status(error: HonyakuError) -> int:
    if isinstance(error, NotFoundError):
        return 404
    if isinstance(error, DuplicateBookError):
        return 409
    if isinstance(error, UserError):
        return 400
    if isinstance(error, ProviderError):
        return 502
    return 500


def _answer(
    request: Request, status: int, message: str, headers: Mapping[str, str] | None = None
) -> Response:
    """``message`` (English, as the catalog knows it) in the reader's language."""
    speak(language_of(request.headers))  # handlers outside the app's middleware run here too
    message = _(message)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": message}, status, headers=headers)
    answer = error_page(request, status, message)
    answer.headers.update(headers or {})
    return answer


async def _honyaku_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HonyakuError)
    speak(language_of(request.headers))
    return _answer(request, _status(error), message_of(error))


async def _invalid_request(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    problems = "; ".join(
        f"{'.'.join(_field_path(problem['loc'][1:])) or 'body'}: "
        + str(problem["msg"]).removeprefix("Value error, ")
        for problem in error.errors()
    )
    return _answer(request, 422, problems or N_("the request is not valid"))


def _field_path(location: Sequence[int | str]) -> list[str]:
    # Pydantic names its own validators in a location ("function-before[…]"): not a field.
    return [str(part) for part in location if not str(part).endswith("]")]


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    messages = {
        404: N_("there is nothing at this address"),
        405: N_("that method is not allowed here"),
    }
    message = messages.get(error.status_code, str(error.detail))
    headers = dict(error.headers or {})
    if error.status_code == 405:
        headers["Allow"] = ", ".join(_allowed_methods(request))
    return _answer(request, error.status_code, message, headers)


ROUTED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route takes at the request's path: one path may be served by
    several routes (``GET`` and ``POST /api/books``), each knowing only its own. Asked of
    the router as a request of each method would be, routers included however FastAPI
    keeps them."""
    methods = {
        method
        for method in ROUTED_METHODS
        for route in request.app.router.routes
        if route.matches({**request.scope, "method": method})[0] is Match.FULL
    }
    if "GET" in methods:
        methods.add("HEAD")  # as _HeadAsGet answers it
    return sorted(methods)


async def _unexpected(request: Request, error: Exception) -> Response:
    log.exception("unexpected error on %s", request.url.path)
    # The server drops the connection after an unexpected error: say so, so that the client
    # opens a new one for its next request instead of failing it.
    return _answer(
        request,
        500,
        N_("something went wrong in honyaku; the log has the details"),
        {"Connection": "close"},
    )
