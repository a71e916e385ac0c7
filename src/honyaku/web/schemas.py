"""The JSON the API speaks, as pydantic models, and the bounds of its parameters:
``/openapi.json`` describes them."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    field_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from honyaku.application import (
    TOOL_NAMES,
    BookSummary,
    ChapterProgress,
    JobProgress,
    Leftover,
    ListedPrices,
    StoredKey,
    StoredQuestion,
    Version,
)
from honyaku.application.trials import Trial
from honyaku.domain.book import BookSettings
from honyaku.domain.failures import Left
from honyaku.domain.keys import check_key_name
from honyaku.domain.model_profile import ModelProfile, whole_number
from honyaku.domain.placeholders import LostMarkup, RubyChoice
from honyaku.domain.workflow import JobKind
from honyaku.errors import ConfigError

__all__ = ["BookSettings", "ModelProfile"]

CHAPTERS_PATTERN = r"^ *([0-9]+ *(- *[0-9]+ *)?(, *[0-9]+ *(- *[0-9]+ *)?)*)?$"
"""Chapters as a person writes them: ``1-3,7``; empty for all."""
ChaptersQuery = Annotated[
    str | None, Query(pattern=CHAPTERS_PATTERN, description='e.g. "1-3,7"; empty for all.')
]


def _key_name(name: Any) -> Any:
    """A key's name, or its refusal in one line (one that looks like a key is never
    repeated, and says where the key goes instead)."""
    if isinstance(name, str):
        try:
            check_key_name(name)
        except ConfigError as exc:
            raise PydanticCustomError("key_name", str(exc)) from None
    return name


KeyName = Annotated[
    str, BeforeValidator(_key_name), Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
]
"""A key's name in the key store, as an environment variable's: ``DEEPSEEK_API_KEY``; never
a key."""
ProfileName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")]
"""A saved model profile's name, as ``ModelProfile`` allows it."""

# The bodies' numbers and booleans are strict: JSON says true or 3, and "3" or 0 in their place
# is a mistake to refuse, not to guess at.

MAX_NUMBER = 2**31 - 1
"""The largest chapter number, position or version id a path or query may name: beyond it
nothing exists, and the database could not even be asked."""


def _in_utc(moment: Any) -> Any:
    # SQLite keeps no time zone: the moments it gives back were written in UTC.
    if isinstance(moment, datetime) and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


Timestamp = Annotated[AwareDatetime, BeforeValidator(_in_utc)]
"""A moment as the API gives it: always with its time zone."""


class Problem(BaseModel):
    """What every error answers: one readable line, in the language of the request."""

    detail: str


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "The request asks for something honyaku refuses."},
    404: {"model": Problem, "description": "Nothing has that id."},
    409: {"model": Problem, "description": "The library holds that book already."},
    413: {"model": Problem, "description": "The request is larger than any book."},
    422: {"model": Problem, "description": "A parameter or the body is not valid."},
}
"""The errors any route may answer, as ``/openapi.json`` describes them."""


class Created(BaseModel):
    id: str


class BookOut(BaseModel):
    id: str
    title: str
    author: str | None
    source_lang: str
    target_lang: str
    chapters: int
    work_paragraphs: int
    translated: int
    stale: int = 0

    @classmethod
    def of(cls, book: BookSummary) -> BookOut:
        return cls.model_validate(book, from_attributes=True)


class ChapterOut(BaseModel):
    number: int
    id: str
    title: str
    translated_title: str | None
    paragraphs: int
    work_paragraphs: int
    translated: int
    stale: int = 0
    title_stale: bool = False

    @classmethod
    def of(cls, chapter: ChapterProgress) -> ChapterOut:
        return cls.model_validate(chapter, from_attributes=True)


class BookDetail(BookOut):
    settings: BookSettings
    chapter_list: list[ChapterOut]


class VersionOut(BaseModel):
    id: int
    text: str
    kind: str
    model: str | None
    job_id: str | None
    created_at: Timestamp
    selected: bool

    @classmethod
    def of(cls, version: Version) -> VersionOut:
        return cls.model_validate(version, from_attributes=True)


class ParagraphOut(BaseModel):
    id: str
    index: int
    text: str
    translation: str | None
    previous_source: str | None = Field(
        default=None, description="The text a stale translation was made for."
    )
    versions: list[VersionOut]


class ChapterDetail(BaseModel):
    book_id: str
    number: int
    id: str
    title: str
    translated_title: str | None
    previous_title: str | None = Field(
        default=None, description="The title a stale translated title was made for."
    )
    paragraph_count: int = Field(description="All the chapter's paragraphs, empty ones too.")
    start: int = Field(description="The position of the first paragraph in ``paragraphs``.")
    paragraphs: list[ParagraphOut]


class DiffPartOut(BaseModel):
    change: Literal["same", "added", "removed"]
    text: str


_TOOL_NAMES: dict[str, Any] = {"type": "string", "enum": list(TOOL_NAMES)}


class SettingsPatch(BaseModel):
    """The settings to change: one left out stays as it is. Only ``max_cost`` takes null (no
    cap); the schema shows no null for the others, and a null there is refused."""

    chunk_chars: (
        Annotated[int, Field(ge=200, le=200_000), BeforeValidator(whole_number)]
        | SkipJsonSchema[None]
    ) = None
    skip_ask_user: StrictBool | SkipJsonSchema[None] = None
    approve_tools: list[str] | SkipJsonSchema[None] = Field(
        default=None, json_schema_extra={"items": _TOOL_NAMES}
    )
    always_allow: list[str] | SkipJsonSchema[None] = Field(
        default=None, json_schema_extra={"items": _TOOL_NAMES}
    )
    max_cost: StrictFloat | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="null clears the book's cap."
    )
    ruby: RubyChoice | SkipJsonSchema[None] = Field(
        default=None,
        description="What becomes of the source's ruby: hints, keep (on the translated "
        "words) or drop.",
    )
    lost_markup: LostMarkup | SkipJsonSchema[None] = Field(
        default=None,
        description="A paragraph whose markup its models could not keep: keep_text "
        "(without the markup, flagged) or leave (to the translator).",
    )
    write_from_memory: StrictBool | SkipJsonSchema[None] = None

    @field_validator(
        "chunk_chars",
        "skip_ask_user",
        "approve_tools",
        "always_allow",
        "ruby",
        "lost_markup",
        "write_from_memory",
    )
    @classmethod
    def _given(cls, value: Any) -> Any:
        # Called only for a value given: a null given is a mistake, not "leave it".
        if value is None:
            raise ValueError("leave it out to keep it as it is; null is no setting")
        return value


class ManualVersion(BaseModel):
    text: str = Field(min_length=1, description="The paragraph's new text, on one line.")


class JobStart(BaseModel):
    kind: JobKind
    chapters: str | None = Field(
        default=None, pattern=CHAPTERS_PATTERN, description='e.g. "1-3,7"; null for all.'
    )
    model: ProfileName | None = Field(
        default=None, description="A saved model profile; null: the book's model."
    )
    fallbacks: list[ProfileName] | None = Field(
        default=None,
        max_length=8,
        description="Saved profiles that take what ``model`` leaves, in order; null: the "
        "profile's own.",
    )
    retranslate: StrictBool = False
    paragraphs: list[str] | None = Field(
        default=None, description="Only these paragraphs, by id (e.g. those flagged or left)."
    )
    max_cost: StrictFloat | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="What this run may spend at the model's prices; null: the book's cap.",
    )
    batch: StrictBool = Field(
        default=False,
        description="Send every request through the provider's Batch API: half price, "
        "answered within 24 hours.",
    )


class JobResume(BaseModel):
    model: str | None = Field(
        default=None, description="A saved model profile; by default the one it ran with."
    )


class FailureOut(BaseModel):
    chapter: int = Field(description="1-based chapter number.")
    part: int = Field(description="1-based among the chapter's parts in the job's plan.")
    failure: str = Field(description="Why, as a failure class: filtered, refused, workflow…")
    said: str = Field(description="What the model or its server said, beyond its class.")
    reason: str


class LeftOut(BaseModel):
    """A paragraph, or a chapter's title, a job left, and why."""

    chapter: int = Field(description="1-based chapter number.")
    position: int | None = Field(description="1-based in the chapter; null for its title.")
    id: str = Field(description="The paragraph's id, or the chapter's for its title.")
    failure: str | None = Field(description="Why, as a failure class; null if none failed.")
    said: str = Field(description="What the model or its server said, beyond its class.")
    reason: str
    text: str = Field(default="", description="Its source text, where the list carries it.")

    @classmethod
    def of(cls, item: Left) -> LeftOut:
        return cls(
            chapter=item.chapter,
            position=item.position,
            id=item.id,
            failure=item.failure.kind.value if item.failure else None,
            said=item.failure.said if item.failure else "",
            reason=item.reason,
            text=item.text,
        )


class CoverageOut(BaseModel):
    paragraphs_done: int
    paragraphs: int
    titles_done: int
    titles: int


class BatchesOut(BaseModel):
    """Batch mode: the job's batches, as ``jobs.progress.BatchFigures`` defines each."""

    waiting: int = Field(description="Batches sent and not answered yet by the provider.")
    requests: int = Field(description="The requests in those.")
    answered: int = Field(description="Of those, the ones the provider has answered so far.")
    sent: int = Field(description="Batches sent in all.")


class LeftoverOut(BaseModel):
    """What of a book is not translated yet, and how much is."""

    coverage: CoverageOut
    left: list[LeftOut] = Field(
        description="Each paragraph and chapter title left, in book order, a chapter's title "
        "first; ``failure`` null where no job has tried it."
    )
    kept: list[LeftOut] = Field(
        default_factory=list,
        description="The paragraphs the translator left as they are on purpose, in book order.",
    )

    @classmethod
    def of(cls, leftover: Leftover) -> LeftoverOut:
        return cls(
            coverage=CoverageOut(**asdict(leftover.coverage)),
            left=[LeftOut.of(item) for item in leftover.left],
            kept=[LeftOut.of(item) for item in leftover.kept],
        )


class LeftAsIsIn(BaseModel):
    """Paragraphs to leave as they are on purpose (``left``), or no longer."""

    paragraph_ids: list[Annotated[str, Field(pattern=r"^[0-9a-f]{8}$")]] = Field(
        min_length=1, max_length=10_000
    )
    left: StrictBool = True


class LeftAsIsOut(BaseModel):
    changed: int = Field(description="The paragraphs whose state changed.")


class ModelSpentOut(BaseModel):
    """What one model of a job's chain (the one chosen, or a fallback) spent on it."""

    model: str
    requests: int
    input_tokens: int
    cached_tokens: int
    output_tokens: int
    spent: float | None = Field(description="At this model's prices; null without them.")


class JobOut(BaseModel):
    """A job's figures, as ``jobs.progress.JobProgress`` defines each."""

    id: str
    book_id: str
    kind: str
    model: str
    status: str
    paragraphs_total: int
    paragraphs_done: int
    paragraphs_busy: int = Field(description="Left to another live job that holds them.")
    requests: int
    retries: int
    input_tokens: int
    cached_tokens: int
    output_tokens: int
    tokens: int
    tokens_estimated: bool = Field(description="The server reported none: honyaku's estimate.")
    spent: float | None = Field(
        description="Each model's tokens at its prices; null where one that spent has none."
    )
    models: list[ModelSpentOut] = Field(
        default_factory=list, description="What each model of the job's chain spent."
    )
    elapsed_s: float | None
    eta_s: float | None
    waiting_s: float | None = Field(
        description="How long the request with the model longest has waited; null if none."
    )
    waiting_expected_s: float | None = Field(
        description="How long that request should take at the model's pace; null if unknown."
    )
    failures: list[FailureOut] = Field(description="The parts of the text that failed.")
    rounds: int = Field(description="The furthest round a chapter went to; 1 is its first pass.")
    left: list[LeftOut] = Field(description="Once ended: each paragraph and title left.")
    coverage: CoverageOut | None = Field(description="Once ended: how much is translated.")
    running_here: bool
    batches: BatchesOut | None = Field(
        default=None, description="Batch mode: its batches; null for a job that sent none."
    )
    workers: list[str] = Field(description="The processes running its chunks now.")
    error: str | None

    @classmethod
    def of(cls, progress: JobProgress) -> JobOut:
        return cls.model_validate(progress.figures())


class LogLineOut(BaseModel):
    created_at: Timestamp
    job_id: str
    where: str
    text: str
    reasoning: bool


class ParkedQuestionOut(BaseModel):
    """A question a queued job's model asked: its chunk is parked until someone answers,
    here or in the terminal, or its book's deadline passes."""

    id: int
    kind: Literal["stored"] = "stored"
    job_id: str
    book_id: str
    chapter_number: int
    asker: str
    batch: bool
    questions: list[dict[str, Any]]
    asked_at: Timestamp
    deadline_at: Timestamp

    @classmethod
    def of(cls, question: StoredQuestion) -> ParkedQuestionOut:
        return cls(
            id=question.id,
            job_id=question.job_id,
            book_id=question.book_id,
            chapter_number=question.chapter_number,
            asker=question.asker,
            batch=question.request["batch"],
            questions=question.request["questions"],
            asked_at=question.asked_at,
            deadline_at=question.deadline_at,
        )


class Waiting(BaseModel):
    shown: dict[str, Any] | None = Field(description="The question or approval on screen.")
    queued: int = Field(description="Requests waiting behind it.")
    stored: list[ParkedQuestionOut] = Field(
        default_factory=list,
        description="Questions of queued jobs waiting for a person, oldest first: each "
        "answered at /api/questions/stored/{id}/answer.",
    )


class AnswerIn(BaseModel):
    """A question's answers (``answers``, ``cancelled``) or an approval (``allowed``,
    ``always``)."""

    answers: list[dict[str, Any]] = Field(default_factory=list)
    cancelled: StrictBool = False
    allowed: StrictBool = False
    always: StrictBool = False


ExportFormatName = Literal["epub", "md", "txt", "json"]


class ModelCheckOut(BaseModel):
    """What one cheap request to a model found; null where it could not tell."""

    reachable: bool | None
    key_accepted: bool | None
    native_tools: bool | None
    key_variable: str | None = Field(description="Where the key was read from; never the key.")
    problem: str | None
    works: bool
    key_source: str | None = Field(
        default=None, description="Where the key was found, e.g. in the key store; never the key."
    )


MAX_KEY_CHARS = 4096
"""Longer than any provider's key: a body beyond it is a mistake, not a key."""


class KeyIn(BaseModel):
    """A key to keep: written once, never read back."""

    key: str = Field(min_length=1, max_length=MAX_KEY_CHARS, description="The key itself.")


class KeyOut(BaseModel):
    """A kept key as it may be shown: never the key, only its last characters."""

    name: str
    where: str = Field(description="keyring, or the key file's path.")
    tail: str = Field(description="Its last 4 characters at most, after an ellipsis.")

    @classmethod
    def of(cls, key: StoredKey) -> KeyOut:
        return cls(name=key.name, where=key.where, tail=key.tail)


class ListedPricesOut(BaseModel):
    """What the price list says a model costs at its server, per million tokens."""

    input: float
    cached_input: float | None
    output: float
    currency: str = Field(description="USD: the list's prices are in US dollars.")
    source: str = Field(description="The list, its version and the date of its data.")

    @classmethod
    def of(cls, listed: ListedPrices, currency: str) -> ListedPricesOut:
        prices = listed.prices
        return cls(
            input=prices.input,
            cached_input=prices.cached_input,
            output=prices.output,
            currency=currency,
            source=listed.source,
        )


MAX_TRIAL_MODELS = 8
"""Models one trial tries at once: more would not fit side by side."""


MAX_REFERENCE_PARAGRAPHS = 10_000
MAX_REFERENCE_CHARS = 20_000


class TrialStart(BaseModel):
    models: list[ProfileName] = Field(
        min_length=1,
        max_length=MAX_TRIAL_MODELS,
        description="The saved model profiles to try (``demo`` too), in the order to show them.",
    )
    chapters: str | None = Field(
        default=None,
        pattern=CHAPTERS_PATTERN,
        description='The sample, e.g. "1-2"; null: the first chapters, a few thousand characters.',
    )
    seed: Annotated[StrictInt, Field(ge=0, le=MAX_NUMBER)] | None = Field(
        default=None, description="Shuffles what the judge reads; null: random."
    )
    reference: list[Annotated[str, Field(max_length=MAX_REFERENCE_CHARS)]] | None = Field(
        default=None,
        max_length=MAX_REFERENCE_PARAGRAPHS,
        description="Your own translation of the sample, a paragraph each, in order: chrF++ "
        "is measured against it.",
    )


class TrialEntryOut(BaseModel):
    model: str = Field(description="The saved profile's name.")
    job_id: str | None = Field(description="Its translation job, over its own copy.")


class TrialOut(BaseModel):
    """Models tried on the same sample of a book, each on its own copy."""

    id: str
    book_id: str
    chapters: list[int] = Field(description="The sample's chapter numbers.")
    seed: int
    created_at: datetime
    entries: list[TrialEntryOut]
    judge: str | None = Field(description="The saved model that rated them blind, if one did.")
    judge_job_id: str | None
    used: str | None = Field(description="The model whose versions were taken into the book.")

    @classmethod
    def of(cls, trial: Trial) -> TrialOut:
        return cls.model_validate(trial, from_attributes=True)


class TrialTokensOut(BaseModel):
    uncached: int
    cached: int
    output: int


class ModelFiguresOut(BaseModel):
    """One model's figures in a trial, as ``domain.trial.ModelResult`` defines each."""

    model: str
    status: str = Field(description="Its job's status.")
    paragraphs: int = Field(description="Work paragraphs in the sample.")
    paragraphs_done: int
    parts: int
    parts_failed: dict[str, int] = Field(description="By failure class.")
    rejected_calls: dict[str, int] = Field(description="Tool calls refused, by error code.")
    retries: int
    requests: int
    requests_per_part: float | None
    tokens: TrialTokensOut
    billed: float | None = Field(description="At the profile's prices; null without prices.")
    wall_s: float | None = Field(description="From its start to its end; null until it ends.")
    judged: int = Field(description="Its versions the judge scored.")
    mean_score: float | None
    low_share: float | None = Field(description="The share of its versions scored 2 or lower.")
    chrf: float | None = Field(description="chrF++ against the translator's own versions.")


class ComparisonOut(TrialOut):
    """A trial with each model's figures as they stand now."""

    results: list[ModelFiguresOut] = Field(description="In the order of ``entries``.")
    running: bool = Field(description="Some model is still translating.")
    judge_status: str | None = Field(description="The judge's job's status, if one was asked.")
    judging: bool = Field(description="The judge is still rating.")


class TrialJudge(BaseModel):
    model: ProfileName = Field(description="The saved model that rates every version, blind.")


class TrialUse(BaseModel):
    model: ProfileName = Field(description="The model whose versions the book takes.")
    fallbacks: list[ProfileName] = Field(
        default_factory=list,
        max_length=MAX_TRIAL_MODELS,
        description="Saved profiles the book's jobs fall back on after it, in order.",
    )


class TrialUsed(BaseModel):
    paragraphs: int = Field(description="The paragraphs whose versions the book took.")
