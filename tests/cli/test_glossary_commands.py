"""honyaku glossary … and honyaku check as a person types them."""

from __future__ import annotations

from honyaku.testing import FakeLLMServer, Mistake, ScriptedTranslator, hanzi_translation

from .conftest import RASHOMON, honyaku, imported


def model_flags(server: FakeLLMServer) -> list[str]:
    return ["--model", "fake-translator", "--base-url", server.url]


def test_add_list_change_remove_and_the_history_keeps_every_version():
    book = imported(RASHOMON)

    added = honyaku(
        "glossary",
        "add",
        book,
        "下人",
        "仆人",
        "--kind",
        "character",
        "--gender",
        "male",
        "--alias",
        "男",
    )
    changed = honyaku("glossary", "add", book, "下人", "家仆")
    listed = honyaku("glossary", "list", book).stdout
    removed = honyaku("glossary", "remove", book, "下人")
    history = honyaku("glossary", "history", book, "下人").stdout

    assert added.stdout.strip() == "Added 下人 → 仆人"
    assert changed.stdout.strip() == "Changed 下人: 仆人 → 家仆"
    assert "家仆" in listed
    assert "accepted" in listed
    assert removed.stdout.strip() == "Removed 下人 → 家仆"
    assert honyaku("glossary", "list", book).stdout.strip() == "The glossary is empty."
    assert [word in history for word in ("仆人", "家仆", "removed")] == [True, True, True]


def test_a_series_glossary_is_shared_by_the_books_attached_to_it():
    first, second = imported(RASHOMON), imported(RASHOMON)

    honyaku("glossary", "add", first, "羅生門", "罗生门", "--series", "akutagawa")
    honyaku("glossary", "attach", second, "akutagawa")

    assert "akutagawa" in honyaku("glossary", "list", second).stdout
    honyaku("glossary", "detach", second, "akutagawa")
    assert "罗生门" not in honyaku("glossary", "list", second).stdout
    assert "罗生门" in honyaku("glossary", "list", second, "--series", "akutagawa").stdout


def test_galtransl_dictionaries_import_and_export(tmp_path):
    book = imported(RASHOMON)
    dictionary = tmp_path / "GPT字典.txt"
    dictionary.write_text("// names\n下人\t仆人\t主人公\n老婆\t老妪\n", encoding="utf-8")

    imported_once = honyaku("glossary", "import", book, dictionary).stdout
    imported_again = honyaku("glossary", "import", book, dictionary).stdout
    honyaku("glossary", "export", book, tmp_path / "out.csv")
    honyaku("glossary", "export", book, tmp_path / "out.txt")

    assert "2 added, 0 changed, 0 unchanged" in imported_once
    assert "0 added, 0 changed, 2 unchanged" in imported_again
    csv_lines = (tmp_path / "out.csv").read_text(encoding="utf-8").splitlines()
    assert csv_lines[0] == "source,target,note,kind,aliases,gender,reading,pronoun,speech"
    assert (tmp_path / "out.txt").read_text(
        encoding="utf-8"
    ) == "下人\t仆人\t主人公\n老婆\t老妪\t\n"


def test_a_bad_glossary_file_is_one_line_naming_the_line(tmp_path):
    book = imported(RASHOMON)
    dictionary = tmp_path / "dict.tsv"
    dictionary.write_text("下人\t仆人\n老婆\n", encoding="utf-8")

    done = honyaku("glossary", "import", book, dictionary, check=False)

    assert done.returncode == 2
    assert "line 2: 老婆: the target is blank" in done.stderr
    assert "Traceback" not in done.stderr


def test_extract_proposes_and_accept_accepts(fake_model):
    book = imported(RASHOMON)

    extracted = honyaku("glossary", "extract", book, *model_flags(fake_model))
    proposed = honyaku("glossary", "list", book, "--proposed").stdout
    accepted = honyaku("glossary", "accept", book).stdout

    assert "proposed entries wait for you" in extracted.stdout
    assert "proposed" in proposed
    assert accepted.startswith("Accepted ")
    assert honyaku("glossary", "list", book, "--proposed").stdout.strip() == "No proposed entries."


def test_check_lists_flagged_paragraphs_with_their_problems(fake_model):
    book = imported(RASHOMON)
    honyaku("glossary", "add", book, "下人", "仆人")
    fake_model.mistakes.add(Mistake.SLOPPY_DRAFT)
    fake_model.translator.fixes_warnings = False
    # One chunk, one careless draft: the fake model drafts carelessly once a chunk.
    honyaku("translate", book, *model_flags(fake_model), "--chunk-chars", "6000")

    checked = honyaku("check", book).stdout

    assert "5 flagged paragraph(s)" in checked
    for code in ("QUOTE_LOST", "UNBALANCED_BRACKETS", "GLOSSARY_TERM_MISSING", "SAME_AS_SOURCE"):
        assert code in checked
    assert honyaku("check", book, "--chapters", "1").stdout == checked


def test_check_of_a_clean_book_says_so(fake_model):
    book = imported(RASHOMON)
    fake_model.translator = ScriptedTranslator(translate=hanzi_translation)
    honyaku("translate", book, *model_flags(fake_model))

    checked = honyaku("check", book).stdout.splitlines()

    assert checked[0].startswith("Translated: ")
    assert checked[1:] == ["No flagged paragraphs."]


def test_settings_turn_auto_acceptance_of_terms_on():
    book = imported(RASHOMON)

    assert (
        "auto_accept_terms = True" in honyaku("settings", book, "--auto-accept-terms", "on").stdout
    )
