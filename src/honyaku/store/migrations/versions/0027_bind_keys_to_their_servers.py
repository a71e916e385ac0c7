"""Bind each key's name to the servers of the profiles saved with it (key_addresses), so that a
key goes only where it was saved for, and stays bound when its profile goes. The profiles
saved before are bound to their own servers, as if saved in the workbench: the environment is
read for them once a terminal names their variables again (honyaku models add).

Revision ID: 0027
"""

import json
from datetime import UTC, datetime
from urllib.parse import urlsplit

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"

# The providers' own servers as they were when this was written; a migration keeps its data.
OWN_SERVERS = {
    "openai": "https://api.openai.com/v1",
    "gemini": "https://generativelanguage.googleapis.com",
}


def upgrade() -> None:
    table = op.create_table(
        "key_addresses",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("server", sa.String(300), primary_key=True),
        sa.Column("named_at_terminal", sa.Boolean, nullable=False, default=False),
        sa.Column("bound_at", sa.DateTime(timezone=True), nullable=False),
    )
    profiles = op.get_bind().execute(
        sa.text(
            "SELECT model, provider, base_url, api_key_env, key_name, more_endpoints "
            "FROM model_profiles"
        )
    )
    bound = set()
    for model, provider, base_url, variable, key_name, more in profiles:
        own = base_url or OWN_SERVERS.get(_kind(provider, model, base_url))
        routes = [(variable or key_name, own)]
        endpoints = json.loads(more) if isinstance(more, str) else more or []
        for endpoint in endpoints:
            name = endpoint.get("api_key_env") or variable or key_name
            routes.append((name, endpoint.get("base_url") or own))
        bound |= {(name, server) for name, url in routes if name and (server := _server(url))}
    now = datetime.now(UTC)
    op.bulk_insert(
        table,
        [
            {"name": name, "server": server, "named_at_terminal": False, "bound_at": now}
            for name, server in sorted(bound)
        ],
    )


def downgrade() -> None:
    op.drop_table("key_addresses")


def _kind(provider: str | None, model: str, base_url: str | None) -> str:
    if provider:
        return provider
    return "gemini" if model.startswith("gemini") and base_url is None else "openai"


def _server(url: str | None) -> str | None:
    if not url:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
        host = (parts.hostname or "").rstrip(".")
    except ValueError:
        return None
    if not parts.scheme or not host:
        return None
    return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}:{port}"
