"""What isolating a refused paragraph costs: one chapter of 40 paragraphs, planned as one part,
translated over real HTTP by the fake model three ways:

- *clean*: no filter;
- *filtered*: the provider's filter refuses any request holding one of the 40 paragraphs, so
  the part fails, and rounds split it until that paragraph stands alone (it is left);
- *fallback*: the same, with a fallback model on another server for what is left.

    .venv/bin/python bench/isolation.py [--behaviours eager,careful]

For each: requests, prompt tokens (uncached and cached), output tokens, billed units
(uncached + 0.25 × cached + 4 × output, as ``bench/cost.py`` counts them), and the paragraphs
translated; then the extra requests and billed units of each against *clean*.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Callable
from pathlib import Path

from honyaku.application import Honyaku, ModelChoice
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.jobs import JobFinished, JobRequest
from honyaku.store import Database, Stores
from honyaku.testing import ContentFilter, FakeLLMServer, ScriptedTranslator, hanzi_translation

PARAGRAPHS = 40
REFUSED = "老婆は血を流して倒れ、下人はその姿を黙って見下ろしていた。"
BEHAVIOURS: dict[str, Callable[[], ScriptedTranslator]] = {
    "eager": lambda: ScriptedTranslator(translate=hanzi_translation),
    "careful": lambda: ScriptedTranslator.careful(translate=hanzi_translation),
}


def book() -> BookDraft:
    lines = [
        f"第{n}段。下人は羅生門の下で雨やみを待ちながら、明日の暮しをどうにかしようと考えていた。"
        for n in range(1, PARAGRAPHS + 1)
    ]
    lines[26] = REFUSED
    return BookDraft("羅生門", (ChapterDraft("一", tuple(lines)),))


def run(behaviour: str, way: str) -> dict[str, float]:
    refusing = ContentFilter(words={"血"}) if way != "clean" else None
    with (
        tempfile.TemporaryDirectory() as home,
        FakeLLMServer(translator=BEHAVIOURS[behaviour](), filter=refusing) as server,
        FakeLLMServer(translator=BEHAVIOURS[behaviour]()) as other,
    ):
        stores = Stores.over(Database.open(Path(home)))
        book_id = stores.library.add_book(book(), source_lang="ja", target_lang="zh-CN")
        fallbacks = (ModelChoice("fallback", other.url),) if way == "fallback" else ()
        model = ModelChoice("gpt-4o", server.url, fallbacks=fallbacks)
        request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION, chunk_chars=20_000)
        finished = asyncio.run(_finished(Honyaku(stores), request, model))
    cost = finished.outcome.job.cost
    uncached = cost.billed_input_tokens - cost.cached_tokens
    coverage = finished.outcome.coverage
    return {
        "requests": cost.requests,
        "uncached": uncached,
        "cached": cost.cached_tokens,
        "output": cost.billed_output_tokens,
        "billed": uncached + 0.25 * cost.cached_tokens + 4 * cost.billed_output_tokens,
        "translated": coverage.paragraphs_done if coverage else 0,
    }


async def _finished(honyaku: Honyaku, request: JobRequest, model: ModelChoice) -> JobFinished:
    events = [event async for event in honyaku.jobs.run(request, model)]
    assert isinstance(events[-1], JobFinished)
    return events[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--behaviours", default=",".join(BEHAVIOURS))
    behaviours = parser.parse_args().behaviours.split(",")
    print(
        f"{'behaviour':<9} {'run':<9} {'requests':>8} {'uncached':>9} {'cached':>8} "
        f"{'output':>7} {'billed':>8} {'done':>5}   extra against clean"
    )
    for behaviour in behaviours:
        clean = run(behaviour, "clean")
        for way in ("clean", "filtered", "fallback"):
            figures = clean if way == "clean" else run(behaviour, way)
            extra = ""
            if way != "clean":
                more = figures["requests"] - clean["requests"]
                ratio = figures["billed"] / clean["billed"]
                extra = f"+{more:.0f} requests, {ratio:.2f}× billed"
            print(
                f"{behaviour:<9} {way:<9} {figures['requests']:>8.0f} {figures['uncached']:>9.0f} "
                f"{figures['cached']:>8.0f} {figures['output']:>7.0f} {figures['billed']:>8.0f} "
                f"{figures['translated']:>3.0f}/{PARAGRAPHS}   {extra}"
            )


if __name__ == "__main__":
    main()
