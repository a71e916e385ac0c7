"""Create jobs (AI runs with their cost) and actions (what happened in their conversations).

Revision ID: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

_COUNTERS = (
    "requests",
    "retries",
    "input_chars",
    "output_chars",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
)


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("chapters", sa.JSON),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("protocol", sa.String(10), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        *(sa.Column(name, sa.Integer, nullable=False, server_default="0") for name in _COUNTERS),
    )
    op.create_table(
        "actions",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "job_id", sa.String(8), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("chapter_id", sa.String(8)),
        sa.Column("chunk", sa.Integer),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("name", sa.Text),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_actions_job", "actions", ["job_id", "pk"])


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("jobs")
