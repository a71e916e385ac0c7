"""Let a model profile list more endpoints (model_profiles.more_endpoints): base URLs and key
variables' names that requests spread over. Profiles saved before have none.

Revision ID: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"


def upgrade() -> None:
    op.add_column(
        "model_profiles",
        sa.Column("more_endpoints", sa.JSON, nullable=False, server_default="[]"),
    )


def downgrade() -> None:
    op.drop_column("model_profiles", "more_endpoints")
