"""A job's action log and running cost, kept by reading its event stream.

Every call and result, the model's text and, apart from it, its reasoning, questions with
their outcomes, nudges, retries and failures become actions; what each event adds to the
job's cost is what its progress counts (``progress.cost_change``), kept by the model of the
chain that spent it. What a turn did is
written together, off the event loop, so the other chapters keep streaming meanwhile.
"""

from __future__ import annotations

from honyaku.agent.loop import Nudged, ToolFinished, ToolStarted
from honyaku.agent.questions import QUESTION_TOOL_NAMES, question_summary
from honyaku.domain.failures import Failure
from honyaku.jobs.events import (
    ChunkEvent,
    ChunkFinished,
    ChunkTakenOver,
    JobEvent,
    ParagraphsBusy,
    Where,
)
from honyaku.jobs.progress import add_cost, cost_change
from honyaku.jobs.records import JobRecords
from honyaku.llm.events import Response, Retry
from honyaku.store.jobs import Action, ActionKind, JobCost


class ActionLog:
    def __init__(self, records: JobRecords) -> None:
        self.records = records
        self._actions: list[Action] = []
        self._costs: dict[str, JobCost] = {}

    async def follow(self, event: JobEvent) -> None:
        if change := cost_change(event):
            add_cost(self._costs, change)
        match event:
            case ChunkEvent(where=where, event=inner):
                await self._follow_chunk(where, inner)
            case ParagraphsBusy(where=where, paragraph_ids=ids):
                self._add(where, ActionKind.SKIPPED, None, {"paragraph_ids": list(ids)})
            case ChunkFinished(where=where, failure=Failure() as failure):
                self._add(
                    where,
                    ActionKind.ERROR,
                    None,
                    {"message": str(failure), "failure": failure.kind.value},
                )
                await self.flush()
            case ChunkTakenOver(where=where, reason=reason):
                self._add(where, ActionKind.ERROR, None, {"message": reason})
                await self.flush()
            case ChunkFinished():
                await self.flush()

    async def _follow_chunk(self, where: Where, event: object) -> None:
        match event:
            case Response(message=message):
                if message.reasoning and message.reasoning.strip():
                    self._add(where, ActionKind.REASONING, None, {"text": message.reasoning})
                if message.text.strip():
                    self._add(where, ActionKind.TEXT, None, {"text": message.text})
                await self.flush()
            case Retry(attempt=attempt, reason=reason):
                self._add(where, ActionKind.RETRY, None, {"attempt": attempt, "reason": reason})
            case ToolStarted(call=call):
                payload = {"id": call.id, "arguments": dict(call.arguments)}
                if call.error:
                    payload |= {"raw_arguments": call.raw_arguments, "error": call.error.message}
                self._add(where, ActionKind.TOOL_CALL, call.name, payload)
            case ToolFinished(call=call, result=result):
                self._add(where, ActionKind.TOOL_RESULT, call.name, {"id": call.id, **result})
                if call.name in QUESTION_TOOL_NAMES:
                    summary = question_summary(call.name, call.arguments, result)
                    self._add(where, ActionKind.QUESTION, call.name, summary)
            case Nudged(text=text):
                self._add(where, ActionKind.NUDGE, None, {"text": text})

    def _add(self, where: Where, kind: ActionKind, name: str | None, payload: dict) -> None:
        self._actions.append(Action(kind, name, payload, where.chapter_id, where.chunk))

    async def flush(self) -> None:
        if pending := self._take():
            await self.records.run(self.records.record, *pending)

    def write_now(self) -> None:
        """Write what is pending from outside the event loop's care: a job ending anyhow."""
        if pending := self._take():
            self.records.record(*pending)

    def _take(self) -> tuple[list[Action], dict[str, JobCost]] | None:
        if not self._actions and not self._costs:
            return None
        taken = self._actions, self._costs
        self._actions, self._costs = [], {}
        return taken
