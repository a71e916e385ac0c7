"""Each use case is written once: the terminal, the web API and the assistant see the same
figures and obey the same rules, because they call the same application."""

from __future__ import annotations

import asyncio
import re

import httpx2
import pytest

from honyaku.agent import Broker, ToolRegistry
from honyaku.application import Honyaku
from honyaku.assistant import ASSISTANT_TOOLS
from honyaku.assistant.tools import ChatContext
from honyaku.domain import TranslationKind
from honyaku.llm.messages import ToolCall
from honyaku.llm.models import ModelChoice
from honyaku.store import Library
from honyaku.testing import FakeLLMServer

from ..cli.conftest import honyaku as command
from ..web.conftest import served_here

T = TranslationKind.TRANSLATION


def assistant_calls(honyaku: Honyaku, book_id: str, tool: str, **arguments: object) -> dict:
    """What the assistant's ``tool`` answers the model, in a chat about the book."""
    context = ChatContext(Broker(), "a test", honyaku, ModelChoice("demo"), book_id)
    registry = ToolRegistry(ASSISTANT_TOOLS, ChatContext)
    return asyncio.run(registry.run(ToolCall("call-1", tool, arguments), context))


def terminal_figures(output: str) -> dict[str, int]:
    numbers = {
        "paragraphs_done": r"paragraphs\s+(\d+)/",
        "paragraphs_total": r"paragraphs\s+\d+/(\d+)",
        "requests": r"requests\s+(\d+)",
        "retries": r"\((\d+) retries\)",
        "input_tokens": r"input\s+(\d+) tokens",
        "cached_tokens": r"\((\d+) cached\)",
        "output_tokens": r"output\s+(\d+) tokens",
    }
    return {name: int(re.search(pattern, output)[1]) for name, pattern in numbers.items()}


@pytest.mark.parametrize("reports_usage", [True, False], ids=["usage", "no usage"])
def test_one_job_shows_the_same_figures_in_the_terminal_the_web_and_the_assistant(
    honyaku: Honyaku, book_id: str, reports_usage: bool
):
    # Given a model server that reports its token usage, or one that reports none
    with FakeLLMServer(reports_usage=reports_usage) as server:
        # When a job runs from the terminal
        ran = command(
            "translate",
            book_id,
            "--model",
            "fake",
            "--base-url",
            server.url,
            "--protocol",
            "native",
        )
    job_id = re.search(r"translation job (\w{8})", ran.stdout)[1]

    # Then the web API and the assistant's job_progress report what the terminal printed
    terminal = terminal_figures(ran.stdout)
    with served_here(honyaku) as (url, _):
        web = httpx2.get(f"{url}/api/jobs/{job_id}").json()
    assistant = assistant_calls(honyaku, book_id, "job_progress", job_id=job_id)["data"]
    for figures in (web, assistant):
        assert {name: figures[name] for name in terminal} == terminal
    assert web == assistant
    assert terminal["input_tokens"] > 0
    assert terminal["output_tokens"] > 0
    assert web["tokens_estimated"] is not reports_usage
    if not reports_usage:
        assert "estimated" in ran.stdout


def test_a_manual_version_obeys_one_rule_from_the_web_and_from_the_assistant(
    honyaku: Honyaku, library: Library, book_id: str
):
    [first, second] = library.whole_book(book_id).chapters[0].work_paragraphs[:2]
    with served_here(honyaku) as (url, _):
        versions = f"{url}/api/books/{book_id}/paragraphs"

        # When a version is written with surrounding spaces, from the web and the assistant
        web = httpx2.post(f"{versions}/{first.id}/versions", json={"text": "  网上的译文  "})
        assistant = assistant_calls(
            honyaku, book_id, "write_version", paragraph_id=second.id, text="  助手的译文\n"
        )
        # And when a version holds a line break
        web_two_lines = httpx2.post(f"{versions}/{first.id}/versions", json={"text": "一\n二"})
    assistant_two_lines = assistant_calls(
        honyaku, book_id, "write_version", paragraph_id=second.id, text="一\n二"
    )

    # Then both stored it trimmed, and both refused the line break with the same reason
    assert web.status_code == 201
    assert assistant["success"]
    assert [v.text for v in library.versions(book_id, first.id)] == ["网上的译文"]
    assert [v.text for v in library.versions(book_id, second.id)] == ["助手的译文"]
    assert web_two_lines.status_code == 400
    assert not assistant_two_lines["success"]
    assert assistant_two_lines["error"] == web_two_lines.json()["detail"]
    assert "line break" in assistant_two_lines["error"]


def test_a_manual_version_equal_to_an_earlier_one_selects_it_from_the_web_and_the_assistant(
    honyaku: Honyaku, library: Library, book_id: str
):
    [first, second] = library.whole_book(book_id).chapters[0].work_paragraphs[:2]
    for text in ("他走了。", "他离开了。"):
        library.add_translations(book_id, dict.fromkeys((first.id, second.id), text), kind=T)
    with served_here(honyaku) as (url, _):
        versions = f"{url}/api/books/{book_id}/paragraphs"

        # When the first translation is written again by hand, from the web and the assistant
        web = httpx2.post(f"{versions}/{first.id}/versions", json={"text": " 他走了。"})
        assistant = assistant_calls(
            honyaku, book_id, "write_version", paragraph_id=second.id, text="他走了。"
        )

    # Then both selected the version that holds it, and wrote none
    assert web.status_code == 201
    assert [(v["text"], v["selected"]) for v in web.json()] == [
        ("他走了。", True),
        ("他离开了。", False),
    ]
    earlier = library.versions(book_id, second.id)[0]
    assert assistant["message"] == (
        f"paragraph {second.id} now uses this text: version {earlier.id}, selected"
    )
    for pid in (first.id, second.id):
        assert [(v.text, v.kind, v.selected) for v in library.versions(book_id, pid)] == [
            ("他走了。", T, True),
            ("他离开了。", T, False),
        ]


def test_a_half_priced_model_profile_is_refused_by_the_web_as_by_the_terminal(
    honyaku: Honyaku,
):
    # When a profile with an input price and no output price is saved from both
    typed = command("models", "add", "half", "--model", "m", "--input-price", "1", check=False)
    with served_here(honyaku) as (url, _):
        posted = httpx2.post(
            f"{url}/api/models", json={"name": "half", "model": "m", "input_price": 1}
        )

    # Then both refuse it with the same sentence, and nothing is saved
    reason = "give the input and the output price together, or no price at all"
    assert typed.returncode == 2
    assert reason in typed.stderr
    assert posted.status_code == 422
    assert reason in posted.json()["detail"]
    assert asyncio.run(honyaku.models.all()) == []
