"""Mark the jobs run by workers from the job queue (jobs.queued); keep the questions of queued
jobs (questions) until a person answers them; share rate limits (rate_limits,
rate_limit_sends) and spending caps (spending_runs, spending) through the database; and, on
PostgreSQL, create the job queue's own tables and functions (Procrastinate's schema, from the
installed ``procrastinate``, which ``honyaku[postgres]`` brings).

Procrastinate's later schema changes come as SQL files in its ``sql/migrations``; a honyaku
migration applies those of a newer Procrastinate when honyaku raises its lower bound.

Revision ID: 0015
"""

import sqlalchemy as sa
from alembic import op

from honyaku.errors import ConfigError

revision = "0015"
down_revision = "0014"


def upgrade() -> None:
    op.add_column(
        "jobs", sa.Column("queued", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.create_table(
        "questions",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "job_id", sa.String(8), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "chunk_pk",
            sa.Integer,
            sa.ForeignKey("job_chunks.pk", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("chapter_number", sa.Integer, nullable=False),
        sa.Column("asker", sa.Text, nullable=False),
        sa.Column("request", sa.JSON, nullable=False),
        sa.Column("conversation", sa.JSON, nullable=False),
        sa.Column("workflow", sa.JSON, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("reply", sa.JSON),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_questions_status", "questions", ["status", "deadline_at"])
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("held_until", sa.Float, nullable=False),
    )
    op.create_table(
        "rate_limit_sends",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "key",
            sa.String(200),
            sa.ForeignKey("rate_limits.key", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("sent_at", sa.Float, nullable=False),
        sa.Column("tokens", sa.Integer, nullable=False),
    )
    op.create_index("ix_rate_limit_sends_key", "rate_limit_sends", ["key", "sent_at"])
    op.create_table(
        "spending_runs",
        sa.Column("run", sa.String(80), primary_key=True),
        sa.Column("cap", sa.Float, nullable=False),
    )
    op.create_table(
        "spending",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "run",
            sa.String(80),
            sa.ForeignKey("spending_runs.run", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("reserved", sa.Float, nullable=False),
        sa.Column("cost", sa.Float, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_spending_run", "spending", ["run"])
    if op.get_bind().dialect.name == "postgresql":
        try:
            from procrastinate.schema import SchemaManager
        except ModuleNotFoundError:
            raise ConfigError(
                "the job queue's schema needs procrastinate: pip install 'honyaku[postgres]'"
            ) from None
        # Passed with parameters, however empty: psycopg reads every % as a placeholder.
        op.get_bind().exec_driver_sql(SchemaManager.get_schema().replace("%", "%%"))


def downgrade() -> None:
    op.drop_table("spending")
    op.drop_table("spending_runs")
    op.drop_table("rate_limit_sends")
    op.drop_table("rate_limits")
    op.drop_index("ix_questions_status", "questions")
    op.drop_table("questions")
    op.drop_column("jobs", "queued")
