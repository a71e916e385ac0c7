"""What a 50-turn chat with the assistant costs, with and without summaries.

Run with ``.venv/bin/python bench/chat.py``. The fake model, over HTTP, is scripted as an
assistant that reads 20 paragraphs of Rashōmon each turn (``read_paragraphs``) and answers
in a sentence: the history grows by a few thousand characters a turn, as a chat about a book
does. The same 50 turns run twice: with the default context budget, older turns are
summarised once the transcript passes it; with no budget, every turn resends them all. The
fake server bills as a provider does, its prompt cache serving the longest prefix any
earlier request shared; billed-equivalent = uncached + 0.25 × cached + 4 × output.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from honyaku.application import Honyaku
from honyaku.assistant import ChatService
from honyaku.assistant.service import CONTEXT_CHARS
from honyaku.llm.models import ModelChoice, ToolProtocol
from honyaku.store import Database, Stores
from honyaku.testing import FakeCall, FakeLLMServer, Reply, ScriptedAssistant, ScriptedTranslator

TURNS = 50
PARAGRAPHS = 20


def reading(turns: object) -> Reply:
    return Reply("", (FakeCall("read_paragraphs", {"chapter": 1, "count": PARAGRAPHS}),))


async def chat(stores: Stores, book_id: str, server: FakeLLMServer, budget: int) -> None:
    honyaku = Honyaku(stores)
    service = ChatService(
        honyaku, stores.chats, honyaku.broker, honyaku.open_model, context_chars=budget
    )
    choice = ModelChoice("fake", server.url, protocol=ToolProtocol.NATIVE)
    model = await service.model(choice, language="zh-CN")
    session = await service.session(None, book_id, "Let us read the book")
    for turn in range(TURNS):
        async for _event in service.reply(session, f"Read on, please ({turn})", model):
            pass
    await service.aclose()


def measure(budget: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as home:
        stores = Stores.over(Database.open(Path(home)))
        book_id = asyncio.run(Honyaku(stores).books.import_sample())
        script = {"Read on": [reading, Reply("Read; the gate is quiet and the rain goes on.")]}
        with FakeLLMServer(ScriptedTranslator(assistant=ScriptedAssistant(script))) as server:
            asyncio.run(chat(stores, book_id, server, budget))
        stores.database.close()
        bills = server.bills
    prompt = sum(b.prompt.tokens for b in bills)
    cached = sum(b.prompt.cached_tokens for b in bills)
    output = sum(b.output_tokens for b in bills)
    return {
        "requests": len(bills),
        "prompt": prompt,
        "cached": cached,
        "output": output,
        "largest": max(b.prompt.tokens for b in bills),
        "billed": (prompt - cached) + 0.25 * cached + 4 * output,
    }


def main() -> None:
    rows = [
        (f"summaries past {CONTEXT_CHARS:,} chars", measure(CONTEXT_CHARS)),
        ("no summaries", measure(sys.maxsize)),
    ]
    print(f"{TURNS} turns, each reading {PARAGRAPHS} paragraphs (tokens as the server billed)")
    heads = ("requests", 8), ("prompt", 10), ("cached", 10), ("output", 7), ("largest", 8)
    print(f"{'':28} " + " ".join(f"{h:>{w}}" for h, w in heads) + f" {'billed-eq':>10}")
    for name, row in rows:
        print(
            f"{name:28} {row['requests']:>8} {row['prompt']:>10,} {row['cached']:>10,} "
            f"{row['output']:>7,} {row['largest']:>8,} {row['billed']:>10,.0f}"
        )


if __name__ == "__main__":
    main()
