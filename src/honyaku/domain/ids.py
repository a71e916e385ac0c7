"""Short ids: 8 lowercase hex characters, unique within their book."""

from __future__ import annotations

import secrets
from collections.abc import Container


def new_id(taken: Container[str] = ()) -> str:
    """A fresh random id that is not in ``taken``."""
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
