"""A model a person saved under a name: where it is served, how it calls tools, the name of its
key or the environment variable holding it (never the key), what it costs and how fast it may
be asked (``domain.pricing``), and how many tokens its context holds.

Where a key may go is ``domain.key_addresses``: once a profile is saved with it, only to
that profile's servers. A key is never a name: a key's name or a variable's name that looks
like a key is refused (``domain.keys``).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from honyaku.domain.addresses import check_base_url
from honyaku.domain.keys import check_key_name, looks_like_key
from honyaku.domain.pricing import Prices, RateLimits
from honyaku.errors import ConfigError


def whole_number(value: Any) -> Any:
    """``value`` as an integer where JSON wrote one (3.0 too); a string or a boolean refused."""
    if isinstance(value, bool | str):
        raise ValueError("a whole number, written as one")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# Integers as JSON writes them (3, or 3.0): never "3" or true, which pydantic would take.
LARGEST_KEPT = 2**31 - 1
"""The largest whole number either database keeps in an integer column."""
_PerMinute = Annotated[int, Field(ge=1, le=LARGEST_KEPT), BeforeValidator(whole_number)]
_ContextTokens = Annotated[int, Field(ge=512, le=LARGEST_KEPT), BeforeValidator(whole_number)]
_ThinkingTokens = Annotated[int, Field(ge=1024, le=LARGEST_KEPT), BeforeValidator(whole_number)]
"""Anthropic's smallest budget for extended thinking is 1,024 tokens."""

PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
# Words the workbench's addresses beside a profile's own use (``/api/models/check``).
RESERVED_PROFILE_NAMES = ("check", "presets", "prices")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Endpoint(BaseModel):
    """One more place a profile's model is served: a base URL (``None``: the provider's own)
    and the variable holding its key (``None``: the profile's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = None
    api_key_env: str | None = Field(
        default=None, json_schema_extra={"pattern": f"^{ENV_NAME.pattern}$"}
    )

    @model_validator(mode="after")
    def _something(self) -> Endpoint:
        if self.base_url is None and self.api_key_env is None:
            raise _problem("an endpoint needs a base URL, a key variable or both")
        return self

    @field_validator("base_url")
    @classmethod
    def _address(cls, url: str | None) -> str | None:
        return _checked_url(url)

    @field_validator("api_key_env")
    @classmethod
    def _variable(cls, name: str | None) -> str | None:
        return _checked_variable(name)

    @classmethod
    def parse(cls, text: str) -> Endpoint:
        """``URL``, ``URL,KEY_VAR`` or ``,KEY_VAR`` (the profile's URL with another key)."""
        url, _, variable = (part.strip() for part in text.partition(","))
        return cls(base_url=url or None, api_key_env=variable or None)


class ModelProfile(BaseModel):
    """Checked when made, wherever it comes from (a command, the web app, the database): its
    errors are sentences for the person, with no "Value error" before them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(
        description="What the profile is called, e.g. deepseek or local-qwen.",
        json_schema_extra={"pattern": f"^{PROFILE_NAME.pattern}$"},
    )
    model: str = Field(min_length=1, description="The model's name as its server knows it.")
    provider: str | None = Field(
        default=None, description="openai (Chat Completions), gemini or demo; None to infer."
    )
    base_url: str | None = Field(default=None, description="The server's endpoint.")
    protocol: str = Field(default="auto", description="native, xml or auto.")
    api_key_env: str | None = Field(
        default=None,
        description="The environment variable that holds the key.",
        json_schema_extra={"pattern": f"^{ENV_NAME.pattern}$"},
    )
    key_name: str | None = Field(
        default=None,
        description="The name of its key, e.g. DEEPSEEK_API_KEY: the environment variable of "
        "that name, else the key store's entry; never the key. api_key_env wins where given.",
    )
    # Numbers and booleans strict: "3" or 0 in their place is a mistake, not a value to guess.
    replay_reasoning: StrictBool = False
    input_price: StrictFloat | None = Field(default=None, ge=0, description="Per million tokens.")
    cached_input_price: StrictFloat | None = Field(
        default=None, ge=0, description="Per million cached input tokens; default: input_price."
    )
    output_price: StrictFloat | None = Field(default=None, ge=0, description="Per million tokens.")
    service_tier: str | None = Field(
        default=None, description="OpenAI's service_tier, sent with each request, e.g. flex."
    )
    requests_per_minute: _PerMinute | None = None
    tokens_per_minute: _PerMinute | None = None
    context_window: _ContextTokens | None = Field(
        default=None,
        description="Tokens the model's context holds; learned from the server where it says.",
    )
    thinking_tokens: _ThinkingTokens | None = Field(
        default=None,
        description="Claude through Anthropic's API: the budget of its extended thinking, in "
        "tokens (1,024 or more), billed as output; none: Claude answers without thinking.",
    )
    more_endpoints: tuple[Endpoint, ...] = Field(
        default=(),
        description="Where else the model is served; requests spread over all of them.",
    )
    fallbacks: tuple[str, ...] = Field(
        default=(),
        description="Profiles that take over, in order, the parts this model could not do.",
    )

    @property
    def endpoints(self) -> tuple[Endpoint, ...]:
        """Every endpoint, the profile's own first; an endpoint without a URL or a key
        variable has the profile's."""
        first = Endpoint.model_construct(base_url=self.base_url, api_key_env=self.api_key_env)
        return (
            first,
            *(
                Endpoint.model_construct(
                    base_url=e.base_url or self.base_url,
                    api_key_env=e.api_key_env or self.api_key_env,
                )
                for e in self.more_endpoints
            ),
        )

    @property
    def prices(self) -> Prices | None:
        """The prices its owner typed, when both input and output are. A profile without
        them is priced from genai-prices' list where it knows the model
        (``llm.price_list``)."""
        if self.input_price is None or self.output_price is None:
            return None
        return Prices(
            self.input_price, self.output_price, self.cached_input_price, self.service_tier
        )

    @property
    def rate_limits(self) -> RateLimits:
        return RateLimits(self.requests_per_minute, self.tokens_per_minute)

    @model_validator(mode="after")
    def _prices_together(self) -> ModelProfile:
        given = [p is not None for p in (self.input_price, self.output_price)]
        if (any(given) and not all(given)) or (
            self.cached_input_price is not None and not any(given)
        ):
            raise _problem("give the input and the output price together, or no price at all")
        return self

    @field_validator("base_url")
    @classmethod
    def _address(cls, url: str | None) -> str | None:
        return _checked_url(url)

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not PROFILE_NAME.fullmatch(name):
            raise _problem("use letters, digits, '.', '_', ':' or '-' (at most 64)")
        if name in RESERVED_PROFILE_NAMES:
            raise _problem(f"{name!r} is a word the workbench keeps for itself: choose another")
        return name

    @model_validator(mode="after")
    def _not_its_own_fallback(self) -> ModelProfile:
        if self.name in self.fallbacks:
            raise _problem("a profile cannot be its own fallback")
        for name in self.fallbacks:
            if not PROFILE_NAME.fullmatch(name):
                raise _problem(f"no profile can be called {name!r}")
        return self

    @field_validator("api_key_env")
    @classmethod
    def _variable(cls, name: str | None) -> str | None:
        return _checked_variable(name)

    @field_validator("key_name")
    @classmethod
    def _key_name(cls, name: str | None) -> str | None:
        if name is not None:
            try:
                check_key_name(name)
            except ConfigError as exc:
                raise _problem(str(exc)) from None
        return name

    @field_validator("service_tier")
    @classmethod
    def _tier(cls, tier: str | None) -> str | None:
        if tier is not None and not re.fullmatch(r"[a-z_]{1,20}", tier):
            raise _problem("a tier's name, like flex or priority")
        return tier

    @field_validator("protocol")
    @classmethod
    def _protocol(cls, protocol: str) -> str:
        if protocol not in ("native", "xml", "auto"):
            raise _problem("native, xml or auto")
        return protocol


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("model_profile", message)


def _checked_url(url: str | None) -> str | None:
    if url is not None:
        try:
            check_base_url(url)
        except ConfigError as exc:
            raise _problem(str(exc)) from None
    return url


def _checked_variable(name: str | None) -> str | None:
    if name is not None and looks_like_key(name):
        try:
            check_key_name(name)
        except ConfigError as exc:
            raise _problem(str(exc)) from None
    if name is not None and not ENV_NAME.fullmatch(name):
        raise _problem("an environment variable's name, like DEEPSEEK_API_KEY")
    return name
