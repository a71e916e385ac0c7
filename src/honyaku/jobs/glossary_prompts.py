"""What the model reads about the glossary: the section of a chunk's message that lists the
entries occurring in it, and the system prompt of a glossary extraction job.

The section goes in the chunk's message, never in the system prompt: the system prompt is the
same bytes for every chunk of a job, so the provider's prompt cache keeps serving it. It lists
only the entries found in the chunk's work paragraphs (and in the title it shows), so a book
with thousands of names costs each chunk only its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from honyaku.domain.chunking import Chunk
from honyaku.domain.glossary import DEFAULT_KIND, EntryStatus, GlossaryEntry, GlossaryMatcher
from honyaku.domain.languages import is_chinese
from honyaku.domain.workflow import JobKind
from honyaku.jobs.prompts import language_name

GLOSSARY_HEADER = "Glossary for this chunk (use these renderings):"
KNOWN_HEADER = "Already in the glossary (do not propose these again):"


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
    """``- source (aliases) → target (kind, gender; note)``, with what is known."""
    aliases = f" ({', '.join(entry.aliases)})" if entry.aliases else ""
    about = [part for part in (_kind(entry), entry.gender) if part]
    details = ", ".join(about)
    if entry.note:
        details = f"{details}; {entry.note}" if details else entry.note
    if entry.status is EntryStatus.PROPOSED:
        details = f"{details}; proposed" if details else "proposed"
    return f"- {entry.source}{aliases} → {entry.target}" + (f" ({details})" if details else "")


def _kind(entry: GlossaryEntry) -> str:
    return "" if entry.kind == DEFAULT_KIND else entry.kind


_EN_EXTRACTION = """\
You read a {source} book one chunk at a time and build its glossary for a translation into \
{target}: the names of characters, places and organizations, and the recurring special terms \
(titles, skills, items, invented words) whose rendering must stay the same throughout the book.

Steps:
1. update_task_status("working").
2. For each name or term in the work lines that is not listed as already in the glossary,
   propose it with add_glossary_terms: source exactly as written, reading (in kana for
   Japanese), a suggested target rendering in {target}, kind (character, place,
   organization, term…) and a short note (who or what it is, gender for a character).
   Propose many per call. Skip common words.
3. update_task_status("end").
You may make several tool calls in one reply.

Rules:
- Work only through the tools; never translate the paragraphs and never print results as text.
- Work lines look like "[n] [ID: 1a2b3c4d] text". Read them; you submit no paragraphs.
- get_glossary looks up what the glossary already holds."""

_EN_EXTRACTION_QUESTIONS = """
- Where the rendering of a name is the translator's choice (a transliteration or a meaning,
  one of several readings), ask with ask_user_batch, several names in one batch, before you
  propose them; propose the answers given."""

_ZH_EXTRACTION = """\
你负责逐块阅读一本{source}书，为译成{target}建立术语表：人物、地名、组织的名称，以及全书中译法必须统一的\
专有名词（称号、技能、物品、自创词等）。

工作步骤：
1. 调用 update_task_status("working")。
2. 对待处理行中出现、且未列在 "Already in the glossary" 一节中的每个名称或术语，
   用 add_glossary_terms 提出：source 照原文书写，reading 写读音（日语用假名），
   target 写建议的{target}译名，kind 写类别（character、place、organization、term 等），
   note 写简短说明（是谁或是什么，人物注明性别）。每次调用尽量多提一些。普通词语不要提。
3. 调用 update_task_status("end")。
一次回复中可以调用多个工具。

规则：
- 只通过工具工作；不要翻译段落，也不要以文本形式输出结果。
- 待处理行的格式是 "[n] [ID: 1a2b3c4d] 原文"。只需阅读，不提交任何段落。
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
