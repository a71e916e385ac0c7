"""Pure rules: what books, jobs, glossaries and models are, and the checks on them. No I/O.

ids.py            short ids, unique within their book
book.py           books: drafts read from files, stored books with their ids, their settings
sources.py        where a book's text came from in its original file, for in-place exports
library.py        what the library tells of its books: summaries, progress, versions, places
languages.py      language tags: guessed where a book declares none, spelled in their usual case
edition.py        a new edition matched against the book: what each paragraph and chapter is to it
alignment.py      which paragraph of an old text is which of a new one: a sequence alignment
diff.py           what changed between two versions of a paragraph
chunking.py       a chapter's paragraphs split into chunks, and a chunk rendered for the model
chunk_sizing.py   what a chunk's conversation costs on paper, and the chunk size that costs least
tokens.py         how many tokens a text costs: the token counter, the estimate by script
workflow.py       the workflow table of each job kind, and one chunk's way through it
batch.py          an ``add_translation_batch`` call checked before anything is written
placeholders.py   inline marks shown to a model as numbered placeholders, read back and checked
quality.py        the quality checks on a paragraph's translation, and their warnings
chinese_scripts.py  Simplified and Traditional characters told apart, with OpenCC's data
glossary.py       glossary entries, their matching in text, and contradicting proposals
honorifics.py     names with honorifics (空太先輩, Sora-senpai) and the bare name they vary
cast.py           the cast: who a name means, genders and pronouns, a pronoun of the other gender
forms_of_address.py  how a speaker addresses a listener: the rows a chunk is given, the check
memory.py         the translation memory's index: the same or nearly the same source, found
text_search.py    words found in a book's text and replaced, as plain text or a regex
selection.py      the chapters a job covers, as a person writes them (``1-3,7``)
model_profile.py  a model saved under a name: where it is served, its key's variable, its costs
model_presets.py  the usual model servers (OpenAI, DeepSeek, Ollama…) as a profile's first draft
addresses.py      a model server's address as a person gives it, checked, and fit to print
endpoints.py      requests spread over a profile's endpoints: choice, rest, concurrency
pricing.py        prices per million tokens, service tiers, and rate limits
pace.py           a model's pace on its server, and how long a reply is waited for
chat.py           the assistant's sessions and the entries of their transcripts
plan.py           the translator's plan: plan tasks and the views that list them
"""

from honyaku.domain.batch import (
    MAX_BATCH_ITEMS,
    BatchItem,
    BatchProblem,
    prefix_matches,
    validate_batch,
)
from honyaku.domain.book import (
    CHUNK_CHARS,
    Book,
    BookDraft,
    BookSettings,
    Chapter,
    ChapterDraft,
    Paragraph,
    TranslationKind,
)
from honyaku.domain.chunk_sizing import (
    Behaviour,
    ChunkBill,
    TextCost,
    Weights,
    best_chunk_chars,
    chunk_bill,
)
from honyaku.domain.chunking import (
    Chunk,
    describe_failed_parts,
    render_chunk,
    split_into_chunks,
)
from honyaku.domain.ids import new_id
from honyaku.domain.languages import guess_language, is_chinese, normalize_language
from honyaku.domain.sources import BookSources, InlineMark, OriginalFile, SourceLocation
from honyaku.domain.workflow import (
    ChunkWorkflow,
    JobKind,
    TaskStatus,
    allowed_moves,
    is_allowed,
)

__all__ = [
    "CHUNK_CHARS",
    "MAX_BATCH_ITEMS",
    "BatchItem",
    "BatchProblem",
    "Behaviour",
    "Book",
    "BookDraft",
    "BookSettings",
    "BookSources",
    "Chapter",
    "ChapterDraft",
    "Chunk",
    "ChunkBill",
    "ChunkWorkflow",
    "InlineMark",
    "JobKind",
    "OriginalFile",
    "Paragraph",
    "SourceLocation",
    "TaskStatus",
    "TextCost",
    "TranslationKind",
    "Weights",
    "allowed_moves",
    "best_chunk_chars",
    "chunk_bill",
    "describe_failed_parts",
    "guess_language",
    "is_allowed",
    "is_chinese",
    "new_id",
    "normalize_language",
    "prefix_matches",
    "render_chunk",
    "split_into_chunks",
    "validate_batch",
]
