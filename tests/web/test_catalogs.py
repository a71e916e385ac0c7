"""The workbench's catalogs are whole and current: every text the code marks is in each
language's catalog, translated, with its placeholders, and compiled (see ``honyaku.web``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).parents[2]
LOCALES = ROOT / "src/honyaku/web/locales"
ERROR_KEYWORDS = ["-k", "UserError", "-k", "ConfigError", "-k", "NotFoundError"]
DOMAINS = {
    "messages": ["-F", str(LOCALES / "babel.cfg"), *ERROR_KEYWORDS, "-k", "BookFormatError"],
    "js": ["-F", str(LOCALES / "babel-js.cfg"), "-k", "t"],
}
SCRIPTS = ROOT / "src/honyaku/web/static/js"
MARKED_IN_A_SCRIPT = re.compile(r'\bt\(\s*"((?:[^"\\]|\\.)*)"')
PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+(?:![rsa])?\}")

# The catalogs are files: no database is read.


def _ids(catalog: Catalog) -> set[str]:
    return {_key(m.id) for m in catalog if m.id}


def _key(message_id: str | tuple[str, ...]) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


def _read_po(path: Path) -> Catalog:
    with path.open("rb") as po:
        return read_po(po)


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_template_holds_every_text_the_code_marks_and_no_other(domain, tmp_path):
    extracted = tmp_path / f"{domain}.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "-q", "extract", "--no-location",
         *DOMAINS[domain], "-o", str(extracted), "."],
        cwd=ROOT, check=True,
    )  # fmt: skip

    assert _ids(_read_po(extracted)) == _ids(_read_po(LOCALES / f"{domain}.pot")), (
        "the catalogs are older than the code: run scripts/catalogs"
    )


def test_every_text_a_script_marks_is_in_the_template_even_inside_a_template_literal():
    # Babel's JavaScript extractor reads no t("…") inside a `${…}`: such a text would stay
    # English on every page.
    template = _ids(_read_po(LOCALES / "js.pot"))
    marked = {
        text
        for script in SCRIPTS.glob("*.js")
        if script.name != "i18n.js"  # its comment shows how to mark a text
        for text in MARKED_IN_A_SCRIPT.findall(script.read_text(encoding="utf-8"))
    }

    assert sorted(marked - template) == [], "mark these outside a `${…}`, then run scripts/catalogs"


@pytest.mark.parametrize("language", ["zh", "ja"])
@pytest.mark.parametrize("domain", DOMAINS)
def test_each_language_translates_every_text_with_its_placeholders(domain, language):
    template = _read_po(LOCALES / f"{domain}.pot")
    catalog = _read_po(LOCALES / language / "LC_MESSAGES" / f"{domain}.po")
    translated = {_key(m.id): m for m in catalog if m.id and not m.fuzzy}

    untranslated = sorted(
        _key(m.id) for m in template if m.id and not all(_strings(translated.get(_key(m.id))))
    )
    assert untranslated == [], f"{language}/{domain}.po lacks these: translate them"
    for key, message in translated.items():
        for string in _strings(message):
            assert sorted(PLACEHOLDER.findall(string)) == sorted(PLACEHOLDER.findall(key)), key


@pytest.mark.parametrize("language", ["zh", "ja"])
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_compiled_catalog_is_the_translated_one(domain, language):
    folder = LOCALES / language / "LC_MESSAGES"
    with (folder / f"{domain}.mo").open("rb") as mo:
        compiled = {_key(m.id): _strings(m) for m in read_mo(mo) if m.id}
    written = {_key(m.id): _strings(m) for m in _read_po(folder / f"{domain}.po") if m.id}

    assert compiled == written, f"{language}/{domain}.mo is stale: run scripts/catalogs"


def _strings(message) -> list[str]:
    if message is None:
        return [""]
    string = message.string
    return list(string) if isinstance(string, tuple | list) else [string]
