"""Talking to models: neutral messages and events, retries, and one provider per model API.

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
