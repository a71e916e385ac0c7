"""Fixtures for the formats tests: a draft-to-book builder, hand-made EPUBs, and epubcheck."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from honyaku.domain.book import Book, BookDraft, Chapter, Paragraph
from honyaku.domain.ids import new_id

EPUBCHECK_TIMEOUT_S = 180


TranslateFn = Callable[[int, int, str], str | None]


def build_book(
    draft: BookDraft,
    *,
    source_lang: str = "ja",
    target_lang: str = "zh-CN",
    translate: TranslateFn | None = None,
    translate_titles: bool = False,
) -> Book:
    """A stored-looking ``Book`` from a draft, with fresh ids and optional translations.

    ``translate(chapter_number, paragraph_index, text)`` gives a paragraph's translation.
    """
    taken: set[str] = set()

    def fresh() -> str:
        value = new_id(taken)
        taken.add(value)
        return value

    chapters = []
    for order, chapter in enumerate(draft.chapters):
        paragraphs = tuple(
            Paragraph(fresh(), index, text, translate(order, index, text) if translate else None)
            for index, text in enumerate(chapter.paragraphs)
        )
        translated_title = f"【訳】{chapter.title}" if translate_titles else None
        chapters.append(Chapter(fresh(), order, chapter.title, translated_title, paragraphs))
    return Book(
        id=fresh(),
        title=draft.title,
        author=draft.author,
        source_lang=source_lang,
        target_lang=target_lang,
        chapters=tuple(chapters),
    )


@pytest.fixture(scope="session")
def book_from() -> Callable[..., Book]:
    """``build_book``; session-scoped so that hypothesis tests may use it too."""
    return build_book


@dataclass(frozen=True, slots=True)
class EpubcheckReport:
    returncode: int
    output: str

    @property
    def clean(self) -> bool:
        return self.returncode == 0 and "0 errors / 0 warnings" in self.output


def _epubcheck_command() -> list[str]:
    found = shutil.which("epubcheck")
    if found is None:
        pytest.fail(
            "epubcheck is not installed: the EPUB export must be checked by it "
            "(Debian: apt-get install -y epubcheck)",
            pytrace=False,
        )
    java = shutil.which("java")
    resolved = Path(found).resolve()
    # Debian's epubcheck is the jar itself; run it with java so binfmt_misc is not needed.
    if resolved.suffix == ".jar" and java is not None:
        return [java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", str(resolved)]
    return [found]


@pytest.fixture(scope="session")
def epubcheck() -> Callable[[list[Path]], list[EpubcheckReport]]:
    """Check several EPUBs at once; the JVMs run side by side since each takes seconds."""
    command = _epubcheck_command()

    def check(paths: list[Path]) -> list[EpubcheckReport]:
        running = [
            subprocess.Popen(
                [*command, str(path)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for path in paths
        ]
        reports = []
        for process in running:
            output, _ = process.communicate(timeout=EPUBCHECK_TIMEOUT_S)
            reports.append(EpubcheckReport(process.returncode, output))
        return reports

    return check


CONTAINER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="{opf}" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>"""


def write_epub_zip(
    path: Path,
    files: dict[str, str | bytes],
    *,
    opf_path: str | None = "OEBPS/content.opf",
    mimetype_first: bool = True,
) -> Path:
    """A hand-made EPUB zip, broken in whatever way the test needs."""
    entries: list[tuple[str, str | bytes]] = list(files.items())
    if opf_path is not None:
        entries.insert(0, ("META-INF/container.xml", CONTAINER_XML.format(opf=opf_path)))
    mimetype = ("mimetype", "application/epub+zip")
    entries = [mimetype, *entries] if mimetype_first else [*entries, mimetype]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries:
            archive.writestr(name, content)
    return path


@pytest.fixture
def make_epub() -> Callable[..., Path]:
    return write_epub_zip
