"""What translating a book costs with honyaku, beside bilingual_book_maker, on the fake model.

    .venv/bin/python bench/cost.py [--books rashomon,title-page,web-novel,kusamakura]
                                   [--behaviours eager,stepwise,careful] [--chunk-chars N]
                                   [--cached-ratio 0.25] [--output-ratio 4] [--bbm PATH]
                                   [--json PATH]

Four books (a short story, the same with its title page a chapter of its own, a dialogue-heavy
web novel, a long EPUB) go through honyaku over real HTTP to the fake model server, once per
scripted model behaviour:

- *eager*: every call of a step in one reply, as few replies as the workflow allows;
- *stepwise*: one tool call per reply, each batch with every missing paragraph;
- *careful*: one tool call per reply, 3 to 12 paragraphs a batch, and ``review`` tried before
  the chapter title, as real models often work.

Stepwise and careful models make several calls in one reply only where the instructions or a
result invite those calls "in one reply", as real models told so do.

honyaku thinks it talks to ``gpt-4o`` (so it counts in o200k), and the server reports o200k
usage. Each run is billed as a provider would (``honyaku.testing.billing``), in OpenAI's o200k
tokens and in DeepSeek's: the part of a prompt that repeats the longest prefix of any earlier
request is counted as cached. Figures are per source character (the work paragraphs' text):
requests (per thousand), prompt characters, uncached and cached prompt tokens, output tokens,
and a billed-equivalent figure, uncached + 0.25 × cached + 4 × output tokens (the ratios of
current price lists; ``--cached-ratio`` and ``--output-ratio`` change them). Alignment is
checked: every paragraph must hold its own pseudo-translation, one that reads as Chinese to
honyaku's quality checks (``hanzi_translation``), as a good model's would: none warns.

Each run is made twice: first with a model honyaku has never seen, then over a copy of the
book once that model has one earlier job (``seen``). Before each, ``--dry-run``'s estimate is
taken and set beside what the run was billed. Where the bill goes is shown part by part, in
billed units per source character: the fixed prefix (tool schemas and system prompt), the
chunk messages, the conversation after them (replies and results sent back), and the output.

With ``--claude``, each book and behaviour also goes through the fake Anthropic server twice,
as ``claude-sonnet-4-5`` billed at genai-prices' Sonnet 4.5 prices: once with honyaku's prompt
cache breakpoints, once without (``AnthropicProvider(cache=False)``). The fake caches as
Anthropic does (a prefix written at a breakpoint, read back by a later request ending at one
of its own; nothing under 1,024 tokens), and the bill counts cache reads at a tenth of input
and cache writes at a quarter more than input.

bilingual_book_maker runs beside it when installed (``python3.11 -m venv /work/bbm-venv &&
/work/bbm-venv/bin/pip install bbook-maker``; ``--bbm`` names its ``bbook_maker``), on the
same text written as TXT (chapter titles and paragraphs one per line, blank lines kept)
against the same fake server, which answers its plain prompts with a pseudo-translation.
Its TXT route sends ten lines per request, after two capability probes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from jobs import light_novel, opening, real_books

from honyaku.agent import Broker
from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.domain.tokens import TokenCounter
from honyaku.jobs import JobFinished, JobRequest, JobService, RunDeps
from honyaku.jobs.estimate import Estimate, estimate_job
from honyaku.llm.anthropic import AnthropicProvider
from honyaku.llm.events import ChatProvider
from honyaku.llm.models import ConnectedModel, ModelChoice, ToolProtocol
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.price_list import listed_prices
from honyaku.llm.retry import RetryingProvider
from honyaku.llm.tokenizers import DEEPSEEK, O200K, counter_for_family
from honyaku.store import Database, Library, Stores
from honyaku.testing import (
    FakeAnthropicServer,
    FakeLLMServer,
    ScriptedTranslator,
    hanzi_translation,
)
from honyaku.testing.billing import (
    HISTORY,
    MESSAGE,
    PREFIX,
    Bill,
    Exchange,
    PromptCache,
    bill_exchanges,
)
from honyaku.testing.fake_anthropic import CacheBill

BBM_DEFAULT = "/work/bbm-venv/bin/bbook_maker"
CLAUDE = "claude-sonnet-4-5"
MODEL = "gpt-4o"
"""The model honyaku believes it talks to: it counts in o200k, as the server does."""
TOKENIZERS = (O200K, DEEPSEEK)
BEHAVIOURS: dict[str, Callable[[], ScriptedTranslator]] = {
    "eager": lambda: ScriptedTranslator(translate=hanzi_translation),
    "stepwise": lambda: ScriptedTranslator.stepwise(translate=hanzi_translation),
    "careful": lambda: ScriptedTranslator.careful(translate=hanzi_translation),
}
PARTS = (PREFIX, MESSAGE, HISTORY)


def books() -> dict[str, BookDraft]:
    real = real_books()
    return {
        "rashomon": real["羅生門 (short story)"],
        "title-page": with_title_page(real["羅生門 (short story)"]),
        "web-novel": web_novel(),
        "kusamakura": real["草枕 (novel, EPUB)"],
    }


def with_title_page(draft: BookDraft) -> BookDraft:
    """The story as a TXT import often reads it: its title page (the title, the author) a
    chapter of its own, before the story."""
    page = ChapterDraft(draft.title, (draft.title, draft.author or "芥川龍之介"))
    return BookDraft(draft.title, (page, *draft.chapters), author=draft.author)


def web_novel() -> BookDraft:
    """The web novel of ``bench/jobs.py``, each line numbered: its few lines repeat, and a
    prompt cache would serve a plain translator's repeated requests whole."""
    draft = light_novel(chapters=8, paragraphs=300)
    numbered = (f"（{n}）{line}" if line else line for n, line in enumerate(_lines(draft)))
    chapters = []
    for chapter in draft.chapters:
        lines = tuple(next(numbered) for _ in chapter.paragraphs)
        chapters.append(ChapterDraft(chapter.title, lines))
    return BookDraft(draft.title, tuple(chapters))


def _lines(draft: BookDraft) -> list[str]:
    return [p for c in draft.chapters for p in c.paragraphs]


@dataclass(frozen=True, slots=True)
class Ratios:
    cached: float
    output: float

    def billed(self, uncached: float, cached: float, output: float) -> float:
        return uncached + self.cached * cached + self.output * output


@dataclass(frozen=True, slots=True)
class Figures:
    """One run's bill, per source character (requests per thousand)."""

    requests_per_kchar: float
    prompt_chars: float
    uncached_tokens: float
    cached_tokens: float
    output_tokens: float
    billed: float
    parts: dict[str, float]
    """Billed units per source character, by part of the request, and the output."""
    aligned: str

    @classmethod
    def of(
        cls,
        exchanges: list[Exchange],
        tokens: TokenCounter,
        source_chars: int,
        ratios: Ratios,
        aligned: str,
    ) -> Figures:
        bills = bill_exchanges(exchanges, tokens)
        cached = sum(b.prompt.cached_tokens for b in bills)
        uncached = sum(b.prompt.tokens for b in bills) - cached
        output = sum(b.output_tokens for b in bills)
        parts = {
            part: billed / source_chars
            for part, billed in _billed_by_part(exchanges, tokens, ratios).items()
        }
        parts["output"] = ratios.output * output / source_chars
        return cls(
            1000 * len(bills) / source_chars,
            sum(b.prompt.chars for b in bills) / source_chars,
            uncached / source_chars,
            cached / source_chars,
            output / source_chars,
            ratios.billed(uncached, cached, output) / source_chars,
            parts,
            aligned,
        )


def _billed_by_part(
    exchanges: list[Exchange], tokens: TokenCounter, ratios: Ratios
) -> dict[str, float]:
    """Each part's prompt tokens, its cached ones at their ratio: a request's cached prefix
    covers its parts in order."""
    cache = PromptCache()
    billed = dict.fromkeys(PARTS, 0.0)
    for exchange in exchanges:
        shared = cache.bill(exchange.prompt).cached_chars
        start = 0
        for part, text in exchange.parts:
            cut = min(max(shared - start, 0), len(text))
            billed[part] += ratios.cached * tokens.count(text[:cut]) + tokens.count(text[cut:])
            start += len(text) + 1
    return billed


@dataclass(frozen=True, slots=True)
class Accuracy:
    """The estimate beside the bill, in billed units (the live bill's tokenizer)."""

    estimated: float
    billed: float

    @property
    def error(self) -> float:
        return self.estimated / self.billed - 1

    @classmethod
    def of(cls, estimate: Estimate, bills: list[Bill], ratios: Ratios) -> Accuracy:
        cached = sum(b.prompt.cached_tokens for b in bills)
        uncached = sum(b.prompt.tokens for b in bills) - cached
        output = sum(b.output_tokens for b in bills)
        return cls(
            ratios.billed(
                estimate.input_tokens - estimate.cached_tokens,
                estimate.cached_tokens,
                estimate.output_tokens,
            ),
            ratios.billed(uncached, cached, output),
        )


@dataclass(frozen=True, slots=True)
class Run:
    exchanges: list[Exchange]
    bills: list[Bill]
    aligned: str
    accuracy: Accuracy


def source_chars(draft: BookDraft) -> int:
    return sum(len(p) for c in draft.chapters for p in c.paragraphs)


def run_honyaku(
    library: Library,
    draft: BookDraft,
    behaviour: str,
    chunk_chars: int | None,
    ratios: Ratios,
) -> Run:
    book_id = library.add_book(draft, source_lang="ja", target_lang="zh-CN")
    if chunk_chars:
        library.update_settings(book_id, chunk_chars=chunk_chars)
    estimate = estimate_job(
        Stores.over(library.database), book_id, JobKind.TRANSLATION, model=MODEL
    )
    tokens = counter_for_family(O200K)
    with FakeLLMServer(BEHAVIOURS[behaviour](), tokens=tokens) as server:
        asyncio.run(_job(library, server.url, book_id))
        exchanges, bills = list(server.exchanges), list(server.bills)
    accuracy = Accuracy.of(estimate, bills, ratios)
    return Run(exchanges, bills, _alignment(library, book_id), accuracy)


async def _job(library: Library, url: str, book_id: str) -> None:
    await _run_job(library, OpenAICompatibleProvider(model=MODEL, base_url=url), book_id)


def run_claude(library: Library, draft: BookDraft, behaviour: str, *, cache: bool) -> ClaudeBill:
    """The book through the fake Anthropic server, with or without cache breakpoints."""
    book_id = library.add_book(draft, source_lang="ja", target_lang="zh-CN")
    with FakeAnthropicServer(BEHAVIOURS[behaviour]()) as server:
        provider = AnthropicProvider(
            model=CLAUDE, api_key="bench", base_url=server.url, cache=cache
        )
        asyncio.run(_run_job(library, provider, book_id))
        return ClaudeBill.of(server.bills)


@dataclass(frozen=True)
class ClaudeBill:
    requests: int
    uncached: int
    cache_reads: int
    cache_writes: int
    output: int
    dollars: float

    @classmethod
    def of(cls, bills: list[CacheBill]) -> ClaudeBill:
        listed = listed_prices(CLAUDE, "https://api.anthropic.com")
        assert listed is not None
        uncached = sum(b.input_tokens for b in bills)
        reads = sum(b.cache_read_input_tokens for b in bills)
        writes = sum(b.cache_creation_input_tokens for b in bills)
        output = sum(b.output_tokens for b in bills)
        dollars = listed.prices.cost(uncached, reads, output, writes)
        return cls(len(bills), uncached, reads, writes, output, dollars)


def measure_claude(name: str, draft: BookDraft, behaviours: str, folder: Path) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for behaviour in behaviours.split(","):
        runs = {}
        for cache in (True, False):
            library = Library(Database.open(folder / f"{name}-claude-{behaviour}-{cache}"))
            runs["breakpoints" if cache else "none"] = run_claude(
                library, draft, behaviour, cache=cache
            )
        cached, plain = runs["breakpoints"], runs["none"]
        saved = 1 - cached.dollars / plain.dollars
        print(
            f"{name}, {CLAUDE} ({behaviour}): {cached.requests} requests; with breakpoints "
            f"${cached.dollars:.4f} ({cached.uncached:,} input, {cached.cache_reads:,} read, "
            f"{cached.cache_writes:,} written, {cached.output:,} output tokens), without "
            f"${plain.dollars:.4f} ({plain.uncached:,} input): {saved:.0%} saved",
            flush=True,
        )
        figures[behaviour] = {k: asdict(v) for k, v in runs.items()} | {"saved": saved}
    return figures


async def _run_job(library: Library, server: ChatProvider, book_id: str) -> None:
    provider = RetryingProvider(server)
    model = ConnectedModel(provider, ToolProtocol.NATIVE)
    service = JobService(RunDeps(Stores.over(library.database), Broker(), opening(model)))
    request = JobRequest(book_id=book_id, kind=JobKind.TRANSLATION)
    try:
        async for event in service.run(request, ModelChoice(MODEL)):
            if isinstance(event, JobFinished) and not event.outcome.ok:
                raise SystemExit(f"the job failed: {event.outcome.failures[0]}")
    finally:
        await provider.aclose()


def _alignment(library: Library, book_id: str) -> str:
    wrong = sum(
        1
        for chapter in library.whole_book(book_id).chapters
        for p in chapter.work_paragraphs
        if p.translation != hanzi_translation(p.text)
    )
    return "exact" if not wrong else f"{wrong} WRONG"


def run_bbm(bbm: str, folder: Path, draft: BookDraft) -> list[Exchange]:
    """bilingual_book_maker over the book as TXT, against the fake server."""
    folder.mkdir(parents=True)
    book = folder / "book.txt"
    lines = [line for c in draft.chapters for line in (c.title, *c.paragraphs)]
    book.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with FakeLLMServer(ScriptedTranslator(translate=hanzi_translation)) as server:
        command = [
            bbm,
            "--book_name",
            str(book),
            "--api_base",
            server.url,
            "--key",
            "sk-fake",
            "--model",
            "fake-translator",
            "--language",
            "zh-hans",
        ]
        environment = {**os.environ, "PYTHONWARNINGS": "ignore"}
        done = subprocess.run(command, capture_output=True, text=True, env=environment)
        if done.returncode:
            raise SystemExit(f"bbook_maker failed:\n{done.stdout}\n{done.stderr}")
        return list(server.exchanges)


BookRows = dict[str, dict[str, Figures]]
"""Per tokenizer, per row (``honyaku careful``, ``bbm``…), one run's figures."""


def measure_book(
    name: str, draft: BookDraft, args: argparse.Namespace, folder: Path
) -> tuple[BookRows, dict[str, dict[str, float]]]:
    ratios = Ratios(args.cached_ratio, args.output_ratio)
    chars = source_chars(draft)
    rows: BookRows = {family: {} for family in TOKENIZERS}
    accuracy: dict[str, dict[str, float]] = {}
    for behaviour in args.behaviours.split(","):
        library = Library(Database.open(folder / f"{name}-{behaviour}"))
        first = run_honyaku(library, draft, behaviour, args.chunk_chars, ratios)
        seen = run_honyaku(library, draft, behaviour, args.chunk_chars, ratios)
        accuracy[behaviour] = {"never seen": first.accuracy.error, "seen": seen.accuracy.error}
        for family in TOKENIZERS:
            tokens = counter_for_family(family)
            for label, run in ((behaviour, first), (f"{behaviour} seen", seen)):
                figures = Figures.of(run.exchanges, tokens, chars, ratios, run.aligned)
                rows[family][f"honyaku {label}"] = figures
    if Path(args.bbm).exists():
        exchanges = run_bbm(args.bbm, folder / f"{name}-bbm", draft)
        for family in TOKENIZERS:
            tokens = counter_for_family(family)
            rows[family]["bbm (TXT route)"] = Figures.of(exchanges, tokens, chars, ratios, "n/a")
    return rows, accuracy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--books", default="rashomon,title-page,web-novel,kusamakura")
    parser.add_argument("--behaviours", default=",".join(BEHAVIOURS))
    parser.add_argument(
        "--chunk-chars", type=int, help="the books' chunk size (default: honyaku's)"
    )
    parser.add_argument("--cached-ratio", type=float, default=0.25)
    parser.add_argument("--output-ratio", type=float, default=4.0)
    parser.add_argument("--bbm", default=shutil.which("bbook_maker") or BBM_DEFAULT)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--claude", action="store_true", help="also bill Claude with and without cache breakpoints"
    )
    args = parser.parse_args()
    all_books = books()
    if not Path(args.bbm).exists():
        print(f"bilingual_book_maker not found at {args.bbm}: honyaku alone\n", file=sys.stderr)
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in args.books.split(","):
            draft = all_books[name]
            rows, accuracy = measure_book(name, draft, args, Path(folder))
            results[name] = {
                "source_chars": source_chars(draft),
                "figures": {f: {r: asdict(x) for r, x in rs.items()} for f, rs in rows.items()},
                "estimate_error": accuracy,
            }
            _print(name, source_chars(draft), rows, accuracy)
            if args.claude:
                claude = measure_claude(name, draft, args.behaviours, Path(folder))
                results[name]["claude"] = claude  # type: ignore[index]
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))


def _print(name: str, chars: int, rows: BookRows, accuracy: dict[str, dict[str, float]]) -> None:
    for family, figures in rows.items():
        bbm = figures.get("bbm (TXT route)")
        print(f"{name}: {chars} source characters, {family} tokens; per source character:")
        print(
            f"  {'':22} {'req/kchar':>9} {'prompt ch':>9} {'uncached':>8} {'cached':>8} "
            f"{'out tok':>7} {'billed':>7} {'vs bbm':>6}  {'prefix':>6} {'chunk':>6} "
            f"{'history':>7} {'output':>6}  aligned"
        )
        for label, f in figures.items():
            ratio = f"{f.billed / bbm.billed:5.2f}×" if bbm else "   -  "
            parts = f.parts
            print(
                f"  {label:22} {f.requests_per_kchar:9.2f} {f.prompt_chars:9.2f} "
                f"{f.uncached_tokens:8.3f} {f.cached_tokens:8.3f} {f.output_tokens:7.3f} "
                f"{f.billed:7.3f} {ratio:>6}  {parts[PREFIX]:6.3f} {parts[MESSAGE]:6.3f} "
                f"{parts[HISTORY]:7.3f} {parts['output']:6.3f}  {f.aligned}"
            )
    errors = ", ".join(
        f"{b}: {e['never seen']:+.0%} never seen, {e['seen']:+.0%} seen"
        for b, e in accuracy.items()
    )
    print(f"  dry-run estimate against the bill (o200k, billed units): {errors}")
    print(flush=True)


if __name__ == "__main__":
    main()
