"""Create chat_sessions and chat_messages (the assistant's conversations, kept whole) and
plan_tasks (the translator's plan).

Revision ID: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.create_table(
        "chat_sessions",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column("book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE")),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "chat_messages",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "session_id",
            sa.String(8),
            sa.ForeignKey("chat_sessions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_chat_messages_session", "chat_messages", ["session_id", "pk"])
    op.create_table(
        "plan_tasks",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE")),
        sa.Column("chapters", sa.JSON),
        sa.Column("job_kind", sa.String(20)),
        sa.Column("scheduled_date", sa.Date),
        sa.Column("completed", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_plan_tasks_date", "plan_tasks", ["scheduled_date"])


def downgrade() -> None:
    for table in ("plan_tasks", "chat_messages", "chat_sessions"):
        op.drop_table(table)
