"""Models saved under a name, for the command line and the web app alike."""

from __future__ import annotations

from pydantic import ValidationError
from sqlalchemy import select

from honyaku.domain.model_profile import ModelProfile
from honyaku.errors import ConfigError, NotFoundError
from honyaku.store.database import Database
from honyaku.store.schema import ModelProfileRow, utc_now
from honyaku.store.upsert import upsert


class ModelProfiles:
    def __init__(self, database: Database) -> None:
        self.database = database

    def save(self, profile: ModelProfile) -> None:
        """Add the profile, or replace the one of the same name."""
        with self.database.transaction() as session:
            upsert(session, ModelProfileRow, {**profile.model_dump(), "saved_at": utc_now()})

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
        return ModelProfile.model_validate(
            {name: getattr(row, name) for name in ModelProfile.model_fields}
        )
    except ValidationError as exc:
        # Saved before honyaku checked what it checks now (e.g. half its prices).
        problem = exc.errors()[0]["msg"]
        raise ConfigError(
            "the saved model profile {name!r} is not valid any more ({problem}): save it "
            "again with its corrections",
            name=row.name,
            problem=problem,
        ) from None
