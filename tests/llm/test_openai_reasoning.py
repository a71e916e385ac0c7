"""Reasoning in native Chat Completions replies, over HTTP against the thinking fake model.

Servers without a reasoning parser put ``<think>…</think>`` into ``content``, and some of their
tool parsers read the calls drafted in it as real calls; servers with one send
``reasoning_content``. Either way the answer holds no reasoning and no draft runs, and the
reasoning goes back next turn only to a provider told to send it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from honyaku.errors import CutStreamError
from honyaku.llm.events import (
    ArgumentsDelta,
    ReasoningDelta,
    Response,
    Retry,
    StreamEvent,
    TextDelta,
    Waiting,
)
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    SystemMessage,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.openai_stream import ReplyAssembler
from honyaku.llm.reasoning import (
    BeganInReasoning,
    ReasoningSplitter,
    ReasoningText,
    ReplyOpening,
    SplitEvent,
    UnclosedReasoning,
    VisibleText,
)
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.testing import DRAFT_MARK, FakeLLMServer, Fault, FaultKind, Thinking, ThoughtPlace

TOOLS = tuple(
    ToolSpec(name, "", {"type": "object"})
    for name in ("update_task_status", "add_translation_batch", "update_chapter_title")
)
CHUNK = ChatRequest(
    (
        SystemMessage("You translate."),
        UserMessage("chapter_id: c0ffee00\ntitle: 序章\n[1] [ID: 0a1b2c3d] 彼は歩いた。"),
    ),
    TOOLS,
)
REAL_CALLS = [
    ("update_task_status", {"status": "working"}),
    ("update_chapter_title", {"chapter_id": "c0ffee00"}),
    ("add_translation_batch", {"paragraphs": [{"paragraph_id": "0a1b2c3d"}]}),
    ("update_task_status", {"status": "review"}),
    ("update_task_status", {"status": "end"}),
]


@pytest.fixture
def thinker() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(thinking=Thinking(), delta_chars=16) as server:
        yield server


@pytest.fixture
async def provider(thinker: FakeLLMServer) -> AsyncIterator[OpenAICompatibleProvider]:
    provider = OpenAICompatibleProvider(model="fake", base_url=thinker.url)
    yield provider
    await provider.aclose()


async def reply_to(provider: Any, request: ChatRequest = CHUNK) -> list[StreamEvent]:
    return [event async for event in provider.stream(request)]


def final(events: list[StreamEvent]) -> Response:
    assert isinstance(events[-1], Response)
    return events[-1]


def shown(events: list[StreamEvent], kind: type[TextDelta | ReasoningDelta]) -> str:
    return "".join(event.text for event in events if isinstance(event, kind))


def assert_only_the_real_calls(message: AssistantMessage) -> None:
    """The five calls the fake makes, none of the three it drafted while thinking."""
    calls = [(call.name, dict(call.arguments)) for call in message.tool_calls]
    assert [name for name, _ in calls] == [name for name, _ in REAL_CALLS]
    assert DRAFT_MARK not in json.dumps(calls, ensure_ascii=False)
    assert calls[2][1]["paragraphs"][0]["paragraph_id"] == "0a1b2c3d"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "thinking",
    [
        Thinking(),
        Thinking(element="thinking"),
        Thinking(element="reasoning"),
        Thinking(opened_in_prompt=True),
    ],
    ids=["<think>", "<thinking>", "<reasoning>", "only </think>"],
)
async def test_think_in_content_is_reasoning_and_calls_streamed_in_it_are_drafts(
    thinker: FakeLLMServer, provider: OpenAICompatibleProvider, thinking: Thinking
) -> None:
    thinker.thinking = thinking
    for _ in range(2):  # the second reply is read knowing how the first began
        events = await reply_to(provider)

        message = final(events).message
        assert_only_the_real_calls(message)
        assert message.text == shown(events, TextDelta) == "Working on it."
        assert message.reasoning == shown(events, ReasoningDelta)
        assert message.reasoning.startswith("\nThe chunk is in front of me.")
        assert DRAFT_MARK in message.reasoning
        assert "<think" not in message.reasoning


@pytest.mark.anyio
async def test_a_reply_begun_in_thought_streams_its_reasoning_from_the_first_byte_once_known(
    thinker: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    thinker.thinking = Thinking(opened_in_prompt=True)
    silent = (ArgumentsDelta, Waiting)
    first = [e for e in await reply_to(provider) if not isinstance(e, silent)]
    second = [e for e in await reply_to(provider) if not isinstance(e, silent)]

    assert isinstance(first[0], ReasoningDelta)
    assert len(first[0].text) > 100  # held back until the closer showed it was reasoning
    assert isinstance(second[0], ReasoningDelta)
    assert len(second[0].text) == 16  # one delta as the server sent it


@pytest.mark.anyio
async def test_content_that_never_closes_its_think_block_is_a_cut_reply(
    thinker: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    thinker.faults.append(Fault(FaultKind.UNCLOSED_THINKING))

    with pytest.raises(CutStreamError, match="ended inside its <think> block"):
        await reply_to(provider)


@pytest.mark.anyio
async def test_an_unclosed_think_block_is_retried_and_only_the_retry_is_returned(
    thinker: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    thinker.faults.append(Fault(FaultKind.UNCLOSED_THINKING))

    events = await reply_to(RetryingProvider(provider, RetryPolicy(base_s=0)))

    assert sum(isinstance(event, Retry) for event in events) == 1
    assert_only_the_real_calls(final(events).message)
    assert len(thinker.requests) == 2


@pytest.mark.anyio
async def test_a_reply_not_streamed_is_split_too(
    thinker: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    provider.streaming = False

    message = final(await reply_to(provider)).message

    assert_only_the_real_calls(message)
    assert message.text == "Working on it."
    assert message.reasoning is not None
    assert DRAFT_MARK in message.reasoning


@pytest.mark.anyio
async def test_a_request_for_the_text_as_written_gets_its_think_tags(
    provider: OpenAICompatibleProvider,
) -> None:
    request = ChatRequest(CHUNK.messages, raw_text=True)

    message = final(await reply_to(provider, request)).message

    assert message.text.startswith("<think>\nThe chunk is in front of me.")
    assert message.reasoning is None


@pytest.mark.anyio
async def test_usage_counts_reasoning_tokens_apart(
    thinker: FakeLLMServer, provider: OpenAICompatibleProvider
) -> None:
    thinking = final(await reply_to(provider)).usage
    thinker.thinking = None
    plain = final(await reply_to(provider)).usage

    assert thinking.output_tokens is not None
    assert thinking.reasoning_tokens is not None
    assert 0 < thinking.reasoning_tokens < thinking.output_tokens
    assert plain.reasoning_tokens is None


async def second_turn(
    server: FakeLLMServer, provider: OpenAICompatibleProvider
) -> tuple[AssistantMessage, dict[str, Any]]:
    """The first reply, and how the provider sends it back in the second request."""
    message = final(await reply_to(provider)).message
    results = [ToolResultMessage(c.id, c.name, '{"success": false}') for c in message.tool_calls]
    await reply_to(provider, ChatRequest((*CHUNK.messages, message, *results), TOOLS))
    return message, server.requests[-1]["messages"][2]


@pytest.mark.anyio
@pytest.mark.parametrize("replay_reasoning", [False, True], ids=["by default", "when told"])
async def test_reasoning_content_goes_back_exactly_only_when_the_provider_is_told(
    thinker: FakeLLMServer, replay_reasoning: bool
) -> None:
    thinker.thinking = Thinking(ThoughtPlace.FIELD)
    provider = OpenAICompatibleProvider(
        model="fake", base_url=thinker.url, replay_reasoning=replay_reasoning
    )

    reply, wire = await second_turn(thinker, provider)
    await provider.aclose()

    assert reply.reasoning is not None
    assert reply.reasoning.startswith("\nThe chunk is in front of me.")
    assert wire["content"] == "Working on it."
    assert wire.get("reasoning_content") == (reply.reasoning if replay_reasoning else None)


@pytest.mark.anyio
@pytest.mark.parametrize("replay_reasoning", [False, True], ids=["by default", "when told"])
async def test_reasoning_split_out_of_content_never_goes_back(
    thinker: FakeLLMServer, replay_reasoning: bool
) -> None:
    provider = OpenAICompatibleProvider(
        model="fake", base_url=thinker.url, replay_reasoning=replay_reasoning
    )

    reply, wire = await second_turn(thinker, provider)
    await provider.aclose()

    assert reply.reasoning is not None
    assert wire["content"] == "Working on it."
    assert "reasoning_content" not in wire
    assert DRAFT_MARK not in json.dumps(wire, ensure_ascii=False)


def test_a_server_that_sends_both_reasoning_fields_is_read_once_and_replayed_as_sent() -> None:
    assembler = ReplyAssembler(opening=ReplyOpening())
    for piece in ("Let me ", "think."):
        delta = {"reasoning_content": piece, "reasoning": piece}
        assembler.add_chunk({"choices": [{"delta": delta}]})
    assembler.add_chunk({"choices": [{"delta": {"content": "Hi."}, "finish_reason": "stop"}]})
    assembler.finish()

    message = assembler.message(0)

    assert message.reasoning == "Let me think."
    assert message.replay == {"reasoning_content": "Let me think.", "reasoning": "Let me think."}


# --- The splitter for text without tool blocks ----------------------------------------------------


def split(chunks: list[str], inside: str | None = None) -> tuple[str, str, list[SplitEvent]]:
    """Answer, reasoning, and the events that are neither, as ``ReplySplit`` reads them."""
    splitter = ReasoningSplitter(inside=inside)
    events = [event for chunk in chunks for event in splitter.feed(chunk)] + splitter.close()
    answer: list[str] = []
    reasoning: list[str] = []
    other: list[SplitEvent] = []
    for event in events:
        if isinstance(event, VisibleText):
            answer.append(event.text)
        elif isinstance(event, ReasoningText):
            reasoning.append(event.text)
        elif isinstance(event, BeganInReasoning):
            answer = []
            reasoning.append(event.reasoning)
        else:
            other.append(event)
    return "".join(answer), "".join(reasoning), other


def test_the_splitter_reads_every_marker_and_a_bare_closer() -> None:
    assert split(["a<think>b</think>c<thinking>d</thinking>e<reasoning>f</reasoning>g"]) == (
        "aceg",
        "bdf",
        [],
    )
    assert split(["plan</think>answer"]) == ("answer", "plan", [])
    assert split(["plan</think>answer"], inside="think") == ("answer", "plan", [])
    assert split(["<think>plan </thi"]) == ("", "plan </thi", [UnclosedReasoning("think")])


def test_the_splitter_streams_holding_back_only_a_partial_tag() -> None:
    splitter = ReasoningSplitter()
    assert splitter.feed("Hi <thi") == [VisibleText("Hi ")]
    assert splitter.feed("nk>plan </th") == [ReasoningText("plan ")]
    assert splitter.in_reasoning
    assert splitter.feed("ink>ok") == [VisibleText("ok")]
    assert not splitter.in_reasoning


PIECES = st.sampled_from(
    ["a", " ", "<", ">", "</", "<think>", "</think>", "<thinking>", "</thinking>", "<thin",
     "</reasoning>", "<reasoning>", "考", "<b>"]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(PIECES, max_size=20).map("".join),
    sizes=st.lists(st.integers(1, 12), min_size=1, max_size=8),
    inside=st.sampled_from([None, "think"]),
)
def test_the_splitter_reads_any_text_the_same_however_it_is_cut(
    text: str, sizes: list[int], inside: str | None
) -> None:
    chunks, pos = [], 0
    while pos < len(text):
        size = sizes[len(chunks) % len(sizes)]
        chunks.append(text[pos : pos + size])
        pos += size
    assert split(chunks, inside) == split([text], inside)
