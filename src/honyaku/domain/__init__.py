"""Pure rules: ids, books, chunking and its cost, the workflow table and batch validation.
No I/O."""

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
    turn_budget,
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
    "turn_budget",
    "validate_batch",
]
