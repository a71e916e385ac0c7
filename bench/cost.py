"""What translating a book costs with honyaku, beside bilingual_book_maker, on the fake model.

    .venv/bin/python bench/cost.py [--books rashomon,web-novel,kusamakura] [--chunk-chars N]
                                   [--cached-ratio 0.25] [--output-ratio 4] [--bbm PATH]

Three books (a short story, a dialogue-heavy web novel, a long EPUB) go through honyaku over
real HTTP to the fake model server, once per scripted model behaviour:

- *eager*: every call of a step in one reply, as few replies as the workflow allows;
- *stepwise*: one tool call per reply, as cautious real models do.

The server bills each request as a provider would (``honyaku.testing.billing``): tokens
estimated script by script, and the part of a prompt that repeats the longest prefix of any
earlier request counted as cached. Figures are per source character (the work paragraphs'
text): requests (per thousand), prompt characters, uncached and cached prompt tokens, output
characters and tokens, and a billed-equivalent figure, uncached + 0.25 × cached + 4 × output
tokens (the ratios of current price lists; ``--cached-ratio`` and ``--output-ratio`` change
them). Alignment is checked: every paragraph must hold its own pseudo-translation.

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

from jobs import light_novel, real_books

from honyaku.domain import BookDraft, ChapterDraft, JobKind
from honyaku.jobs import JobFinished, JobRequest, JobService
from honyaku.llm.models import ConnectedModel, ToolProtocol
from honyaku.llm.openai_compat import OpenAICompatibleProvider
from honyaku.llm.retry import RetryingProvider
from honyaku.store import Database, Library, Stores
from honyaku.testing import FakeLLMServer, FakeTranslator, pseudo_translation
from honyaku.testing.billing import Bill

BBM_DEFAULT = "/work/bbm-venv/bin/bbook_maker"
BEHAVIOURS: dict[str, Callable[[], FakeTranslator]] = {
    "eager": FakeTranslator,
    "stepwise": lambda: FakeTranslator(calls_per_reply=1),
}


def books() -> dict[str, BookDraft]:
    real = real_books()
    return {
        "rashomon": real["羅生門 (short story)"],
        "web-novel": web_novel(),
        "kusamakura": real["草枕 (novel, EPUB)"],
    }


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
class Figures:
    """One run's bill, per source character (requests per thousand)."""

    requests_per_kchar: float
    prompt_chars: float
    uncached_tokens: float
    cached_tokens: float
    output_chars: float
    output_tokens: float
    billed: float
    aligned: str

    @classmethod
    def of(
        cls, bills: list[Bill], source_chars: int, ratios: tuple[float, float], aligned: str
    ) -> Figures:
        cached = sum(b.prompt.cached_tokens for b in bills)
        uncached = sum(b.prompt.tokens for b in bills) - cached
        output = sum(b.output_tokens for b in bills)
        cached_ratio, output_ratio = ratios
        billed = uncached + cached_ratio * cached + output_ratio * output
        return cls(
            1000 * len(bills) / source_chars,
            sum(b.prompt.chars for b in bills) / source_chars,
            uncached / source_chars,
            cached / source_chars,
            sum(b.output_chars for b in bills) / source_chars,
            output / source_chars,
            billed / source_chars,
            aligned,
        )


def source_chars(draft: BookDraft) -> int:
    return sum(len(p) for c in draft.chapters for p in c.paragraphs)


def run_honyaku(
    home: Path, draft: BookDraft, translator: FakeTranslator, chunk_chars: int | None
) -> tuple[list[Bill], str]:
    library = Library(Database.open(home))
    book_id = library.add_book(draft, source_lang="ja", target_lang="zh-CN")
    if chunk_chars:
        library.update_settings(book_id, chunk_chars=chunk_chars)
    with FakeLLMServer(translator) as server:
        asyncio.run(_job(library, server.url, book_id))
        bills = list(server.bills)
    return bills, _alignment(library, book_id)


async def _job(library: Library, url: str, book_id: str) -> None:
    provider = RetryingProvider(OpenAICompatibleProvider(model="fake", base_url=url))
    model = ConnectedModel(provider, ToolProtocol.NATIVE)
    try:
        async for event in JobService(Stores.over(library.database)).run(
            JobRequest(book_id, JobKind.TRANSLATION), model
        ):
            if isinstance(event, JobFinished) and not event.outcome.ok:
                raise SystemExit(f"the job failed: {event.outcome.failures[0]}")
    finally:
        await provider.aclose()


def _alignment(library: Library, book_id: str) -> str:
    wrong = sum(
        1
        for chapter in library.get_book(book_id).chapters
        for p in chapter.work_paragraphs
        if p.translation != pseudo_translation(p.text)
    )
    return "exact" if not wrong else f"{wrong} WRONG"


def run_bbm(bbm: str, folder: Path, draft: BookDraft) -> list[Bill]:
    """bilingual_book_maker over the book as TXT, against the fake server."""
    folder.mkdir(parents=True)
    book = folder / "book.txt"
    lines = [line for c in draft.chapters for line in (c.title, *c.paragraphs)]
    book.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with FakeLLMServer() as server:
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
        return list(server.bills)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--books", default="rashomon,web-novel,kusamakura")
    parser.add_argument("--behaviours", default="eager,stepwise")
    parser.add_argument(
        "--chunk-chars", type=int, help="the books' chunk size (default: honyaku's)"
    )
    parser.add_argument("--cached-ratio", type=float, default=0.25)
    parser.add_argument("--output-ratio", type=float, default=4.0)
    parser.add_argument("--bbm", default=shutil.which("bbook_maker") or BBM_DEFAULT)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    ratios = (args.cached_ratio, args.output_ratio)
    all_books = books()
    with_bbm = Path(args.bbm).exists()
    if not with_bbm:
        print(f"bilingual_book_maker not found at {args.bbm}: honyaku alone\n", file=sys.stderr)
    results: dict[str, dict[str, Figures]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in args.books.split(","):
            draft = all_books[name]
            chars = source_chars(draft)
            rows: dict[str, Figures] = {}
            for behaviour in args.behaviours.split(","):
                home = Path(folder) / f"{name}-{behaviour}"
                bills, aligned = run_honyaku(home, draft, BEHAVIOURS[behaviour](), args.chunk_chars)
                rows[f"honyaku {behaviour}"] = Figures.of(bills, chars, ratios, aligned)
            if with_bbm:
                bills = run_bbm(args.bbm, Path(folder) / f"{name}-bbm", draft)
                rows["bbm (TXT route)"] = Figures.of(bills, chars, ratios, "n/a")
            results[name] = rows
            _print(name, chars, rows)
    if args.json:
        args.json.write_text(
            json.dumps(
                {b: {r: asdict(f) for r, f in rows.items()} for b, rows in results.items()},
                indent=1,
            )
        )


def _print(name: str, chars: int, rows: dict[str, Figures]) -> None:
    bbm = rows.get("bbm (TXT route)")
    print(f"{name}: {chars} source characters; per source character:")
    print(
        f"  {'':18} {'req/kchar':>9} {'prompt ch':>9} {'uncached':>8} {'cached':>8} "
        f"{'out ch':>7} {'out tok':>7} {'billed':>7} {'vs bbm':>6}  aligned"
    )
    for label, f in rows.items():
        ratio = f"{f.billed / bbm.billed:5.2f}×" if bbm else "   -  "
        print(
            f"  {label:18} {f.requests_per_kchar:9.2f} {f.prompt_chars:9.2f} "
            f"{f.uncached_tokens:8.3f} {f.cached_tokens:8.3f} {f.output_chars:7.3f} "
            f"{f.output_tokens:7.3f} {f.billed:7.3f} {ratio:>6}  {f.aligned}"
        )
    print(flush=True)


if __name__ == "__main__":
    main()
