"""Count the tokens a job (and each model of it) wrote to a prompt cache
(jobs.cache_write_tokens, job_model_costs.cache_write_tokens), and keep the batches a job sent
through a provider's Batch API (job_batches).

Revision ID: 0026
"""

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0023"


def upgrade() -> None:
    for table in ("jobs", "job_model_costs"):
        op.add_column(
            table, sa.Column("cache_write_tokens", sa.Integer, nullable=False, server_default="0")
        )
    op.create_table(
        "job_batches",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column(
            "job_id", sa.String(8), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("provider", sa.String(20), nullable=False),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("batch_id", sa.Text, nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("handle", sa.JSON, nullable=False),
        sa.Column("counts", sa.JSON, nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_job_batches_job_id", "job_batches", ["job_id"])


def downgrade() -> None:
    op.drop_index("ix_job_batches_job_id", "job_batches")
    op.drop_table("job_batches")
    for table in ("jobs", "job_model_costs"):
        with op.batch_alter_table(table) as altered:
            altered.drop_column("cache_write_tokens")
