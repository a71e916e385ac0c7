"""The built-in demo model: a deterministic translator that marks each paragraph 〈译〉.

It runs inside honyaku's process (``DemoProvider``): no server, no key, no network. The same
model answers the assistant's chats (``DemoAssistant``). The fake model servers of
``honyaku.testing`` put it behind real HTTP, with a script (``ScriptedTranslator``).

translator.py     DemoTranslator: reads the chunk, replays the task, makes the calls left
assistant.py      DemoAssistant: looks up the books or the plan, summarises a conversation
glossary.py       the names the translator finds, asks about and proposes to the glossary
conversation.py   wire messages to turns, and a reply's calls as XML blocks
turns.py          a conversation's turns and the model's replies, wire-neutral
provider.py       DemoProvider: the demo model as a provider, streamed like a real reply
"""

from honyaku.llm.demo.assistant import DemoAssistant, asked_at, last_result
from honyaku.llm.demo.conversation import read_conversation, render_xml_call, reply_text
from honyaku.llm.demo.provider import DEMO_MODEL, DemoProvider
from honyaku.llm.demo.translator import (
    Chunk,
    DemoTranslator,
    TaskState,
    WorkLine,
    arguments_json,
    batch_call,
    missing_lines,
    next_calls,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
    status_call,
    texts_batch,
)
from honyaku.llm.demo.turns import FakeCall, Reply, Turn

__all__ = [
    "DEMO_MODEL",
    "Chunk",
    "DemoAssistant",
    "DemoProvider",
    "DemoTranslator",
    "FakeCall",
    "Reply",
    "TaskState",
    "Turn",
    "WorkLine",
    "arguments_json",
    "asked_at",
    "batch_call",
    "last_result",
    "missing_lines",
    "next_calls",
    "proofreading_changes",
    "pseudo_revision",
    "pseudo_translation",
    "read_conversation",
    "render_xml_call",
    "reply_text",
    "status_call",
    "texts_batch",
]
