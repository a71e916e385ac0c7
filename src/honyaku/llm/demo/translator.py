"""The demo model's translator: it translates by tools, deterministically.

It reads the chunk like a real model would (the ``[ID: …]`` lines, the chapter_id, the
current translations after ``→``), works out from the tool results so far where the task
stands, and does what is left: move to working, submit every missing paragraph, translate the
title, review, end; in a rating job, it scores each translation by the little it can tell
(``demo_rating``). Asked plainly to translate some text, without tools (as other translators
ask), it answers with the text translated line by line.

Its "translations" are recognisable functions of the source (``pseudo_translation``), so a
test can check that every paragraph got its own text and no other. It keeps a line's
placeholders for inline markup where they are, and reads its ruby readings (``《かな》``) without
writing them.
The pieces a reply is made of (the chunk read, the task replayed, the calls that finish it)
are public: the scripted models of ``honyaku.testing`` build their misbehaviour from them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from honyaku.llm.demo.assistant import DemoAssistant, is_chat
from honyaku.llm.demo.glossary import (
    KANA,
    MAX_ASKED_NAMES,
    asked_name,
    found_names,
    name_proposal,
    name_question,
    read_glossary_lines,
)
from honyaku.llm.demo.turns import FakeCall, Reply, Turn
from honyaku.llm.tool_support import PROBE_TOOL

WORK_LINE = re.compile(r"^\[(\d+)\] \[ID: ([0-9a-f]{8})\] (.*)$")
READING = re.compile(r"《[ぁ-ゖァ-ヺー・]+》")
"""A ruby's reading shown after its base: kana in 《》, as honyaku writes them."""
TRANSLATION_LINE = "    → "


def pseudo_translation(text: str) -> str:
    return f"〈译〉{text}"


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


def demo_rating(line: WorkLine) -> dict[str, Any]:
    """The demo judge's rating of a work line: it can tell only a translation left out, one
    that copies its source, and kana left in it."""
    translation = line.translation or ""
    if not translation.strip() or translation.strip() == line.text.strip():
        rated = {"score": 1, "issues": ["untranslated"], "comment": "未翻译"}
    elif KANA.search(translation):
        rated = {"score": 2, "issues": ["untranslated"], "comment": "仍有假名未译"}
    else:
        rated = {"score": 5, "issues": [], "comment": ""}
    return {"paragraph_id": line.paragraph_id, **rated}


def proofreading_changes(index: int) -> bool:
    """The demo proofreader corrects paragraphs at even chapter positions only."""
    return index % 2 == 0


@dataclass(frozen=True, slots=True)
class WorkLine:
    index: int
    paragraph_id: str
    text: str
    translation: str | None = None
    readings: tuple[str, ...] = ()
    """The ruby readings the line showed (``《とも》``), which ``text`` goes without."""


@dataclass
class Chunk:
    """A chunk as the model reads it from the task's first message."""

    kind: str
    lines: list[WorkLine]
    titles: dict[str, str]
    """The titles to translate, by the chapter_id line before each."""
    glossary: dict[str, str] = field(default_factory=dict)
    """The glossary entries the chunk's message lists, source → target."""


@dataclass
class TaskState:
    """Where the task stands, as the calls made so far and their results tell."""

    status: str = "planning"
    accepted: set[str] = field(default_factory=set)
    titles_done: set[str] = field(default_factory=set)
    replies: int = 0
    nudged: bool = False
    title_told: bool = False
    """A result said the chapter title is still missing."""
    batched: bool = False
    """A batch was sent, whatever became of it."""
    saved_batches: list[set[str]] = field(default_factory=list)
    """The paragraphs of each batch that succeeded, in order."""
    warned: set[str] = field(default_factory=set)
    """Paragraphs whose last submission got a quality warning."""
    answers: dict[str, str] = field(default_factory=dict)
    """Names the translator rendered, from ``ask_user_batch``."""
    proposed: bool = False
    told: str = ""
    """The next step the results of the last reply named (a result's ``next``)."""


@dataclass
class DemoTranslator:
    assistant: DemoAssistant = field(default_factory=DemoAssistant)
    """Who answers the assistant's chats, which the same model serves."""
    translate: Callable[[str], str] = pseudo_translation
    """How it renders a paragraph or a title."""
    rate: Callable[[WorkLine], dict[str, Any]] = demo_rating
    """How it rates a work line's translation, as a ``rate_paragraphs`` item."""

    def reply(self, system: str, turns: list[Turn], offered: tuple[str, ...] = ()) -> Reply:
        """The next reply; ``offered`` names the tools the request declares natively."""
        if is_chat(system):
            return self.assistant.reply(system, turns, offered)
        if not turns or turns[0].role != "user":
            return Reply("Hello! Give me a chunk to translate.")
        chunk = read_chunk(system, turns[0].text)
        if not chunk.lines and not chunk.titles:
            if offered == (PROBE_TOOL.name,) and len(turns) == 1:
                return Reply(calls=(FakeCall(PROBE_TOOL.name, {"ready": True}),))
            if not offered and "<tool_use>" not in system:
                return Reply(plain_translation(turns[-1].text, self.translate))
            return Reply("I see nothing to translate here.")
        return self.task_reply(chunk, replay(turns, chunk), system, offered)

    def task_reply(
        self, chunk: Chunk, state: TaskState, system: str, offered: tuple[str, ...]
    ) -> Reply:
        """The next step of a chunk's task, from where it stands."""
        if chunk.kind == "extraction":
            can_ask = "ask_user_batch" in offered or "ask_user_batch" in system
            return extraction_reply(chunk, state, can_ask=can_ask)
        if chunk.kind == "rating":
            return rating_reply(chunk, state, self.rate)
        missing = missing_lines(chunk, state)
        batch = batch_call(missing, chunk.kind, self.translate) if missing else None
        calls = next_calls(chunk, state, batch, translate=self.translate)
        return Reply("Working on it." if state.replies == 0 else "", tuple(calls))


def read_chunk(system: str, text: str) -> Chunk:
    lines: list[WorkLine] = []
    chapter_id = ""
    titles: dict[str, str] = {}
    # Readings are hints only where the instructions say so: elsewhere 《…》 is the book's own.
    hinted = "《…》" in system
    for raw in text.splitlines():
        if match := WORK_LINE.match(raw):
            readings = tuple(READING.findall(match[3])) if hinted else ()
            line = READING.sub("", match[3]) if readings else match[3]
            lines.append(WorkLine(int(match[1]) - 1, match[2], line, readings=readings))
        elif raw.startswith(TRANSLATION_LINE) and lines:
            last = lines[-1]
            lines[-1] = WorkLine(
                last.index,
                last.paragraph_id,
                last.text,
                raw[len(TRANSLATION_LINE) :],
                last.readings,
            )
        elif raw.startswith("chapter_id: "):
            chapter_id = raw.removeprefix("chapter_id: ").strip()
        elif raw.startswith("title: "):
            titles[chapter_id] = raw.removeprefix("title: ")
    return Chunk(_kind(system), lines, titles, read_glossary_lines(text))


def _kind(system: str) -> str:
    role = system.split("\n", 1)[0]
    if role.startswith("You rate") or "评分" in role:
        return "rating"
    if "glossary" in role or "术语表" in role:
        return "extraction"
    if "proofread" in role or "校对" in role:
        return "proofreading"
    if "polish" in role or "润色" in role:
        return "polish"
    return "translation"


def replay(turns: list[Turn], chunk: Chunk) -> TaskState:
    """Where the task stands, read from the calls made and the results they got."""
    state = TaskState()
    pending: tuple[FakeCall, ...] = ()
    for turn in turns[1:]:
        if turn.role == "assistant":
            state.replies += 1
            state.told = ""
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


def _apply(state: TaskState, call: FakeCall, result: dict[str, Any], chunk: Chunk) -> None:
    state.told = result.get("next", state.told)
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
        state.saved_batches.append(submitted)
        state.warned = (state.warned - submitted) | {
            w["paragraph_id"] for w in result.get("warnings", ())
        }
    elif call.name == "update_chapter_title":
        state.titles_done.add(call.arguments["chapter_id"])
    elif call.name == "rate_paragraphs":
        state.accepted |= {item["paragraph_id"] for item in call.arguments["ratings"]}
    elif call.name == "ask_user_batch":
        questions = call.arguments["questions"]
        for answer in result.get("answers", ()):
            name = asked_name(questions[answer["question_index"]]["question"])
            state.answers[name] = answer["answer"]


def _submitted(paragraphs: list[dict[str, str]] | str, chunk: Chunk) -> set[str]:
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


def extraction_reply(chunk: Chunk, state: TaskState, *, can_ask: bool) -> Reply:
    """Ask how to render the first names, then propose every name found, then end."""
    names = found_names([line.text for line in chunk.lines], set(chunk.glossary))
    if can_ask and names and state.replies == 0:
        questions = [name_question(name) for name in names[:MAX_ASKED_NAMES]]
        return Reply("Some names are yours to render.", (_ask_batch(questions),))
    calls = [status_call("working")] if state.status == "planning" else []
    if names and not state.proposed:
        terms = [name_proposal(name, state.answers) for name in names]
        calls.append(FakeCall("add_glossary_terms", {"terms": terms}))
    calls.append(status_call("end"))
    return Reply("", tuple(calls))


def rating_reply(
    chunk: Chunk, state: TaskState, rate: Callable[[WorkLine], dict[str, Any]]
) -> Reply:
    """Rate every line not rated yet, then end."""
    calls = [status_call("working")] if state.status == "planning" else []
    if left := [line for line in chunk.lines if line.paragraph_id not in state.accepted]:
        calls.append(FakeCall("rate_paragraphs", {"ratings": [rate(line) for line in left]}))
    calls.append(status_call("end"))
    return Reply("", tuple(calls))


def _ask_batch(questions: list[dict[str, object]]) -> FakeCall:
    return FakeCall("ask_user_batch", {"questions": questions})


def next_calls(
    chunk: Chunk,
    state: TaskState,
    batch: FakeCall | None,
    *,
    translate: Callable[[str], str] = pseudo_translation,
    title_last: bool = False,
    ends: bool = True,
) -> list[FakeCall]:
    """The calls that take the task from where it stands to its end, submitting ``batch``:
    back to working where there is work left, the chapter title (after ``review`` if
    ``title_last``), review, and end (unless not ``ends``)."""
    translation = chunk.kind == "translation"
    titles = [
        FakeCall("update_chapter_title", {"chapter_id": chapter, "translated_title": translate(t)})
        for chapter, t in chunk.titles.items()
        if translation and chapter not in state.titles_done
    ]
    calls: list[FakeCall] = []
    if state.status == "planning" or (state.status == "review" and (batch is not None or titles)):
        calls.append(status_call("working"))
    if not title_last:
        calls += titles
    if batch is not None:
        calls.append(batch)
    if translation and (state.status != "review" or calls):
        calls.append(status_call("review"))
    if title_last:
        calls += titles
    if ends:
        calls.append(status_call("end"))
    return calls


def missing_lines(chunk: Chunk, state: TaskState) -> list[WorkLine]:
    """The work lines still to submit (for proofreading, those it changes)."""
    work = chunk.lines
    if chunk.kind == "proofreading":
        work = [line for line in chunk.lines if proofreading_changes(line.index)]
    return [line for line in work if line.paragraph_id not in state.accepted]


def batch_call(lines: list[WorkLine], kind: str, translate: Callable[[str], str]) -> FakeCall:
    """A batch of ``lines``, translated or revised as the task's ``kind`` wants."""
    return texts_batch(
        lines,
        {
            line.paragraph_id: translate(line.text)
            if kind == "translation"
            else pseudo_revision(line.translation or "", kind)
            for line in lines
        },
    )


def texts_batch(lines: list[WorkLine], texts: dict[str, str]) -> FakeCall:
    items = [
        {"paragraph_id": line.paragraph_id, "translated_text": texts[line.paragraph_id]}
        for line in lines
    ]
    return FakeCall("add_translation_batch", {"paragraphs": items})


def status_call(status: str) -> FakeCall:
    return FakeCall("update_task_status", {"status": status})
