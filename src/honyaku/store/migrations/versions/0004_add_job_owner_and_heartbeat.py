"""Add jobs.owner and jobs.heartbeat_at: which process runs a job, and when it last wrote.

Revision ID: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as jobs:
        jobs.add_column(sa.Column("owner", sa.Text))
        jobs.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as jobs:
        jobs.drop_column("heartbeat_at")
        jobs.drop_column("owner")
