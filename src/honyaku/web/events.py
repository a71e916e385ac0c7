"""Server-sent events: ``event()`` names a message by its ``type`` (the job and dialog
streams); every stream, the chat's too, sends a comment each ``HEARTBEAT_S`` seconds so that
proxies do not close it while it is quiet."""

from __future__ import annotations

import json
from typing import Any

HEARTBEAT_S = 15


def event(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` as an event of its ``type``, its data the JSON of the whole message."""
    return {"event": message["type"], "data": json.dumps(message, ensure_ascii=False, default=str)}
