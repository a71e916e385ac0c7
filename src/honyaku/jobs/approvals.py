"""Which calls need the translator's yes before they run: one policy per book, the same for
its jobs and for chats about it.

A book's settings name the tools whose every call is approved first (``approve_tools``)
and those never asked about (``always_allow``). An "always allow" the person gives in a
dialog is saved in the book's ``always_allow``, where its settings show it and every later
job and chat sees it. Calls about no book (a chat about the whole library) keep an "always"
for as long as the policy lives.
"""

from __future__ import annotations

from honyaku.agent.broker import ApprovalPolicy, Broker
from honyaku.store.library import Library


def book_approvals(broker: Broker, library: Library, book_id: str | None) -> ApprovalPolicy:
    """The approval policy for calls about ``book_id`` (``None``: about no book). Reads the
    book's settings: call it off the event loop."""
    if book_id is None:
        return ApprovalPolicy(broker)
    settings = library.settings(book_id)

    def save_always(tool: str) -> None:
        allowed = library.settings(book_id).always_allow
        if tool not in allowed:
            library.update_settings(book_id, always_allow=[*allowed, tool])

    return ApprovalPolicy(
        broker, set(settings.approve_tools), set(settings.always_allow), save_always
    )
