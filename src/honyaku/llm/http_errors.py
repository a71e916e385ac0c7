"""What a model server's HTTP refusal means for honyaku, the same for every provider.

Rate limits and server errors are worth retrying; a refused key, a forbidden model or an
unknown one are not, and each gets a message that says what to check. Servers now and then
echo the key in an error: ``redacted`` takes it out of anything honyaku passes on.
"""

from __future__ import annotations

from honyaku.errors import (
    AuthError,
    FatalProviderError,
    ProviderError,
    RateLimitedError,
    TransientProviderError,
)

MAX_ERROR_CHARS = 300
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
    """The error for an HTTP ``status`` whose server said ``detail`` (already redacted)."""
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


def redacted(text: object, api_key: str | None) -> str:
    """The first line of ``text``, short, without the key."""
    lines = str(text).strip().splitlines()
    line = lines[0][:MAX_ERROR_CHARS] if lines else type(text).__name__
    return line.replace(api_key, "***") if api_key else line
