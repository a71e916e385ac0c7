"""A synthetic series of two volumes, Japanese into Chinese, for tests and benchmarks of the
cast, forms of address and the series' memory.

Five characters, one of them known by a name with its honorific (千尋先生), who address each
other by honorifics and titles (美咲先輩, 後輩くん, 千尋先生, 空太くん) or by a bare name; the
source, as Japanese prose does, leaves most pronouns out. Each chapter names its own pair:
volume 2's first chapter 空太 and 美咲, its second 空太 and 千尋, its third 真白 and 龍之介, who
address each other by nothing the address book holds. Volume 2's second chapter repeats a
paragraph of volume 1 word for word (``REPEATED``), and its third nearly repeats one
(``NEARLY_REPEATED``).

``series_translation`` is how a careful model renders every paragraph and title (the glossary's
names, the address book's renderings, the right pronouns), which passes every quality check;
``FIRST_DRAFTS`` are the two it gets wrong first: a form of address rendered otherwise
(美咲前辈 for 美咲学姐) and the wrong pronoun (他 for 真白). ``CHARACTERS`` and
``FORMS_OF_ADDRESS`` are what an extraction proposes (``ScriptedTranslator.characters`` and
``forms_of_address``); ``LATE_FORM`` what a translation of volume 1 proposes.
"""

from __future__ import annotations

from honyaku.domain.book import BookDraft, ChapterDraft
from honyaku.testing.scripted_models import hanzi_translation

SERIES = "さくら荘"

REPEATED = "桜の花びらが風に舞い、さくら荘の庭を白く染めていた。"
NEARLY_REPEATED = "真白は窓の外をじっと見つめていた。"

_VOLUME_1 = (
    (
        "第一章　春",
        (
            (
                "「美咲先輩、おはようございます」と空太は言った。",
                "“美咲学姐，早上好。”空太说。",
            ),
            (
                "「後輩くん、今日も元気だね！」と美咲は笑った。",
                "“学弟，今天也很有精神嘛！”美咲笑着说。",
            ),
            (
                "真白は窓の外をじっと見ていた。",
                "真白一直望着窗外。",
            ),
            (
                "「空太、お腹すいた」と真白は言った。",
                "“空太，我饿了。”真白说。",
            ),
            (
                REPEATED,
                "樱花花瓣随风飞舞，把樱花庄的庭院染成了白色。",
            ),
        ),
    ),
    (
        "第二章　課題",
        (
            (
                "「千尋先生、課題を出しに来ました」と空太は言った。",
                "“千寻老师，我来交作业了。”空太说。",
            ),
            (
                "「空太くん、遅いわよ」と千尋先生はため息をついた。",
                "“空太，你来晚了。”千寻老师叹了口气。",
            ),
            (
                "龍之介は部屋から出てこなかった。",
                "龙之介没有从房间里出来。",
            ),
        ),
    ),
)
_VOLUME_2 = (
    (
        "第一章　再会",
        (
            (
                "「美咲先輩、待ってください」と空太は叫んだ。",
                "“美咲学姐，请等一下！”空太喊道。",
            ),
            (
                "「後輩くん、遅いぞ！」と美咲は手を振った。",
                "“学弟，太慢了！”美咲挥了挥手。",
            ),
            (
                "美咲は校庭を駆け抜けていった。",
                "美咲跑过了操场。",
            ),
        ),
    ),
    (
        "第二章　相談",
        (
            (
                "「千尋先生、相談があります」と空太は言った。",
                "“千寻老师，我有事想跟您商量。”空太说。",
            ),
            (
                "「空太くん、また今度ね」と千尋先生は言った。",
                "“空太，下次吧。”千寻老师说。",
            ),
            (
                REPEATED,
                "樱花花瓣随风飞舞，把樱花庄的庭院染成了白色。",
            ),
        ),
    ),
    (
        "第三章　絵",
        (
            (
                "真白は黙って絵を描き続けた、顔も上げずに。",
                "真白默默地继续画画，她头也不抬。",
            ),
            (
                "龍之介はキーボードを叩いていた。",
                "龙之介在敲键盘。",
            ),
            (
                NEARLY_REPEATED,
                "真白一直凝视着窗外。",
            ),
        ),
    ),
)

WRONG_ADDRESS = "「美咲先輩、待ってください」と空太は叫んだ。"
WRONG_PRONOUN = "真白は黙って絵を描き続けた、顔も上げずに。"
FIRST_DRAFTS = {
    WRONG_ADDRESS: "“美咲前辈，请等一下！”空太喊道。",
    WRONG_PRONOUN: "真白默默地继续画画，他头也不抬。",
}
"""The two paragraphs a model gets wrong first in volume 2: a form of address, a pronoun."""

_TITLES = {
    "第一章　春": "第一章 春",
    "第二章　課題": "第二章 作业",
    "第一章　再会": "第一章 重逢",
    "第二章　相談": "第二章 商量",
    "第三章　絵": "第三章 画",
}

CHARACTERS: tuple[dict[str, str], ...] = (
    {"source": "空太", "target": "空太", "gender": "male", "pronoun": "他",
     "speech": "吐槽役，语气随意"},
    {"source": "真白", "target": "真白", "gender": "female", "pronoun": "她",
     "speech": "平淡、寡言，句子很短"},
    {"source": "美咲", "target": "美咲", "gender": "female", "pronoun": "她",
     "speech": "元气十足，爱用感叹句"},
    {"source": "千尋先生", "target": "千寻老师", "gender": "female", "pronoun": "她",
     "speech": "慵懒"},
    {"source": "龍之介", "target": "龙之介", "gender": "male", "pronoun": "他",
     "speech": "冷淡、讲究逻辑"},
)  # fmt: skip
"""The cast an extraction proposes."""
FORMS_OF_ADDRESS: tuple[dict[str, str], ...] = (
    {"speaker": "空太", "listener": "美咲先輩", "source_form": "美咲先輩",
     "rendering": "美咲学姐", "register": "你"},
    {"speaker": "美咲", "listener": "空太", "source_form": "後輩くん", "rendering": "学弟",
     "register": "你"},
    {"speaker": "空太", "listener": "千尋", "source_form": "千尋先生", "rendering": "千寻老师",
     "register": "您"},
    {"speaker": "千尋先生", "listener": "空太くん", "source_form": "空太くん",
     "rendering": "空太", "register": "你"},
)  # fmt: skip
"""What an extraction proposes: speakers and listeners named by any variant."""
LATE_FORM: tuple[dict[str, str], ...] = (
    {"speaker": "真白", "listener": "空太", "source_form": "空太", "rendering": "空太",
     "register": "你"},
)  # fmt: skip
"""What a translation of volume 1 proposes as it goes."""


def volumes() -> tuple[BookDraft, BookDraft]:
    """The two volumes, as the importer would read them."""
    first, second = (
        BookDraft(
            f"さくら荘のペットな彼女 {number}",
            tuple(
                ChapterDraft(title, tuple(source for source, _ in paragraphs))
                for title, paragraphs in chapters
            ),
            author="作者",
        )
        for number, chapters in ((1, _VOLUME_1), (2, _VOLUME_2))
    )
    return first, second


_TRANSLATIONS = {
    **{source: target for _, paragraphs in _VOLUME_1 + _VOLUME_2 for source, target in paragraphs},
    **_TITLES,
}


def series_translation(text: str) -> str:
    """How a careful model renders ``text`` of the series (anything else, as Chinese)."""
    return _TRANSLATIONS.get(text) or hanzi_translation(text)
