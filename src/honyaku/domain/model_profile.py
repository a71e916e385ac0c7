"""A model a person saved under a name: where it is served, how it calls tools, which
environment variable holds its key (never the key), and what it costs."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class ModelProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="What the profile is called, e.g. deepseek or local-qwen.")
    model: str = Field(min_length=1, description="The model's name as its server knows it.")
    provider: str | None = Field(
        default=None, description="openai (Chat Completions), gemini or demo; None to infer."
    )
    base_url: str | None = Field(default=None, description="The server's endpoint.")
    protocol: str = Field(default="auto", description="native, xml or auto.")
    api_key_env: str | None = Field(
        default=None, description="The environment variable that holds the key."
    )
    replay_reasoning: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not PROFILE_NAME.fullmatch(name):
            raise ValueError("use letters, digits, '.', '_', ':' or '-' (at most 64)")
        return name

    @field_validator("api_key_env")
    @classmethod
    def _variable(cls, name: str | None) -> str | None:
        if name is not None and not ENV_NAME.fullmatch(name):
            raise ValueError("an environment variable's name, like DEEPSEEK_API_KEY")
        return name

    @field_validator("protocol")
    @classmethod
    def _protocol(cls, protocol: str) -> str:
        if protocol not in ("native", "xml", "auto"):
            raise ValueError("native, xml or auto")
        return protocol
