"""XML tool calling for models without native function calling.

``XmlToolProtocol`` wraps any ``ChatProvider`` and speaks tools through text:

    request:   tools ──render_tool_prompt──▶ a section appended to the system message
               history ──render_history──▶ replies as written, results as <tool_result> blocks
    response:  TextDelta ──XmlToolParser──▶ visible TextDelta + ReasoningDelta + calls
               calls ──convert_arguments (by each tool's JSON schema)──▶ ToolCall in Response

It never runs a tool: it only turns text into the same neutral events a native provider yields.
Reasoning written in the text (``<think>…</think>``) is split off before calls are looked for
(``honyaku.llm.reasoning``): calls drafted in it are never returned, it streams as
``ReasoningDelta``, it goes into ``AssistantMessage.reasoning`` and never into ``text``, and
the reply goes back next turn without it. A reply that ends inside its reasoning raises
``CutStreamError``, so ``RetryingProvider`` asks again and none of its calls run. The protocol
keeps a ``ReplyOpening``: once a reply shows that the server puts ``<think>`` in the prompt,
the next ones are read as beginning inside the block, so their reasoning streams as such.
A call that cannot be read (unclosed block, bad value, runaway reply) becomes a ``ToolCall``
with an ``error``, which the loop reports back to the model and never runs. Error codes:

- ``INVALID_PARAMETER``: a value does not fit its parameter's schema (``convert_arguments``).
- ``MALFORMED_TOOL_CALL``: a block the parser could not read as a call (unclosed, no name…).
- ``REPLY_TOO_LONG``: the reply passed the parser's character cap and was cut there.

Everything sent is a pure function of the request, so the same history renders to the same
bytes every turn and provider prefix caches keep hitting.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence

from honyaku.llm.events import (
    CallStreaming,
    ChatProvider,
    ReasoningDelta,
    Response,
    Retry,
    StreamEvent,
    TextDelta,
)
from honyaku.llm.messages import (
    AS_WRITTEN,
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallError,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from honyaku.llm.reasoning import (
    BeganInReasoning,
    ReasoningText,
    ReplyOpening,
    ReplySplit,
    UnclosedReasoning,
    VisibleText,
)
from honyaku.llm.wrapper import ProviderWrapper
from honyaku.llm.xml.arguments import convert_arguments
from honyaku.llm.xml.parser import (
    MalformedInvoke,
    ParsedInvoke,
    ParserEvent,
    ReplyTooLong,
    XmlToolParser,
)
from honyaku.llm.xml.prompt import render_tool_call, render_tool_prompt

MALFORMED_TOOL_CALL = "MALFORMED_TOOL_CALL"
REPLY_TOO_LONG = "REPLY_TOO_LONG"

XML_TEXT_REPLAY_KEY = AS_WRITTEN
"""``AssistantMessage.replay`` key holding the reply exactly as the model wrote it, less its
reasoning: templates drop earlier reasoning, and sending it back costs tokens."""
XML_CALL_ID_PREFIX = "xml_"
UNNAMED_CALL = "tool_use"
"""The name given to a call whose tool name could not be read."""

_CALL_FORMAT_HINT = (
    'Write each call as <tool_use><invoke name="TOOL"><parameter name="PARAM">VALUE'
    "</parameter></invoke></tool_use>."
)


def render_tool_results(results: Sequence[ToolResultMessage]) -> str:
    """The text of the one user message that carries a turn's results, in call order."""
    return "\n".join(
        f'<tool_result name="{result.name}">{result.content}</tool_result>' for result in results
    )


def render_history(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The conversation as a provider without tools must see it.

    A reply goes back as its exact text (``replay[AS_WRITTEN]``), or, for a reply that came
    another way or whose calls were rewritten since (``with_arguments``), as its text followed
    by its calls as blocks. The results that follow a reply
    become one user message.
    """
    rendered: list[Message] = []
    results: list[ToolResultMessage] = []
    for message in messages:
        if isinstance(message, ToolResultMessage):
            results.append(message)
            continue
        if results:
            rendered.append(UserMessage(render_tool_results(results)))
            results = []
        if isinstance(message, AssistantMessage):
            rendered.append(_render_reply(message))
        else:
            rendered.append(message)
    if results:
        rendered.append(UserMessage(render_tool_results(results)))
    return tuple(rendered)


def _render_reply(message: AssistantMessage) -> AssistantMessage:
    xml_text = message.replay.get(XML_TEXT_REPLAY_KEY)
    calls = message.tool_calls
    text = message.text
    if isinstance(xml_text, str):
        text = xml_text
        # Calls read from the text are in it already; only native extras need writing out.
        calls = tuple(call for call in calls if not call.id.startswith(XML_CALL_ID_PREFIX))
    blocks = [render_tool_call(call) for call in calls]
    text = "\n\n".join([text, *blocks] if text else blocks)
    replay = {key: value for key, value in message.replay.items() if key != XML_TEXT_REPLAY_KEY}
    return AssistantMessage(text=text, reasoning=message.reasoning, replay=replay)


def render_request(request: ChatRequest, language: str = "en") -> ChatRequest:
    """The request the inner provider gets: rendered history, tool section, no native tools,
    and the reply's text to be handed over as written (the parser reads its think tags)."""
    messages = render_history(request.messages)
    if request.tools:
        messages = _with_tool_section(messages, render_tool_prompt(request.tools, language))
    return ChatRequest(messages=messages, tools=(), raw_text=True)


def _with_tool_section(messages: tuple[Message, ...], section: str) -> tuple[Message, ...]:
    """Append ``section`` to the first system message, or open the conversation with it."""
    for index, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            text = f"{message.text}\n\n{section}" if message.text else section
            return (*messages[:index], SystemMessage(text), *messages[index + 1 :])
    return (SystemMessage(section), *messages)


class XmlToolProtocol(ProviderWrapper):
    """A ``ChatProvider`` that gives tools to a model through text, on top of ``inner``.

    ``inner`` is used without native tools. ``language`` picks the prompt section's wording.
    """

    def __init__(self, inner: ChatProvider, *, language: str = "en") -> None:
        super().__init__(inner)
        self.language = language
        self.opening = ReplyOpening()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        turn = request.turn
        tools = {tool.name: tool for tool in request.tools}
        reply = _ReplyReader(turn, tools, self.opening)
        async for event in self.inner.stream(render_request(request, self.language)):
            if isinstance(event, TextDelta):
                for delta in reply.feed(event.text):
                    yield delta
            elif isinstance(event, Retry):
                reply = _ReplyReader(turn, tools, self.opening)  # the attempt is discarded
                yield event
            elif isinstance(event, Response):
                for delta in reply.finish(event.message.text):
                    yield delta
                yield reply.response(event)
            else:
                yield event


class _ReplyReader:
    """One attempt at a reply: its parser, its answer and reasoning, and its calls so far."""

    def __init__(self, turn: int, tools: Mapping[str, ToolSpec], opening: ReplyOpening) -> None:
        self._turn = turn
        self._tools = tools
        self._split = ReplySplit(opening)
        self._parser = XmlToolParser(inside_reasoning=self._split.inside)
        self._fed = False
        self._calls: list[ToolCall] = []
        self._announced = 0
        self._drafts = 0

    def feed(self, text: str) -> list[TextDelta | ReasoningDelta | CallStreaming]:
        self._fed = self._fed or bool(text)
        return self._take(self._parser.feed(text))

    def finish(self, final_text: str) -> list[TextDelta | ReasoningDelta | CallStreaming]:
        """The last deltas; raises ``CutStreamError`` if the reply ended inside reasoning."""
        # A provider that never streamed deltas still hands the whole text over here.
        deltas = self.feed(final_text) if not self._fed and final_text else []
        deltas += self._take(self._parser.close())
        deltas += self._split.finish()
        return deltas + self._calls_begun()

    def response(self, inner: Response) -> Response:
        replay = {**inner.message.replay, XML_TEXT_REPLAY_KEY: self._parser.answer_text}
        reasoning = (inner.message.reasoning or "") + self._split.reasoning
        message = AssistantMessage(
            text=self._split.answer,
            tool_calls=(*self._calls, *inner.message.tool_calls),
            reasoning=reasoning or None,
            replay=replay,
        )
        return Response(message, inner.finish_reason, inner.usage, inner.timing)

    def _take(self, events: list[ParserEvent]) -> list[TextDelta | ReasoningDelta | CallStreaming]:
        deltas: list[TextDelta | ReasoningDelta | CallStreaming] = []
        for event in events:
            if isinstance(
                event, VisibleText | ReasoningText | BeganInReasoning | UnclosedReasoning
            ):
                if isinstance(event, BeganInReasoning):
                    self._calls = []  # drafted while thinking: never run, never announced
                    self._announced = self._drafts = len(self._parser.opened)
                deltas += self._split.take(event)
            else:
                self._calls.append(self._to_call(event))
        return deltas + self._calls_begun()

    def _calls_begun(self) -> list[CallStreaming]:
        """A ``CallStreaming`` for each call begun since the last; none while what streams is
        held back, as those calls may turn out to be drafts."""
        if self._split.holding:
            return []
        first = self._announced - self._drafts
        begun = self._parser.opened[self._announced :]
        self._announced = len(self._parser.opened)
        return [CallStreaming(first + n, name) for n, name in enumerate(begun)]

    def _to_call(self, event: ParsedInvoke | MalformedInvoke | ReplyTooLong) -> ToolCall:
        call_id = f"{XML_CALL_ID_PREFIX}{self._turn}_{len(self._calls) + 1}"
        if isinstance(event, ParsedInvoke):
            tool = self._tools.get(event.name)
            arguments, error = convert_arguments(event.params, tool.parameters if tool else {})
            raw = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
            return ToolCall(call_id, event.name, arguments, raw, error)
        if isinstance(event, MalformedInvoke):
            error = ToolCallError(MALFORMED_TOOL_CALL, f"{event.reason}. {_CALL_FORMAT_HINT}")
            return ToolCall(call_id, event.name or UNNAMED_CALL, {}, event.raw, error)
        message = (
            f"the reply passed {event.limit_chars:,} characters and was not read further; "
            "no call after that point was run. Make several smaller calls instead."
        )
        return ToolCall(call_id, UNNAMED_CALL, {}, "", ToolCallError(REPLY_TOO_LONG, message))
