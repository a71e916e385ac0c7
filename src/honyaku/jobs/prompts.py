"""System prompts for translation, polish and proofreading, and the chunk message.

Chinese wording for Chinese targets, English otherwise. A job's system prompt is the same for
every chunk, so a provider's prompt cache serves it; everything that varies goes in the chunk
message after it.
"""

from __future__ import annotations

from honyaku.domain.chunking import Chunk, render_chunk
from honyaku.domain.languages import is_chinese
from honyaku.domain.workflow import JobKind

_LANGUAGE_NAMES = {
    "ja": ("Japanese", "日语"),
    "zh": ("Chinese", "中文"),
    "zh-cn": ("Simplified Chinese", "简体中文"),
    "zh-hans": ("Simplified Chinese", "简体中文"),
    "zh-tw": ("Traditional Chinese", "繁体中文"),
    "zh-hant": ("Traditional Chinese", "繁体中文"),
    "en": ("English", "英语"),
    "ko": ("Korean", "韩语"),
    "fr": ("French", "法语"),
    "de": ("German", "德语"),
    "es": ("Spanish", "西班牙语"),
}


def language_name(code: str, *, chinese: bool) -> str:
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
}

_EN_STEPS = {
    JobKind.TRANSLATION: """\
1. update_task_status("working").
2. Translate every work paragraph and submit them with add_translation_batch, as many per call
   as you can. If the chunk starts with chapter_id and title, also translate the title with
   update_chapter_title.
3. update_task_status("review"): check your work; to fix something, move back to "working" and
   resubmit those paragraphs.
4. update_task_status("end").
You may make several tool calls in one reply.""",
    JobKind.POLISH: """\
1. update_task_status("working").
2. Submit the polished text of each paragraph you improve with add_translation_batch, as many
   per call as you can. The current translation is on the line after each work line (→).
3. update_task_status("end").
You may make several tool calls in one reply.""",
    JobKind.PROOFREADING: """\
1. update_task_status("working").
2. Submit the corrected text of each paragraph you fix with add_translation_batch. The current
   translation is on the line after each work line (→).
3. update_task_status("end").
You may make several tool calls in one reply.""",
}

_EN_RULES = """\
Rules:
- Work only through the tools. Never print JSON, lists of translations or results as text:
  printed text is not saved.
- Work lines look like "[n] [ID: 1a2b3c4d] text". [n] is the paragraph's position in the
  chapter, for reading only. Submit by paragraph_id, the 8 characters after "ID:", never by
  index. original_text_prefix is the first few characters of the source paragraph.
- Only lines with an [ID: …] marker are work items. Paragraphs you read with
  get_previous_paragraphs, get_next_paragraphs, get_paragraph_position or get_paragraph_info are
  context: use them freely to understand the text, never submit them.
- One item per paragraph, its text on one line. Keep names and terms consistent."""

_EN_QUESTIONS = (
    "- If a choice that is the translator's to make blocks you (how to render a name, a\n"
    "  character's voice, a key term), ask with ask_user, or ask_user_batch for several at\n"
    "  once. Ask rarely; decide everything else yourself."
)

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
}

_ZH_STEPS = {
    JobKind.TRANSLATION: """\
1. 调用 update_task_status("working")。
2. 翻译每一个待处理段落，用 add_translation_batch 提交，每次调用尽量多提交一些段落。如果分块开头有
   chapter_id 和 title，还要用 update_chapter_title 提交章节标题的译文。
3. 调用 update_task_status("review") 检查译文；需要修改时先回到 "working" 再重新提交这些段落。
4. 调用 update_task_status("end")。
一次回复中可以调用多个工具。""",
    JobKind.POLISH: """\
1. 调用 update_task_status("working")。
2. 对需要润色的段落，用 add_translation_batch 提交润色后的文本，每次调用尽量多提交一些段落。
   每个待处理行的下一行（→ 之后）是当前译文。
3. 调用 update_task_status("end")。
一次回复中可以调用多个工具。""",
    JobKind.PROOFREADING: """\
1. 调用 update_task_status("working")。
2. 对需要修正的段落，用 add_translation_batch 提交修正后的文本。
   每个待处理行的下一行（→ 之后）是当前译文。
3. 调用 update_task_status("end")。
一次回复中可以调用多个工具。""",
}

_ZH_RULES = """\
规则：
- 只通过工具工作。不要以文本形式输出 JSON、译文列表或结果：输出的文本不会被保存。
- 待处理行的格式是 "[n] [ID: 1a2b3c4d] 原文"。[n] 是段落在本章中的位置，仅供定位阅读；
  提交时必须使用 paragraph_id（"ID:" 后面的 8 个字符），不得使用 index。
  original_text_prefix 填原文段落开头的几个字符。
- 只有带 [ID: …] 标记的行是待处理段落。通过 get_previous_paragraphs、get_next_paragraphs、
  get_paragraph_position、get_paragraph_info 读到的段落只是上下文：可以随时查阅，但不要提交。
- 每个段落一项，译文写在一行内。人名和术语前后保持一致。"""

_ZH_QUESTIONS = (
    "- 遇到必须由译者决定、且影响工作的关键歧义（人名译法、角色口吻、重要术语）时，\n"
    "  用 ask_user 提问，多个问题可用 ask_user_batch 一次提出。尽量少问；其他问题自行判断。"
)


def system_prompt(kind: JobKind, source_lang: str, target_lang: str, *, questions: bool) -> str:
    """The job's instructions; ``questions`` says whether the model may ask the translator."""
    chinese = is_chinese(target_lang)
    names = {
        "source": language_name(source_lang, chinese=chinese),
        "target": language_name(target_lang, chinese=chinese),
    }
    if chinese:
        rules = _ZH_RULES + ("\n" + _ZH_QUESTIONS if questions else "")
        parts = [_ZH_ROLE[kind].format(**names), "工作步骤：\n" + _ZH_STEPS[kind], rules]
    else:
        rules = _EN_RULES + ("\n" + _EN_QUESTIONS if questions else "")
        parts = [_EN_ROLE[kind].format(**names), "Steps:\n" + _EN_STEPS[kind], rules]
    return "\n\n".join(parts)


def chunk_message(chunk: Chunk, kind: JobKind, *, chunks_in_chapter: int) -> str:
    chapter = chunk.chapter
    header = (
        f"Chapter {chapter.order}, chunk {chunk.number}/{chunks_in_chapter}: "
        f"{len(chunk.paragraphs)} work paragraph(s)."
    )
    return f"{header}\n\n{render_chunk(chunk, kind)}"
