"""Keep a rating job's scores: each translation version's score, issues and comment, by the
job and the model that rated it (ratings).

Revision ID: 0021
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "translation_pk",
            sa.Integer,
            sa.ForeignKey("translations.pk", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("job_id", sa.String(8), nullable=False),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("issues", sa.JSON, nullable=False),
        sa.Column("comment", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_translation", "ratings", ["translation_pk"])
    op.create_index("ix_ratings_job", "ratings", ["job_id"])


def downgrade() -> None:
    op.drop_table("ratings")
