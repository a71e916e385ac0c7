"""Create glossaries (a book's own, or shared by name), the books attached to shared ones,
their versioned entries, and quality flags on translation versions.

Revision ID: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_table(
        "glossaries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE")),
        sa.Column("name", sa.String(100)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("uq_glossaries_book", "glossaries", ["book_id"], unique=True)
    op.create_index("uq_glossaries_name", "glossaries", ["name"], unique=True)
    op.create_table(
        "glossary_attachments",
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column(
            "glossary_id",
            sa.Integer,
            sa.ForeignKey("glossaries.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_table(
        "glossary_entries",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "glossary_id",
            sa.Integer,
            sa.ForeignKey("glossaries.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("aliases", sa.JSON, nullable=False),
        sa.Column("gender", sa.String(40), nullable=False),
        sa.Column("reading", sa.Text, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("origin", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_glossary_entries_key", "glossary_entries", ["glossary_id", "key", "pk"])
    op.create_table(
        "quality_flags",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "translation_pk",
            sa.Integer,
            sa.ForeignKey("translations.pk", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("code", sa.String(40), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
    )
    op.create_index("ix_quality_flags_translation", "quality_flags", ["translation_pk"])


def downgrade() -> None:
    op.drop_table("quality_flags")
    op.drop_table("glossary_entries")
    op.drop_table("glossary_attachments")
    op.drop_table("glossaries")
