"""What a model server's HTTP refusal means for honyaku, the same for every provider.

Rate limits and server errors are worth retrying; a refused key, a forbidden model or an
unknown one are not, and each gets a message that says what to check. A connection that no
server takes (refused, or a host that does not resolve) is not worth retrying either. Servers
now and then echo the key in an error: the provider's ``Redactor`` takes it out of every error
it raises, so the messages built here need not.
"""

from __future__ import annotations

import socket

from honyaku.errors import (
    AuthError,
    FatalProviderError,
    ProviderError,
    RateLimitedError,
    TransientProviderError,
    UnreachableError,
)
from honyaku.llm.redaction import exception_chain, url_without_secrets

TRANSIENT_STATUS = frozenset({408, 409, 425})
BAD_KEY = "the server refused the API key ({status}); check the key in your environment"


def error_for_status(
    status: int,
    detail: str,
    *,
    model: str,
    retry_after_s: float | None = None,
    bad_key: bool = False,
) -> ProviderError:
    """The error for an HTTP ``status`` whose server said ``detail``."""
    if status == 429:
        return RateLimitedError(
            f"rate limited (429): {detail}", retry_after_s=retry_after_s, status_code=status
        )
    if status >= 500 or status in TRANSIENT_STATUS:
        return TransientProviderError(
            f"server error ({status}): {detail}", retry_after_s=retry_after_s, status_code=status
        )
    if status == 401 or bad_key:
        return AuthError(BAD_KEY.format(status=status), status_code=status)
    messages = {
        403: f"access denied (403): {detail}",
        404: f"not found (404): is the model name {model!r} and the base URL right? {detail}",
    }
    message = messages.get(status, f"the server rejected the request ({status}): {detail}")
    return FatalProviderError(message, status_code=status)


def unreachable_error(exc: BaseException, url: str) -> UnreachableError | None:
    """The error for a connection to ``url`` that no server took, if ``exc`` is one."""
    shown = url_without_secrets(url).rstrip("/")
    for cause in exception_chain(exc):
        if isinstance(cause, ConnectionRefusedError):
            return UnreachableError(
                f"the model server at {shown} refuses connections: is it running, and is the "
                "address right?"
            )
        if isinstance(cause, socket.gaierror):
            return UnreachableError(
                f"the host of the model server at {shown} cannot be resolved: is the address right?"
            )
    return None
