"""A database brought to an older revision, as an older honyaku left it."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine

from honyaku.store.revisions import MIGRATIONS


def migrate_to(url: str, revision: str) -> None:
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    engine.dispose()
