"""New editions of a book: the files it was read from, the paragraphs and chapters an edition
left out (paragraphs kept with their versions, out of the chapters), and what a stale
translation or chapter title was made for.

Every book imported before becomes edition 1 of itself.

Revision ID: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    # A copy of the table on SQLite: ``Database`` runs migrations with foreign keys off, so
    # dropping the old table does not cascade to the versions.
    with op.batch_alter_table("paragraphs") as table:
        table.alter_column("chapter_pk", existing_type=sa.Integer, nullable=True)
    op.add_column("translations", sa.Column("translated_from", sa.Text))
    op.add_column("chapters", sa.Column("title_translated_from", sa.Text))
    editions = op.create_table(
        "book_editions",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("name", sa.Text),
        sa.Column("sha256", sa.String(64)),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("summary", sa.JSON),
    )
    op.create_index("uq_book_editions_number", "book_editions", ["book_id", "number"], unique=True)
    op.create_table(
        "gone_paragraphs",
        sa.Column(
            "paragraph_pk",
            sa.Integer,
            sa.ForeignKey("paragraphs.pk", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("edition", sa.Integer, nullable=False),
        sa.Column("chapter_id", sa.String(8), nullable=False),
        sa.Column("chapter_title", sa.Text, nullable=False),
    )
    op.create_index("ix_gone_paragraphs_book", "gone_paragraphs", ["book_id", "edition"])
    op.create_table(
        "gone_chapters",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("edition", sa.Integer, nullable=False),
        sa.Column("chapter_id", sa.String(8), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("translated_title", sa.Text),
    )
    op.create_index("ix_gone_chapters_book", "gone_chapters", ["book_id", "edition"])
    books = sa.table(
        "books", sa.column("id", sa.String), sa.column("created_at", sa.DateTime(timezone=True))
    )
    originals = sa.table(
        "book_originals",
        sa.column("book_id", sa.String),
        sa.column("name", sa.Text),
        sa.column("sha256", sa.String),
    )
    first = sa.select(
        books.c.id, sa.literal(1), originals.c.name, originals.c.sha256, books.c.created_at
    ).select_from(books.outerjoin(originals, originals.c.book_id == books.c.id))
    op.execute(
        editions.insert().from_select(["book_id", "number", "name", "sha256", "imported_at"], first)
    )


def downgrade() -> None:
    op.drop_table("gone_chapters")
    op.drop_table("gone_paragraphs")
    op.drop_table("book_editions")
    op.drop_column("chapters", "title_translated_from")
    op.drop_column("translations", "translated_from")
    op.execute("DELETE FROM paragraphs WHERE chapter_pk IS NULL")
    with op.batch_alter_table("paragraphs") as table:
        table.alter_column("chapter_pk", existing_type=sa.Integer, nullable=False)
