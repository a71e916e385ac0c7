"""Keep each book's original file and where its paragraphs and chapter titles came from in it,
and a translated book title, so that an EPUB can be exported as itself, translated in place.

Everything is new tables or nullable columns: a book imported before has no original and no
locations, and exports rebuilt, as it always did.

Revision ID: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def _location() -> list[sa.Column]:
    return [
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("locator", sa.Text, nullable=False),
        sa.Column("marks", sa.JSON),
    ]


def upgrade() -> None:
    op.add_column("books", sa.Column("translated_title", sa.Text))
    op.create_table(
        "book_originals",
        sa.Column(
            "book_id",
            sa.String(8),
            sa.ForeignKey("books.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("media_type", sa.String(100), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "paragraph_sources",
        sa.Column(
            "paragraph_pk",
            sa.Integer,
            sa.ForeignKey("paragraphs.pk", ondelete="CASCADE"),
            primary_key=True,
        ),
        *_location(),
    )
    op.create_table(
        "chapter_title_sources",
        sa.Column(
            "chapter_pk",
            sa.Integer,
            sa.ForeignKey("chapters.pk", ondelete="CASCADE"),
            primary_key=True,
        ),
        *_location(),
    )


def downgrade() -> None:
    op.drop_table("chapter_title_sources")
    op.drop_table("paragraph_sources")
    op.drop_table("book_originals")
    # Not a batch: on SQLite that copies the table, and dropping the old books table would
    # cascade to every chapter. SQLite 3.35+ drops a column in place.
    op.drop_column("books", "translated_title")
