"""Jobs over some paragraphs only ("retranslate these"): the ids they work on.

Revision ID: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"


def upgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        table.add_column(sa.Column("paragraphs", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        table.drop_column("paragraphs")
