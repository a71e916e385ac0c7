"""Count the stops asked of a job (jobs.stop_requests) in place of a flag (stop_requested) that
the first process to stop cleared for the others; keep each chunk's workflow status
(job_chunks.workflow_status), written under the chunk's claim like its other writes.

Revision ID: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    # SQLite 3.35+ adds and drops a column in place: no batch copy of the jobs table.
    op.add_column(
        "jobs", sa.Column("stop_requests", sa.Integer, nullable=False, server_default="0")
    )
    op.drop_column("jobs", "stop_requested")
    op.add_column("job_chunks", sa.Column("workflow_status", sa.String(10)))


def downgrade() -> None:
    op.drop_column("job_chunks", "workflow_status")
    op.add_column(
        "jobs",
        sa.Column("stop_requested", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.drop_column("jobs", "stop_requests")
