"""Anthropic's Message Batches: ``/v1/messages/batches``, each request the body a streamed
request would send (cache breakpoints and thinking included), its results a JSONL file whose
lines are ``succeeded`` (a whole message), ``errored``, ``expired`` or ``canceled``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import anthropic
import httpx2

from honyaku.errors import ProviderError, TransientProviderError
from honyaku.llm.anthropic import (
    ANTHROPIC_URL,
    AnthropicReplyAssembler,
    anthropic_usage,
    max_reply_tokens,
    message_events,
    request_body,
    status_error,
)
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
from honyaku.llm.http_errors import error_for_status, unreachable_error
from honyaku.llm.messages import ChatRequest, UserMessage
from honyaku.llm.redaction import Redactor

MAX_REQUESTS = 100_000
PATH = "/v1/messages/batches"
_NO_REQUEST = ChatRequest((UserMessage(""),))
"""A result line does not carry its request: its usage counts characters of none."""


class AnthropicBatchClient:
    provider = "anthropic"
    max_requests = MAX_REQUESTS

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        thinking_tokens: int | None = None,
    ) -> None:
        self.model = model
        self.thinking_tokens = thinking_tokens
        self._url = base_url or ANTHROPIC_URL
        self._redactor = Redactor.for_connection(
            api_key=api_key, base_url=base_url, headers=headers
        )
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key or "no-key",
            base_url=self._url,
            default_headers=dict(headers or {}),
            max_retries=2,  # polling is cheap to repeat; a job's loop polls again anyway
            http_client=anthropic.DefaultAsyncHttpxClient(follow_redirects=False),
        )

    async def submit(self, requests: Sequence[BatchRequest]) -> BatchHandle:
        lines = checked_lines(requests, self.max_requests)
        body = {
            "requests": [
                {"custom_id": r.custom_id, "params": self._params(r.request)} for r in requests
            ]
        }
        created = await self._call("post", PATH, body)
        return BatchHandle(self.provider, created["id"], self.model, datetime.now(UTC), lines)

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        return request_body(
            request,
            model=self.model,
            max_tokens=max_reply_tokens(self.model),
            thinking_tokens=self.thinking_tokens,
        )

    async def poll(self, handle: BatchHandle) -> BatchStatus:
        return batch_status(await self._call("get", f"{PATH}/{handle.batch_id}"))

    async def cancel(self, handle: BatchHandle) -> BatchStatus:
        return batch_status(await self._call("post", f"{PATH}/{handle.batch_id}/cancel", {}))

    async def results(self, handle: BatchHandle) -> list[BatchResult]:
        batch = await self._call("get", f"{PATH}/{handle.batch_id}")
        url = batch.get("results_url")
        if not url:
            raise TransientProviderError(f"batch {handle.batch_id} has no results yet")
        text = await self._call("get", url, raw=True)
        return [result_of(json.loads(line)) for line in text.splitlines() if line.strip()]

    async def _call(
        self, method: str, path: str, body: dict[str, Any] | None = None, *, raw: bool = False
    ) -> Any:
        try:
            if method == "post":
                response = await self._client.post(path, cast_to=httpx2.Response, body=body)
            else:
                response = await self._client.get(path, cast_to=httpx2.Response)
            return response.text if raw else response.json()
        except anthropic.APIStatusError as exc:
            raise self._redactor.error(status_error(exc, self.model)) from exc
        except (anthropic.APIError, httpx2.HTTPError, ValueError) as exc:
            error = unreachable_error(exc, self._url) or TransientProviderError(
                f"the batch API did not answer: {exc}"
            )
            raise self._redactor.error(error) from exc

    async def aclose(self) -> None:
        await self._client.close()


def batch_status(batch: Mapping[str, Any]) -> BatchStatus:
    """A Message Batch object's state and counts."""
    counts = batch.get("request_counts") or {}
    number = {key: int(counts.get(key) or 0) for key in counts}
    total = sum(number.values())
    state = {
        "ended": BatchState.ENDED,
        "canceling": BatchState.CANCELING,
    }.get(str(batch.get("processing_status")), BatchState.IN_PROGRESS)
    return BatchStatus(
        state,
        BatchCounts(
            total,
            number.get("succeeded", 0),
            number.get("errored", 0),
            number.get("expired", 0),
            number.get("canceled", 0),
        ),
        str(batch.get("processing_status")),
    )


def result_of(line: Mapping[str, Any]) -> BatchResult:
    """One line of a results file, as the reply it holds or why it holds none."""
    custom_id = str(line.get("custom_id"))
    result = line.get("result") or {}
    kind = result.get("type")
    if kind == "succeeded":
        return _answered(custom_id, result.get("message") or {})
    if kind == "errored":
        wrapper = result.get("error") or {}
        error = wrapper.get("error", wrapper) if isinstance(wrapper, dict) else {}
        return BatchResult(custom_id, LineState.ERRORED, error=_line_error(error))
    state = LineState.EXPIRED if kind == "expired" else LineState.CANCELED
    return BatchResult(custom_id, state)


def _answered(custom_id: str, message: Mapping[str, Any]) -> BatchResult:
    assembler = AnthropicReplyAssembler()
    for event in message_events(message):
        assembler.add_event(event)
    reply = assembler.message()
    usage = anthropic_usage(_NO_REQUEST, reply, assembler.usage)
    if filtered := assembler.filtered():
        return BatchResult(custom_id, LineState.ERRORED, error=filtered, usage=usage)
    finish = assembler.finish_reason or "stop"
    return BatchResult(custom_id, LineState.SUCCEEDED, Response(reply, finish, usage), usage=usage)


def _line_error(error: Mapping[str, Any]) -> ProviderError:
    kind, said = str(error.get("type", "error")), str(error.get("message", ""))
    status = {
        "invalid_request_error": 400,
        "authentication_error": 401,
        "permission_error": 403,
        "not_found_error": 404,
        "rate_limit_error": 429,
        "overloaded_error": 529,
    }.get(kind, 500)
    return error_for_status(status, f"{kind}: {said}", model="", body={"error": error})
