"""Checking a model before work is sent to it: one cheap request that says what works.

The request is the one ``auto`` asks with (``tool_support``): a trivial tool offered, and
the model asked to call it. Its answer tells whether the server is reachable, whether it
took the key, and whether the model calls tools natively. A model that does not is asked
again with the tool in the XML protocol: a model works only once a request with tools was
answered, so a server that refuses every request never "works". Nothing is retried: a check
says how things stand now, quickly. A local server is asked first whether the model is
there at all (``server_info``): one it has not, or one still loading, is said in one line
without a request.

Whatever kept the request from being answered (a refused connection, an unknown host, a
timeout, something that does not speak HTTP) is said in one neutral line: the check tells
no more of another machine's ports than whether a model server answered.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from honyaku.errors import (
    AuthError,
    ConfigError,
    ProviderError,
    TransientProviderError,
    UnreachableError,
)
from honyaku.llm.models import ModelChoice, ModelMemory, ToolProtocol, model_status
from honyaku.llm.pace import ServerPace
from honyaku.llm.timeouts import Timeouts
from honyaku.llm.tool_support import answers_tools_in_xml, calls_tools_natively

CHECK_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class ModelCheck:
    """What one request found; ``None`` where it could not tell."""

    reachable: bool | None
    key_accepted: bool | None
    native_tools: bool | None
    key_variable: str | None
    """The name the key goes by (an environment variable's, or a key's in the key store),
    if there is one."""
    problem: str | None = None
    """What went wrong, in one line, where something did."""
    key_source: str | None = None
    """Where the key was found (``$DEEPSEEK_API_KEY``, ``DEEPSEEK_API_KEY in the key
    store``), if it was; never the key."""

    @property
    def works(self) -> bool:
        return bool(self.reachable and self.key_accepted is not False and not self.problem)


async def check_model(choice: ModelChoice, memory: ModelMemory | None = None) -> ModelCheck:
    """Ask the chosen model once; with ``memory``, an ``auto`` profile's verdict is kept."""
    kind = choice.check()
    variable = choice.key_variable
    try:
        # A key may be read from a keyring (over D-Bus, maybe behind an unlock dialog). One
        # that may not go to this server is refused before it is even looked up.
        await asyncio.to_thread(choice.check_key)
        found = await asyncio.to_thread(lambda: choice.found_key)
    except ConfigError as exc:
        return ModelCheck(None, False, None, variable, str(exc))
    source = found.source if found else None
    if kind.native_tools is not None:
        return ModelCheck(True, True, kind.native_tools, None)
    status = await model_status(choice, memory) if memory is not None else None
    if status is not None and status.absence:
        return ModelCheck(True, None, None, variable, status.absence)
    timeouts = Timeouts(CHECK_TIMEOUT_S, CHECK_TIMEOUT_S, CHECK_TIMEOUT_S)
    pace = ServerPace(timeouts, status.pace if status else None)
    server = await asyncio.to_thread(kind.connect, choice, pace, None)
    try:
        native = await calls_tools_natively(server)
        if not native:
            await answers_tools_in_xml(server)
    except (UnreachableError, TransientProviderError) as exc:
        if isinstance(exc, UnreachableError) or exc.status_code is None:
            return ModelCheck(False, None, None, variable, unanswered(choice))
        return ModelCheck(True, None, None, variable, str(exc))
    except AuthError as exc:
        return ModelCheck(True, False, None, variable, str(exc))
    except ProviderError as exc:
        return ModelCheck(True, None, None, variable, str(exc))
    finally:
        await server.aclose()
    if memory is not None and choice.protocol is ToolProtocol.AUTO:
        url = (choice.endpoint or kind.default_url or kind.name).rstrip("/")
        verdict = ToolProtocol.NATIVE if native else ToolProtocol.XML
        await asyncio.to_thread(memory.remember_protocol, url, server.model, verdict.value)
    return ModelCheck(True, True, native, variable if found else None, key_source=source)


def unanswered(choice: ModelChoice) -> str:
    """One line for every way a request can go unanswered, the same for each."""
    return (
        f"no model server answered at {choice.printable_endpoint}: is it running, and is the "
        "address right?"
    )
