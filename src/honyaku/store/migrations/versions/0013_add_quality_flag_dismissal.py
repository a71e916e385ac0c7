"""Quality warnings the translator dismissed: when, on the flag itself.

Revision ID: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"


def upgrade() -> None:
    with op.batch_alter_table("quality_flags") as table:
        table.add_column(sa.Column("dismissed_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    with op.batch_alter_table("quality_flags") as table:
        table.drop_column("dismissed_at")
