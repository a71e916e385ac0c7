"""Prices, service tier and rate limits on model profiles; on jobs, the tokens honyaku
estimated for the requests it sent, beside what the provider reported.

Revision ID: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"

_PROFILE_COLUMNS = (
    ("input_price", sa.Float),
    ("cached_input_price", sa.Float),
    ("output_price", sa.Float),
    ("service_tier", lambda: sa.String(20)),
    ("requests_per_minute", sa.Integer),
    ("tokens_per_minute", sa.Integer),
)
_JOB_COLUMNS = ("estimated_input_tokens", "estimated_output_tokens")


def upgrade() -> None:
    with op.batch_alter_table("model_profiles") as table:
        for name, kind in _PROFILE_COLUMNS:
            table.add_column(sa.Column(name, kind()))
    with op.batch_alter_table("jobs") as table:
        for name in _JOB_COLUMNS:
            table.add_column(sa.Column(name, sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        for name in _JOB_COLUMNS:
            table.drop_column(name)
    with op.batch_alter_table("model_profiles") as table:
        for name, _kind in reversed(_PROFILE_COLUMNS):
            table.drop_column(name)
