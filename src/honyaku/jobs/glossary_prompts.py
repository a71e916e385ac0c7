"""What the model reads about the glossary: the sections of a chunk's message that list the
entries occurring in it and the forms of address between the characters it names, and the
system prompt of a glossary extraction job.

The sections go in the chunk's message, after its text, never in the system prompt: the
system prompt is the same bytes for every chunk of a job, so the provider's prompt cache keeps
serving it. They list only the entries found in the chunk's work paragraphs (and in the title
it shows), and only the forms of address of the pairs whose two characters both appear
there, so a book with thousands of names costs each chunk only its own, and a chunk that
names no such pair reads what it read before the address book existed.
"""

from __future__ import annotations

from collections.abc import Sequence

from honyaku.domain.chunking import Chunk
from honyaku.domain.forms_of_address import Place, Shown, rows_for
from honyaku.domain.glossary import DEFAULT_KIND, EntryStatus, GlossaryEntry, GlossaryMatcher
from honyaku.domain.languages import is_chinese
from honyaku.domain.workflow import JobKind
from honyaku.jobs.prompts import language_name
from honyaku.store.glossary import BookCast

GLOSSARY_HEADER = "Glossary for this chunk (use these renderings):"
KNOWN_HEADER = "Already in the glossary (do not propose these again):"
FORMS_HEADER = (
    "How these characters address each other (speaker → listener: as the source writes it "
    "→ rendering; register):"
)
KNOWN_FORMS_HEADER = "Already in the address book (do not propose these again):"


def chunk_texts(chunk: Chunk) -> list[str]:
    """The texts of a chunk that its glossary is looked up in: each chapter's title first,
    where it is shown."""
    return [
        text
        for section in chunk.sections
        for text in ([section.chapter.title] if section.shows_title else [])
        + [p.text for p in section.paragraphs]
    ]


def chunk_glossary(chunk: Chunk, matcher: GlossaryMatcher) -> list[GlossaryEntry]:
    """The entries that occur in the chunk, in the glossary's order (by source)."""
    return matcher.find(chunk_texts(chunk))


def glossary_section(entries: Sequence[GlossaryEntry], kind: JobKind) -> str:
    """The lines listing ``entries`` for the chunk's message; empty when there are none."""
    if not entries:
        return ""
    header = KNOWN_HEADER if kind is JobKind.EXTRACTION else GLOSSARY_HEADER
    return "\n".join([header, *(glossary_line(e) for e in entries)])


def glossary_line(entry: GlossaryEntry) -> str:
    """``- source (aliases) → target (kind, gender, pronoun; note; speech: how it speaks)``,
    with what is known."""
    aliases = f" ({', '.join(entry.aliases)})" if entry.aliases else ""
    about = [part for part in (_kind(entry), entry.gender, entry.pronoun) if part]
    details = ", ".join(about)
    for more in (entry.note, f"speech: {entry.speech}" if entry.speech else ""):
        if more:
            details = f"{details}; {more}" if details else more
    if entry.status is EntryStatus.PROPOSED:
        details = f"{details}; proposed" if details else "proposed"
    return f"- {entry.source}{aliases} → {entry.target}" + (f" ({details})" if details else "")


def chunk_place(chunk: Chunk, book_id: str, order: dict[str, int]) -> Place:
    """Where one section of a chunk (``chunk`` without what is joined to it) is in its book
    and series: its first and last work paragraphs."""
    start = chunk.paragraphs[0].index if chunk.paragraphs else 0
    end = chunk.paragraphs[-1].index if chunk.paragraphs else 0
    return Place(book_id, (chunk.chapter.order, start), (chunk.chapter.order, end), order)


def chunk_forms(
    chunk: Chunk, cast: BookCast, matcher: GlossaryMatcher, *, proposed: bool = False
) -> list[Shown]:
    """The forms of address a chunk is given: the rows between characters ``matcher`` finds
    together in one of its chapters (accepted ones; with ``proposed``, those waiting too), in
    the address book's order. A conversation of short chapters is given each chapter's pairs,
    never a pair of a character of one chapter and one of another."""
    forms = cast.forms if proposed else cast.accepted_forms
    if not forms:
        return []
    characters = cast.everyone if proposed else cast.characters
    shown: dict[tuple[str, bool], Shown] = {}
    for section in chunk.sections:
        texts = ([section.chapter.title] if section.shows_title else []) + [
            p.text for p in section.paragraphs
        ]
        named = [entry for entry in matcher.find(texts) if entry.is_character]
        place = chunk_place(section, cast.book_id, cast.order)
        for item in rows_for(forms, named, characters, place):
            shown.setdefault((item.form.key, item.begins_inside), item)
    rank = {form.key: n for n, form in enumerate(forms)}
    return sorted(shown.values(), key=lambda item: (rank[item.form.key], item.begins_inside))


def forms_section(shown: Sequence[Shown], kind: JobKind, *, chapters: int = 1) -> str:
    """The lines listing the forms of address ``shown`` for the chunk's message (those that
    begin inside it with their point); empty when there are none. ``chapters``: how many the
    chunk holds (a point names its chapter only where there are several)."""
    if not shown:
        return ""
    header = KNOWN_FORMS_HEADER if kind is JobKind.EXTRACTION else FORMS_HEADER
    lines = []
    for item in shown:
        form = item.form
        since = ""
        if item.begins_inside and form.since is not None:
            since = f"from {form.since.label(chapter=chapters > 1)} on"
        if form.status is EntryStatus.PROPOSED:
            since = f"{since}; proposed" if since else "proposed"
        lines.append(form.line(since_shown=since))
    return "\n".join([header, *lines])


def _kind(entry: GlossaryEntry) -> str:
    return "" if entry.kind == DEFAULT_KIND else entry.kind


_EN_EXTRACTION = """\
You read a {source} book one chunk at a time and build its glossary for a translation into \
{target}: the names of characters, places and organizations, and the recurring special terms \
(titles, skills, items, invented words) whose rendering must stay the same throughout the book, \
and how the characters address each other.

Steps:
1. update_task_status("working").
2. For each name or term in the work lines that is not listed as already in the glossary,
   propose it: characters with add_characters (source exactly as written, without an
   honorific; reading in kana for Japanese; a suggested rendering in {target}; gender; the
   pronoun {target} uses for them; how they speak, briefly), other names and terms with
   add_glossary_terms (source, reading, target, kind: place, organization, term…, and a
   short note). Propose many per call. Skip common words.
3. Where a character addresses another in a way the address book lacks (an honorific, a
   title, a nickname, a bare name), propose it with add_forms_of_address: speaker and
   listener as the glossary names them, the form as written, its rendering, and the
   register where {target} has one.
4. update_task_status("end").
You may make several tool calls in one reply.

Rules:
- Work only through the tools; never translate the paragraphs and never print results as text.
- Work lines look like "[n] [ID: 1a2b3c4d] text". Read them; you submit no paragraphs.
- A name with an honorific (空太先輩, 空太くん) is its character, not another one.
- get_glossary looks up what the glossary already holds."""

_EN_EXTRACTION_QUESTIONS = """
- Where the rendering of a name is the translator's choice (a transliteration or a meaning,
  one of several readings), ask with ask_user_batch, several names in one batch, before you
  propose them; propose the answers given."""

_ZH_EXTRACTION = """\
你负责逐块阅读一本{source}书，为译成{target}建立术语表：人物、地名、组织的名称，以及全书中译法必须统一的\
专有名词（称号、技能、物品、自创词等），还有人物之间的称呼。

工作步骤：
1. 调用 update_task_status("working")。
2. 对待处理行中出现、且未列在 "Already in the glossary" 一节中的每个名称或术语提出条目：
   人物用 add_characters（source 照原文书写，不带敬称；reading 写读音（日语用假名）；
   target 写建议的{target}译名；gender 写性别；pronoun 写{target}中对此人的代词；speech
   简述说话方式），其他名称和术语用 add_glossary_terms（source、reading、target，
   kind 写类别：place、organization、term 等，note 写简短说明）。每次调用尽量多提一些。
   普通词语不要提。
3. 人物之间的称呼（敬称、头衔、昵称、直呼其名）在称呼表中没有时，用
   add_forms_of_address 提出：speaker 和 listener 按术语表中的人名，原文的称呼，
   译法，以及{target}有敬语之分时的语体（您/你）。
4. 调用 update_task_status("end")。
一次回复中可以调用多个工具。

规则：
- 只通过工具工作；不要翻译段落，也不要以文本形式输出结果。
- 待处理行的格式是 "[n] [ID: 1a2b3c4d] 原文"。只需阅读，不提交任何段落。
- 带敬称的名字（空太先輩、空太くん）就是这个人物本身，不是另一个人物。
- 可用 get_glossary 查询术语表中已有的条目。"""

_ZH_EXTRACTION_QUESTIONS = """
- 名称的译法属于译者的选择时（音译还是意译、多种读法之一），先用 ask_user_batch
  把多个名称放在一批里提问，再按回答提出这些条目。"""


def extraction_prompt(source_lang: str, target_lang: str, *, questions: bool) -> str:
    """The system prompt of a glossary extraction job, the same for each of its chunks."""
    chinese = is_chinese(target_lang)
    names = {
        "source": language_name(source_lang, chinese=chinese),
        "target": language_name(target_lang, chinese=chinese),
    }
    text, asking = (
        (_ZH_EXTRACTION, _ZH_EXTRACTION_QUESTIONS)
        if chinese
        else (_EN_EXTRACTION, _EN_EXTRACTION_QUESTIONS)
    )
    return text.format(**names) + (asking if questions else "")
