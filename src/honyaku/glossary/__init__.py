"""A book's glossary of terms and characters, as the translator edits it (``editing``).

Jobs read the same glossary through ``store.glossary.BookGlossary``: its accepted entries are
injected into the chunks they occur in, and models propose new ones with their tools
(``jobs.glossary_tools``); ``honyaku glossary extract`` is a job of its own (``jobs``).
"""

from honyaku.glossary.editing import (
    EntryChange,
    ImportSummary,
    accept_entries,
    add_entry,
    attach_series,
    detach_series,
    entry_history,
    export_glossary,
    glossary_entries,
    import_glossary,
    remove_entry,
)

__all__ = [
    "EntryChange",
    "ImportSummary",
    "accept_entries",
    "add_entry",
    "attach_series",
    "detach_series",
    "entry_history",
    "export_glossary",
    "glossary_entries",
    "import_glossary",
    "remove_entry",
]
