"""The library as a translator uses it: import a file or a book's new edition, export or
delete a book, the sample book, the paragraphs the quality checks flagged."""

from honyaku.books.checks import flagged_paragraphs
from honyaku.books.deleting import delete_book
from honyaku.books.exporting import export_book
from honyaku.books.importing import ImportedBook, import_book, sample_book
from honyaku.books.updating import BookHistory, UpdatedBook, book_history, update_book

__all__ = [
    "BookHistory",
    "ImportedBook",
    "UpdatedBook",
    "book_history",
    "delete_book",
    "export_book",
    "flagged_paragraphs",
    "import_book",
    "sample_book",
    "update_book",
]
