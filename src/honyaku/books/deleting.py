"""Deleting a book from the library."""

from __future__ import annotations

from honyaku.errors import UserError
from honyaku.store.jobs import JobStatus, JobStore
from honyaku.store.library import Library


def delete_book(library: Library, book_id: str) -> None:
    """Remove the book and all that belongs to it; refused while a job works on it."""
    for job in JobStore(library.database).for_book(book_id):
        if job.shown_status is JobStatus.RUNNING:
            raise UserError(f"job {job.id} is running on this book: stop it first")
    library.delete_book(book_id)
