"""A model that translates by tools, deterministically: the demo model, and the behaviour
behind every fake server in the tests.

It reads the chunk like a real model would (the ``[ID: …]`` lines, the chapter_id, the
current translations after ``→``), works out from the tool results so far where the task
stands, and does what is left: move to working, submit every missing paragraph, translate the
title, review, end. Asked plainly to translate some text, without tools (as other translators
ask), it answers with the text translated line by line. Scripted mistakes make it misbehave
once per conversation, the way real models do, so tests can watch honyaku correct it.

Its "translations" are recognisable functions of the source (``pseudo_translation``), so a
test can check that every paragraph got its own text and no other. A thinking model drafts
calls before it makes them (``drafted_calls``): the same steps with a title and translations
it then thinks better of, marked ``DRAFT_MARK``, so a test can check that no draft landed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from honyaku.llm.demo.assistant import FakeAssistant, is_chat
from honyaku.llm.demo.glossary import (
    MAX_ASKED_NAMES,
    asked_name,
    clean_translation,
    found_names,
    name_proposal,
    name_question,
    read_glossary_lines,
    sloppy_draft,
)
from honyaku.llm.demo.turns import FakeCall, Reply, Turn
from honyaku.llm.tool_support import PROBE_TOOL

WORK_LINE = re.compile(r"^\[(\d+)\] \[ID: ([0-9a-f]{8})\] (.*)$")
TRANSLATION_LINE = "    → "


class Mistake(StrEnum):
    """Scripted misbehaviour, each made once per conversation: in its first reply, or, for
    a mistake in a batch, its first batch."""

    WRONG_STATUS_MOVE = "wrong_status_move"
    INDEX_INSTEAD_OF_ID = "index_instead_of_id"
    FOREIGN_ID = "foreign_id"
    DUPLICATE_ID = "duplicate_id"
    PREFIX_MISMATCH = "prefix_mismatch"
    JSON_AS_TEXT = "json_as_text"
    FORGET_END = "forget_end"
    UNKNOWN_TOOL = "unknown_tool"
    SKIP_TITLE = "skip_title"
    BAD_ARGUMENTS = "bad_arguments"
    """A status call without its status, a context call with a count that is no number."""
    NEVER_FINISH = "never_finish"
    """Every reply is text without calls: the chunk must fail after its nudges."""
    RAMBLE = "ramble"
    """Every reply is text without calls, the chunk written out again, until the model's limit
    cuts it: a small local model talking where it should call tools."""
    SLOPPY_DRAFT = "sloppy_draft"
    """The first batch is a careless draft the quality checks catch (``demo.glossary``); the
    reply stops in review, and the next one fixes what the warnings name."""


FOREIGN_ID = "deadbeef"
DRAFT_MARK = "草稿-NEVER"
"""In every title and translation a thinking model drafts and does not submit."""


def pseudo_translation(text: str) -> str:
    return f"〈译〉{text}"


_KANA = re.compile(r"[ぁ-ゖァ-ヺー]")


def hanzi_translation(text: str) -> str:
    """A pseudo-translation that reads as Chinese to the quality checks: its kana become 之,
    so a model that translates well gets no warnings (a benchmark's model, for one)."""
    return pseudo_translation(_KANA.sub("之", text))


def arguments_json(value: object) -> str:
    """Call arguments as models write them: compact JSON, every character as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def plain_translation(prompt: str, translate: Callable[[str], str] = pseudo_translation) -> str:
    """The answer to a plain "translate this" prompt without tools (another translator's):
    the text it quotes between backticks, or else the whole prompt, translated line by
    line."""
    first, last = prompt.find("`"), prompt.rfind("`")
    text = prompt[first + 1 : last] if first < last else prompt
    return "\n".join(translate(line) if line.strip() else line for line in text.split("\n"))


def pseudo_revision(translation: str, kind: str) -> str:
    return f"{translation}〈{'润' if kind == 'polish' else '校'}〉"


def proofreading_changes(index: int) -> bool:
    """The fake proofreader corrects paragraphs at even chapter positions only."""
    return index % 2 == 0


@dataclass(frozen=True, slots=True)
class WorkLine:
    index: int
    paragraph_id: str
    text: str
    translation: str | None = None


@dataclass
class _Chunk:
    kind: str
    lines: list[WorkLine]
    chapter_id: str | None
    title: str | None
    glossary: dict[str, str] = field(default_factory=dict)
    """The glossary entries the chunk's message lists, source → target."""


@dataclass
class _State:
    status: str = "planning"
    accepted: set[str] = field(default_factory=set)
    title_done: bool = False
    replies: int = 0
    nudged: bool = False
    title_told: bool = False
    """A result said the chapter title is still missing."""
    batched: bool = False
    """A batch was sent, whatever became of it."""
    warned: set[str] = field(default_factory=set)
    """Paragraphs whose last submission got a quality warning."""
    answers: dict[str, str] = field(default_factory=dict)
    """Names the translator rendered, from ``ask_user_batch``."""
    proposed: bool = False


@dataclass
class FakeTranslator:
    mistakes: set[Mistake] = field(default_factory=set)
    calls_per_reply: int | None = None
    """``None``: every call of a step in one reply (parallel calls); ``1``: one per reply."""
    asks: tuple[FakeCall, ...] = ()
    """Questions for the translator, asked alone in every chunk's first reply."""
    batch_size: int | None = None
    """Paragraphs per ``add_translation_batch`` call; ``None``: every missing one at once."""
    batch_sizes: tuple[int, int] | None = None
    """Paragraphs per call between these two, varying from call to call (over ``batch_size``)."""
    title_after_review: bool = False
    """Try ``review`` before translating the title, unless a result said it is missing."""
    proposals: tuple[dict[str, str], ...] = ()
    """Glossary terms proposed with the first batch of every translation chunk."""
    fixes_warnings: bool = True
    """After a careless draft, fix what the quality warnings name (or leave it)."""
    assistant: FakeAssistant = field(default_factory=FakeAssistant)
    """Who answers the assistant's chats, which the same model serves."""
    translate: Callable[[str], str] = pseudo_translation
    """How it renders a paragraph or a title."""

    @classmethod
    def stepwise(cls, **more: Any) -> FakeTranslator:
        """One tool call a reply, each batch with every missing paragraph."""
        return cls(calls_per_reply=1, **more)

    @classmethod
    def careful(cls, **more: Any) -> FakeTranslator:
        """As real models often work: one call a reply, 3 to 12 paragraphs a batch, and
        ``review`` tried before the chapter title."""
        return cls(calls_per_reply=1, batch_sizes=(3, 12), title_after_review=True, **more)

    def reply(self, system: str, turns: list[Turn], offered: tuple[str, ...] = ()) -> Reply:
        """The next reply; ``offered`` names the tools the request declares natively."""
        if is_chat(system):
            return self.assistant.reply(system, turns, offered)
        if not turns or turns[0].role != "user":
            return Reply("Hello! Give me a chunk to translate.")
        chunk = _read_chunk(system, turns[0].text)
        if not chunk.lines and chunk.chapter_id is None:
            if offered == (PROBE_TOOL.name,) and len(turns) == 1:
                return Reply(calls=(FakeCall(PROBE_TOOL.name, {"ready": True}),))
            if not offered and "<tool_use>" not in system:
                return Reply(plain_translation(turns[-1].text, self.translate))
            return Reply("I see nothing to translate here.")
        state = _replay(turns, chunk)
        if Mistake.NEVER_FINISH in self.mistakes:
            return Reply("I would rather chat about the weather.")
        if Mistake.RAMBLE in self.mistakes:
            return Reply("\n".join(self.translate(line.text) for line in chunk.lines))
        if chunk.kind == "extraction":
            can_ask = "ask_user_batch" in offered or "ask_user_batch" in system
            return _extraction_reply(chunk, state, can_ask=can_ask)
        if self.asks and state.replies == 0:
            return Reply("Before I start, a question for the translator.", self.asks)
        first = state.replies == (1 if self.asks else 0)
        if first and (mistaken := self._first_reply_mistake(chunk)):
            return mistaken
        sloppy = Mistake.SLOPPY_DRAFT in self.mistakes
        calls = _next_calls(
            chunk,
            state,
            sloppy=sloppy,
            fixes=sloppy and self.fixes_warnings,
            batch_size=self._batch_size(chunk, state),
            translate=self.translate,
            title_last=self.title_after_review and not state.title_told,
        )
        if first and self.proposals and chunk.kind == "translation":
            calls.insert(1, FakeCall("add_glossary_terms", {"terms": list(self.proposals)}))
        if Mistake.FORGET_END in self.mistakes and not state.nudged:
            calls = [call for call in calls if call != _status("end")]
            if not calls:
                return Reply("The chunk is done.")
        if first:
            calls = self._with_mistakes(calls)
        if not state.batched:
            calls = [_spoil(call, self.mistakes) for call in calls]
        if self.calls_per_reply is not None:
            calls = calls[: self.calls_per_reply]
        text = "Working on it." if first else ""
        return Reply(text, tuple(calls))

    def _batch_size(self, chunk: _Chunk, state: _State) -> int | None:
        missing = [line for line in chunk.lines if line.paragraph_id not in state.accepted]
        if self.batch_sizes is None or not missing:
            return self.batch_size
        low, high = self.batch_sizes
        # By position, not by id: ids are random, and the same book should cost the same.
        return low + (missing[0].index * 7 + 3) % (high - low + 1)

    def _first_reply_mistake(self, chunk: _Chunk) -> Reply | None:
        if Mistake.JSON_AS_TEXT in self.mistakes:
            items = [
                {"i": n, "t": pseudo_translation(line.text)} for n, line in enumerate(chunk.lines)
            ]
            return Reply(f'{{"status":"working","p":{items}}}'.replace("'", '"'))
        return None

    def _with_mistakes(self, calls: list[FakeCall]) -> list[FakeCall]:
        if Mistake.WRONG_STATUS_MOVE in self.mistakes:
            calls = [FakeCall("update_task_status", {"status": "end"}), *calls]
        if Mistake.UNKNOWN_TOOL in self.mistakes:
            calls = [FakeCall("translate_everything", {}), *calls]
        if Mistake.BAD_ARGUMENTS in self.mistakes and (first := _first_paragraph(calls)):
            calls = [
                FakeCall("update_task_status", {}),
                FakeCall("get_previous_paragraphs", {"paragraph_id": first, "count": "many"}),
                *calls,
            ]
        if Mistake.SKIP_TITLE in self.mistakes:
            calls = [call for call in calls if call.name != "update_chapter_title"]
        return calls


def drafted_calls(calls: tuple[FakeCall, ...]) -> tuple[FakeCall, ...]:
    """What a thinking model drafts before it makes ``calls``: calls that would all succeed if
    run (the move to working, then every batch and title), with ``DRAFT_MARK`` texts."""
    drafts: list[FakeCall] = []
    for call in calls:
        if call == _status("working"):
            drafts.append(call)
        elif call.name == "add_translation_batch":
            items = [
                {**item, "translated_text": f"{DRAFT_MARK} {n}"}
                for n, item in enumerate(call.arguments["paragraphs"])
            ]
            drafts.append(FakeCall(call.name, {"paragraphs": items}))
        elif call.name == "update_chapter_title":
            drafts.append(FakeCall(call.name, {**call.arguments, "translated_title": DRAFT_MARK}))
    return tuple(drafts)


def _first_paragraph(calls: list[FakeCall]) -> str | None:
    for call in calls:
        if call.name == "add_translation_batch":
            return call.arguments["paragraphs"][0]["paragraph_id"]
    return None


def _spoil(call: FakeCall, mistakes: set[Mistake]) -> FakeCall:
    if call.name != "add_translation_batch":
        return call
    items = [dict(item) for item in call.arguments["paragraphs"]]
    if Mistake.INDEX_INSTEAD_OF_ID in mistakes:
        items = [
            {"index": n, "translated_text": item["translated_text"]} for n, item in enumerate(items)
        ]
    if Mistake.FOREIGN_ID in mistakes:
        items.append({"paragraph_id": FOREIGN_ID, "translated_text": "幻の段落"})
    if Mistake.DUPLICATE_ID in mistakes and items:
        items.append(dict(items[0]))
    if Mistake.PREFIX_MISMATCH in mistakes and items:
        items[0]["original_text_prefix"] = "全然違う書き出し"
    return FakeCall(call.name, {"paragraphs": items})


def _read_chunk(system: str, text: str) -> _Chunk:
    lines: list[WorkLine] = []
    chapter_id = title = None
    for raw in text.splitlines():
        if match := WORK_LINE.match(raw):
            lines.append(WorkLine(int(match[1]) - 1, match[2], match[3]))
        elif raw.startswith(TRANSLATION_LINE) and lines:
            last = lines[-1]
            lines[-1] = WorkLine(
                last.index, last.paragraph_id, last.text, raw[len(TRANSLATION_LINE) :]
            )
        elif raw.startswith("chapter_id: "):
            chapter_id = raw.removeprefix("chapter_id: ").strip()
        elif raw.startswith("title: "):
            title = raw.removeprefix("title: ")
    return _Chunk(_kind(system), lines, chapter_id, title, read_glossary_lines(text))


def _kind(system: str) -> str:
    role = system.split("\n", 1)[0]
    if "glossary" in role or "术语表" in role:
        return "extraction"
    if "proofread" in role or "校对" in role:
        return "proofreading"
    if "polish" in role or "润色" in role:
        return "polish"
    return "translation"


def _replay(turns: list[Turn], chunk: _Chunk) -> _State:
    """Where the task stands, read from the calls made and the results they got."""
    state = _State()
    pending: tuple[FakeCall, ...] = ()
    for turn in turns[1:]:
        if turn.role == "assistant":
            state.replies += 1
            pending = turn.calls
            state.batched |= any(c.name == "add_translation_batch" for c in turn.calls)
            state.proposed |= any(c.name == "add_glossary_terms" for c in turn.calls)
        elif turn.results:
            for call, result in zip(pending, turn.results, strict=False):
                _apply(state, call, result, chunk)
            pending = ()
        elif turn.role == "user":
            state.nudged = True
    return state


def _apply(state: _State, call: FakeCall, result: dict[str, Any], chunk: _Chunk) -> None:
    state.title_told |= "title_missing" in result or (
        result.get("error_code") == "WORK_INCOMPLETE" and "title" in result.get("error", "")
    )
    if not result.get("success"):
        return
    if call.name == "update_task_status":
        state.status = result.get("status", state.status)
    elif call.name == "add_translation_batch":
        submitted = _submitted(call.arguments["paragraphs"], chunk)
        state.accepted |= submitted
        state.warned = (state.warned - submitted) | {
            w["paragraph_id"] for w in result.get("warnings", ())
        }
    elif call.name == "update_chapter_title":
        state.title_done = True
    elif call.name == "ask_user_batch":
        questions = call.arguments["questions"]
        for answer in result.get("answers", ()):
            name = asked_name(questions[answer["question_index"]]["question"])
            state.answers[name] = answer["answer"]


def _submitted(paragraphs: list[dict[str, str]] | str, chunk: _Chunk) -> set[str]:
    """The ids a batch call named: its items, or, sent back shortened, its runs of ids
    (``saved: 1a2b3c4d to 9f8e7d6c, 5a6b7c8d (…)``)."""
    if not isinstance(paragraphs, str):
        return {item["paragraph_id"] for item in paragraphs}
    order = [line.paragraph_id for line in chunk.lines]
    runs = paragraphs.removeprefix("saved: ").split(" (", 1)[0]
    ids: set[str] = set()
    for run in runs.split(", "):
        first, _, last = run.partition(" to ")
        start = order.index(first)
        ids.update(order[start : order.index(last or first) + 1])
    return ids


def _extraction_reply(chunk: _Chunk, state: _State, *, can_ask: bool) -> Reply:
    """Ask how to render the first names, then propose every name found, then end."""
    names = found_names([line.text for line in chunk.lines], set(chunk.glossary))
    if can_ask and names and state.replies == 0:
        questions = [name_question(name) for name in names[:MAX_ASKED_NAMES]]
        return Reply("Some names are yours to render.", (_ask_batch(questions),))
    calls = [_status("working")] if state.status == "planning" else []
    if names and not state.proposed:
        terms = [name_proposal(name, state.answers) for name in names]
        calls.append(FakeCall("add_glossary_terms", {"terms": terms}))
    calls.append(_status("end"))
    return Reply("", tuple(calls))


def _ask_batch(questions: list[dict[str, object]]) -> FakeCall:
    return FakeCall("ask_user_batch", {"questions": questions})


def _next_calls(
    chunk: _Chunk,
    state: _State,
    *,
    sloppy: bool = False,
    fixes: bool = False,
    batch_size: int | None = None,
    title_last: bool = False,
    translate: Callable[[str], str] = pseudo_translation,
) -> list[FakeCall]:
    translation = chunk.kind == "translation"
    missing = [line for line in _work(chunk) if line.paragraph_id not in state.accepted]
    to_fix = [line for line in chunk.lines if line.paragraph_id in state.warned] if fixes else []
    needs_title = translation and chunk.chapter_id is not None and not state.title_done
    drafting = sloppy and translation and bool(missing) and not state.accepted
    calls: list[FakeCall] = []
    if state.status == "planning" or (
        state.status == "review" and (missing or needs_title or to_fix)
    ):
        calls.append(_status("working"))
    title = FakeCall(
        "update_chapter_title",
        {"chapter_id": chunk.chapter_id, "translated_title": translate(chunk.title or "")},
    )
    if needs_title and not title_last:
        calls.append(title)
    if missing and sloppy and translation:
        texts = {line.paragraph_id: line.text for line in missing}
        draft = sloppy_draft(texts, chunk.glossary) if drafting else None
        calls.append(_texts_batch(missing, draft or _clean(missing, chunk.glossary)))
    elif missing:
        calls.append(_batch(missing[:batch_size], chunk.kind, translate))
    elif to_fix:
        calls.append(_texts_batch(to_fix, _clean(to_fix, chunk.glossary)))
    if translation and (state.status != "review" or calls):
        calls.append(_status("review"))
    if needs_title and title_last:
        calls.append(title)
    if not drafting:  # a careless draft waits for its warnings before it ends
        calls.append(_status("end"))
    return calls


def _clean(lines: list[WorkLine], glossary: dict[str, str]) -> dict[str, str]:
    return {line.paragraph_id: clean_translation(line.text, glossary) for line in lines}


def _texts_batch(lines: list[WorkLine], texts: dict[str, str]) -> FakeCall:
    items = [
        {
            "paragraph_id": line.paragraph_id,
            "translated_text": texts[line.paragraph_id],
        }
        for line in lines
    ]
    return FakeCall("add_translation_batch", {"paragraphs": items})


def _work(chunk: _Chunk) -> list[WorkLine]:
    if chunk.kind == "proofreading":
        return [line for line in chunk.lines if proofreading_changes(line.index)]
    return chunk.lines


def _batch(lines: list[WorkLine], kind: str, translate: Callable[[str], str]) -> FakeCall:
    items = [
        {
            "paragraph_id": line.paragraph_id,
            "translated_text": translate(line.text)
            if kind == "translation"
            else pseudo_revision(line.translation or "", kind),
        }
        for line in lines
    ]
    return FakeCall("add_translation_batch", {"paragraphs": items})


def _status(status: str) -> FakeCall:
    return FakeCall("update_task_status", {"status": status})
