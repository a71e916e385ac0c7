"""The assistant: a chat with the library, the translator's plan and jobs, through tools.

service.py      ``ChatService``: one reply as a stream of events, stored as it happens
tools.py        what the assistant can do: books, the plan, jobs, questions
app.py          the application as the assistant sees it: the use cases its tools call
transcript.py   the stored entries of a session, and the messages a model is sent
summaries.py    older turns replaced by a summary that keeps every question
prompts.py      what the assistant is told
"""

from honyaku.assistant.service import (
    ChatDone,
    ChatEvent,
    ChatFailed,
    ChatModel,
    ChatNotice,
    ChatRetry,
    ChatService,
    ChatText,
    QuestionWaiting,
    ToolCard,
    ToolOutcome,
    friendly_error,
)
from honyaku.assistant.tools import ASSISTANT_TOOLS

__all__ = [
    "ASSISTANT_TOOLS",
    "ChatDone",
    "ChatEvent",
    "ChatFailed",
    "ChatModel",
    "ChatNotice",
    "ChatRetry",
    "ChatService",
    "ChatText",
    "QuestionWaiting",
    "ToolCard",
    "ToolOutcome",
    "friendly_error",
]
