"""Keep Claude's budget of extended thinking with a model profile (model_profiles.thinking_tokens).

Revision ID: 0030
"""

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"


def upgrade() -> None:
    with op.batch_alter_table("model_profiles") as batch:
        batch.add_column(sa.Column("thinking_tokens", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("model_profiles") as batch:
        batch.drop_column("thinking_tokens")
