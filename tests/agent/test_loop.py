"""The agent loop on its own, with a scripted model: caps, nudges, failing tools, cut replies."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from honyaku.agent.broker import Broker
from honyaku.agent.loop import LoopLimits, Nudged, ToolFinished, run_loop
from honyaku.agent.registry import ToolContext, ToolRegistry, tool
from honyaku.errors import CutStreamError, LoopError
from honyaku.llm.events import ChatProvider, Response, Retry, StreamEvent, TextDelta, Usage
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from honyaku.llm.retry import RetryingProvider, RetryPolicy


@dataclass
class Counter(ToolContext):
    """The goal: count to ``target`` through the ``add`` tool."""

    target: int = 3
    total: int = 0
    seen: list[str] = field(default_factory=list)

    def is_reached(self) -> bool:
        return self.total >= self.target

    def progress(self) -> int:
        return self.total

    def nudge(self, reply_text: str) -> str | None:
        return f"The total is {self.total}; call add until it is {self.target}."


@tool()
def add(context: Counter, amount: int) -> dict:
    """Add to the total."""
    context.total += amount
    context.seen.append(f"add {amount}")
    return {"total": context.total}


@tool()
def explode(context: Counter) -> dict:
    """Always fails."""
    raise RuntimeError("the tool broke")


REGISTRY = ToolRegistry([add, explode], Counter)


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(f"{name}_{id(arguments)}", name, arguments, json.dumps(arguments))


class ScriptedModel:
    """Answers each request with the next reply of its script; a ``CutStreamError`` in the
    script is raised after a little text, as a broken stream would."""

    model = "scripted"

    def __init__(self, *replies: AssistantMessage | CutStreamError) -> None:
        self.replies = list(replies)
        self.requests: list[ChatRequest] = []

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else AssistantMessage("I am done.")
        if isinstance(reply, CutStreamError):
            yield TextDelta("half a")
            raise reply
        if reply.text:
            yield TextDelta(reply.text)
        yield Response(reply, "stop", Usage(0, 0))

    async def aclose(self) -> None:
        pass


def conversation() -> list[Message]:
    return [SystemMessage("Count."), UserMessage("Reach 3.")]


async def drive(model: ChatProvider, context: Counter, limits: LoopLimits | None = None) -> list:
    limits = limits or LoopLimits()
    return [e async for e in run_loop(model, conversation(), REGISTRY, context, context, limits)]


@pytest.mark.anyio
async def test_calls_run_one_by_one_and_the_loop_ends_when_the_goal_is_reached():
    model = ScriptedModel(
        AssistantMessage(tool_calls=(call("add", amount=1), call("add", amount=1))),
        AssistantMessage(tool_calls=(call("add", amount=1),)),
        AssistantMessage("never asked for"),
    )
    context = Counter(Broker(), "a test")

    events = await drive(model, context)

    assert context.seen == ["add 1", "add 1", "add 1"]
    assert len(model.requests) == 2
    assert [e.result["total"] for e in events if isinstance(e, ToolFinished)] == [1, 2, 3]


@pytest.mark.anyio
async def test_results_go_back_in_call_order_after_the_reply_that_made_the_calls():
    model = ScriptedModel(
        AssistantMessage(tool_calls=(call("add", amount=2), call("add", amount=0))),
        AssistantMessage(tool_calls=(call("add", amount=1),)),
    )

    await drive(model, Counter(Broker(), "a test"))

    second = model.requests[1].messages
    assert [type(m).__name__ for m in second] == [
        "SystemMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
    ]
    assert [json.loads(m.content)["total"] for m in second[3:]] == [2, 2]


@pytest.mark.anyio
async def test_a_model_that_stops_early_is_nudged_then_the_loop_gives_up_at_the_cap():
    model = ScriptedModel(*(AssistantMessage("Let me think.") for _ in range(5)))

    with pytest.raises(LoopError, match="stopped 3 times without finishing"):
        await drive(model, Counter(Broker(), "a test"), LoopLimits(max_nudges=2))

    nudges = [m for m in model.requests[-1].messages if isinstance(m, UserMessage)][1:]
    assert [m.text for m in nudges] == ["The total is 0; call add until it is 3."] * 2


@pytest.mark.anyio
async def test_a_model_that_never_reaches_the_goal_ends_at_the_turn_cap():
    model = ScriptedModel(
        *(AssistantMessage(tool_calls=(call("add", amount=0),)) for _ in range(9))
    )

    with pytest.raises(LoopError, match="not finished after 4 exchanges"):
        await drive(model, Counter(Broker(), "a test"), LoopLimits(max_turns=4))

    assert len(model.requests) == 4


@pytest.mark.anyio
async def test_a_model_that_calls_without_getting_further_is_stopped_and_one_that_does_is_not():
    stuck = ScriptedModel(
        *(AssistantMessage(tool_calls=(call("add", amount=0),)) for _ in range(9))
    )
    with pytest.raises(LoopError, match="no progress in 3 exchanges in a row"):
        await drive(stuck, Counter(Broker(), "a test", target=9), LoopLimits(max_stalled=3))
    assert len(stuck.requests) == 3

    slow = ScriptedModel(*(AssistantMessage(tool_calls=(call("add", amount=1),)) for _ in range(9)))
    await drive(slow, Counter(Broker(), "a test", target=9), LoopLimits(max_stalled=3))
    assert len(slow.requests) == 9


@pytest.mark.anyio
async def test_a_failing_tool_is_a_result_the_model_reads_and_the_loop_goes_on():
    model = ScriptedModel(
        AssistantMessage(tool_calls=(call("explode"),)),
        AssistantMessage(tool_calls=(call("add", amount=3),)),
    )
    context = Counter(Broker(), "a test")

    events = await drive(model, context)

    failed = next(e.result for e in events if isinstance(e, ToolFinished))
    assert failed["error_code"] == "EXECUTION_FAILED"
    assert "the tool broke" in failed["error"]
    sent_back = [m for m in model.requests[1].messages if isinstance(m, ToolResultMessage)]
    assert json.loads(sent_back[0].content)["error_code"] == "EXECUTION_FAILED"
    assert context.total == 3


@pytest.mark.anyio
async def test_a_cut_reply_is_retried_and_none_of_its_calls_run():
    model = ScriptedModel(
        CutStreamError("the stream broke"),
        AssistantMessage(tool_calls=(call("add", amount=3),)),
    )
    context = Counter(Broker(), "a test")
    retrying = RetryingProvider(model, RetryPolicy(base_s=0.001))

    events = await drive(retrying, context)

    assert [type(e) for e in events[:2]] == [TextDelta, Retry]
    assert context.seen == ["add 3"]
    assert not any(isinstance(e, Nudged) for e in events)
