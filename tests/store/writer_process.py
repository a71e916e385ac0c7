"""One process of the concurrency tests (``test_concurrent_writers.py``).

    python writer_process.py SCENARIO ARG...

It opens the database that ``HONYAKU_DATABASE_URL`` (else ``HONYAKU_HOME``) names, says
``ready``, waits for a line on standard input so that its siblings start together, then
does its part and prints what happened as one JSON line.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import event

from honyaku.domain import TranslationKind
from honyaku.errors import ClaimLost
from honyaku.store import ChunkStatus, ChunkStore, Claim, Database, JobStore, Library

PAUSE_S = 600


def main(scenario: str, *args: str) -> None:
    library = Library(Database.open())
    SCENARIOS[scenario](library, *args)


def versions(library: Library, book_id: str, rounds: str, seed: str) -> None:
    """Write a version of every paragraph of the first chapter, and select one of a random
    paragraph's versions, over and over."""
    ids = _first_chapter(library, book_id)
    rng = random.Random(seed)
    _start()
    for n in range(int(rounds)):
        texts = {pid: f"{seed}-{n}" for pid in ids}
        library.add_translations(book_id, texts, kind=TranslationKind.TRANSLATION)
        pid = rng.choice(ids)
        library.select_version(book_id, pid, rng.choice(library.versions(book_id, pid)).id)
    _say(done=True)


def same_texts(library: Library, book_id: str, rounds: str) -> None:
    """Write the same texts as every sibling, round after round, into every paragraph of the
    first chapter."""
    ids = _first_chapter(library, book_id)
    _start()
    for n in range(int(rounds)):
        library.add_translations(
            book_id, dict.fromkeys(ids, f"第{n}稿"), kind=TranslationKind.MANUAL
        )
    _say(done=True)


def killed_batch(library: Library, book_id: str) -> None:
    """Write a batch of the first chapter, and stop dead once its versions are inserted but
    not yet committed: the test kills this process there."""
    ids = _first_chapter(library, book_id)

    @event.listens_for(library.database.engine, "after_cursor_execute")
    def pause(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO TRANSLATIONS"):
            _say(inserted=len(ids))
            time.sleep(PAUSE_S)

    _start()
    library.add_translations(book_id, dict.fromkeys(ids, "途中"), kind=TranslationKind.TRANSLATION)


def holder(library: Library, job_id: str) -> None:
    """Claim the job's first chunk, then, once told, try every write under that claim."""
    chunks = ChunkStore(library.database)
    claim = _claim(chunks, job_id)
    _say(attempt=claim.token.attempt)
    _start()
    _say(**_writes(library, chunks, claim, "旧"))


def taker(library: Library, job_id: str) -> None:
    """Claim the job's first chunk (its holder gone silent) and do its work under the claim."""
    chunks = ChunkStore(library.database)
    _start()
    claim = _claim(chunks, job_id)
    _say(attempt=claim.token.attempt, **_writes(library, chunks, claim, "新"))


def _writes(library: Library, chunks: ChunkStore, claim: Claim, text: str) -> dict[str, str]:
    """Each kind of write made under a claim, and whether it was written or refused."""
    book_id = JobStore(library.database).get(claim.item.job_id).book_id
    chapter_id = claim.item.planned.chapter_id
    token = claim.token
    writes: dict[str, Callable[[], None]] = {
        "batch": lambda: library.add_translations(
            book_id,
            dict.fromkeys(claim.free, text),
            kind=TranslationKind.TRANSLATION,
            claim=token,
        ),
        "title": lambda: library.set_chapter_title(book_id, chapter_id, text, claim=token),
        "status": lambda: chunks.record_workflow(token, "end"),
        "finish": lambda: chunks.finish(token, ChunkStatus.DONE),
    }
    results = {}
    for name, write in writes.items():
        try:
            write()
            results[name] = "written"
        except ClaimLost as exc:
            results[name] = f"refused: {exc}"
    beat = chunks.beat(claim.item.job_id, [token], stops_seen=0)
    results["heartbeat"] = "lost" if token in beat.lost else "held"
    return results


def _claim(chunks: ChunkStore, job_id: str) -> Claim:
    claim = chunks.claim(chunks.items(job_id)[0].pk)
    assert isinstance(claim, Claim), claim
    return claim


def _first_chapter(library: Library, book_id: str) -> list[str]:
    return [
        p.id for p in library.whole_book(book_id, chapter_numbers=[1]).chapters[0].work_paragraphs
    ]


def _start() -> None:
    _say(ready=True)
    sys.stdin.readline()


def _say(**what: object) -> None:
    print(json.dumps(what, ensure_ascii=False), flush=True)


SCENARIOS: dict[str, Callable[..., None]] = {
    "versions": versions,
    "same_texts": same_texts,
    "killed_batch": killed_batch,
    "holder": holder,
    "taker": taker,
}

if __name__ == "__main__":
    main(*sys.argv[1:])
