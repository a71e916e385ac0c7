"""Create job_chunks, a job's plan as work items; add jobs.retranslate, jobs.stop_requested and
jobs.reasoning_tokens; index translations by paragraph (a lookup of a paragraph's versions
scanned the whole table).

Revision ID: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as jobs:
        jobs.add_column(sa.Column("retranslate", sa.Boolean, nullable=False, server_default="0"))
        jobs.add_column(sa.Column("stop_requested", sa.Boolean, nullable=False, server_default="0"))
        jobs.add_column(
            sa.Column("reasoning_tokens", sa.Integer, nullable=False, server_default="0")
        )
    op.create_table(
        "job_chunks",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "job_id", sa.String(8), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("book_id", sa.String(8), nullable=False),
        sa.Column("chapter_id", sa.String(8), nullable=False),
        sa.Column("chapter_number", sa.Integer, nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("chunks_in_chapter", sa.Integer, nullable=False),
        sa.Column("paragraph_ids", sa.JSON, nullable=False),
        sa.Column("shows_title", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("owner", sa.Text),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True)),
        sa.Column("error", sa.Text),
    )
    op.create_index(
        "uq_job_chunks_position",
        "job_chunks",
        ["job_id", "chapter_number", "number"],
        unique=True,
    )
    op.create_index("ix_job_chunks_book_status", "job_chunks", ["book_id", "status"])
    op.create_index("ix_translations_paragraph", "translations", ["paragraph_pk"])


def downgrade() -> None:
    op.drop_index("ix_translations_paragraph", "translations")
    op.drop_table("job_chunks")
    with op.batch_alter_table("jobs") as jobs:
        jobs.drop_column("reasoning_tokens")
        jobs.drop_column("stop_requested")
        jobs.drop_column("retranslate")
