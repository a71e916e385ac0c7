"""The built-in demo model: a deterministic translator that marks each paragraph 〈译〉.

    provider.py      ``DemoProvider``: the demo model answering inside honyaku's process
    translator.py    ``FakeTranslator``: what it does with a chunk, tool call by tool call
    glossary.py      the names it proposes for the glossary, and its careless drafts
    assistant.py     ``FakeAssistant``: the demo model in the assistant's chats
    conversation.py  a Chat Completions conversation read as its turns
    turns.py         those turns, and its replies, in wire-neutral form

The fake model servers of the tests put the same translator behind real HTTP.
"""

from honyaku.llm.demo.assistant import FakeAssistant, Step, last_result
from honyaku.llm.demo.conversation import read_conversation, render_xml_call, reply_text
from honyaku.llm.demo.provider import DEMO_MODEL, DemoProvider
from honyaku.llm.demo.translator import (
    DRAFT_MARK,
    FakeTranslator,
    Mistake,
    arguments_json,
    drafted_calls,
    hanzi_translation,
    proofreading_changes,
    pseudo_revision,
    pseudo_translation,
)
from honyaku.llm.demo.turns import FakeCall, Reply, Turn

__all__ = [
    "DEMO_MODEL",
    "DRAFT_MARK",
    "DemoProvider",
    "FakeAssistant",
    "FakeCall",
    "FakeTranslator",
    "Mistake",
    "Reply",
    "Step",
    "Turn",
    "arguments_json",
    "drafted_calls",
    "hanzi_translation",
    "last_result",
    "proofreading_changes",
    "pseudo_revision",
    "pseudo_translation",
    "read_conversation",
    "render_xml_call",
    "reply_text",
]
