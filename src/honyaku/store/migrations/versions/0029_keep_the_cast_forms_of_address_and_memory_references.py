"""Keep the cast, the address book and the translation memory's references: a character's
pronoun and speech (glossary_entries.pronoun, .speech), the versioned rows of each glossary's
address book (address_forms), and other translators' references (memory_references).

Revision ID: 0029
"""

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"


def upgrade() -> None:
    op.add_column(
        "glossary_entries", sa.Column("pronoun", sa.String(40), nullable=False, server_default="")
    )
    op.add_column(
        "glossary_entries", sa.Column("speech", sa.Text, nullable=False, server_default="")
    )
    op.create_table(
        "address_forms",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "glossary_id",
            sa.Integer,
            sa.ForeignKey("glossaries.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("speaker", sa.Text, nullable=False),
        sa.Column("listener", sa.Text, nullable=False),
        sa.Column("source_form", sa.Text, nullable=False),
        sa.Column("rendering", sa.Text, nullable=False),
        sa.Column("register", sa.String(40), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("since_book", sa.String(8)),
        sa.Column("since_chapter", sa.Integer),
        sa.Column("since_index", sa.Integer),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("origin", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_address_forms_key", "address_forms", ["glossary_id", "key", "pk"])
    op.create_table(
        "memory_references",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "paragraph_pk",
            sa.Integer,
            sa.ForeignKey("paragraphs.pk", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("origin", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "uq_memory_references_paragraph", "memory_references", ["paragraph_pk"], unique=True
    )


def downgrade() -> None:
    op.drop_table("memory_references")
    op.drop_table("address_forms")
    with op.batch_alter_table("glossary_entries") as table:
        table.drop_column("speech")
        table.drop_column("pronoun")
