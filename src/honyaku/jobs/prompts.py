"""System prompts for translation, polish, proofreading and rating, and the chunk message.

Chinese wording for Chinese targets, English otherwise. A job's system prompt is the same for
every chunk, so a provider's prompt cache serves it; everything that varies goes in the chunk
message after it: so does the note on stale translations, in the chunks that show some.
The steps invite the calls that may go together "in one reply" (the results of the tools go
on inviting them, ``domain.workflow.TOGETHER``): every reply resends the conversation.
"""

from __future__ import annotations

from honyaku.domain.chinese_scripts import ChineseScript, chinese_script
from honyaku.domain.chunking import (
    Chunk,
    render_chunk,
    shows_judged,
    shows_placeholders,
    shows_previous,
)
from honyaku.domain.languages import is_chinese
from honyaku.domain.placeholders import PLACEHOLDER_RULE, PLACEHOLDER_RULE_ZH, RubyChoice
from honyaku.domain.workflow import JobKind

_LANGUAGE_NAMES = {
    "ja": ("Japanese", "日语"),
    "en": ("English", "英语"),
    "ko": ("Korean", "韩语"),
    "fr": ("French", "法语"),
    "de": ("German", "德语"),
    "es": ("Spanish", "西班牙语"),
}


_CHINESE_NAMES = {
    ChineseScript.SIMPLIFIED: ("Simplified Chinese", "简体中文"),
    ChineseScript.TRADITIONAL: ("Traditional Chinese", "繁体中文"),
}
"""Every Chinese tag is named with its script, the one the quality checks hold it to."""


def language_name(code: str, *, chinese: bool) -> str:
    if script := chinese_script(code):
        return _CHINESE_NAMES[script][chinese]
    names = _LANGUAGE_NAMES.get(code.lower()) or _LANGUAGE_NAMES.get(code.lower().split("-")[0])
    return names[chinese] if names else code


_EN_ROLE = {
    JobKind.TRANSLATION: "You translate a book from {source} into {target}, one chunk at a time.",
    JobKind.POLISH: (
        "You polish an existing {target} translation of a {source} book, one chunk at a time: "
        "make it read naturally and beautifully in {target} without changing its meaning."
    ),
    JobKind.PROOFREADING: (
        "You proofread an existing {target} translation of a {source} book, one chunk at a "
        "time: compare each translation with its source and fix mistranslations, omissions, "
        "wrong names and terms, and typos. Change nothing that is already right."
    ),
    JobKind.RATING: (
        "You rate an existing {target} translation of a {source} book, one chunk at a time: "
        "compare each translation with its source and score it."
    ),
}
_EN_TOOLS_ONLY = "Work only through tools: printed text (JSON, lists of translations) is not saved."

_EN_STEPS = {
    JobKind.TRANSLATION: """\
1. In one reply: update_task_status("working"), update_chapter_title if the chunk shows a
   chapter_id, and add_translation_batch with every work paragraph (or as many as you can).
2. Submit what is left with add_translation_batch.
3. When nothing is left, in one reply: update_task_status("review") and
   update_task_status("end"). To revise, go back to "working".""",
    JobKind.POLISH: """\
1. In one reply: update_task_status("working") and add_translation_batch with the paragraphs
   you improve. The current translation follows each work line (→).
2. update_task_status("end").""",
    JobKind.PROOFREADING: """\
1. In one reply: update_task_status("working") and add_translation_batch with the paragraphs
   you correct. The current translation follows each work line (→).
2. update_task_status("end").""",
    JobKind.RATING: """\
1. In one reply: update_task_status("working") and rate_paragraphs with every work paragraph.
   The current translation follows each work line (→).
2. When each is rated: update_task_status("end").
Scores: 5 nothing to change; 4 a small matter of style; 3 a problem a reader notices; 2 a
wrong meaning; 1 wrong, missing or untranslated. Name each problem in issues and say briefly
what to fix in comment (nothing for a 5).""",
}

_EN_BATCH_STEPS = {
    JobKind.TRANSLATION: """\
1. In one reply, the whole part: update_task_status("working"), update_chapter_title if the
   chunk shows a chapter_id, add_translation_batch with every work paragraph,
   update_task_status("review") and update_task_status("end"). Each reply waits for a batch
   of requests to be answered: a part done in one reply is done in one batch.
2. If a result refuses something, fix it and submit what is left; when nothing is left, in
   one reply: update_task_status("review") and update_task_status("end").""",
    JobKind.POLISH: """\
1. In one reply, the whole part: update_task_status("working"), add_translation_batch with
   the paragraphs you improve, and update_task_status("end"). The current translation
   follows each work line (→). Each reply waits for a batch of requests to be answered.
2. If a result refuses something, fix it, then update_task_status("end").""",
    JobKind.PROOFREADING: """\
1. In one reply, the whole part: update_task_status("working"), add_translation_batch with
   the paragraphs you correct, and update_task_status("end"). The current translation
   follows each work line (→). Each reply waits for a batch of requests to be answered.
2. If a result refuses something, fix it, then update_task_status("end").""",
}
"""Batch mode's steps: every reply costs a round trip through the provider's batch, so the
whole part is invited in one (a rating's steps invite it already)."""

_EN_RULES = """\
Rules:
- Work lines are "[n] [ID: 1a2b3c4d] text": [n] is the position in the chapter, for reading
  only.
- Only [ID: …] lines are work; paragraphs the context tools return are never submitted.
- Keep names and terms consistent."""

_ZH_ROLE = {
    JobKind.TRANSLATION: "你负责把一本{source}书翻译成{target}，每次处理一个分块。",
    JobKind.POLISH: (
        "你负责润色一本{source}书的现有{target}译文，每次处理一个分块："
        "在不改变原意的前提下，让译文自然、优美、符合{target}表达习惯。"
    ),
    JobKind.PROOFREADING: (
        "你负责校对一本{source}书的现有{target}译文，每次处理一个分块：逐段对照原文，"
        "修正误译、漏译、人名术语错误和错别字；已经正确的内容不要改动。"
    ),
    JobKind.RATING: (
        "你负责给一本{source}书的现有{target}译文评分，每次处理一个分块：逐段对照原文，给译文打分。"
    ),
}
_ZH_TOOLS_ONLY = "只通过工具工作：以文本输出的 JSON 或译文不会被保存。"

_ZH_STEPS = {
    JobKind.TRANSLATION: """\
1. 在同一次回复中调用 update_task_status("working")、update_chapter_title（分块开头有
   chapter_id 时）和 add_translation_batch（全部待处理段落，或尽量多的段落）。
2. 用 add_translation_batch 提交剩下的段落。
3. 全部提交后，在同一次回复中调用 update_task_status("review") 和
   update_task_status("end")。需要修改时回到 "working"。""",
    JobKind.POLISH: """\
1. 在同一次回复中调用 update_task_status("working") 和 add_translation_batch（润色过的
   段落）。每个待处理行的下一行（→ 之后）是当前译文。
2. update_task_status("end")。""",
    JobKind.PROOFREADING: """\
1. 在同一次回复中调用 update_task_status("working") 和 add_translation_batch（修正过的
   段落）。每个待处理行的下一行（→ 之后）是当前译文。
2. update_task_status("end")。""",
    JobKind.RATING: """\
1. 在同一次回复中调用 update_task_status("working") 和 rate_paragraphs（全部待处理段落）。
   每个待处理行的下一行（→ 之后）是当前译文。
2. 全部评分后调用 update_task_status("end")。
评分：5 无需修改；4 措辞小问题；3 读者能察觉的问题；2 意思错误；1 错译、漏译或未翻译。
在 issues 中列出每个问题，在 comment 中简要说明如何修改（5 分不写）。""",
}

_ZH_BATCH_STEPS = {
    JobKind.TRANSLATION: """\
1. 在同一次回复中完成整个分块：update_task_status("working")、update_chapter_title（分块
   开头有 chapter_id 时）、add_translation_batch（全部待处理段落）、
   update_task_status("review") 和 update_task_status("end")。每次回复都要等一批请求处理
   完毕：一次回复完成的分块只需一批。
2. 如果结果拒绝了某些内容，改正后提交剩下的段落；全部提交后，在同一次回复中调用
   update_task_status("review") 和 update_task_status("end")。""",
    JobKind.POLISH: """\
1. 在同一次回复中完成整个分块：update_task_status("working")、add_translation_batch（润色
   过的段落）和 update_task_status("end")。每个待处理行的下一行（→ 之后）是当前译文。
   每次回复都要等一批请求处理完毕。
2. 如果结果拒绝了某些内容，改正后调用 update_task_status("end")。""",
    JobKind.PROOFREADING: """\
1. 在同一次回复中完成整个分块：update_task_status("working")、add_translation_batch（修正
   过的段落）和 update_task_status("end")。每个待处理行的下一行（→ 之后）是当前译文。
   每次回复都要等一批请求处理完毕。
2. 如果结果拒绝了某些内容，改正后调用 update_task_status("end")。""",
}

_ZH_RULES = """\
规则：
- 待处理行的格式是 "[n] [ID: 1a2b3c4d] 原文"：[n] 是段落在本章中的位置，仅供阅读。
- 只有带 [ID: …] 的行是待处理段落；上下文工具读到的段落不要提交。
- 人名和术语前后一致。"""


def system_prompt(kind: JobKind, source_lang: str, target_lang: str, *, batch: bool = False) -> str:
    """The job's instructions (in ``batch`` mode, the whole part invited in one reply).
    When to ask the translator, the question tools' own descriptions say, where a book
    offers them."""
    chinese = is_chinese(target_lang)
    names = {
        "source": language_name(source_lang, chinese=chinese),
        "target": language_name(target_lang, chinese=chinese),
    }
    if chinese:
        role = f"{_ZH_ROLE[kind].format(**names)}{_ZH_TOOLS_ONLY}"
        steps = (_ZH_BATCH_STEPS if batch else _ZH_STEPS).get(kind, _ZH_STEPS[kind])
        parts = [role, "步骤：\n" + steps, _ZH_RULES]
    else:
        role = f"{_EN_ROLE[kind].format(**names)} {_EN_TOOLS_ONLY}"
        steps = (_EN_BATCH_STEPS if batch else _EN_STEPS).get(kind, _EN_STEPS[kind])
        parts = [role, "Steps:\n" + steps, _EN_RULES]
    return "\n\n".join(parts)


STALE_NOTE = (
    'A new edition changed the source of the work lines followed by ↺ lines: "was:" is '
    'the text they had, "translated:" its translation. Translate the new text, keeping '
    "what of that translation still fits."
)


JUDGE_NOTE = (
    'A "! judge:" line under a translation is a reviewer\'s score (of 5), the problems found '
    "and what to fix: fix them, and check the rest as usual."
)


JOINED_TITLES = "Submit each title with update_chapter_title under its own chapter_id."


def with_placeholder_rule(
    prompt: str, chunk: Chunk, kind: JobKind, target_lang: str, ruby: RubyChoice
) -> str:
    """The job's system prompt, with the line that explains placeholders as its last rule
    where the chunk shows any: the rest of the prompt stays the same bytes, for a provider's
    cache, and a chunk without markup is sent the prompt as it was."""
    if not shows_placeholders(chunk, kind, ruby):
        return prompt
    rule = PLACEHOLDER_RULE_ZH if is_chinese(target_lang) else PLACEHOLDER_RULE
    return f"{prompt}\n- {rule}"


def chunk_message(
    chunk: Chunk,
    kind: JobKind,
    *,
    chunks_in_chapter: int,
    ruby: RubyChoice = RubyChoice.HINTS,
) -> str:
    chapter = chunk.chapter
    paragraphs = f"{len(chunk.all_paragraphs)} work paragraph(s)."
    if chunk.joined:
        last = chunk.joined[-1].chapter.order
        header = f"Chapters {chapter.order}–{last}, each after its chapter_id: {paragraphs}"
        if kind is JobKind.TRANSLATION and len(chunk.titles) > 1:
            header = f"{header}\n{JOINED_TITLES}"
    else:
        header = f"Chapter {chapter.order}, chunk {chunk.number}/{chunks_in_chapter}: {paragraphs}"
    if kind is JobKind.TRANSLATION and shows_previous(chunk):
        header = f"{header}\n{STALE_NOTE}"
    if shows_judged(chunk, kind):
        header = f"{header}\n{JUDGE_NOTE}"
    return f"{header}\n\n{render_chunk(chunk, kind, ruby)}"
