"""Every error honyaku raises on purpose.

    HonyakuError
    ├── UserError                the person can fix it: a bad file, an unknown book, a bad flag
    │   ├── BookFormatError      a file that cannot be read as a book
    │   ├── NotFoundError        no book, chapter or job with that id
    │   ├── DuplicateBookError   the book is already in the library
    │   └── ConfigError          missing API key, unknown protocol, bad setting
    │       └── FallbackUnavailableError  a fallback of the chain cannot start
    ├── ProviderError            the model's server failed or refused
    │   ├── TransientProviderError   worth retrying: 429, 5xx, timeouts, dropped or cut streams
    │   │   ├── RateLimitedError     429, may carry the server's Retry-After
    │   │   ├── CutStreamError       the stream ended before a finish reason
    │   │   └── DegenerateReplyError the reply repeated itself over and over: cut, asked again
    │   ├── UnreachableError         nothing listens at the address, or its host is unknown
    │   ├── ContentFilteredError     the provider's filter refused the request or cut its reply:
    │   │                            not retried, and fails only the part that was sent
    │   └── FatalProviderError       retrying cannot help: 401, 403, 404, 400
    │       ├── AuthError            the server refused the key
    │       ├── ContextOverflowError the request does not fit the model's context window
    │       └── ModelUnavailableError the local server has not that model, or is still loading
    ├── StoreError               the database refused a write
    ├── ClaimLost                another process took over a chunk this one claimed (its
    │                            heartbeat had stalled): this one's writes are refused, and
    │                            the chunk's conversation ends here
    ├── QuestionParked           a queued job's model asked a person: its chunk waits, its
    │                            conversation kept, until someone answers (``agent.broker``)
    ├── WorkerStopping           the worker was told to stop: the reply in flight is finished,
    │                            no new request starts, and the chunk is given back
    ├── ToolError                the model's call was wrong; becomes a result the model reads
    ├── NoFrontEndError          nobody is there to answer a question or approve a call
    ├── LoopError                a conversation could not finish (caps reached, retries exhausted)
    │   └── RefusedInWordsError  the model said, and said again when reminded, it will not
    └── SpendingCapReached       the next request would pass the run's spending cap: the job
                                 stops before it, to be resumed later

Third-party exceptions are translated where they enter: SDK and HTTP errors in ``llm/``,
zip and XML errors in ``formats/``, SQLAlchemy errors in ``store/``.
"""

from __future__ import annotations

from collections.abc import Sequence


class HonyakuError(Exception):
    """Base of all honyaku errors; ``str()`` is one readable line, true in any front end.

    ``terminal_hint``, where there is one, says what to type in a terminal to mend it
    (``--encoding cp932``): the CLI adds it to the line, the web leaves it out.

    A message written as a template with its values apart,
    ``NotFoundError("no book with id {book_id!r}", book_id=ref)``, keeps both
    (``template``, ``values``): the web shows it in the reader's language from its catalog.
    """

    def __init__(self, *args: object, terminal_hint: str | None = None, **values: object) -> None:
        self.template: str | None = None
        if values and len(args) == 1 and isinstance(args[0], str):
            self.template = args[0]
            args = (args[0].format(**values),)
        super().__init__(*args)
        self.values = values
        self.terminal_hint = terminal_hint


class UserError(HonyakuError):
    pass


class BookFormatError(UserError):
    pass


class NotFoundError(UserError):
    pass


class ConfigError(UserError):
    pass


class FallbackUnavailableError(ConfigError):
    """A fallback model of the chain cannot be used: the run does not begin."""

    def __init__(self, model: str | None, cause: HonyakuError) -> None:
        super().__init__(f"the fallback model {model}: {cause}", terminal_hint=cause.terminal_hint)
        self.cause = cause


class DuplicateBookError(UserError):
    """Raised before a book already in the library is imported again, unless that is asked."""


class ProviderError(HonyakuError):
    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class TransientProviderError(ProviderError):
    def __init__(
        self,
        message: str,
        *,
        retry_after_s: float | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message, status_code=status_code)
        self.retry_after_s = retry_after_s


class RateLimitedError(TransientProviderError):
    pass


class CutStreamError(TransientProviderError):
    pass


class UnreachableError(ProviderError):
    """No server answers at the address: connection refused, or a host that does not resolve.

    Not transient: retrying with backoff would only wait longer for the same answer, and
    every other request of the job would meet it too.
    """


class DegenerateReplyError(TransientProviderError):
    """Asked again at once: waiting does not mend a loop."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retry_after_s=0.0)


class ContentFilteredError(ProviderError):
    """The provider's filter refused the request, or stopped the reply midway: the prompt
    blocked (Gemini's ``promptFeedback``, Azure's 400 ``content_filter``), the reply cut
    (``finish_reason: "content_filter"``, Gemini's ``SAFETY``, ``PROHIBITED_CONTENT``…), or a
    ``refusal`` in place of the answer.

    Whatever the reply held before the cut is discarded with it: none of its text is an
    answer and none of its calls runs. Sent again, the same text meets the same filter, so
    it is not retried; and it says nothing of the next request, which holds other text, so
    it fails only the part that was sent, never the whole job.
    """

    def __init__(
        self,
        reason: str,
        *,
        categories: Sequence[str] = (),
        said: str | None = None,
        prompt: bool = False,
        status_code: int | None = None,
    ) -> None:
        detail = f"{reason}: {', '.join(categories)}" if categories else reason
        HonyakuError.__init__(self, "refused by the provider's filter ({detail})", detail=detail)
        self.status_code = status_code
        self.reason = reason
        """The provider's own word: a finish reason (``content_filter``, ``SAFETY``), a block
        reason (``PROHIBITED_CONTENT``, ``MODEL_ARMOR``), an error code (``content_filter``,
        ``data_inspection_failed``), or ``refusal``."""
        self.categories = tuple(categories)
        """The harm categories the provider named, in its words (``hate``, ``violence``,
        ``HARM_CATEGORY_HARASSMENT``); empty where it named none."""
        self.said = said
        """What the provider said in words, where it did: the model's refusal, Gemini's
        ``blockReasonMessage``, the error's message."""
        self.prompt = prompt
        """The request itself was refused, before any reply; else the reply was cut."""


class FatalProviderError(ProviderError):
    pass


class AuthError(FatalProviderError):
    """Says nothing about the model: never a verdict on what it can do."""


class ContextOverflowError(FatalProviderError):
    """The request is longer than the model's context window: sent again, it fails again, so
    whoever sent it must send less. Carries what the server said, where it did."""

    def __init__(
        self,
        message: str,
        *,
        window: int | None = None,
        prompt_tokens: int | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message, status_code=status_code)
        self.window = window
        """The context window in tokens."""
        self.prompt_tokens = prompt_tokens
        """What the request came to, in the server's own tokens."""


class ModelUnavailableError(FatalProviderError):
    """The server said, before anything was sent, that the model cannot answer: a name Ollama
    never pulled, one vLLM does not serve, a llama.cpp still loading."""


class StoreError(HonyakuError):
    pass


class ClaimLost(HonyakuError):
    """Not a tool's failure for the model to read: the tool registry lets it through, and the
    job leaves the chunk to the process that holds it now."""

    def __init__(self, reason: str, *, chunk: int | None = None) -> None:
        super().__init__(reason)
        self.chunk = chunk
        """The key of the chunk whose claim was lost."""


class WorkerStopping(HonyakuError):
    """Raised before a request a stopping worker will not send."""


class ToolError(HonyakuError):
    """Raised by a tool handler; the executor turns it into ``{"success": false, ...}``."""

    def __init__(self, code: str, message: str, **details: object) -> None:
        super().__init__(message)
        self.code = code
        self.details = details


class NoFrontEndError(HonyakuError):
    """No front end is attached to the broker; ``str()`` says so in words the model can use."""


class LoopError(HonyakuError):
    pass


class RefusedInWordsError(LoopError):
    """The model answered in words that it will not do the work, and again when reminded."""


class SpendingCapReached(HonyakuError):
    """Raised before a request that could take a run's spending past its cap."""

    def __init__(self, cap: float, spent: float, next_cost: float) -> None:
        super().__init__(
            f"stopped before a request that could cost {next_cost:.4g} more: "
            f"{spent:.4g} of the cap of {cap:.4g} spent"
        )
        self.cap, self.spent, self.next_cost = cap, spent, next_cost
