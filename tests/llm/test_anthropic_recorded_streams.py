"""Anthropic replies recorded from the real API (tests/fixtures/streams/anthropic/) read to the
text, thinking, calls and usage they hold."""

from __future__ import annotations

import json
from typing import Any

import pytest

from honyaku.domain.pricing import Prices
from honyaku.llm.anthropic import REPLAY_KEY, AnthropicReplyAssembler, anthropic_usage
from honyaku.llm.anthropic.reply import message_events
from honyaku.llm.anthropic.request import wire_messages
from honyaku.llm.events import ArgumentsDelta, CallStreaming, ReasoningDelta, TextDelta
from honyaku.llm.messages import ChatRequest, UserMessage
from honyaku.store.jobs import JobCost

from ..conftest import STREAMS

pytestmark = pytest.mark.backends("sqlite")
RECORDED = STREAMS / "anthropic"


def events_of(name: str) -> list[dict[str, Any]]:
    """The events of a recorded SSE body: each ``data:`` line's JSON (padded as on the wire)."""
    text = (RECORDED / name).read_text(encoding="utf-8")
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


def assembled(events: list[dict[str, Any]]) -> tuple[AnthropicReplyAssembler, list[Any]]:
    assembler = AnthropicReplyAssembler()
    deltas = [delta for event in events for delta in assembler.add_event(event)]
    return assembler, deltas


def test_text_then_two_calls_split_mid_key_read_whole():
    assembler, deltas = assembled(events_of("stream_tool_use.sse"))

    message = assembler.message()
    assert assembler.finish_reason == "tool_calls"
    assert [(c.name, dict(c.arguments)) for c in message.tool_calls] == [
        ("get_weather", {"location": "San Francisco, CA", "unit": "celsius"}),
        ("get_time", {"timezone": "America/Los_Angeles"}),
    ]
    assert all(call.error is None for call in message.tool_calls)
    assert message.text == "".join(d.text for d in deltas if isinstance(d, TextDelta))
    assert [d.name for d in deltas if isinstance(d, CallStreaming)] == ["get_weather", "get_time"]
    assert "".join(d.text for d in deltas if isinstance(d, ArgumentsDelta)).count("{") == 2


def test_thinking_is_reasoning_kept_with_its_signature_and_never_the_answer():
    assembler, deltas = assembled(events_of("stream_thinking_tool_use.sse"))

    message = assembler.message()
    assert message.text == ""
    assert message.reasoning is not None
    assert message.reasoning.startswith("The user wants")
    assert all(not isinstance(d, TextDelta) for d in deltas)
    assert "".join(d.text for d in deltas if isinstance(d, ReasoningDelta)) == message.reasoning
    [call] = message.tool_calls
    assert (call.name, dict(call.arguments)) == ("get_temperature", {"city": "Utrecht"})
    thinking, tool_use = message.replay[REPLAY_KEY]
    assert thinking["type"] == "thinking"
    assert thinking["signature"].startswith("EqsDCpQBCBAY")
    assert tool_use == {
        "type": "tool_use",
        "id": "toolu_01TUGHRCfso8VSw9ekt21nAR",
        "name": "get_temperature",
        "input": {"city": "Utrecht"},
    }
    usage = anthropic_usage(ChatRequest((UserMessage("?"),)), message, assembler.usage)
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (597, 101, 45)


def test_a_reply_goes_back_as_it_came_thinking_first():
    assembler, _ = assembled(events_of("stream_thinking_tool_use.sse"))
    message = assembler.message()

    _, turns = wire_messages([UserMessage("How warm is Utrecht?"), message])

    assert turns[1] == {"role": "assistant", "content": message.replay[REPLAY_KEY]}


def test_a_call_without_arguments_has_an_empty_input_and_an_empty_last_thought_is_dropped():
    assembler, deltas = assembled(events_of("stream_thinking_tool_use_no_args.sse"))

    message = assembler.message()
    [call] = message.tool_calls
    assert (call.name, dict(call.arguments), call.error) == ("fixed_version", {}, None)
    assert all(d.text for d in deltas if isinstance(d, ReasoningDelta))
    assert assembler.usage["output_tokens_details"] == {"thinking_tokens": 53}


@pytest.mark.parametrize(
    ("name", "read", "written"),
    [("stream_cache_creation.sse", 0, 1165), ("stream_cache_read.sse", 1165, 0)],
)
def test_cache_writes_and_reads_are_counted_and_billed_apart(name, read, written):
    assembler, _ = assembled(events_of(name))

    message = assembler.message()
    usage = anthropic_usage(ChatRequest((UserMessage("?"),)), message, assembler.usage)
    assert (usage.input_tokens, usage.cached_tokens, usage.cache_write_tokens) == (
        4 + read + written,
        read,
        written,
    )
    assert assembler.finish_reason == "stop"
    cost = JobCost(
        requests=1,
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cached_tokens=read,
        cache_write_tokens=written,
    )
    sonnet = Prices(3.0, 15.0, cached_input=0.3, cache_write=3.75)
    billed = 4 * 3.0 + read * 0.3 + written * 3.75 + (usage.output_tokens or 0) * 15.0
    assert cost.price(sonnet) == pytest.approx(billed / 1_000_000)


def test_a_whole_message_reads_as_its_stream_would():
    body = json.loads((RECORDED / "message_tool_use.json").read_text(encoding="utf-8"))

    assembler, _ = assembled(list(message_events(body)))

    message = assembler.message()
    assert message.text.startswith(body["content"][0]["text"][:20])
    assert [(c.name, dict(c.arguments)) for c in message.tool_calls] == [
        ("get_weather", {"location": "New York, NY", "unit": "fahrenheit"}),
        ("get_time", {"timezone": "America/New_York"}),
    ]
    assert assembler.finish_reason == "tool_calls"
