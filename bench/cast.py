"""What the cast, its forms of address and the series' memory cost in input tokens, chapter by
chapter, on the synthetic series of ``honyaku.testing.series``; and that a book without a cast
costs what it did.

    .venv/bin/python bench/cast.py [--only plain] [--memory N] [--json PATH]

Volume 2 (three chapters, each its own conversation) is translated over real HTTP by the fake
model (every call of a step in one reply, the series' own renderings), twice:

- *plain*: volume 2 alone, no glossary, no series: what it cost before this feature, byte for
  byte (run this one with an older honyaku to compare: ``--only plain``);
- *cast*: volume 2 in the series, volume 1 translated first, its five characters (gender,
  pronoun, speech) and five forms of address accepted: each chunk lists its characters, the
  rows of its pairs and what the memory recalls, and the job is offered
  ``add_forms_of_address`` (and the glossary tools, which any glossary brings).

Per chapter: the prompt tokens billed (uncached and cached, o200k, as the fake server counts
them), the requests, and, of the chunk's first message, the tokens of each section the cast
adds (``glossary``: its characters' lines, ``forms``: the rows, ``memory``: the references);
``prefix``: the tool schemas and system prompt of one request. Billed units are uncached +
0.25 × cached input tokens.

Then the memory's index, on real prose (Kusamakura and the Kojiki, from the tests' fixtures)
and at the scale of a long series of the worst text for it (``--memory`` lines, 100,000 by
default, of ``bench/formats.py``'s text, a hundred characters drawn at random): the CPU
seconds to build it, and to recall a chunk of 40 of its paragraphs with a character changed,
against what comparing each with every remembered one takes (rapidfuzz's ``process.extract``,
in C, with the same cut-off).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import Indel

sys.path.insert(0, str(Path(__file__).parent))

from formats import japanese_text
from jobs import real_books

from honyaku.application import Honyaku, ModelChoice, ToolProtocol
from honyaku.domain import JobKind
from honyaku.jobs import JobFinished, JobRequest
from honyaku.jobs.glossary_prompts import GLOSSARY_HEADER
from honyaku.llm.tokenizers import O200K, counter_for_family
from honyaku.store import Database, Stores
from honyaku.testing import FakeLLMServer, ScriptedTranslator
from honyaku.testing.billing import PREFIX, request_parts
from honyaku.testing.series import (
    CHARACTERS,
    FORMS_OF_ADDRESS,
    LATE_FORM,
    SERIES,
    series_translation,
    volumes,
)

MODEL = "gpt-4o"
SEPARATE = 100
"""Chunks of 100 characters: each chapter of volume 2 a conversation of its own."""
TOKENS = counter_for_family(O200K)


def sections() -> dict[str, str]:
    """The header of each section a chunk's message may add, by name."""
    found = {"glossary": GLOSSARY_HEADER}
    try:
        # Imported here: `--only plain` runs on a honyaku older than the cast, to compare.
        from honyaku.jobs.glossary_prompts import FORMS_HEADER
        from honyaku.jobs.memory_prompts import MEMORY_HEADER
    except ImportError:
        return found
    return found | {"forms": FORMS_HEADER, "memory": MEMORY_HEADER}


def tool_tokens(name: str) -> float:
    """What one tool's schema adds to every request's prefix."""
    from honyaku.domain import BookSettings
    from honyaku.jobs.instructions import job_registry

    [spec] = [s for s in job_registry(JobKind.TRANSLATION, BookSettings()).specs if s.name == name]
    schema = {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }
    return TOKENS.count(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))


def run(honyaku: Honyaku, server: FakeLLMServer, book: str, kind: JobKind, **more: Any) -> Any:
    model = ModelChoice(MODEL, server.url, protocol=ToolProtocol.NATIVE)
    request = JobRequest(book_id=book, kind=kind, concurrency=1, **more)

    async def events() -> JobFinished:
        found = [event async for event in honyaku.jobs.run(request, model)]
        assert isinstance(found[-1], JobFinished)
        assert found[-1].outcome.ok, found[-1].outcome
        return found[-1]

    return asyncio.run(events()).outcome.job.cost


def measured(with_cast: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as home:
        honyaku = Honyaku(Stores.over(Database.open(Path(home))))
        library = honyaku.stores.library
        first, second = (
            library.add_book(draft, source_lang="ja", target_lang="zh-CN") for draft in volumes()
        )
        if with_cast:
            _first_volume(honyaku, first, second)
        translator = ScriptedTranslator(translate=series_translation)
        with FakeLLMServer(translator=translator, tokens=TOKENS) as server:
            cost = run(honyaku, server, second, JobKind.TRANSLATION, chunk_chars=SEPARATE)
            requests = list(server.requests)
        honyaku.close()
    chapters = len(volumes()[1].chapters)
    firsts = [b for b in requests if [m["role"] for m in b["messages"]] == ["system", "user"]]
    added = {name: 0.0 for name in ("glossary", "forms", "memory")}
    for name, header in sections().items():
        added[name] = sum(_section_tokens(b["messages"][1]["content"], header) for b in firsts)
        added[name] /= chapters
    prefix = sum(TOKENS.count(text) for part, text in request_parts(firsts[0]) if part == PREFIX)
    uncached = cost.billed_input_tokens - cost.cached_tokens
    return {
        "requests": cost.requests / chapters,
        "uncached": uncached / chapters,
        "cached": cost.cached_tokens / chapters,
        "billed": (uncached + 0.25 * cost.cached_tokens) / chapters,
        "prefix": prefix,
        **added,
        "messages": [b["messages"][1]["content"] for b in firsts],
    }


def _first_volume(honyaku: Honyaku, first: str, second: str) -> None:
    """The series made, volume 1's cast extracted and accepted, volume 1 translated."""
    for book in (first, second):
        asyncio.run(honyaku.glossary.attach(book, SERIES))
    extractor = ScriptedTranslator(characters=CHARACTERS, forms_of_address=FORMS_OF_ADDRESS)
    with FakeLLMServer(translator=extractor) as server:
        run(honyaku, server, first, JobKind.EXTRACTION)
    asyncio.run(honyaku.glossary.accept(first))
    asyncio.run(honyaku.cast.accept_forms(first))
    translator = ScriptedTranslator(translate=series_translation, forms_of_address=LATE_FORM)
    with FakeLLMServer(translator=translator) as server:
        run(honyaku, server, first, JobKind.TRANSLATION)
    asyncio.run(honyaku.cast.accept_forms(first))


def memory_scale(sources: list[str]) -> dict[str, float]:
    """CPU seconds to index ``sources``, and to recall a chunk of 40 of them (each with a
    character changed) by the index and by comparing every pair."""
    # Imported here, as ``sections`` imports its headers: `--only plain` runs on older code.
    from honyaku.domain.memory import NEARLY_SAME, MemoryIndex, Remembered, memory_key

    rng = random.Random(42)
    remembered = [Remembered("b", f"{n:08x}", 1, n, text, "译") for n, text in enumerate(sources)]
    started = time.process_time()
    index = MemoryIndex()
    index.put(remembered)
    built = time.process_time() - started
    chunk = []
    for text in rng.sample(sources, 40):
        at = rng.randrange(len(text))
        chunk.append(text[:at] + "彼" + text[at + 1 :])
    started = time.process_time()
    found = [index.recall(text) for text in chunk]
    recalled = time.process_time() - started
    keys = [memory_key(text) for text in sources]
    started = time.process_time()
    for text in chunk:
        process.extract(
            memory_key(text), keys, scorer=Indel.normalized_similarity,
            score_cutoff=NEARLY_SAME, limit=1,
        )  # fmt: skip
    naive = time.process_time() - started
    return {
        "paragraphs": len(index),
        "build_s": built,
        "chunk_s": recalled,
        "naive_chunk_s": naive,
        "recalled": sum(1 for f in found if f),
    }


def prose() -> list[str]:
    """Kusamakura's and the Kojiki's paragraphs, as the tests' fixtures hold them."""
    books = real_books()
    return [
        paragraph
        for title in ("草枕 (novel, EPUB)", "古事記 (Aozora TXT)")
        for chapter in books[title].chapters
        for paragraph in chapter.paragraphs
        if len(paragraph) > 12
    ]


def uniform(count: int) -> list[str]:
    """``count`` lines of ``bench/formats.py``'s text, drawn from a hundred characters at
    random: the worst for the index, whose pairs are all common."""
    lines = [line.strip() for line in japanese_text(count * 120).splitlines()]
    return [line for line in lines if len(line) > 20][:count]


def _section_tokens(message: str, header: str) -> float:
    if header not in message:
        return 0.0
    return TOKENS.count(header + message.split(header, 1)[1].split("\n\n", 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("plain", "cast"), default=None)
    parser.add_argument("--memory", type=int, default=100_000)
    parser.add_argument("--json", type=Path, default=None)
    options = parser.parse_args()
    runs = {name: name == "cast" for name in ("plain", "cast") if options.only in (None, name)}
    found = {name: measured(with_cast) for name, with_cast in runs.items()}
    print("volume 2 of the synthetic series, per chapter (o200k tokens)")
    print(
        f"{'run':<6} {'requests':>8} {'uncached':>9} {'cached':>7} {'billed':>7} {'prefix':>7} "
        f"{'glossary':>9} {'forms':>6} {'memory':>7}"
    )
    for name, figures in found.items():
        print(
            f"{name:<6} {figures['requests']:>8.1f} {figures['uncached']:>9.0f} "
            f"{figures['cached']:>7.0f} {figures['billed']:>7.0f} {figures['prefix']:>7.0f} "
            f"{figures['glossary']:>9.0f} {figures['forms']:>6.0f} {figures['memory']:>7.0f}"
        )
    if len(found) == 2:
        more = found["cast"]["billed"] - found["plain"]["billed"]
        share = more / found["plain"]["billed"]
        print(
            f"the book in its series costs {more:.0f} billed units a chapter more ({share:+.0%}):"
        )
        cast = found["cast"]
        lines = cast["glossary"] + cast["forms"] + cast["memory"]
        print(f"  {lines:.0f} tokens of its message (the cast's lines, the rows, the references),")
        print(
            f"  {cast['prefix'] - found['plain']['prefix']:.0f} tokens of prefix, cached after a "
            f"chapter's first request: the glossary tools and add_forms_of_address "
            f"({tool_tokens('add_forms_of_address'):.0f})"
        )
    if options.memory and options.only is None:
        for name, sources in (("prose", prose()), ("uniform", uniform(options.memory))):
            scale = memory_scale(sources)
            found[f"memory_{name}"] = scale
            print(
                f"memory of {scale['paragraphs']:,.0f} paragraphs of {name}: built in "
                f"{scale['build_s']:.2f} s, a chunk of 40 recalled in "
                f"{scale['chunk_s'] * 1000:.0f} ms ({scale['recalled']:.0f} found), every pair "
                f"compared {scale['naive_chunk_s'] * 1000:.0f} ms"
            )
    if options.json:
        options.json.write_text(json.dumps(found, ensure_ascii=False, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
