"""The conversation loop: request, collect calls, run them one by one, feed results back.

It is an async iterator of typed events, so progress bars, logs, SSE and tests consume it
without reaching in. The history only ever grows at its end: the system prompt, the tool
schemas and the first user message are never edited, so provider prompt caches keep hitting
the prefix. A reply whose calls said at length what need not be said again (``Shortening``)
is shortened once its calls have run, before any request sends it back, so every request
still begins with the whole of the one before.

The caps count what a runaway conversation does: exchanges in a row in which the goal made no
progress, and reminders to a model that stopped. A careful model that gets a little done every
reply, or makes mistakes and corrects them, is never cut off; one that goes round in circles
is. A model that answers a reminder by saying, again, that it will not do the work is taken at
its word (``domain.refusals``). A conversation that reaches a cap raises ``LoopError`` with
the reason.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import count
from typing import Any, Protocol, TypeVar

from honyaku.agent.registry import Result, ToolContext, ToolRegistry
from honyaku.domain.refusals import says_it_will_not
from honyaku.errors import LoopError, RefusedInWordsError
from honyaku.llm.events import (
    ArgumentsDelta,
    CallStreaming,
    ChatProvider,
    ReasoningDelta,
    Response,
    Retry,
    TextDelta,
    Waiting,
    closed_after,
)
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    with_arguments,
)

MAX_STALLED_TURNS = 5
"""Exchanges in a row in which the goal made no progress: the conversation is going nowhere."""
MAX_NUDGES = 3
QUOTED_CHARS = 160
"""Of a refusal, what its failure quotes."""
RAMBLE_KEPT_CHARS = 400
"""Of a reply that ran into the model's limit writing text, what the conversation keeps."""


@dataclass(frozen=True, slots=True)
class LoopLimits:
    max_turns: int | None = None
    """Exchanges in all, for a conversation whose goal has no measure of progress (a chat)."""
    max_stalled: int = MAX_STALLED_TURNS
    max_nudges: int = MAX_NUDGES


@dataclass(frozen=True, slots=True)
class ToolStarted:
    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolFinished:
    call: ToolCall
    result: Result


@dataclass(frozen=True, slots=True)
class Nudged:
    text: str


LoopEvent = (
    TextDelta
    | ReasoningDelta
    | ArgumentsDelta
    | CallStreaming
    | Retry
    | Waiting
    | Response
    | ToolStarted
    | ToolFinished
    | Nudged
)


class Goal(Protocol):
    """What the conversation is for, as the loop needs to know it."""

    def is_reached(self) -> bool: ...

    def progress(self) -> Hashable:
        """How far the conversation has got: a value that changes only when it gets further."""
        ...

    def nudge(self, reply_text: str) -> str | None:
        """What to tell a model that stopped calling tools; ``None`` lets it stop."""
        ...


C = TypeVar("C", bound=ToolContext)

Shortening = Callable[[ToolCall, Result], Mapping[str, Any] | None]
"""The arguments to send back instead of a call's own, given its result; ``None`` keeps them."""


async def run_loop(
    provider: ChatProvider,
    history: list[Message],
    registry: ToolRegistry[C],
    context: C,
    goal: Goal,
    limits: LoopLimits = LoopLimits(),
    shortening: Shortening | None = None,
) -> AsyncGenerator[LoopEvent, None]:
    """Drive one conversation to its goal, appending every message to ``history``.

    A conversation taken back up (its history kept while it waited for a person) first runs
    the calls of its last reply that have no result yet, and counts the turns it had."""
    if pending := unanswered_calls(history):
        at = _last_reply_at(history)
        async for event in _run_calls(at, pending, history, registry, context, shortening):
            yield event
        if goal.is_reached():
            return
    nudges, stalled, reached = 0, 0, goal.progress()
    done = sum(isinstance(m, AssistantMessage) for m in history)
    turns = range(done, limits.max_turns) if limits.max_turns is not None else count(done)
    for _turn in turns:
        reply: AssistantMessage | None = None
        # Closed as soon as the loop stops, even midway: that closes the model's request.
        request = ChatRequest(tuple(history), registry.specs)
        async with closed_after(provider.stream(request)) as stream:
            async for event in stream:
                yield event
                if isinstance(event, Response):
                    reply = _kept(event)
        if reply is None:
            raise LoopError("the model's reply ended without a response")
        at = len(history)
        history.append(reply)
        async for event in _run_calls(at, reply.tool_calls, history, registry, context, shortening):
            yield event
        if goal.is_reached():
            return
        now = goal.progress()
        stalled, reached = (stalled + 1, reached) if now == reached else (0, now)
        if stalled >= limits.max_stalled:
            raise LoopError(f"no progress in {stalled} exchanges in a row with the model")
        if reply.tool_calls:
            continue
        if nudges and says_it_will_not(reply.text):
            raise RefusedInWordsError(f"the model said: {_quoted(reply.text)}")
        nudge = goal.nudge(reply.text)
        if nudge is None:
            return
        nudges += 1
        if nudges > limits.max_nudges:
            # What it was told each time is in the action log, in the model's own terms.
            raise LoopError(
                f"the model stopped {nudges} times without finishing: it was reminded what was "
                "left each time"
            )
        history.append(UserMessage(nudge))
        yield Nudged(nudge)
    raise LoopError(f"not finished after {limits.max_turns} exchanges with the model")


async def _run_calls(
    at: int,
    calls: Sequence[ToolCall],
    history: list[Message],
    registry: ToolRegistry[C],
    context: C,
    shortening: Shortening | None,
) -> AsyncGenerator[LoopEvent, None]:
    """Run ``calls`` of the reply at ``history[at]``; where ``shortening`` says so, that reply
    is kept with shorter arguments once their results are in."""
    shortened: dict[str, Mapping[str, Any]] = {}
    for call in calls:
        yield ToolStarted(call)
        result = await registry.run(call, context)
        history.append(ToolResultMessage(call.id, call.name, result_json(result)))
        if shortening is not None and (arguments := shortening(call, result)) is not None:
            shortened[call.id] = arguments
        yield ToolFinished(call, result)
    if shortened:
        reply = history[at]
        assert isinstance(reply, AssistantMessage)
        history[at] = with_arguments(reply, shortened)


def _kept(response: Response) -> AssistantMessage:
    """The reply as the conversation keeps it: of one that ran into the model's limit writing
    text and no call, its opening only, so that the nudge after it has room in the window."""
    reply = response.message
    if not response.rambled or len(reply.text) <= RAMBLE_KEPT_CHARS:
        return reply
    return replace(reply, text=reply.text[:RAMBLE_KEPT_CHARS] + "…", replay={})


def _quoted(text: str) -> str:
    line = " ".join(text.split())
    return f"“{line[:QUOTED_CHARS]}…”" if len(line) > QUOTED_CHARS else f"“{line}”"


def _last_reply_at(history: Sequence[Message]) -> int:
    return max(n for n, m in enumerate(history) if isinstance(m, AssistantMessage))


def unanswered_calls(history: Sequence[Message]) -> list[ToolCall]:
    """The calls of the last reply that have no result in ``history`` yet."""
    for n in range(len(history) - 1, -1, -1):
        reply = history[n]
        if isinstance(reply, AssistantMessage):
            answered = {m.call_id for m in history[n + 1 :] if isinstance(m, ToolResultMessage)}
            return [call for call in reply.tool_calls if call.id not in answered]
    return []


def result_json(result: Result) -> str:
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))
