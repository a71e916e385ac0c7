"""Let a model profile name its key (model_profiles.key_name): the environment variable of
that name, else the entry of that name in the key store of the process that uses it. A name,
never a key. Profiles saved before name none.

Revision ID: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"


def upgrade() -> None:
    op.add_column("model_profiles", sa.Column("key_name", sa.String(100)))


def downgrade() -> None:
    with op.batch_alter_table("model_profiles") as table:
        table.drop_column("key_name")
