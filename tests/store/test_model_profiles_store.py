"""Model profiles kept in the database: the largest limits either database keeps round-trip,
and a larger one is refused before it reaches a column (PostgreSQL's integers are 32-bit)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from honyaku.domain.model_profile import LARGEST_KEPT, ModelProfile
from honyaku.store import Stores


def test_the_largest_limits_a_database_keeps_are_kept(stores: Stores) -> None:
    profile = ModelProfile(
        name="wide",
        model="m",
        requests_per_minute=LARGEST_KEPT,
        tokens_per_minute=LARGEST_KEPT,
        context_window=LARGEST_KEPT,
    )

    stores.profiles.save(profile)

    assert stores.profiles.get("wide") == profile


@pytest.mark.parametrize("field", ["requests_per_minute", "tokens_per_minute", "context_window"])
def test_a_larger_limit_is_refused_with_its_field_named(field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        ModelProfile(name="wide", model="m", **{field: LARGEST_KEPT + 1})
