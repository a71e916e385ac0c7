"""What honyaku learns about a model as it works: on jobs, the replies that carried batches
and the paragraphs they saved (how the model works through a chunk), and the chunk size the
job's chunks waiting to run are planned with; on model profiles and on what was learned
about a model on a server, its context window in tokens.

Revision ID: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"

_JOB_COUNTERS = ("batch_replies", "batched_paragraphs")
_WINDOWS = ("model_profiles", "learned_protocols")


def upgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        for name in _JOB_COUNTERS:
            table.add_column(sa.Column(name, sa.Integer, nullable=False, server_default="0"))
        table.add_column(sa.Column("chunk_chars", sa.Integer))
    for name in _WINDOWS:
        with op.batch_alter_table(name) as table:
            table.add_column(sa.Column("context_window", sa.Integer))
    with op.batch_alter_table("learned_protocols") as table:
        # A window may be learned of a model whose protocol was never asked.
        table.alter_column("protocol", existing_type=sa.String(10), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM learned_protocols WHERE protocol IS NULL")
    with op.batch_alter_table("learned_protocols") as table:
        table.alter_column("protocol", existing_type=sa.String(10), nullable=False)
    for name in _WINDOWS:
        with op.batch_alter_table(name) as table:
            table.drop_column("context_window")
    with op.batch_alter_table("jobs") as table:
        table.drop_column("chunk_chars")
        for name in reversed(_JOB_COUNTERS):
            table.drop_column(name)
