"""Keep model trials: each model's copy of the sample and its job, the judge's blind copy,
the translator's reference, and the books that are a trial's copies (books.trial_of, trials,
trial_entries).

Revision ID: 0022
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"


def upgrade() -> None:
    op.add_column("books", sa.Column("trial_of", sa.String(8), nullable=True))
    op.create_index("ix_books_trial_of", "books", ["trial_of"])
    op.create_table(
        "trials",
        sa.Column("id", sa.String(8), primary_key=True),
        sa.Column(
            "book_id", sa.String(8), sa.ForeignKey("books.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("chapters", sa.JSON, nullable=False),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("judge", sa.Text),
        sa.Column("judge_book_id", sa.String(8)),
        sa.Column("judge_job_id", sa.String(8)),
        sa.Column("blind", sa.JSON),
        sa.Column("reference", sa.JSON),
        sa.Column("used", sa.Text),
    )
    op.create_table(
        "trial_entries",
        sa.Column(
            "trial_id",
            sa.String(8),
            sa.ForeignKey("trials.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("book_id", sa.String(8), nullable=False),
        sa.Column("job_id", sa.String(8)),
    )


def downgrade() -> None:
    op.drop_table("trial_entries")
    op.drop_table("trials")
    op.drop_index("ix_books_trial_of", "books")
    op.drop_column("books", "trial_of")
