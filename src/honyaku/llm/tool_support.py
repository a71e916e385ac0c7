"""Finding out whether a model calls tools natively, with one trivial request."""

from __future__ import annotations

from honyaku.errors import AuthError, FatalProviderError
from honyaku.llm.events import ChatProvider, Response
from honyaku.llm.messages import ChatRequest, SystemMessage, ToolSpec, UserMessage
from honyaku.llm.xml.protocol import XmlToolProtocol

PROBE_TOOL = ToolSpec(
    "report_ready",
    "Report that you are ready.",
    {"type": "object", "properties": {"ready": {"type": "boolean"}}, "required": ["ready"]},
)
_PROBE = ChatRequest(
    (
        SystemMessage("You answer by calling tools."),
        UserMessage(f"Call the {PROBE_TOOL.name} tool with ready set to true."),
    ),
    (PROBE_TOOL,),
)
_NO_TOOLS_STATUS = (400, 422, 501)


async def calls_tools_natively(provider: ChatProvider) -> bool:
    """True if the model answers a request offering one tool with a call to it.

    A server that refuses requests with tools (400, 422, 501) does not; any other failure
    (a wrong key, even one refused with a 400; an unknown model) is not an answer, and is
    raised.
    """
    try:
        async for event in provider.stream(_PROBE):
            if isinstance(event, Response):
                return any(call.name == PROBE_TOOL.name for call in event.message.tool_calls)
    except FatalProviderError as exc:
        if not isinstance(exc, AuthError) and exc.status_code in _NO_TOOLS_STATUS:
            return False
        raise
    return False


async def answers_tools_in_xml(provider: ChatProvider) -> None:
    """Return once the model answered the same request with its tool described in the XML
    protocol (no native tools sent); a server that refuses that too raises."""
    async for event in XmlToolProtocol(provider).stream(_PROBE):
        if isinstance(event, Response):
            return
