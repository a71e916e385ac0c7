"""honyaku trial as a person types it: saved models tried on the same sample of their book,
the comparison printed as a table or as JSON, the book's own translations untouched."""

from __future__ import annotations

import asyncio
import json
from collections import deque

from honyaku.application import Honyaku as App
from honyaku.testing import (
    FakeLLMServer,
    Fault,
    FaultKind,
    Mistake,
    ScriptedTranslator,
    hanzi_translation,
)

from .conftest import KOJIKI, RASHOMON, honyaku, imported


def saved(name: str, server: FakeLLMServer) -> str:
    honyaku(
        "models", "add", name, "--model", "fake-translator", "--base-url", server.url,
        "--protocol", "native", "--input-price", "1", "--output-price", "4",
    )  # fmt: skip
    return name


def test_a_trial_prints_each_models_figures_as_json_and_leaves_the_book_untranslated() -> None:
    # Given a book, a careless model that meets a server error, and a clean one
    book = imported(RASHOMON)
    careless = ScriptedTranslator(translate=hanzi_translation, mistakes={Mistake.WRONG_STATUS_MOVE})
    with (
        FakeLLMServer(translator=careless, faults=deque([Fault(FaultKind.SERVER_ERROR)])) as a,
        FakeLLMServer() as b,
    ):
        models = f"{saved('careless', a)},{saved('clean', b)}"

        # When both are tried on the first chapters
        printed = honyaku("trial", book, "--models", models, "--json").stdout

    # Then the JSON holds one object a model, with what its server saw
    careless_figures, clean_figures = json.loads(printed)
    assert careless_figures["model"] == "careless"
    assert clean_figures["model"] == "clean"
    assert careless_figures["retries"] == 1
    assert careless_figures["requests"] == len(a.requests) - 1
    # (its one wrong move a conversation, one conversation a part)
    assert careless_figures["rejected_calls"] == {"INVALID_TRANSITION": careless_figures["parts"]}
    assert clean_figures["rejected_calls"] == {}
    for figures in (careless_figures, clean_figures):
        assert figures["paragraphs_done"] == figures["paragraphs"] > 0
        assert figures["tokens"]["output"] > 0
        assert figures["billed"] > 0
    # And the book is as it was: nothing translated
    assert "Translated: 0 of" in honyaku("check", book).stdout


def test_a_trial_with_a_judge_gives_each_model_the_judges_mean_and_share_of_low_scores() -> None:
    # Given a saved model that leaves no kana, and a judge that scores kana left low
    book = imported(RASHOMON)
    hanzi = ScriptedTranslator(translate=hanzi_translation)
    with FakeLLMServer(translator=hanzi) as model, FakeLLMServer() as judge:
        saved("plain", model)
        saved("judge", judge)

        # When it is tried beside the demo model and judged
        trial = ["trial", book, "--models", "plain,demo", "--judge", "judge", "--chapters", "1"]
        printed = honyaku(*trial, "--json").stdout

    # Then every version was rated: the model's all 5, the demo's (kana kept) lower
    plain, demo = json.loads(printed)
    for figures in (plain, demo):
        assert figures["judged"] == figures["paragraphs_done"] > 0
    assert (plain["mean_score"], plain["low_share"]) == (5.0, 0.0)
    assert demo["mean_score"] < 3
    assert demo["low_share"] > 0.5


def test_a_trials_table_names_every_figure(fake_model: FakeLLMServer) -> None:
    book = imported(RASHOMON)
    saved("plain", fake_model)

    printed = honyaku("trial", book, "--models", "plain", "--chapters", "1").stdout

    assert "plain: done" in printed
    for heading in ("refused calls", "retries", "requests", "billed", "judge", "chrF++"):
        assert heading in printed
    assert "/trials/" in printed


def test_use_takes_a_models_versions_into_the_book_and_its_next_jobs_run_with_it() -> None:
    # Given a trial of two models on the first chapter of a book of several
    book = imported(KOJIKI)
    hanzi = ScriptedTranslator(translate=hanzi_translation)
    with FakeLLMServer(translator=hanzi) as chosen, FakeLLMServer() as other:
        saved("chosen", chosen)
        saved("other", other)
        honyaku("trial", book, "--models", "chosen,other", "--chapters", "1")

        # When the translator uses the first model's versions, with the other as its fallback
        used = honyaku("trial", book, "--use", "chosen", "--fallback", "other").stdout
        before = len(chosen.requests)

        # Then chapter 1 is translated, and translating the rest runs with the chosen model
        translated = honyaku("translate", book, "--chapters", "2").stdout
        assert len(chosen.requests) > before
    assert "Took " in used
    assert "chosen" in used
    assert "fake-translator" in translated
    assert "Translated: 0 of" not in honyaku("check", book, "--chapters", "1").stdout


def test_a_reference_aligned_by_paragraph_gives_each_model_its_chrf(tmp_path) -> None:
    # Given a book, and the translator's own translation of its first chapter, a line each
    book = imported(RASHOMON)
    app = App.open()
    try:
        [chapter] = asyncio.run(app.books.whole(book, [1])).chapters
    finally:
        app.close()
    paragraphs = [p.text for p in chapter.work_paragraphs]
    reference = tmp_path / "mine.txt"
    reference.write_text("\n\n".join(hanzi_translation(p) for p in paragraphs), encoding="utf-8")
    short = tmp_path / "short.txt"
    short.write_text("一行だけ\n", encoding="utf-8")

    # When models are tried beside it
    with FakeLLMServer(translator=ScriptedTranslator(translate=hanzi_translation)) as same:
        saved("same", same)
        trial = ["trial", book, "--models", "same,demo", "--chapters", "1", "--json"]
        same_figures, demo_figures = json.loads(honyaku(*trial, "--reference", reference).stdout)
        refused = honyaku(*trial, "--reference", short, check=False)

    # Then the model that wrote the same text scores 100, the demo's less; a reference that
    # does not align is refused, saying how many paragraphs each has
    assert same_figures["chrf"] == 100.0
    assert demo_figures["chrf"] < 50
    assert refused.returncode != 0
    assert f"the reference has 1 paragraphs and the sample {len(paragraphs)}" in refused.stderr
