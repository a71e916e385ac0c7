"""Keep the pace learned of a model on a server (learned_protocols): the prompt tokens it reads
and the tokens it writes a second, the longest reply it wrote, and how many replies taught it.

Revision ID: 0018
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"

_RATES = ("prompt_tokens_per_s", "output_tokens_per_s")
_COUNTS = ("longest_reply_tokens", "timed_replies")


def upgrade() -> None:
    with op.batch_alter_table("learned_protocols") as table:
        for name in _RATES:
            table.add_column(sa.Column(name, sa.Float))
        for name in _COUNTS:
            table.add_column(sa.Column(name, sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("learned_protocols") as table:
        for name in (*_RATES, *_COUNTS):
            table.drop_column(name)
