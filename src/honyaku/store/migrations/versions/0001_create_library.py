"""Create the library: books, chapters, paragraphs and translation versions.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "books",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("author", sa.Text),
        sa.Column("source_lang", sa.String(35), nullable=False),
        sa.Column("target_lang", sa.String(35), nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "chapters",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("id", sa.String(8), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("translated_title", sa.Text),
    )
    op.create_index("uq_chapters_book_id", "chapters", ["book_id", "id"], unique=True)
    op.create_index("uq_chapters_book_position", "chapters", ["book_id", "position"], unique=True)
    op.create_table(
        "paragraphs",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "chapter_pk",
            sa.Integer,
            sa.ForeignKey("chapters.pk", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("id", sa.String(8), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
    )
    op.create_index("uq_paragraphs_book_id", "paragraphs", ["book_id", "id"], unique=True)
    op.create_index(
        "ix_paragraphs_chapter_position", "paragraphs", ["chapter_pk", "position"], unique=True
    )
    op.create_table(
        "translations",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "paragraph_pk",
            sa.Integer,
            sa.ForeignKey("paragraphs.pk", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("model", sa.Text),
        sa.Column("job_id", sa.String(8)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("selected", sa.Boolean, nullable=False),
    )
    selected = sa.column("selected", sa.Boolean)
    op.create_index(
        "uq_translations_selected",
        "translations",
        ["paragraph_pk"],
        unique=True,
        sqlite_where=selected,
        postgresql_where=selected,
    )


def downgrade() -> None:
    for table in ("translations", "paragraphs", "chapters", "books"):
        op.drop_table(table)
