"""Talking to models: neutral messages and events, one provider per model API, and the
wrappers every request goes through.

    events.py         ``ChatProvider``, and what its stream yields (``TextDelta``, ``Response``…)
    messages.py       the provider-neutral conversation: messages, tools, requests, their sizes
    models.py         the model a person chose, the kinds of provider, and ``open_model``
    wrapper.py        ``ProviderWrapper``: the base of every provider that wraps another
    retry.py          transient failures retried with bounded backoff (``RetryingProvider``)
    rate_limit.py     requests and tokens per minute, counted here or on a shared database
    degeneration.py   a reply that repeats itself cut before it burns the budget
    reply_cap.py      a reply capped at the room the context window leaves it (``ReplyCap``)
    endpoint_pool.py  one model served at several endpoints, seen as one provider
    openai_compat.py  Chat Completions with native tools, for any OpenAI-compatible server
    openai_stream.py  a streamed Chat Completions reply assembled from its chunks
    openai_wire.py    neutral messages and tools in the Chat Completions wire format
    http_errors.py    what a server's HTTP refusal means: worth a retry, or why not (a filter's)
    redaction.py      secrets masked in every text that comes from a model server
    timeouts.py       how long a server is waited for: first byte, idle, the whole request
    pace.py           a model's pace on a server, learned reply by reply, and its bounds
    server_info.py    what a server says of itself: which it is, its model, its context window
    tool_support.py   whether a model calls tools natively, asked with one trivial request
    model_check.py    a model checked with one cheap request before work is sent to it
    reasoning.py      reasoning a model writes in its reply text, told from the answer
    tokenizers.py     which tokenizer counts a model's tokens
    xml/              the XML tool protocol, for models without native function calling
    gemini/           Gemini's own API, with native function calling
    demo/             the built-in demo model, answering inside honyaku's process

``open_model`` wraps the provider it connects, so that a request goes, outermost first,
through ``RetryingProvider``, ``RateLimitedProvider`` (where the profile has limits),
``XmlToolProtocol`` (where the model needs it), ``DegenerationGuard`` and ``ReplyCap`` (where
a llama.cpp or Ollama server said its window) to the provider, or to the ``EndpointPool`` of
several.

The providers (``openai_compat.OpenAICompatibleProvider``, ``gemini.GeminiProvider``) and the
XML protocol (``honyaku.llm.xml``) are imported from their modules: their SDKs take a second
to load, which commands that never call a model should not pay.
"""

from honyaku.llm.events import (
    CallStreaming,
    ChatProvider,
    ReasoningDelta,
    Response,
    Retry,
    StreamEvent,
    TextDelta,
    Usage,
    Waiting,
)
from honyaku.llm.messages import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallError,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
    message_chars,
    message_tokens,
    request_chars,
    request_tokens,
)
from honyaku.llm.retry import RetryingProvider, RetryPolicy
from honyaku.llm.server_info import ServerInfo, ask_server
from honyaku.llm.timeouts import Timeouts
from honyaku.llm.tokenizers import token_counter
from honyaku.llm.wrapper import ProviderWrapper

__all__ = [
    "AssistantMessage",
    "CallStreaming",
    "ChatProvider",
    "ChatRequest",
    "Message",
    "ProviderWrapper",
    "ReasoningDelta",
    "Response",
    "Retry",
    "RetryPolicy",
    "RetryingProvider",
    "ServerInfo",
    "StreamEvent",
    "SystemMessage",
    "TextDelta",
    "Timeouts",
    "ToolCall",
    "ToolCallError",
    "ToolResultMessage",
    "ToolSpec",
    "Usage",
    "UserMessage",
    "Waiting",
    "ask_server",
    "message_chars",
    "message_tokens",
    "request_chars",
    "request_tokens",
    "token_counter",
]
