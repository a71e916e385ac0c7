"""Quality warnings the translator dismissed: when, on the flag itself.

Revision ID: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"


def upgrade() -> None:
    with op.batch_alter_table("quality_flags") as table:
        table.add_column(sa.Column("dismissed_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    with op.batch_alter_table("quality_flags") as table:
        table.drop_column("dismissed_at")
