"""Keep each job's cost by the model that spent it (job_model_costs, seeded from each job's
own model), the conversations each model ran to an end (jobs.conversations…), the round that
planned each part and the model that last ran it (job_chunks.round, job_chunks.model), and
the paragraphs a translator left as they are on purpose (paragraphs.left_on_purpose).

Revision ID: 0023
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"

COUNTERS = (
    "requests",
    "retries",
    "input_chars",
    "output_chars",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "estimated_input_tokens",
    "estimated_output_tokens",
    "batch_replies",
    "batched_paragraphs",
)
NEW_COUNTERS = ("conversations", "conversation_paragraphs")


def upgrade() -> None:
    with op.batch_alter_table("jobs") as table:
        for name in NEW_COUNTERS:
            table.add_column(sa.Column(name, sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("job_chunks") as table:
        table.add_column(sa.Column("round", sa.Integer, nullable=False, server_default="1"))
        table.add_column(sa.Column("model", sa.Text))
    with op.batch_alter_table("paragraphs") as table:
        table.add_column(
            sa.Column("left_on_purpose", sa.Boolean, nullable=False, server_default=sa.false())
        )
    op.create_table(
        "job_model_costs",
        sa.Column(
            "job_id", sa.String(8), sa.ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("model", sa.Text, primary_key=True),
        *(
            sa.Column(name, sa.Integer, nullable=False, server_default="0")
            for name in COUNTERS + NEW_COUNTERS
        ),
    )
    # What each job spent so far was spent by its own model: fallbacks were not told apart.
    # Its conversations are its chunks that ran to an end, as the estimate counted them.
    columns = ", ".join(COUNTERS)
    op.execute(
        f"INSERT INTO job_model_costs (job_id, model, {columns}) "
        f"SELECT id, model, {columns} FROM jobs WHERE requests > 0"
    )
    connection = op.get_bind()
    ended = connection.execute(
        sa.text("SELECT job_id, paragraph_ids FROM job_chunks WHERE status IN ('done', 'failed')")
    )
    counted: dict[str, tuple[int, int]] = {}
    for job_id, paragraph_ids in ended:
        ids = json.loads(paragraph_ids) if isinstance(paragraph_ids, str) else paragraph_ids
        conversations, paragraphs = counted.get(job_id, (0, 0))
        counted[job_id] = (conversations + 1, paragraphs + len(ids or ()))
    for job_id, (conversations, paragraphs) in counted.items():
        connection.execute(
            sa.text(
                "UPDATE job_model_costs SET conversations = :conversations, "
                "conversation_paragraphs = :paragraphs WHERE job_id = :job_id"
            ),
            {"conversations": conversations, "paragraphs": paragraphs, "job_id": job_id},
        )


def downgrade() -> None:
    op.drop_table("job_model_costs")
    with op.batch_alter_table("paragraphs") as table:
        table.drop_column("left_on_purpose")
    with op.batch_alter_table("job_chunks") as table:
        table.drop_column("model")
        table.drop_column("round")
    with op.batch_alter_table("jobs") as table:
        for name in reversed(NEW_COUNTERS):
            table.drop_column(name)
