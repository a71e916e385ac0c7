"""What the model reads, pinned: a change to a prompt, a tool's schema or the chunk text shows
in review as a change to this file (``pytest --inline-snapshot=fix`` rewrites it)."""

from __future__ import annotations

import pytest
from inline_snapshot import snapshot

from honyaku.agent.questions import QUESTION_TOOLS
from honyaku.domain import Chapter, JobKind, Paragraph, split_into_chunks
from honyaku.domain.forms_of_address import FormOfAddress, Shown, Since
from honyaku.domain.glossary import GlossaryEntry
from honyaku.domain.memory import Recall, Remembered
from honyaku.jobs.glossary_prompts import extraction_prompt, forms_section, glossary_section
from honyaku.jobs.glossary_tools import GLOSSARY_TOOLS, add_characters, add_forms_of_address
from honyaku.jobs.memory_prompts import memory_section
from honyaku.jobs.prompts import chunk_message, system_prompt
from honyaku.jobs.tools import TASK_TOOLS

# What the model reads is made from the book alone: no database is read.
pytestmark = pytest.mark.backends("sqlite")

CHAPTER = Chapter(
    "c0ffee00",
    2,
    "第二章　羅生門",
    "第二章 罗生门",
    (
        Paragraph("1a2b3c4d", 0, "ある日の暮方の事である。", "某日傍晚。"),
        Paragraph("2b3c4d5e", 1, ""),
        Paragraph(
            "3c4d5e6f",
            2,
            "一人の下人が、羅生門の下で雨やみを待っていた。",
            "一个仆人在罗生门下等雨停。",
        ),
    ),
)


def rendered(kind: JobKind) -> str:
    [chunk] = split_into_chunks(CHAPTER, CHAPTER.work_paragraphs, max_chars=8000)
    return chunk_message(chunk, kind, chunks_in_chapter=1)


def test_translation_prompt_into_chinese():
    assert system_prompt(JobKind.TRANSLATION, "ja", "zh-CN") == snapshot("""\
你负责把一本日语书翻译成简体中文，每次处理一个分块。只通过工具工作：以文本输出的 JSON 或译文不会被保存。

步骤：
1. 在同一次回复中调用 update_task_status("working")、update_chapter_title（分块开头有
   chapter_id 时）和 add_translation_batch（全部待处理段落，或尽量多的段落）。
2. 用 add_translation_batch 提交剩下的段落。
3. 全部提交后，在同一次回复中调用 update_task_status("review") 和
   update_task_status("end")。需要修改时回到 "working"。

规则：
- 待处理行的格式是 "[n] [ID: 1a2b3c4d] 原文"：[n] 是段落在本章中的位置，仅供阅读。
- 只有带 [ID: …] 的行是待处理段落；上下文工具读到的段落不要提交。
- 人名和术语前后一致。\
""")


def test_polish_prompt_into_english():
    assert system_prompt(JobKind.POLISH, "ja", "en") == snapshot("""\
You polish an existing English translation of a Japanese book, one chunk at a time: make it read naturally and beautifully in English without changing its meaning. Work only through tools: printed text (JSON, lists of translations) is not saved.

Steps:
1. In one reply: update_task_status("working") and add_translation_batch with the paragraphs
   you improve. The current translation follows each work line (→).
2. update_task_status("end").

Rules:
- Work lines are "[n] [ID: 1a2b3c4d] text": [n] is the position in the chapter, for reading
  only.
- Only [ID: …] lines are work; paragraphs the context tools return are never submitted.
- Keep names and terms consistent.\
""")


def test_proofreading_prompt_into_chinese():
    assert system_prompt(JobKind.PROOFREADING, "ja", "zh-CN") == snapshot("""\
你负责校对一本日语书的现有简体中文译文，每次处理一个分块：逐段对照原文，修正误译、漏译、人名术语错误和错别字；已经正确的内容不要改动。只通过工具工作：以文本输出的 JSON 或译文不会被保存。

步骤：
1. 在同一次回复中调用 update_task_status("working") 和 add_translation_batch（修正过的
   段落）。每个待处理行的下一行（→ 之后）是当前译文。
2. update_task_status("end")。

规则：
- 待处理行的格式是 "[n] [ID: 1a2b3c4d] 原文"：[n] 是段落在本章中的位置，仅供阅读。
- 只有带 [ID: …] 的行是待处理段落；上下文工具读到的段落不要提交。
- 人名和术语前后一致。\
""")


def test_a_translation_chunk_as_the_model_reads_it():
    assert rendered(JobKind.TRANSLATION) == snapshot("""\
Chapter 2, chunk 1/1: 2 work paragraph(s).

chapter_id: c0ffee00
title: 第二章\u3000羅生門

[1] [ID: 1a2b3c4d] ある日の暮方の事である。
[3] [ID: 3c4d5e6f] 一人の下人が、羅生門の下で雨やみを待っていた。\
""")


def test_a_polish_chunk_as_the_model_reads_it():
    assert rendered(JobKind.POLISH) == snapshot("""\
Chapter 2, chunk 1/1: 2 work paragraph(s).

chapter_id: c0ffee00
title: 第二章\u3000羅生門
    → 第二章 罗生门

[1] [ID: 1a2b3c4d] ある日の暮方の事である。
    → 某日傍晚。
[3] [ID: 3c4d5e6f] 一人の下人が、羅生門の下で雨やみを待っていた。
    → 一个仆人在罗生门下等雨停。\
""")


def test_tool_schemas():
    schemas = {
        tool.name: {"description": tool.spec.description, "parameters": tool.spec.parameters}
        for tool in TASK_TOOLS + QUESTION_TOOLS
    }
    assert schemas == snapshot(
        {
            "update_task_status": {
                "description": "Move the task to the status its steps name.",
                "parameters": {
                    "properties": {
                        "status": {
                            "enum": ["working", "review", "end"],
                            "type": "string",
                        }
                    },
                    "required": ["status"],
                    "type": "object",
                },
            },
            "update_chapter_title": {
                "description": "Submit the chapter title's translation.",
                "parameters": {
                    "properties": {
                        "chapter_id": {
                            "description": "From the chunk's chapter_id line.",
                            "type": "string",
                        },
                        "translated_title": {"type": "string"},
                    },
                    "required": ["chapter_id", "translated_title"],
                    "type": "object",
                },
            },
            "add_translation_batch": {
                "description": "Submit paragraphs' new text. Checked whole: one wrong item saves nothing.",
                "parameters": {
                    "properties": {
                        "paragraphs": {
                            "items": {
                                "properties": {
                                    "paragraph_id": {
                                        "description": 'The 8 characters after "ID:", never [n].',
                                        "type": "string",
                                    },
                                    "original_text_prefix": {
                                        "description": "The source's first characters, as an anchor.",
                                        "type": "string",
                                    },
                                    "translated_text": {
                                        "description": "One line.",
                                        "type": "string",
                                    },
                                },
                                "required": ["paragraph_id", "translated_text"],
                                "type": "object",
                            },
                            "type": "array",
                        }
                    },
                    "required": ["paragraphs"],
                    "type": "object",
                },
            },
            "get_previous_paragraphs": {
                "description": "Context: the paragraphs before one, across chunks and chapters.",
                "parameters": {
                    "properties": {
                        "paragraph_id": {"type": "string"},
                        "count": {"type": "integer"},
                    },
                    "required": ["paragraph_id"],
                    "type": "object",
                },
            },
            "get_next_paragraphs": {
                "description": "Context: the paragraphs after one, across chunks and chapters.",
                "parameters": {
                    "properties": {
                        "paragraph_id": {"type": "string"},
                        "count": {"type": "integer"},
                    },
                    "required": ["paragraph_id"],
                    "type": "object",
                },
            },
            "get_paragraph_position": {
                "description": "Context: a paragraph's chapter and index, optionally with its neighbours.",
                "parameters": {
                    "properties": {
                        "paragraph_id": {"type": "string"},
                        "include_previous": {"type": "boolean"},
                        "include_next": {"type": "boolean"},
                        "count": {"type": "integer"},
                    },
                    "required": ["paragraph_id"],
                    "type": "object",
                },
            },
            "get_paragraph_info": {
                "description": "Context: a paragraph's text, translation, chapter and index.",
                "parameters": {
                    "properties": {"paragraph_id": {"type": "string"}},
                    "required": ["paragraph_id"],
                    "type": "object",
                },
            },
            "ask_user": {
                "description": """\
Ask the translator and wait, only for a choice that is theirs and blocks you (a name, a
voice, a key term). Returns the answer (selected_index for a suggestion) or cancelled.\
""",
                "parameters": {
                    "properties": {
                        "question": {
                            "description": "Short and clear.",
                            "type": "string",
                        },
                        "suggested_answers": {
                            "description": "Likely answers, best first.",
                            "items": {"type": "string"},
                            "type": "array",
                        },
                        "allow_free_text": {
                            "description": "May another answer be typed?",
                            "type": "boolean",
                        },
                    },
                    "required": ["question"],
                    "type": "object",
                },
            },
            "ask_user_batch": {
                "description": "Several ask_user questions in one dialog. Returns answers by question_index.",
                "parameters": {
                    "properties": {
                        "questions": {
                            "items": {
                                "properties": {
                                    "question": {"type": "string"},
                                    "suggested_answers": {
                                        "items": {"type": "string"},
                                        "type": "array",
                                    },
                                    "allow_free_text": {"type": "boolean"},
                                },
                                "required": ["question"],
                                "type": "object",
                            },
                            "type": "array",
                        }
                    },
                    "required": ["questions"],
                    "type": "object",
                },
            },
        }
    )


def test_glossary_tool_schemas():
    schemas = {
        tool.name: {"description": tool.spec.description, "parameters": tool.spec.parameters}
        for tool in GLOSSARY_TOOLS
    }
    assert schemas == snapshot(
        {
            "add_glossary_terms": {
                "description": """\
Propose entries for names and recurring terms the glossary lacks. The translator
approves them; one that contradicts an approved entry is refused: follow the glossary.\
""",
                "parameters": {
                    "properties": {
                        "terms": {
                            "items": {
                                "properties": {
                                    "source": {
                                        "description": "As the book writes it.",
                                        "type": "string",
                                    },
                                    "target": {
                                        "description": "Its rendering.",
                                        "type": "string",
                                    },
                                    "note": {
                                        "description": "Who or what it is, briefly.",
                                        "type": "string",
                                    },
                                    "kind": {
                                        "description": "character, place, organization or term.",
                                        "type": "string",
                                    },
                                    "reading": {
                                        "description": "Its reading (kana for Japanese).",
                                        "type": "string",
                                    },
                                },
                                "required": ["source", "target"],
                                "type": "object",
                            },
                            "type": "array",
                        }
                    },
                    "required": ["terms"],
                    "type": "object",
                },
            },
            "get_glossary": {
                "description": "Look up the book's glossary entries that match the query or occur in it. Read only.",
                "parameters": {
                    "properties": {
                        "query": {
                            "description": "A name, term, rendering or sentence.",
                            "type": "string",
                        }
                    },
                    "required": ["query"],
                    "type": "object",
                },
            },
        }
    )


def test_a_chunks_glossary_section_as_the_model_reads_it():
    entries = [
        GlossaryEntry("下人", "仆人", "主人公", "character", ("男",), "male"),
        GlossaryEntry("羅生門", "罗生门", kind="place"),
        GlossaryEntry("検非違使", "检非违使"),
    ]
    assert glossary_section(entries, JobKind.TRANSLATION) == snapshot("""\
Glossary for this chunk (use these renderings):
- 下人 (男) → 仆人 (character, male; 主人公)
- 羅生門 → 罗生门 (place)
- 検非違使 → 检非违使\
""")


def test_extraction_prompt_into_chinese():
    assert extraction_prompt("ja", "zh-CN", questions=True) == snapshot("""\
你负责逐块阅读一本日语书，为译成简体中文建立术语表：人物、地名、组织的名称，以及全书中译法必须统一的专有名词（称号、技能、物品、自创词等），还有人物之间的称呼。

工作步骤：
1. 调用 update_task_status("working")。
2. 对待处理行中出现、且未列在 "Already in the glossary" 一节中的每个名称或术语提出条目：
   人物用 add_characters（source 照原文书写，不带敬称；reading 写读音（日语用假名）；
   target 写建议的简体中文译名；gender 写性别；pronoun 写简体中文中对此人的代词；speech
   简述说话方式），其他名称和术语用 add_glossary_terms（source、reading、target，
   kind 写类别：place、organization、term 等，note 写简短说明）。每次调用尽量多提一些。
   普通词语不要提。
3. 人物之间的称呼（敬称、头衔、昵称、直呼其名）在称呼表中没有时，用
   add_forms_of_address 提出：speaker 和 listener 按术语表中的人名，原文的称呼，
   译法，以及简体中文有敬语之分时的语体（您/你）。
4. 调用 update_task_status("end")。
一次回复中可以调用多个工具。

规则：
- 只通过工具工作；不要翻译段落，也不要以文本形式输出结果。
- 待处理行的格式是 "[n] [ID: 1a2b3c4d] 原文"。只需阅读，不提交任何段落。
- 带敬称的名字（空太先輩、空太くん）就是这个人物本身，不是另一个人物。
- 可用 get_glossary 查询术语表中已有的条目。
- 名称的译法属于译者的选择时（音译还是意译、多种读法之一），先用 ask_user_batch
  把多个名称放在一批里提问，再按回答提出这些条目。\
""")


def test_extraction_prompt_into_english_without_questions():
    assert extraction_prompt("ja", "en", questions=False) == snapshot("""\
You read a Japanese book one chunk at a time and build its glossary for a translation into English: the names of characters, places and organizations, and the recurring special terms (titles, skills, items, invented words) whose rendering must stay the same throughout the book, and how the characters address each other.

Steps:
1. update_task_status("working").
2. For each name or term in the work lines that is not listed as already in the glossary,
   propose it: characters with add_characters (source exactly as written, without an
   honorific; reading in kana for Japanese; a suggested rendering in English; gender; the
   pronoun English uses for them; how they speak, briefly), other names and terms with
   add_glossary_terms (source, reading, target, kind: place, organization, term…, and a
   short note). Propose many per call. Skip common words.
3. Where a character addresses another in a way the address book lacks (an honorific, a
   title, a nickname, a bare name), propose it with add_forms_of_address: speaker and
   listener as the glossary names them, the form as written, its rendering, and the
   register where English has one.
4. update_task_status("end").
You may make several tool calls in one reply.

Rules:
- Work only through the tools; never translate the paragraphs and never print results as text.
- Work lines look like "[n] [ID: 1a2b3c4d] text". Read them; you submit no paragraphs.
- A name with an honorific (空太先輩, 空太くん) is its character, not another one.
- get_glossary looks up what the glossary already holds.\
""")


@pytest.mark.parametrize(
    ("target", "named"),
    [("zh", "简体中文"), ("zh-SG", "简体中文"), ("zh-TW", "繁体中文"), ("zh-HK", "繁体中文")],
)
def test_every_chinese_target_is_named_with_the_script_it_is_checked_against(target, named):
    assert f"翻译成{named}" in system_prompt(JobKind.TRANSLATION, "ja", target)


def test_a_characters_line_carries_its_pronoun_and_speech_where_set():
    entries = [
        GlossaryEntry(
            "真白", "真白", "画家", "character", gender="female", pronoun="她", speech="平淡、寡言"
        ),
        GlossaryEntry("空太", "空太", kind="character", gender="male"),
    ]
    assert glossary_section(entries, JobKind.TRANSLATION) == snapshot("""\
Glossary for this chunk (use these renderings):
- 真白 → 真白 (character, female, 她; 画家; speech: 平淡、寡言)
- 空太 → 空太 (character, male)\
""")


def test_a_chunks_forms_of_address_as_the_model_reads_them():
    shown = [
        Shown(FormOfAddress("空太", "美咲", "美咲先輩", "美咲学姐", "你")),
        Shown(FormOfAddress("空太", "千尋先生", "千尋先生", "千寻老师", "您", "敬重")),
        Shown(FormOfAddress("空太", "美咲", "美咲先輩", "美咲姐", since=Since("b", 2, 11)), True),
    ]
    assert forms_section(shown, JobKind.TRANSLATION) == snapshot("""\
How these characters address each other (speaker → listener: as the source writes it → rendering; register):
- 空太 → 美咲: 美咲先輩 → 美咲学姐 (你)
- 空太 → 千尋先生: 千尋先生 → 千寻老师 (您; 敬重)
- 空太 → 美咲: 美咲先輩 → 美咲姐 (from [12] on)\
""")


def test_a_chunks_translation_memory_as_the_model_reads_it():
    same = Remembered("b1", "1a2b3c4d", 2, 4, "桜の花びらが風に舞っていた。", "樱花随风飞舞。")
    near = Remembered("b2", "2b3c4d5e", 1, 0, "真白は窓の外を見ていた。", "真白望着窗外。")
    imported = Remembered(
        "b1", "3c4d5e6f", 3, 1, "空太は猫を拾ってきた。", "空太捡回了猫。", "v1.txt"
    )
    references = [(2, Recall(same, 1.0)), (6, Recall(near, 0.923)), (9, Recall(imported, 1.0))]

    assert memory_section(references, "b2", {"b1": "さくら荘 1"}) == snapshot("""\
Translation memory: earlier translations of the same or nearly the same source (keep them where they fit):
- [3] the same source, 《さくら荘 1》, chapter 2: 樱花随风飞舞。
- [7] 92% alike, earlier in this book, chapter 1: 真白は窓の外を見ていた。 ⇒ 真白望着窗外。
- [10] the same source, 《さくら荘 1》, chapter 3, another translator's (v1.txt): 空太捡回了猫。\
""")


def test_cast_tool_schemas():
    schemas = {
        tool.name: {"description": tool.spec.description, "parameters": tool.spec.parameters}
        for tool in (add_characters, add_forms_of_address)
    }
    assert schemas == snapshot(
        {
            "add_characters": {
                "description": """\
Propose the characters the glossary lacks, with what is known of them. The
translator approves them; one that contradicts an approved entry is refused.\
""",
                "parameters": {
                    "properties": {
                        "characters": {
                            "items": {
                                "properties": {
                                    "source": {
                                        "description": "The name as the book writes it, without honorific.",
                                        "type": "string",
                                    },
                                    "target": {"description": "Its rendering.", "type": "string"},
                                    "reading": {
                                        "description": "Its reading (kana for Japanese).",
                                        "type": "string",
                                    },
                                    "gender": {
                                        "description": "male, female, or another word.",
                                        "type": "string",
                                    },
                                    "pronoun": {
                                        "description": "The target language's pronoun for them.",
                                        "type": "string",
                                    },
                                    "speech": {
                                        "description": "How they speak: register, verbal tics.",
                                        "type": "string",
                                    },
                                    "note": {
                                        "description": "Who they are, briefly.",
                                        "type": "string",
                                    },
                                },
                                "required": ["source", "target"],
                                "type": "object",
                            },
                            "type": "array",
                        }
                    },
                    "required": ["characters"],
                    "type": "object",
                },
            },
            "add_forms_of_address": {
                "description": """\
Propose how one character addresses another, where the address book lacks it. The
translator approves them; one that contradicts an approved row is refused.\
""",
                "parameters": {
                    "properties": {
                        "forms": {
                            "items": {
                                "properties": {
                                    "speaker": {
                                        "description": "The character who speaks, as the glossary names them.",
                                        "type": "string",
                                    },
                                    "listener": {
                                        "description": "The character addressed.",
                                        "type": "string",
                                    },
                                    "source_form": {
                                        "description": "As the book writes it: 先輩, お兄ちゃん, a name.",
                                        "type": "string",
                                    },
                                    "rendering": {
                                        "description": "Its rendering.",
                                        "type": "string",
                                    },
                                    "register": {
                                        "description": "The target's register where it has one: 您/你.",
                                        "type": "string",
                                    },
                                },
                                "required": ["speaker", "listener", "source_form", "rendering"],
                                "type": "object",
                            },
                            "type": "array",
                        }
                    },
                    "required": ["forms"],
                    "type": "object",
                },
            },
        }
    )
