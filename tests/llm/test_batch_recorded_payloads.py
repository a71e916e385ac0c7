"""Batch objects and result files recorded from the real APIs (tests/fixtures/streams/batches/)
read to the states, counts and replies they hold."""

from __future__ import annotations

import json
from typing import Any

import pytest

from honyaku.llm.batches import BatchState, LineState
from honyaku.llm.batches import anthropic as anthropic_batches
from honyaku.llm.batches import gemini as gemini_batches
from honyaku.llm.batches import openai as openai_batches

from ..conftest import STREAMS

pytestmark = pytest.mark.backends("sqlite")
RECORDED = STREAMS / "batches"


def recorded(name: str) -> Any:
    return json.loads((RECORDED / name).read_text(encoding="utf-8"))


def lines(name: str) -> list[dict[str, Any]]:
    text = (RECORDED / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("name", "state", "word", "succeeded"),
    [
        ("openai_batch_create.json", BatchState.IN_PROGRESS, "validating", 0),
        ("openai_batch_in_progress.json", BatchState.IN_PROGRESS, "in_progress", 1),
        ("openai_batch_finalizing.json", BatchState.IN_PROGRESS, "finalizing", 3),
        ("openai_batch_completed.json", BatchState.ENDED, "completed", 3),
    ],
)
def test_openai_batch_objects_read_to_their_state_and_counts(name, state, word, succeeded):
    status = openai_batches.batch_status(recorded(name))

    assert (status.state, status.provider_state, status.counts.succeeded) == (
        state,
        word,
        succeeded,
    )
    assert status.counts.total == (0 if word == "validating" else 3)


def test_openai_output_lines_read_to_their_replies_and_usage():
    results = [openai_batches.result_of(line) for line in lines("openai_batch_output.jsonl")]

    assert [r.custom_id for r in results] == ["0", "1", "2"]
    assert all(r.state is LineState.SUCCEEDED for r in results)
    first = results[0].response
    assert first is not None
    assert first.message.text.startswith("Spaghetti is a type of pasta")
    assert (first.finish_reason, first.usage.input_tokens, first.usage.output_tokens) == (
        "stop",
        10,
        72,
    )


@pytest.mark.parametrize(
    ("name", "state", "processing", "succeeded"),
    [
        ("anthropic_batch_create.json", BatchState.IN_PROGRESS, 3, 0),
        ("anthropic_batch_canceling.json", BatchState.CANCELING, 3, 0),
        ("anthropic_batch_ended.json", BatchState.ENDED, 0, 3),
    ],
)
def test_anthropic_batch_objects_read_to_their_state_and_counts(name, state, processing, succeeded):
    status = anthropic_batches.batch_status(recorded(name))

    assert (status.state, status.counts.processing, status.counts.succeeded) == (
        state,
        processing,
        succeeded,
    )


def test_anthropic_results_read_to_their_replies_with_cache_counts():
    results = [anthropic_batches.result_of(line) for line in lines("anthropic_batch_results.jsonl")]

    assert [r.custom_id for r in results] == ["0", "1", "2"]
    first = results[0].response
    assert first is not None
    assert first.message.text.startswith("Here's a basic spaghetti recipe")
    assert "Sauté" in first.message.text
    assert (first.usage.input_tokens, first.usage.output_tokens, first.usage.cached_tokens) == (
        11,
        273,
        0,
    )


def test_anthropic_thinking_results_keep_the_thought_apart_with_its_signature():
    results = [
        anthropic_batches.result_of(line)
        for line in lines("anthropic_batch_results_thinking.jsonl")
    ]

    assert len(results) == 2
    for result in results:
        assert result.response is not None
        message = result.response.message
        assert message.reasoning is not None
        assert len(message.reasoning) > 10_000
        assert message.reasoning not in message.text
        thinking = message.replay["anthropic_content"][0]
        assert thinking["type"] == "thinking"
        assert thinking["signature"]
    assert [r.response.usage.output_tokens for r in results if r.response] == [15820, 10560]


def test_gemini_results_file_lines_read_to_their_replies_and_thoughts_billed_as_output():
    # The notebook printed each line indented, one after another between rules.
    printed = (RECORDED / "gemini_batch_results.cookbook-output.txt").read_text(encoding="utf-8")
    parts = [part[part.index("{") :] for part in printed.split("-" * 20) if "{" in part]
    objects = [json.loads(part) for part in parts]

    results = [gemini_batches.result_of(line) for line in objects]

    assert [r.custom_id for r in results] == ["request_1", "request_2"]
    for line, result in zip(objects, results, strict=True):
        assert result.response is not None
        usage = line["response"]["usageMetadata"]
        assert result.response.usage.input_tokens == usage["promptTokenCount"]
        assert result.response.usage.output_tokens == usage["candidatesTokenCount"] + usage.get(
            "thoughtsTokenCount", 0
        )
        assert result.response.message.text
