"""Keep each translation's inline marks beside its text: where the source's marks (by index)
land in the translated words (translations.marks).

Revision ID: 0024
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"


def upgrade() -> None:
    with op.batch_alter_table("translations") as batch:
        batch.add_column(sa.Column("marks", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("translations") as batch:
        batch.drop_column("marks")
