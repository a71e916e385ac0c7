"""What a reply cut short teaches of the model's context window (``llm.models.ContextWindow``):
the window where nobody said it, nothing where the server or the profile did."""

from __future__ import annotations

import asyncio

from honyaku.llm.models import ContextWindow


def test_a_reply_cut_short_gives_the_window_nobody_said():
    remembered: list[int] = []
    window = ContextWindow(remember=remembered.append)

    asyncio.run(window.learn_from_cut_reply(4917))

    assert (window.tokens, remembered) == (4917, [4917])
    assert window.source == "a reply cut off at the model's limit"


def test_a_reply_cut_at_the_servers_cap_on_replies_leaves_the_window_it_said():
    # llama-cpp-python cut a 14-token reply to a 4,903-token prompt on an 8,192-token server.
    remembered: list[int] = []
    window = ContextWindow(8192, "llama.cpp", remember=remembered.append, said=True)

    asyncio.run(window.learn_from_cut_reply(4917))

    assert (window.tokens, window.source, remembered) == (8192, "llama.cpp", [])
