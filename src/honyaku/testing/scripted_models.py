"""The demo model with a script: the behaviour behind every fake server.

``ScriptedTranslator`` is the demo translator told how to work and how to go wrong, the way
real models do: one call a reply or several (a model of one call a reply makes the calls its
instructions or a result invite "in one reply" together, and no others), batches of some
size, ``review`` tried before the chapter title, questions asked first, glossary terms,
characters and forms of address proposed, first drafts it gets wrong until a warning says
so, and scripted mistakes made once per conversation, so that a test can watch honyaku
correct them. ``ScriptedAssistant`` is the demo assistant given the chats a test plays.

A thinking model drafts calls before it makes them (``drafted_calls``): the same steps with a
title and translations it then thinks better of, marked ``DRAFT_MARK``, so a test can check
that no draft landed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from honyaku.domain.chinese_scripts import written_in_script
from honyaku.domain.workflow import TOGETHER as TOGETHER_IN_RESULTS
from honyaku.llm.demo import (
    Chunk,
    DemoAssistant,
    DemoTranslator,
    FakeCall,
    Reply,
    TaskState,
    Turn,
    WorkLine,
    asked_at,
    batch_call,
    last_result,
    missing_lines,
    next_calls,
    pseudo_translation,
    status_call,
    texts_batch,
)
from honyaku.llm.demo.assistant import SUMMARY_MARK
from honyaku.testing.sloppy_drafts import clean_translation, sloppy_draft
from honyaku.testing.spoiled_markup import (
    PLACEHOLDER,
    REFUSED,
    Spoiling,
    spoiled,
    without_placeholders,
)


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
    RESEND_BATCH = "resend_batch"
    """The first batch saved is sent again word for word, alone, in the next reply (a model
    that lost track of what it saved), if the task is still in working; then the work goes
    on. Only a model that takes more than one reply shows it (``stepwise``, ``batch_size``)."""
    SLOPPY_DRAFT = "sloppy_draft"
    """The first batch is a careless draft the quality checks catch (``sloppy_drafts``); the
    reply stops in review, and the next one fixes what the warnings name."""
    GOES_IN_CIRCLES = "goes_in_circles"
    """Every reply reads the context around the first paragraph again, and does nothing else."""
    REFUSES = "refuses"
    """Every reply says, in a sentence, that the model will not do this."""
    SPOILS_MARKUP = "spoils_markup"
    """The first batch spoils the placeholders of each paragraph that has some, a different
    way each (``spoiled_markup``): one dropped, one repeated, a pair closed before it opens,
    one invented, then written full-width or with a reading hint copied (which honyaku reads
    all the same); once refused, the model keeps them."""
    LOSES_MARKUP = "loses_markup"
    """Every batch drops every placeholder: a model that cannot keep markup."""


FOREIGN_ID = "deadbeef"
DRAFT_MARK = "草稿-NEVER"
"""In every title and translation a thinking model drafts and does not submit."""

_KANA = re.compile(r"[ぁ-ゖァ-ヺー]")


def hanzi_translation(text: str) -> str:
    """A pseudo-translation that reads as Simplified Chinese to the quality checks: its kana
    become 之 and its kanji their Simplified forms, so a model that translates well gets no
    warnings (a benchmark's model, for one)."""
    return pseudo_translation(written_in_script(_KANA.sub("之", text), "zh-CN"))


Step = Reply | Callable[[Sequence[Turn]], Reply]
"""A scripted chat's reply, or a function of the turns so far (to use an id a tool returned)."""


@dataclass
class ScriptedAssistant(DemoAssistant):
    """The demo assistant with ``scripts``: a cue (text the person's message contains) and the
    steps the model takes after such a message, one reply each. Without a script that fits,
    it is the demo."""

    scripts: Mapping[str, Sequence[Step]] = field(default_factory=dict)

    def reply(self, system: str, turns: Sequence[Turn], offered: tuple[str, ...] = ()) -> Reply:
        asked = asked_at(turns)
        if system.startswith(SUMMARY_MARK) or asked < 0:
            return super().reply(system, turns, offered)
        message = turns[asked].text
        step = sum(1 for t in turns[asked + 1 :] if t.role == "assistant")
        for cue, steps in self.scripts.items():
            if cue in message:
                if step < len(steps):
                    chosen = steps[step]
                    return chosen(turns) if callable(chosen) else chosen
                return Reply(f"Done: {last_result(turns).get('message', 'nothing more to do')}.")
        return super().reply(system, turns, offered)


@dataclass
class ScriptedTranslator(DemoTranslator):
    mistakes: set[Mistake] = field(default_factory=set)
    calls_per_reply: int | None = None
    """``None``: every call of a step in one reply (parallel calls); ``1``: one per reply,
    unless its instructions or a result invite several in one reply (``invited_calls``)."""
    heeds_invitations: bool = True
    """Whether a model of ``calls_per_reply`` makes the calls it is invited to make in one
    reply together; ``False``: it keeps to its count whatever it is told."""
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
    characters: tuple[dict[str, str], ...] = ()
    """Characters an extraction proposes (``add_characters``) in its first reply, instead of
    the names the demo finds."""
    forms_of_address: tuple[dict[str, str], ...] = ()
    """Forms of address proposed (``add_forms_of_address``): by an extraction in its first
    reply, by a translation with the first batch of every chunk that is offered the tool."""
    first_drafts: Mapping[str, str] = field(default_factory=dict)
    """Paragraphs it gets wrong first, by source text: the first batch that holds one sends
    this text, and waits for the results before it ends; a paragraph a warning names is sent
    again as ``translate`` renders it (unless not ``fixes_warnings``)."""
    fixes_warnings: bool = True
    """After a careless draft, fix what the quality warnings name (or leave it)."""
    gives_up_over: int | None = None
    """Paragraphs a chunk may have before the model gives up on it, answering in text only
    (a model lost in a long part); ``None``: it never does."""
    revises: bool = True
    """Polish and proofreading change each paragraph they send; ``False``: they send its
    translation back as it is (a model that finds nothing to improve)."""

    @classmethod
    def stepwise(cls, **more: Any) -> ScriptedTranslator:
        """One tool call a reply, each batch with every missing paragraph."""
        return cls(calls_per_reply=1, **more)

    @classmethod
    def careful(cls, **more: Any) -> ScriptedTranslator:
        """As real models often work: one call a reply (unless invited to make several), 3 to
        12 paragraphs a batch, and ``review`` tried before the chapter title."""
        return cls(calls_per_reply=1, batch_sizes=(3, 12), title_after_review=True, **more)

    def task_reply(
        self, chunk: Chunk, state: TaskState, system: str, offered: tuple[str, ...]
    ) -> Reply:
        if Mistake.NEVER_FINISH in self.mistakes or self._lost_in(chunk):
            return Reply("I would rather chat about the weather.")
        if Mistake.REFUSES in self.mistakes:
            return Reply("I'm sorry, but I can't help with translating this text.")
        if Mistake.GOES_IN_CIRCLES in self.mistakes and chunk.lines:
            anchor = chunk.lines[0].paragraph_id
            return Reply("", (FakeCall("get_paragraph_position", {"paragraph_id": anchor}),))
        if Mistake.RAMBLE in self.mistakes:
            return Reply("\n".join(self.translate(line.text) for line in chunk.lines))
        if chunk.kind == "extraction" and (self.characters or self.forms_of_address):
            return self._cast_extraction(state)
        if chunk.kind in ("extraction", "rating"):
            return super().task_reply(chunk, state, system, offered)
        if self.asks and state.replies == 0:
            return Reply("Before I start, a question for the translator.", self.asks)
        first = state.replies == (1 if self.asks else 0)
        if first and (mistaken := self._first_reply_mistake(chunk)):
            return mistaken
        if self._resends(state):
            saved = [line for line in chunk.lines if line.paragraph_id in state.saved_batches[0]]
            return Reply("", (self._texts_of(saved, chunk),))
        calls = next_calls(
            chunk,
            state,
            self._batch(chunk, state),
            translate=self.translate,
            title_last=self.title_after_review and not state.title_told,
            ends=not self._drafting(chunk, state),  # a careless draft waits for its warnings
        )
        if first and self.proposals and chunk.kind == "translation":
            calls.insert(1, FakeCall("add_glossary_terms", {"terms": list(self.proposals)}))
        offers_forms = "add_forms_of_address" in offered or "add_forms_of_address" in system
        if first and self.forms_of_address and chunk.kind == "translation" and offers_forms:
            forms = list(self.forms_of_address)
            calls.insert(1, FakeCall("add_forms_of_address", {"forms": forms}))
        if Mistake.FORGET_END in self.mistakes and not state.nudged:
            calls = [call for call in calls if call != status_call("end")]
            if not calls:
                return Reply("The chunk is done.")
        if first:
            calls = self._with_mistakes(calls)
        if not state.batched:
            calls = [_spoil(call, self.mistakes, chunk) for call in calls]
        if self.calls_per_reply is not None:
            invitation = _invitation(system, state) if self.heeds_invitations else ""
            invited = invited_calls(calls, invitation)
            calls = calls[: max(self.calls_per_reply, invited)]
        return Reply("Working on it." if first else "", tuple(calls))

    def _cast_extraction(self, state: TaskState) -> Reply:
        """Propose the characters and forms of address, then end."""
        calls = [status_call("working")] if state.status == "planning" else []
        if state.replies == 0:
            if self.characters:
                calls.append(FakeCall("add_characters", {"characters": list(self.characters)}))
            if self.forms_of_address:
                forms = list(self.forms_of_address)
                calls.append(FakeCall("add_forms_of_address", {"forms": forms}))
        calls.append(status_call("end"))
        return Reply("", tuple(calls))

    def _lost_in(self, chunk: Chunk) -> bool:
        return self.gives_up_over is not None and len(chunk.lines) > self.gives_up_over

    def _batch(self, chunk: Chunk, state: TaskState) -> FakeCall | None:
        """The batch this reply submits: the missing paragraphs (a careless draft of them,
        first), or else the warned ones fixed."""
        missing = missing_lines(chunk, state)
        sloppy = Mistake.SLOPPY_DRAFT in self.mistakes
        if missing and sloppy and chunk.kind == "translation":
            texts = {line.paragraph_id: line.text for line in missing}
            draft = sloppy_draft(texts, chunk.glossary) if self._drafting(chunk, state) else None
            return texts_batch(missing, draft or _clean(missing, chunk.glossary))
        if missing:
            lines = missing[: self._batch_size(chunk, state)]
            if self.first_drafts and chunk.kind == "translation":
                drafts = self.first_drafts
                texts = {
                    line.paragraph_id: drafts.get(line.text) or self.translate(line.text)
                    for line in lines
                }
                return texts_batch(lines, texts)
            return self._texts_of(lines, chunk)
        warned = [line for line in chunk.lines if line.paragraph_id in state.warned]
        if sloppy and self.fixes_warnings and warned:
            return texts_batch(warned, _clean(warned, chunk.glossary))
        if self.first_drafts and self.fixes_warnings and warned:
            return texts_batch(
                warned, {line.paragraph_id: self.translate(line.text) for line in warned}
            )
        return None

    def _texts_of(self, lines: list[WorkLine], chunk: Chunk) -> FakeCall:
        """A batch of ``lines``, translated or revised (or sent back as they are)."""
        if chunk.kind != "translation" and not self.revises:
            return texts_batch(lines, {line.paragraph_id: line.translation or "" for line in lines})
        batch = batch_call(lines, chunk.kind, self.translate)
        if Mistake.LOSES_MARKUP in self.mistakes:
            items = [
                {**item, "translated_text": without_placeholders(item["translated_text"])}
                for item in batch.arguments["paragraphs"]
            ]
            return FakeCall(batch.name, {"paragraphs": items})
        return batch

    def _resends(self, state: TaskState) -> bool:
        """Whether this reply sends the first batch saved again (``RESEND_BATCH``)."""
        return (
            Mistake.RESEND_BATCH in self.mistakes
            and len(state.saved_batches) == 1
            and state.status == "working"
        )

    def _drafting(self, chunk: Chunk, state: TaskState) -> bool:
        """Whether this reply is the careless first draft of a translation, or sends a first
        draft it gets wrong."""
        if chunk.kind != "translation" or not (missing := missing_lines(chunk, state)):
            return False
        if self.first_drafts and any(line.text in self.first_drafts for line in missing):
            return True
        return Mistake.SLOPPY_DRAFT in self.mistakes and not state.accepted

    def _batch_size(self, chunk: Chunk, state: TaskState) -> int | None:
        missing = [line for line in chunk.lines if line.paragraph_id not in state.accepted]
        if self.batch_sizes is None or not missing:
            return self.batch_size
        low, high = self.batch_sizes
        # By position, not by id: ids are random, and the same book should cost the same.
        return low + (missing[0].index * 7 + 3) % (high - low + 1)

    def _first_reply_mistake(self, chunk: Chunk) -> Reply | None:
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


TOGETHER = (TOGETHER_IN_RESULTS, "同一次回复")
"""How instructions, in English or Chinese, and results say to make calls in one reply."""


def _invitation(system: str, state: TaskState) -> str:
    """What the model was last told to do: the next step its last reply's results named, or,
    before its first move, the step of its instructions that starts the task."""
    if state.told or state.status != "planning":
        return state.told
    lines = system.splitlines()
    for n, line in enumerate(lines):
        if status_named("working") in line:
            more = itertools.takewhile(lambda next_line: next_line.startswith(" "), lines[n + 1 :])
            return " ".join([line, *more])
    return ""


def invited_calls(calls: Sequence[FakeCall], invitation: str) -> int:
    """How many of ``calls``, from the first, ``invitation`` names to be made in one reply: a
    model that makes one call a reply makes those together when told to, as real ones do, and
    no other (a wrong move, a call it was not invited to make, ends the run)."""
    if not any(words in invitation.casefold() for words in TOGETHER):
        return 0
    named = 0
    for call in calls:
        moving = call.name == "update_task_status"
        if (status_named(str(call.arguments.get("status"))) if moving else call.name) not in (
            invitation
        ):
            break
        named += 1
    return named


def status_named(status: str) -> str:
    """A status move as instructions and results name it."""
    return f'update_task_status("{status}")'


def drafted_calls(calls: tuple[FakeCall, ...]) -> tuple[FakeCall, ...]:
    """What a thinking model drafts before it makes ``calls``: calls that would all succeed if
    run (the move to working, then every batch and title), with ``DRAFT_MARK`` texts."""
    drafts: list[FakeCall] = []
    for call in calls:
        if call == status_call("working"):
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


def _clean(lines: list[WorkLine], glossary: dict[str, str]) -> dict[str, str]:
    return {line.paragraph_id: clean_translation(line.text, glossary) for line in lines}


def _first_paragraph(calls: list[FakeCall]) -> str | None:
    for call in calls:
        if call.name == "add_translation_batch":
            return call.arguments["paragraphs"][0]["paragraph_id"]
    return None


def _spoil(call: FakeCall, mistakes: set[Mistake], chunk: Chunk) -> FakeCall:
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
    if Mistake.SPOILS_MARKUP in mistakes:
        readings = {line.paragraph_id: line.readings for line in chunk.lines}
        marked = [item for item in items if PLACEHOLDER.search(item.get("translated_text", ""))]
        for n, item in enumerate(marked):
            hint = next(iter(readings.get(item.get("paragraph_id", ""), ())), "")
            how = SPOILINGS[n % len(SPOILINGS)]
            item["translated_text"] = spoiled(item["translated_text"], how, hint)
    return FakeCall(call.name, {"paragraphs": items})


SPOILINGS = (*REFUSED, Spoiling.FULL_WIDTH, Spoiling.HINT_COPIED)
