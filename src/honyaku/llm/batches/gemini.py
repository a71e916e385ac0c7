"""Gemini's batch mode: ``models/{model}:batchGenerateContent`` with the requests inline (each
the same contents, tools and safety settings a streamed request sends, its custom id as the
``key`` of its metadata), the job polled at ``batches/{name}``, the answers inline in the job
once it has ended (or, for a large batch, in a responses file of ``{"key", "response"}``
lines, which ``result_of`` reads too)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from honyaku.errors import TransientProviderError
from honyaku.llm.batches.batch import (
    BatchCounts,
    BatchHandle,
    BatchRequest,
    BatchResult,
    BatchState,
    BatchStatus,
    LineState,
    checked_lines,
)
from honyaku.llm.events import Response
from honyaku.llm.gemini import GeminiReplyAssembler, gemini_contents
from honyaku.llm.gemini.provider import API_VERSION, GEMINI_URL, _api_error, _config
from honyaku.llm.gemini.reply import gemini_usage
from honyaku.llm.http_errors import error_for_status, unreachable_error
from honyaku.llm.messages import ChatRequest, UserMessage
from honyaku.llm.redaction import Redactor

MAX_REQUESTS = 10_000
"""Inline requests share a 20 MB request: a chunk's conversation is some kilobytes."""
_NO_REQUEST = ChatRequest((UserMessage(""),))
_STATES = {
    "JOB_STATE_SUCCEEDED": BatchState.ENDED,
    "JOB_STATE_PARTIALLY_SUCCEEDED": BatchState.ENDED,
    "JOB_STATE_EXPIRED": BatchState.ENDED,
    "JOB_STATE_CANCELLED": BatchState.ENDED,
    "JOB_STATE_CANCELLING": BatchState.CANCELING,
    "JOB_STATE_FAILED": BatchState.FAILED,
}
_EXPIRED, _CANCELLED = 4, 1
"""The gRPC codes (``google.rpc.Status``) of a line the batch did not reach, or cancelled."""
_HTTP_STATUS = {3: 400, 5: 404, 7: 403, 8: 429, 9: 400, 13: 500, 14: 503, 16: 401}
"""gRPC codes as the HTTP statuses honyaku reads errors by."""


class GeminiBatchClient:
    provider = "gemini"
    max_requests = MAX_REQUESTS

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.model = model
        self._url = base_url or GEMINI_URL
        self._redactor = Redactor.for_connection(
            api_key=api_key, base_url=base_url, headers=headers
        )
        self._client = genai.Client(
            api_key=api_key or "no-key",
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=base_url,
                api_version=API_VERSION,
                headers=dict(headers or {}),
                client_args={"follow_redirects": False},
                async_client_args={"follow_redirects": False},
            ),
        )

    async def submit(self, requests: Sequence[BatchRequest]) -> BatchHandle:
        lines = checked_lines(requests, self.max_requests)
        inline = [self._inline(r) for r in requests]
        job = await self._call(
            self._client.aio.batches.create(
                model=self.model,
                src=types.BatchJobSource(inlined_requests=inline),
                config=types.CreateBatchJobConfig(display_name=f"honyaku {lines[0].custom_id}"),
            )
        )
        return BatchHandle(self.provider, str(job.name), self.model, datetime.now(UTC), lines)

    def _inline(self, request: BatchRequest) -> types.InlinedRequest:
        system, contents = gemini_contents(request.request.messages)
        return types.InlinedRequest(
            contents=contents,
            config=_config(self.model, system, request.request.tools),
            metadata={"key": request.custom_id},
        )

    async def poll(self, handle: BatchHandle) -> BatchStatus:
        job = await self._call(self._client.aio.batches.get(name=handle.batch_id))
        return job_status(job, len(handle.lines))

    async def cancel(self, handle: BatchHandle) -> BatchStatus:
        await self._call(self._client.aio.batches.cancel(name=handle.batch_id))
        return await self.poll(handle)

    async def results(self, handle: BatchHandle) -> list[BatchResult]:
        job = await self._call(self._client.aio.batches.get(name=handle.batch_id))
        responses = (job.dest.inlined_responses if job.dest else None) or []
        if not responses and job.dest is not None and job.dest.file_name:
            raw = await self._call(self._client.aio.files.download(file=job.dest.file_name))
            text = bytes(raw).decode()
            return [
                result_of(json.loads(line), handle.turn_of)
                for line in text.splitlines()
                if line.strip()
            ]
        return [
            result_of(response.model_dump(mode="json", by_alias=True), handle.turn_of)
            for response in responses
        ]

    async def _call(self, step: Any) -> Any:
        try:
            return await step
        except genai_errors.APIError as exc:
            raise self._redactor.error(_api_error(exc, self.model)) from exc
        except (OSError, ValueError) as exc:
            error = unreachable_error(exc, self._url) or TransientProviderError(
                f"the batch API did not answer: {exc}"
            )
            raise self._redactor.error(error) from exc
        except Exception as exc:  # the SDK's transports raise their own errors
            if type(exc).__module__.split(".")[0] not in ("httpx2", "httpx", "aiohttp"):
                raise
            error = unreachable_error(exc, self._url) or TransientProviderError(
                f"the batch API did not answer: {exc}"
            )
            raise self._redactor.error(error) from exc

    async def aclose(self) -> None:
        await self._client.aio.aclose()
        self._client.close()


def job_status(job: types.BatchJob, total: int) -> BatchStatus:
    """A batch job's state; its counts once it has ended (Gemini says none before)."""
    word = str(getattr(job.state, "value", job.state))
    state = _STATES.get(word, BatchState.IN_PROGRESS)
    counts = BatchCounts(total)
    responses = (job.dest.inlined_responses if job.dest else None) or []
    if state is BatchState.ENDED and responses:
        results = [result_of(r.model_dump(mode="json", by_alias=True)) for r in responses]
        counts = BatchCounts(
            total,
            sum(r.state is LineState.SUCCEEDED for r in results),
            sum(r.state is LineState.ERRORED for r in results),
            sum(r.state is LineState.EXPIRED for r in results),
            sum(r.state is LineState.CANCELED for r in results),
        )
    elif word == "JOB_STATE_EXPIRED":
        counts = BatchCounts(total, expired=total)
    elif word == "JOB_STATE_CANCELLED":
        counts = BatchCounts(total, canceled=total)
    return BatchStatus(state, counts, word)


def result_of(line: Mapping[str, Any], turn_of: Any = lambda _custom_id: 0) -> BatchResult:
    """One inline response, or one line of a responses file: ``{"key"|"metadata", "response"
    | "error"}``."""
    metadata = line.get("metadata") or {}
    custom_id = str(line.get("key") or metadata.get("key"))
    error = line.get("error")
    if isinstance(error, dict):
        code = int(error.get("code") or 13)
        if code == _EXPIRED:
            return BatchResult(custom_id, LineState.EXPIRED)
        if code == _CANCELLED:
            return BatchResult(custom_id, LineState.CANCELED)
        status = _HTTP_STATUS.get(code, 500)
        failure = error_for_status(status, str(error.get("message")), model="")
        return BatchResult(custom_id, LineState.ERRORED, error=failure)
    return _answered(custom_id, line.get("response") or {}, int(turn_of(custom_id)))


def _answered(custom_id: str, response: Mapping[str, Any], turn: int) -> BatchResult:
    chunk = types.GenerateContentResponse.model_validate(response)
    assembler = GeminiReplyAssembler(turn)
    assembler.add_chunk(chunk)
    message = assembler.message()
    usage = gemini_usage(_NO_REQUEST, message, assembler.usage)
    if (filtered := assembler.filtered()) is not None:
        return BatchResult(custom_id, LineState.ERRORED, error=filtered, usage=usage)
    finish = assembler.finish_reason or "STOP"
    return BatchResult(
        custom_id, LineState.SUCCEEDED, Response(message, finish, usage), usage=usage
    )
