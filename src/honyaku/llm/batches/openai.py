"""OpenAI's Batch API: the requests uploaded as a JSONL file (``/v1/files``, purpose
``batch``), a batch made of it (``/v1/batches``, ``/v1/chat/completions``, 24 hours), its
answers in an output file and its failures (errors, expired and cancelled lines) in an error
file.

Only OpenAI's own API has one among the servers Chat Completions reaches: a server that
answers 404 to ``/files`` or ``/batches`` (vLLM, Ollama, llama.cpp, most gateways) is refused
in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import httpx2
import openai

from honyaku.errors import ConfigError, ProviderError, TransientProviderError
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
from honyaku.llm.openai_compat import chat_usage
from honyaku.llm.openai_stream import ReplyAssembler
from honyaku.llm.openai_wire import wire_message, wire_tool
from honyaku.llm.redaction import Redactor
from honyaku.llm.retry import retry_after_s
from honyaku.llm.tokenizers import token_counter

MAX_REQUESTS = 50_000
ENDPOINT: Final = "/v1/chat/completions"
COMPLETION_WINDOW: Final = "24h"
_NO_REQUEST = ChatRequest((UserMessage(""),))
NO_BATCH_API = (
    "the server at {url} has no Batch API ({path} answered 404): only OpenAI's own API, "
    "Anthropic's and Gemini's take batches; run without batch mode"
)
_STATES = {
    "completed": BatchState.ENDED,
    "expired": BatchState.ENDED,
    "cancelled": BatchState.ENDED,
    "cancelling": BatchState.CANCELING,
    "failed": BatchState.FAILED,
}


class OpenAIBatchClient:
    provider = "openai"
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
        self._redactor = Redactor.for_connection(
            api_key=api_key, base_url=base_url, headers=headers
        )
        self._client = openai.AsyncOpenAI(
            api_key=api_key or "no-key",
            base_url=base_url,
            default_headers=dict(headers or {}),
            max_retries=2,
            http_client=openai.DefaultAsyncHttpxClient(follow_redirects=False),
        )
        self._url = str(self._client.base_url)

    async def submit(self, requests: Sequence[BatchRequest]) -> BatchHandle:
        lines = checked_lines(requests, self.max_requests)
        jsonl = "".join(
            json.dumps(
                {
                    "custom_id": r.custom_id,
                    "method": "POST",
                    "url": ENDPOINT,
                    "body": chat_body(self.model, r.request),
                },
                ensure_ascii=False,
            )
            + "\n"
            for r in requests
        )
        uploaded = await self._call(
            "/files",
            lambda: self._client.files.create(
                file=("honyaku-batch.jsonl", jsonl.encode()), purpose="batch"
            ),
        )
        batch = await self._call(
            "/batches",
            lambda: self._client.batches.create(
                input_file_id=uploaded.id,
                endpoint=ENDPOINT,
                completion_window=COMPLETION_WINDOW,
            ),
        )
        return BatchHandle(
            self.provider, batch.id, self.model, datetime.now(UTC), lines, uploaded.id
        )

    async def poll(self, handle: BatchHandle) -> BatchStatus:
        batch = await self._call("/batches", lambda: self._client.batches.retrieve(handle.batch_id))
        return batch_status(batch.model_dump(mode="json"))

    async def cancel(self, handle: BatchHandle) -> BatchStatus:
        batch = await self._call("/batches", lambda: self._client.batches.cancel(handle.batch_id))
        return batch_status(batch.model_dump(mode="json"))

    async def results(self, handle: BatchHandle) -> list[BatchResult]:
        batch = await self._call("/batches", lambda: self._client.batches.retrieve(handle.batch_id))
        found: list[BatchResult] = []
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                content = await self._call(
                    "/files", lambda f=file_id: self._client.files.content(f)
                )
                found += [
                    result_of(json.loads(line), handle.turn_of)
                    for line in content.text.splitlines()
                    if line.strip()
                ]
        return found

    async def _call(self, path: str, call: Any) -> Any:
        try:
            return await call()
        except openai.NotFoundError as exc:
            if path in ("/files", "/batches") and "batch" not in str(exc).lower():
                url = self._redactor.text(self._url.rstrip("/"))
                raise ConfigError(NO_BATCH_API.format(url=url, path=path)) from None
            raise self._error(exc) from exc
        except openai.APIStatusError as exc:
            raise self._error(exc) from exc
        except (openai.APIError, httpx2.HTTPError) as exc:
            error = unreachable_error(exc, self._url) or TransientProviderError(
                f"the batch API did not answer: {exc}"
            )
            raise self._redactor.error(error) from exc

    def _error(self, exc: openai.APIStatusError) -> ProviderError:
        body = exc.body if isinstance(exc.body, dict) else {}
        message = body.get("message") or str(exc)
        error = error_for_status(
            exc.status_code,
            str(message),
            model=self.model,
            retry_after_s=retry_after_s(exc.response.headers),
            body=body,
        )
        return self._redactor.error(error)

    async def aclose(self) -> None:
        await self._client.close()


def chat_body(model: str, request: ChatRequest) -> dict[str, Any]:
    """A Chat Completions body, as ``OpenAICompatibleProvider`` sends it, not streamed."""
    body: dict[str, Any] = {"model": model, "messages": [wire_message(m) for m in request.messages]}
    if request.tools:
        body["tools"] = [wire_tool(t) for t in request.tools]
    if request.max_reply_tokens:
        body["max_tokens"] = request.max_reply_tokens
    return body


def batch_status(batch: Mapping[str, Any]) -> BatchStatus:
    """A batch object's state and counts. An expired or cancelled batch has ended: its lines
    not answered are in its error file, marked ``batch_expired`` or ``batch_cancelled``."""
    status = str(batch.get("status"))
    counts = batch.get("request_counts") or {}
    total = int(counts.get("total") or 0)
    done, failed = int(counts.get("completed") or 0), int(counts.get("failed") or 0)
    state = _STATES.get(status, BatchState.IN_PROGRESS)
    left = max(0, total - done - failed)
    counted = BatchCounts(
        total,
        done,
        failed,
        left if status == "expired" else 0,
        left if status == "cancelled" else 0,
    )
    return BatchStatus(state, counted, status)


def result_of(line: Mapping[str, Any], turn_of: Any = lambda _custom_id: 0) -> BatchResult:
    """One line of an output or error file."""
    custom_id = str(line.get("custom_id"))
    error = line.get("error")
    if isinstance(error, dict):
        code = str(error.get("code"))
        if code == "batch_expired":
            return BatchResult(custom_id, LineState.EXPIRED)
        if code == "batch_cancelled":
            return BatchResult(custom_id, LineState.CANCELED)
        problem = error_for_status(500, f"{code}: {error.get('message')}", model="")
        return BatchResult(custom_id, LineState.ERRORED, error=problem)
    response = line.get("response") or {}
    status = int(response.get("status_code") or 0)
    body = response.get("body") or {}
    if status != 200:
        said = body.get("error", {}) if isinstance(body, dict) else {}
        detail = said.get("message", "") if isinstance(said, dict) else str(said)
        failure = error_for_status(status, str(detail), model="", body=body)
        return BatchResult(custom_id, LineState.ERRORED, error=failure)
    return _answered(custom_id, body, int(turn_of(custom_id)))


def _answered(custom_id: str, completion: Mapping[str, Any], turn: int) -> BatchResult:
    assembler = ReplyAssembler()
    assembler.add_chunk(completion)
    model = str(completion.get("model") or "")
    message = assembler.message(turn)
    usage = chat_usage(_NO_REQUEST, message, assembler.usage, token_counter(model))
    if filtered := assembler.filtered():
        return BatchResult(custom_id, LineState.ERRORED, error=filtered, usage=usage)
    finish = assembler.finish_reason or "stop"
    return BatchResult(
        custom_id, LineState.SUCCEEDED, Response(message, finish, usage), usage=usage
    )
