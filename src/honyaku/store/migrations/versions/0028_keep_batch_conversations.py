"""Keep each part's conversation in batch mode (batch_conversations): its request before it
goes out in a batch, and where its workflow stood, so that a later process takes it back up.

Revision ID: 0028
"""

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"


def upgrade() -> None:
    op.create_table(
        "batch_conversations",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column(
            "job_id", sa.String(8), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "chunk_pk",
            sa.Integer,
            sa.ForeignKey("job_chunks.pk", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("conversation", sa.JSON, nullable=False),
        sa.Column("workflow", sa.JSON, nullable=False),
        sa.Column("custom_id", sa.Text),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_batch_conversations_job_id", "batch_conversations", ["job_id"])
    op.create_index("ix_batch_conversations_chunk_pk", "batch_conversations", ["chunk_pk"])


def downgrade() -> None:
    op.drop_index("ix_batch_conversations_chunk_pk", "batch_conversations")
    op.drop_index("ix_batch_conversations_job_id", "batch_conversations")
    op.drop_table("batch_conversations")
