"""A reply that says the model will not do the work: told apart from one that merely stopped.

Read conservatively: only a short reply, with no call, whose opening says in so many words
that the model cannot or will not help (in English, Chinese or Japanese). A reply that talks
about the text, asks something, or goes on at length is not a refusal, and a model is taken at
its word only after it was reminded once what was left (``agent.loop``).
"""

from __future__ import annotations

import re

MAX_REFUSAL_CHARS = 600
"""A refusal is short: a long reply is the model working, or thinking aloud."""
OPENING_CHARS = 200
"""Where a refusal says so: at the start, not in a quoted passage further on."""

_REFUSALS = re.compile(
    r"(?ix)"
    r"\bI(?:'m|\s+am)?\s*(?:sorry|afraid)[^.。]{0,40}\b(?:can(?:'|no)t|cannot|unable|won't)\b"
    r"|\bI\s+(?:can(?:'|no)t|cannot|won't|will\s+not|am\s+unable\s+to|must\s+decline)\s+"
    r"(?:help|assist|translate|provide|comply|continue|do\s+(?:that|this))"
    r"|\b(?:against|violates?)\s+(?:my|our|the)\s+(?:guidelines|content\s+polic(?:y|ies)|usage\s+polic(?:y|ies))"
    r"|(?:抱歉|对不起|很遗憾)[^。]{0,20}(?:无法|不能|没办法)"
    r"|我(?:无法|不能)(?:协助|帮助|提供|翻译|继续|完成)"
    r"|(?:违反|违背)[^。]{0,10}(?:政策|准则|规定)"
    r"|申し訳(?:ありません|ございません)[^。]{0,40}(?:できません|できかねます|お手伝いできません)"
    r"|(?:翻訳|お手伝い|対応|協力)(?:は|を)?(?:いたし)?(?:できません|できかねます)"
)


def says_it_will_not(reply_text: str) -> bool:
    """Whether a reply without calls says the model will not do the work."""
    text = reply_text.strip()
    if not text or len(text) > MAX_REFUSAL_CHARS:
        return False
    return _REFUSALS.search(text[:OPENING_CHARS]) is not None
