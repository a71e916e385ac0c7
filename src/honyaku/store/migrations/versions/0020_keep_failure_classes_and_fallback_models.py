"""Keep why each failed part of a job failed (job_chunks.failure, one of the failure classes),
and the fallback models a model profile names (model_profiles.fallbacks).

Revision ID: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"


def upgrade() -> None:
    with op.batch_alter_table("job_chunks") as table:
        table.add_column(sa.Column("failure", sa.String(10)))
    with op.batch_alter_table("model_profiles") as table:
        table.add_column(sa.Column("fallbacks", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("model_profiles") as table:
        table.drop_column("fallbacks")
    with op.batch_alter_table("job_chunks") as table:
        table.drop_column("failure")
