"""The features' pages pass axe-core with every folded part open (the chapter's tools, the
start form's estimate): no critical or serious violation, in English and in Chinese. Every
page as it first shows is checked in ``test_workbench_in_every_language``."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import Workbench, serious_violations


@pytest.fixture(scope="module")
def book(workbench: Workbench) -> str:
    """A book translated by the demo model (flagged paragraphs), with two characters and a
    form of address between them."""
    book = workbench.add_book("アリスは森へ行った。", "「ボブさん」とアリスは笑った。", chapters=2)
    workbench.wait_for(workbench.start(book, "demo"))
    for source, target in (("アリス", "爱丽丝"), ("ボブ", "鲍勃")):
        entry = {"source": source, "target": target, "kind": "character", "gender": "female"}
        workbench.api("POST", f"/api/books/{book}/glossary", json={"entry": entry})
    form = {"speaker": "アリス", "listener": "ボブ", "source_form": "ボブさん", "rendering": "鲍勃"}
    workbench.api("POST", f"/api/books/{book}/cast/forms", json=form)
    return book


@pytest.mark.parametrize(
    "path",
    [
        "books/{book}",
        "books/{book}/glossary",
        "books/{book}/cast",
        "books/{book}/quality",
        "models",
        "books/{book}/chapters/1",
    ],
)
def test_the_page_has_no_critical_or_serious_violation(
    page: Page, chinese_page: Page, book: str, path: str
) -> None:
    for opened in (page, chinese_page):
        assert serious_violations(opened, path.format(book=book)) == []
