"""Rename model_profiles to learned_protocols (what the protocol probe found); create
model_profiles for models a person saves under a name.

Revision ID: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.rename_table("model_profiles", "learned_protocols")
    op.create_table(
        "model_profiles",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("provider", sa.String(20)),
        sa.Column("base_url", sa.Text),
        sa.Column("protocol", sa.String(10), nullable=False),
        sa.Column("api_key_env", sa.Text),
        sa.Column("replay_reasoning", sa.Boolean, nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("model_profiles")
    op.rename_table("learned_protocols", "model_profiles")
