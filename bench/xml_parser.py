"""Throughput of the XML tool-call parser, and its cost per call.

Run: .venv/bin/python bench/xml_parser.py

The replies are what a translation model writes: Chinese prose, then <tool_use> blocks whose
``paragraphs`` parameter is a large JSON array of Japanese-to-Chinese translations. Each reply
is fed in chunks of 1, 4, 16 and 64 characters, as a stream would bring it. "MB" is a million
characters (a Chinese character is 3 bytes of UTF-8, so MB/s in bytes would read 2-3x higher).
Linear time shows as a constant µs per thousand characters across sizes. A reasoning model's
reply, whose first half is a ``<think>`` block that drafts the batches, is read at 16 characters.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from honyaku.llm.messages import ToolSpec
from honyaku.llm.xml import convert_arguments
from honyaku.llm.xml.parser import ParsedInvoke, XmlToolParser

REPLY_CHARS = (10_000, 100_000, 1_000_000)
CHUNK_CHARS = (1, 4, 16, 64)
TARGET_MB_PER_S_AT_16 = 5.0
TARGET_US_PER_CALL = 100.0
CALLS_IN_CALL_BENCH = 1_000
BUDGET_S_PER_CELL = 1.5
"""Each table cell repeats its run until it has spent this long, and keeps the best time."""

PROSE = "好的，我来翻译这一段。原文描写了罗生门下避雨的家仆，气氛阴郁而安静。"
TRANSLATION = (
    "一个家仆在罗生门下等待雨停。宽阔的门下除他以外没有别人，只有一只蟋蟀停在朱漆斑驳的圆柱上。"
)
BATCH = ToolSpec(
    "add_translation_batch",
    "Submit translations.",
    {
        "type": "object",
        "properties": {
            "paragraphs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "paragraph_id": {"type": "string"},
                        "translated_text": {"type": "string"},
                    },
                },
            }
        },
        "required": ["paragraphs"],
    },
)
STATUS = ToolSpec(
    "update_task_status",
    "Move the task on.",
    {
        "type": "object",
        "properties": {"status": {"type": "string", "enum": ["working", "review", "end"]}},
    },
)


def batch_block(first_id: int, items: int) -> str:
    paragraphs = [
        {"paragraph_id": f"{first_id + n:08x}", "translated_text": f"{TRANSLATION}（{n}）"}
        for n in range(items)
    ]
    value = json.dumps(paragraphs, ensure_ascii=False)
    return (
        '<tool_use>\n<invoke name="add_translation_batch">\n'
        f'<parameter name="paragraphs">{value}</parameter>\n</invoke>\n</tool_use>\n'
    )


def translation_reply(chars: int) -> str:
    """Prose and 40-paragraph batches, whole blocks only, up to ``chars`` characters."""
    pieces: list[str] = []
    size = 0
    n = 0
    while True:
        piece = f"{PROSE}第{n}批：\n" + batch_block(n * 40, 40)
        if size + len(piece) > chars:
            break
        pieces.append(piece)
        size += len(piece)
        n += 1
    tail = PROSE * ((chars - size) // len(PROSE) + 1)
    return "".join(pieces) + tail[: chars - size]


def thinking_reply(chars: int) -> str:
    """A ``<think>`` block with drafted batches for half of ``chars``, then the answer."""
    thought = translation_reply(chars // 2 - len("<think></think>"))
    return f"<think>{thought}</think>" + translation_reply(chars - chars // 2)


def status_block(n: int) -> str:
    status = ("working", "review", "end")[n % 3]
    return (
        f'第{n}步。\n<tool_use>\n<invoke name="update_task_status">\n'
        f'<parameter name="status">{status}</parameter>\n</invoke>\n</tool_use>\n'
    )


def best_seconds(run: Callable[[], object]) -> float:
    best = float("inf")
    spent = 0.0
    while spent < BUDGET_S_PER_CELL or best == float("inf"):
        start = time.perf_counter()
        run()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        spent += elapsed
    return best


def parse_chunks(chunks: list[str]) -> int:
    parser = XmlToolParser()
    calls = 0
    for chunk in chunks:
        calls += sum(isinstance(event, ParsedInvoke) for event in parser.feed(chunk))
    return calls + sum(isinstance(event, ParsedInvoke) for event in parser.close())


def cut(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def throughput_table() -> list[tuple[int, int, float, float]]:
    rows = []
    for chars in REPLY_CHARS:
        reply = translation_reply(chars)
        assert len(reply) == chars
        for chunk in CHUNK_CHARS:
            chunks = cut(reply, chunk)
            seconds = best_seconds(lambda chunks=chunks: parse_chunks(chunks))
            rows.append((chars, chunk, chars / seconds / 1e6, seconds / chars * 1e9))
    return rows


def thinking_table() -> list[tuple[int, float, float]]:
    rows = []
    for chars in REPLY_CHARS:
        chunks = cut(thinking_reply(chars), 16)
        seconds = best_seconds(lambda chunks=chunks: parse_chunks(chunks))
        rows.append((chars, chars / seconds / 1e6, seconds / chars * 1e9))
    return rows


def call_costs() -> dict[str, float]:
    one_call = status_block(0)
    many = "".join(status_block(n) for n in range(CALLS_IN_CALL_BENCH))
    many_chunks = cut(many, 16)
    assert parse_chunks(many_chunks) == CALLS_IN_CALL_BENCH
    batch = batch_block(0, 40)
    batch_params = XmlToolParser().feed(batch)[0].params  # type: ignore[union-attr]
    repeats = 2_000
    costs = {
        "one call block, fed whole, fresh parser": best_seconds(
            lambda: [parse_chunks([one_call]) for _ in range(repeats)]
        )
        / repeats,
        f"per call, {CALLS_IN_CALL_BENCH} calls with text, 16-char chunks": best_seconds(
            lambda: parse_chunks(many_chunks)
        )
        / CALLS_IN_CALL_BENCH,
        "convert_arguments, enum status": best_seconds(
            lambda: [
                convert_arguments({"status": "review"}, STATUS.parameters) for _ in range(repeats)
            ]
        )
        / repeats,
        f"convert_arguments, 40-item JSON batch ({len(batch_params['paragraphs'])} chars)": (
            best_seconds(
                lambda: [convert_arguments(batch_params, BATCH.parameters) for _ in range(200)]
            )
            / 200
        ),
    }
    return {name: seconds * 1e6 for name, seconds in costs.items()}


def main() -> None:
    rows = throughput_table()
    print("XML tool-call parser throughput (MB = 10^6 characters, best run)")
    print(f"{'reply':>10} {'chunk':>6} {'MB/s':>8} {'ns/char':>8}")
    for chars, chunk, mb_per_s, ns_per_char in rows:
        print(f"{chars:>10,} {chunk:>6} {mb_per_s:>8.2f} {ns_per_char:>8.1f}")
    print()
    print("Linearity: ns/char of the 1 MB reply over ns/char of the 10 KB reply")
    for chunk in CHUNK_CHARS:
        per_char = {chars: ns for chars, size, _, ns in rows if size == chunk}
        ratio = per_char[REPLY_CHARS[-1]] / per_char[REPLY_CHARS[0]]
        print(f"  {chunk:>2}-char chunks: {ratio:.2f}")
    print()
    print("Reasoning model replies, half <think> block, 16-char chunks")
    thinking = thinking_table()
    for chars, mb_per_s, ns_per_char in thinking:
        print(f"{chars:>10,} {16:>6} {mb_per_s:>8.2f} {ns_per_char:>8.1f}")
    print(f"  linearity: {thinking[-1][2] / thinking[0][2]:.2f}")
    print()
    print("Cost per tool call")
    for name, microseconds in call_costs().items():
        print(f"  {name}: {microseconds:.1f} µs")
    at_16 = min(mb for _, chunk, mb, _ in rows if chunk == 16)
    print()
    print(f"Slowest at 16-char chunks: {at_16:.2f} MB/s (target >= {TARGET_MB_PER_S_AT_16})")


if __name__ == "__main__":
    main()
