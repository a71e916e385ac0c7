"""How fast the workbench's pages open on big libraries and books, and what the server holds.

Run with ``.venv/bin/python bench/web.py``. A real ``honyaku serve`` over a library of 1,000
books, one of them with 400 chapters and one with a chapter of 20,000 paragraphs (as a TXT
without headings becomes); Debian's Chromium, driven by Playwright, opens each page a few
times. Time is from the start of navigation to the end of the load event (the median of the
runs, cold first run included in the max); memory is the server's peak resident size
(``VmHWM``) after serving them all, beside what it held once started. Target: under 1 s each.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from honyaku.domain import BookDraft, ChapterDraft
from honyaku.store import Database, Library

BOOKS = 1000
CHAPTERS = 400
PARAGRAPHS = 20_000
RUNS = 5
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
LINE = "「ここで雨やみを待っていたのは、下人一人ばかりではなかった。」と彼は思った。"


def fill(home: Path) -> dict[str, str]:
    """The library, and the page of each case."""
    database = Database.open(home)
    library = Library(database)
    small = BookDraft("小さな本", (ChapterDraft("第一章", (LINE, "", LINE)),), author="作者")
    for _ in range(BOOKS - 2):
        library.add_book(small, source_lang="ja", target_lang="zh-CN")
    chapters = tuple(ChapterDraft(f"第{n}章", (LINE,) * 20) for n in range(1, CHAPTERS + 1))
    many = library.add_book(BookDraft("長い物語", chapters), source_lang="ja", target_lang="zh-CN")
    paragraphs = tuple("" if n % 4 == 3 else f"{n}：{LINE}" for n in range(PARAGRAPHS))
    flat = BookDraft("見出しのない本", (ChapterDraft("本文", paragraphs),))
    long = library.add_book(flat, source_lang="ja", target_lang="zh-CN")
    database.close()
    return {
        f"library of {BOOKS:,} books": "/",
        f"book of {CHAPTERS} chapters": f"/books/{many}",
        f"chapter of {PARAGRAPHS:,} paragraphs": f"/books/{long}/chapters/1",
        "… its last page": f"/books/{long}/chapters/1?start={PARAGRAPHS - 200}",
    }


def peak_kib(pid: int) -> tuple[int, int]:
    """The process's resident memory now and at its peak, in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.M))
    return int(found["VmRSS"]), int(found["VmHWM"])


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        pages = fill(home)
        server = subprocess.Popen(
            [sys.executable, "-m", "honyaku", "serve", "--port", "0", "--home", str(home)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            printed = re.search(r"http://\S+", server.stdout.readline())[0]  # type: ignore[index]
            url = printed.partition("?")[0].rstrip("/")
            started = peak_kib(server.pid)[0]
            print(f"server at start: {started / 1024:.0f} MiB resident")
            print(f"{'page':<32} {'median':>8} {'max':>8} {'HTML':>9}")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                page = browser.new_page()
                page.goto(printed)  # as a person opens it: the browser keeps the token
                for name, path in pages.items():
                    times = []
                    for _ in range(RUNS):
                        response = page.goto(url + path, wait_until="load")
                        assert response is not None, path
                        assert response.ok, path
                        times.append(
                            page.evaluate(
                                "() => { const n = performance.getEntriesByType('navigation')[0];"
                                " return n.loadEventEnd - n.startTime; }"
                            )
                        )
                    size = len(response.body())
                    print(
                        f"{name:<32} {statistics.median(times):>6.0f}ms {max(times):>6.0f}ms"
                        f" {size / 1024:>7.0f}KB"
                    )
                browser.close()
            now, peak = peak_kib(server.pid)
            print(f"server after: {now / 1024:.0f} MiB resident, peak {peak / 1024:.0f} MiB")
        finally:
            server.terminate()
            server.wait(timeout=15)


if __name__ == "__main__":
    main()
