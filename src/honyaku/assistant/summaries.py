"""Keeping a long chat within the model's context: older turns replaced by a summary.

The model writes the summary; every question asked and its answer is added to it as written
down when it was answered, so no summary can lose one. The last turns stay word
for word. A model that cannot summarise (its server fails) gets a plain excerpt instead: a
chat never stops because it grew long.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from honyaku.assistant import transcript
from honyaku.assistant.app import Transcripts
from honyaku.assistant.prompts import summary_prompt
from honyaku.domain.chat import ChatEntry, EntryKind
from honyaku.errors import ProviderError
from honyaku.llm.events import ChatProvider, Response
from honyaku.llm.messages import ChatRequest, SystemMessage, UserMessage, message_chars

KEEP_USER_TURNS = 2
"""Exchanges kept word for word after the summary."""
EXCERPT_CHARS = 200


class Summariser:
    def __init__(self, chats: Transcripts, provider: ChatProvider, context_chars: int) -> None:
        self.chats = chats
        self.provider = provider
        self.context_chars = context_chars

    async def fit(self, session_id: str, system_prompt: str) -> None:
        """Summarise the session's older turns if what it sends has outgrown the context."""
        entries = await asyncio.to_thread(self.chats.entries, session_id)
        sent = transcript.messages(system_prompt, entries)
        if sum(message_chars(m) for m in sent) <= self.context_chars:
            return
        covers = _boundary(entries)
        if covers is None:
            return
        older = [e for e in entries if e.pk <= covers]
        text = await self._summary(older)
        questions = transcript.questions_in_short(older)
        if questions:
            text += "\nQuestions asked and their answers:\n" + "\n".join(questions)
        summary = transcript.summary_entry(text, covers)
        await asyncio.to_thread(self.chats.append, session_id, [summary])

    async def _summary(self, older: Sequence[ChatEntry]) -> str:
        told = "\n".join(_told(older))
        request = ChatRequest((SystemMessage(summary_prompt()), UserMessage(told)))
        try:
            async for event in self.provider.stream(request):
                if isinstance(event, Response) and event.message.text.strip():
                    return event.message.text.strip()
        except ProviderError:
            pass
        return told[-EXCERPT_CHARS * 4 :]


def _boundary(entries: Sequence[ChatEntry]) -> int | None:
    """The last entry to summarise: the one before the kept exchanges, if any is older."""
    recent = transcript.since_summary(entries)
    users = [n for n, e in enumerate(recent) if e.kind is EntryKind.USER]
    if len(users) <= KEEP_USER_TURNS or users[-KEEP_USER_TURNS] == 0:
        return None
    return recent[users[-KEEP_USER_TURNS] - 1].pk


def _told(entries: Sequence[ChatEntry]) -> list[str]:
    """The entries as lines of a conversation, the previous summary first."""
    summary = transcript.latest_summary(entries)
    lines = [f"Earlier: {summary.payload['text']}"] if summary else []
    for entry in transcript.since_summary(entries):
        payload = entry.payload
        match entry.kind:
            case EntryKind.USER:
                lines.append(f"Translator: {payload['text']}")
            case EntryKind.ASSISTANT:
                calls = [
                    f"{c['name']}({json.dumps(c['arguments'], ensure_ascii=False)})"
                    for c in payload.get("calls", ())
                ]
                said = payload.get("text", "") + "".join(f" [called {c}]" for c in calls)
                lines.append(f"Assistant: {said.strip()}")
            case EntryKind.TOOL_RESULT:
                result = payload["result"]
                lines.append(
                    f"  → {payload['name']}: {result.get('message') or result.get('error')}"
                )
    return [line[: EXCERPT_CHARS * 2] for line in lines]
