"""Models saved under a name, for the command line and the web app alike, and the servers
their keys were saved for (``domain.key_addresses``), which outlive them."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError
from sqlalchemy import select

from honyaku.domain.key_addresses import KeyBinding
from honyaku.domain.model_profile import ModelProfile
from honyaku.errors import ConfigError, NotFoundError
from honyaku.store.database import Database
from honyaku.store.schema import KeyAddressRow, ModelProfileRow, table_of, utc_now
from honyaku.store.upsert import insert_missing, upsert


class ModelProfiles:
    def __init__(self, database: Database) -> None:
        self.database = database

    def save(self, profile: ModelProfile, bindings: Iterable[KeyBinding] = ()) -> None:
        """Add the profile, or replace the one of the same name, and bind its keys to its
        servers (``bindings``), in one transaction. A binding is never undone; one named at a
        terminal stays so."""
        with self.database.transaction() as session:
            upsert(session, ModelProfileRow, {**profile.model_dump(), "saved_at": utc_now()})
            for binding in bindings:
                values = {
                    "name": binding.name,
                    "server": binding.server,
                    "named_at_terminal": binding.named_at_terminal,
                    "bound_at": utc_now(),
                }
                if binding.named_at_terminal:
                    upsert(session, KeyAddressRow, values)
                else:
                    insert_missing(session, table_of(KeyAddressRow), values)

    def key_bindings(self) -> list[KeyBinding]:
        """The servers each key's name is bound to, as profiles saved them."""
        with self.database.transaction() as session:
            rows = session.scalars(select(KeyAddressRow).order_by(KeyAddressRow.name))
            return [KeyBinding(r.name, r.server, r.named_at_terminal) for r in rows]

    def get(self, name: str) -> ModelProfile | None:
        with self.database.transaction() as session:
            row = session.get(ModelProfileRow, name)
            return _profile(row) if row else None

    def fallbacks_of(self, profile: ModelProfile) -> list[ModelProfile]:
        """The profiles ``profile`` names as its fallbacks, in its order."""
        found = []
        for name in profile.fallbacks:
            fallback = self.get(name)
            if fallback is None:
                raise NotFoundError(
                    "the model profile {profile!r} names {name!r} as a fallback, and no "
                    "profile is saved under that name",
                    profile=profile.name,
                    name=name,
                )
            found.append(fallback)
        return found

    def all(self) -> list[ModelProfile]:
        with self.database.transaction() as session:
            rows = session.scalars(select(ModelProfileRow).order_by(ModelProfileRow.name))
            return [_profile(row) for row in rows]

    def remove(self, name: str) -> None:
        with self.database.transaction() as session:
            row = session.get(ModelProfileRow, name)
            if row is None:
                raise NotFoundError("no model profile named {name!r}", name=name)
            session.delete(row)


def _profile(row: ModelProfileRow) -> ModelProfile:
    try:
        saved = {name: getattr(row, name) for name in ModelProfile.model_fields}
        saved["fallbacks"] = saved["fallbacks"] or ()  # saved before profiles had fallbacks
        return ModelProfile.model_validate(saved)
    except ValidationError as exc:
        # Saved before honyaku checked what it checks now (e.g. half its prices).
        problem = exc.errors()[0]["msg"]
        raise ConfigError(
            "the saved model profile {name!r} is not valid any more ({problem}): save it "
            "again with its corrections",
            name=row.name,
            problem=problem,
        ) from None
