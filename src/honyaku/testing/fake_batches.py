"""Batch API endpoints for the fake servers, in each provider's shape, driven by the same
scripted translators as their streamed replies.

A batch is taken whole, then polled: the first ``BatchScript.polls`` polls find it in
progress, the next finds it ended, every line answered then by the fake server's own
``answer`` (the reply its non-streamed endpoint gives, checked as strictly), except the lines
the script makes expire or fail. A batch cancelled before it ends answers none of its lines.
Every line answered is counted in ``answered`` (by custom id), so a test can see that no
request went out twice.

``AnthropicBatches``   Message Batches: ``/v1/messages/batches`` (create, retrieve, cancel,
                       results as JSONL at ``results_url``)
``OpenAIBatches``      ``/v1/files`` (upload, content) and ``/v1/batches`` (create, retrieve,
                       cancel): output and error files as JSONL
``GeminiBatches``      ``models/{model}:batchGenerateContent`` with inline requests,
                       ``batches/{name}`` and ``:cancel``: inline responses in the job
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

Answer = Callable[[dict[str, Any]], dict[str, Any]]
"""A fake server's whole reply to one request body, in its provider's shape."""
Refusal = Callable[[Request], Response | None]
"""A fake server's answer to a request it will not serve (a wrong key), if any."""
Problem = Callable[[dict[str, Any]], str | None]
"""What the provider would refuse in one request body, if anything."""


class LineOutcome(StrEnum):
    SUCCEEDED = "succeeded"
    ERRORED = "errored"
    EXPIRED = "expired"
    CANCELED = "canceled"


@dataclass
class BatchScript:
    """How the fake's batches behave."""

    polls: int = 1
    """Polls that still find a batch in progress; the next finds it ended."""
    errored: frozenset[str] = frozenset()
    """Custom ids answered with an error (a server error, worth sending again)."""
    expired: frozenset[str] = frozenset()
    """Custom ids the batch does not reach before it expires."""


@dataclass
class FakeBatch:
    id: str
    model: str
    lines: list[tuple[str, dict[str, Any]]]
    """Each request's custom id and body, in the provider's shape."""
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    polls: int = 0
    canceled: bool = False
    results: list[tuple[str, LineOutcome, dict[str, Any]]] | None = None
    """Once it ended: each line's custom id, outcome and reply (or error)."""
    ended_at: datetime | None = None

    @property
    def ended(self) -> bool:
        return self.results is not None

    def count(self, outcome: LineOutcome) -> int:
        return sum(1 for _, found, _ in self.results or () if found is outcome)

    @property
    def expired(self) -> bool:
        return self.count(LineOutcome.EXPIRED) > 0


class FakeBatches:
    """The batches one fake server holds, whatever their shape."""

    prefix = "batch_fake_"

    def __init__(self, script: BatchScript, answer: Answer, problem: Problem) -> None:
        self.script = script
        self.answer = answer
        self.problem = problem
        self.batches: dict[str, FakeBatch] = {}
        self.answered: list[str] = []
        """Every line answered, by custom id, in order."""
        self._ids = itertools.count(1)

    def submit(self, model: str, lines: list[tuple[str, dict[str, Any]]]) -> FakeBatch:
        batch = FakeBatch(f"{self.prefix}{next(self._ids):04d}", model, lines)
        self.batches[batch.id] = batch
        return batch

    def poll(self, batch_id: str) -> FakeBatch | None:
        batch = self.batches.get(batch_id)
        if batch is not None and not batch.ended:
            batch.polls += 1
            if batch.polls > self.script.polls:
                self._end(batch)
        return batch

    def cancel(self, batch_id: str) -> FakeBatch | None:
        batch = self.batches.get(batch_id)
        if batch is not None and not batch.ended:
            batch.canceled = True
            self._end(batch)
        return batch

    def _end(self, batch: FakeBatch) -> None:
        results: list[tuple[str, LineOutcome, dict[str, Any]]] = []
        for custom_id, body in batch.lines:
            if batch.canceled:
                results.append((custom_id, LineOutcome.CANCELED, {}))
            elif custom_id in self.script.expired:
                results.append((custom_id, LineOutcome.EXPIRED, {}))
            elif custom_id in self.script.errored:
                error = {"status": 500, "message": "Internal server error", "kind": "api_error"}
                results.append((custom_id, LineOutcome.ERRORED, error))
            elif problem := self.problem(body):
                error = {"status": 400, "message": problem, "kind": "invalid_request_error"}
                results.append((custom_id, LineOutcome.ERRORED, error))
            else:
                self.answered.append(custom_id)
                results.append((custom_id, LineOutcome.SUCCEEDED, self.answer(body)))
        batch.results = results
        batch.ended_at = datetime.now(UTC)


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def _not_found(what: str) -> JSONResponse:
    return JSONResponse(
        {"type": "error", "error": {"type": "not_found_error", "message": f"{what} not found"}},
        404,
    )


# -- Anthropic -------------------------------------------------------------------------------


class AnthropicBatches(FakeBatches):
    prefix = "msgbatch_fake_"

    def routes(self, refused: Refusal) -> list[Route]:
        async def create(request: Request) -> Response:
            if answer := refused(request):
                return answer
            body = await request.json()
            lines = [(r["custom_id"], r["params"]) for r in body.get("requests") or ()]
            model = lines[0][1].get("model", "") if lines else ""
            return JSONResponse(self._object(self.submit(model, lines), request))

        async def retrieve(request: Request) -> Response:
            if answer := refused(request):
                return answer
            batch = self.poll(request.path_params["id"])
            if batch is None:
                return _not_found("message batch")
            return JSONResponse(self._object(batch, request))

        async def cancel(request: Request) -> Response:
            if answer := refused(request):
                return answer
            batch = self.cancel(request.path_params["id"])
            if batch is None:
                return _not_found("message batch")
            return JSONResponse(self._object(batch, request))

        async def results(request: Request) -> Response:
            if answer := refused(request):
                return answer
            batch = self.batches.get(request.path_params["id"])
            if batch is None or batch.results is None:
                return _not_found("results")
            lines = [
                json.dumps({"custom_id": custom_id, "result": _anthropic_result(outcome, reply)})
                for custom_id, outcome, reply in batch.results
            ]
            return Response("\n".join(lines), media_type="application/binary")

        return [
            Route("/v1/messages/batches", create, methods=["POST"]),
            Route("/v1/messages/batches/{id}", retrieve),
            Route("/v1/messages/batches/{id}/cancel", cancel, methods=["POST"]),
            Route("/v1/messages/batches/{id}/results", results),
        ]

    def _object(self, batch: FakeBatch, request: Request) -> dict[str, Any]:
        ended = batch.ended
        counts = {
            "processing": 0 if ended else len(batch.lines),
            **{outcome.value: batch.count(outcome) for outcome in LineOutcome},
        }
        root = str(request.base_url).rstrip("/")
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "ended_at": _time(batch.ended_at),
            "created_at": _time(batch.created_at),
            "expires_at": _time(batch.created_at + timedelta(hours=24)),
            "archived_at": None,
            "cancel_initiated_at": _time(batch.ended_at) if batch.canceled else None,
            "results_url": f"{root}/v1/messages/batches/{batch.id}/results" if ended else None,
        }


def _anthropic_result(outcome: LineOutcome, reply: dict[str, Any]) -> dict[str, Any]:
    if outcome is LineOutcome.SUCCEEDED:
        return {"type": "succeeded", "message": reply}
    if outcome is LineOutcome.ERRORED:
        error = {"type": reply["kind"], "message": reply["message"]}
        return {"type": "errored", "error": {"type": "error", "error": error}}
    return {"type": outcome.value}


# -- OpenAI ----------------------------------------------------------------------------------


class OpenAIBatches(FakeBatches):
    prefix = "batch_fake"

    def __init__(self, script: BatchScript, answer: Answer, problem: Problem) -> None:
        super().__init__(script, answer, problem)
        self.files: dict[str, bytes] = {}
        self._inputs: dict[str, str] = {}
        """Each batch's input file."""
        self._outputs: dict[str, tuple[str | None, str | None]] = {}
        """Each ended batch's output and error files, made once."""
        self._file_ids = itertools.count(1)

    def _file(self, content: bytes) -> str:
        file_id = f"file-fake{next(self._file_ids):04d}"
        self.files[file_id] = content
        return file_id

    def routes(self, refused: Refusal) -> list[Route]:
        async def upload(request: Request) -> Response:
            if answer := refused(request):
                return answer
            async with request.form() as form:  # closed: its upload is a temporary file
                upload = form["file"]
                content = await upload.read() if not isinstance(upload, str) else upload.encode()
                name = getattr(upload, "filename", "batch.jsonl")
                purpose = form.get("purpose", "batch")
            file_id = self._file(content)
            return JSONResponse(
                {
                    "id": file_id,
                    "object": "file",
                    "bytes": len(content),
                    "created_at": 0,
                    "filename": name,
                    "purpose": purpose,
                    "status": "processed",
                }
            )

        async def content(request: Request) -> Response:
            if answer := refused(request):
                return answer
            found = self.files.get(request.path_params["id"])
            if found is None:
                return _not_found("file")
            return Response(found, media_type="application/octet-stream")

        async def create(request: Request) -> Response:
            if answer := refused(request):
                return answer
            body = await request.json()
            found = self.files.get(body.get("input_file_id", ""))
            if found is None:
                return _not_found("input file")
            lines = [json.loads(line) for line in found.decode().splitlines() if line.strip()]
            requests = [(line["custom_id"], line["body"]) for line in lines]
            model = requests[0][1].get("model", "") if requests else ""
            batch = self.submit(model, requests)
            self._inputs[batch.id] = body["input_file_id"]
            return JSONResponse(self._object(batch))

        async def retrieve(request: Request) -> Response:
            if answer := refused(request):
                return answer
            batch = self.poll(request.path_params["id"])
            return _not_found("batch") if batch is None else JSONResponse(self._object(batch))

        async def cancel(request: Request) -> Response:
            if answer := refused(request):
                return answer
            batch = self.cancel(request.path_params["id"])
            return _not_found("batch") if batch is None else JSONResponse(self._object(batch))

        return [
            Route("/v1/files", upload, methods=["POST"]),
            Route("/v1/files/{id}/content", content),
            Route("/v1/batches", create, methods=["POST"]),
            Route("/v1/batches/{id}", retrieve),
            Route("/v1/batches/{id}/cancel", cancel, methods=["POST"]),
        ]

    def _object(self, batch: FakeBatch) -> dict[str, Any]:
        status = "in_progress"
        output_id = error_id = None
        if batch.ended:
            status = "cancelled" if batch.canceled else "expired" if batch.expired else "completed"
            output_id, error_id = self._files_of(batch)
        failed = sum(
            batch.count(outcome) for outcome in LineOutcome if outcome is not LineOutcome.SUCCEEDED
        )
        created = int(batch.created_at.timestamp())
        ended = int(batch.ended_at.timestamp()) if batch.ended_at else None
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": self._inputs.get(batch.id),
            "completion_window": "24h",
            "status": status,
            "output_file_id": output_id,
            "error_file_id": error_id,
            "created_at": created,
            "in_progress_at": created,
            "expires_at": created + 86_400,
            "finalizing_at": ended,
            "completed_at": ended if status == "completed" else None,
            "failed_at": None,
            "expired_at": ended if status == "expired" else None,
            "cancelling_at": ended if batch.canceled else None,
            "cancelled_at": ended if batch.canceled else None,
            "request_counts": {
                "total": len(batch.lines),
                "completed": batch.count(LineOutcome.SUCCEEDED),
                "failed": failed,
            },
            "metadata": None,
        }

    def _files_of(self, batch: FakeBatch) -> tuple[str | None, str | None]:
        """The output and error files of an ended batch, made once."""
        if (made := self._outputs.get(batch.id)) is not None:
            return made
        output, errors = [], []
        for n, (custom_id, outcome, reply) in enumerate(batch.results or ()):
            line: dict[str, Any] = {"id": f"batch_req_fake{n:04d}", "custom_id": custom_id}
            if outcome is LineOutcome.SUCCEEDED:
                response = {"status_code": 200, "request_id": f"req_{n}", "body": reply}
                output.append(line | {"response": response, "error": None})
            elif outcome is LineOutcome.ERRORED:
                error = {"message": reply["message"], "type": reply["kind"]}
                response = {
                    "status_code": reply["status"],
                    "request_id": f"req_{n}",
                    "body": {"error": error},
                }
                errors.append(line | {"response": response, "error": None})
            else:
                code = "batch_expired" if outcome is LineOutcome.EXPIRED else "batch_cancelled"
                message = f"This request could not be executed: {code}."
                errors.append(
                    line | {"response": None, "error": {"code": code, "message": message}}
                )
        made = (
            self._file(_jsonl(output)) if output else None,
            self._file(_jsonl(errors)) if errors else None,
        )
        self._outputs[batch.id] = made
        return made


def _jsonl(lines: Sequence[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


# -- Gemini ----------------------------------------------------------------------------------


class GeminiBatches(FakeBatches):
    prefix = "fakebatch"

    async def create(self, body: dict[str, Any], model: str) -> Response:
        config = (body.get("batch") or {}).get("inputConfig") or {}
        inlined = (config.get("requests") or {}).get("requests") or []
        lines = [
            (str((item.get("metadata") or {}).get("key", n)), item.get("request") or {})
            for n, item in enumerate(inlined)
        ]
        batch = self.submit(model, lines)
        display = (body.get("batch") or {}).get("displayName")
        return JSONResponse(self._operation(batch, display))

    def answer_batch(self, name: str, *, cancel: bool) -> Response:
        batch = self.cancel(name) if cancel else self.poll(name)
        if batch is None:
            error = {"code": 404, "message": f"batches/{name} not found", "status": "NOT_FOUND"}
            return JSONResponse({"error": error}, 404)
        return JSONResponse({} if cancel else self._operation(batch, None))

    def _operation(self, batch: FakeBatch, display: str | None) -> dict[str, Any]:
        state = "BATCH_STATE_RUNNING"
        if batch.ended:
            state = (
                "BATCH_STATE_CANCELLED"
                if batch.canceled
                else "BATCH_STATE_EXPIRED"
                if batch.expired
                else "BATCH_STATE_SUCCEEDED"
            )
        metadata: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": batch.model,
            "displayName": display or batch.id,
            "state": state,
            "createTime": _time(batch.created_at),
            "updateTime": _time(batch.ended_at or batch.created_at),
            "batchStats": {"requestCount": str(len(batch.lines))},
        }
        if batch.ended_at is not None:
            metadata["endTime"] = _time(batch.ended_at)
        if batch.results is not None:
            responses = [
                _gemini_response(custom_id, outcome, reply)
                for custom_id, outcome, reply in batch.results
            ]
            metadata["output"] = {"inlinedResponses": {"inlinedResponses": responses}}
        return {"name": f"batches/{batch.id}", "metadata": metadata, "done": batch.ended}


def _gemini_response(custom_id: str, outcome: LineOutcome, reply: dict[str, Any]) -> dict:
    metadata = {"key": custom_id}
    if outcome is LineOutcome.SUCCEEDED:
        return {"response": reply, "metadata": metadata}
    # A google.rpc.Status: its code is gRPC's (13 INTERNAL, 3 INVALID_ARGUMENT…), not HTTP's.
    if outcome is LineOutcome.ERRORED:
        code = 13 if reply["status"] >= 500 else 3
        return {"error": {"code": code, "message": reply["message"]}, "metadata": metadata}
    code, word = (4, "DEADLINE_EXCEEDED") if outcome is LineOutcome.EXPIRED else (1, "CANCELLED")
    return {"error": {"code": code, "message": word}, "metadata": metadata}
