"""The web workbench: ``honyaku serve``. Pages and a JSON API over the same application
services as the terminal; the model's questions and approval requests shown in the browser.

Every resource is one module holding its pages (rendered with Jinja2, plain URLs a person
can bookmark, left out of ``/openapi.json``) and its JSON API (``/api/…``, described there);
``static/js`` holds the pages' small scripts, which change things through the API. Every
handler calls the application (``honyaku.application``) and shapes what it answers; the
application keeps the database off the event loop.

    books.py        the library, a book, its chapters, its paragraphs' versions, its export,
                    a job's estimate
    jobs.py         jobs: their pages, start, stop, resume, log, progress as server-sent events
    models.py       model profiles: their page (with presets and the prices known), save,
                    check, remove
    keys.py         API keys in this machine's key store: listed (masked), set, removed
    questions.py    the model's questions and approvals waiting for the person, as events
    editions.py     a book's new edition (``import --update``), with a dry run
    glossary.py     a book's glossary and the shared glossaries attached to it
    cast.py         a book's cast and its address book: characters, variants, forms of
                    address, proposals
    quality.py      the paragraphs the quality checks flagged
    left.py         what a job left of a book, and why: the paragraphs that need the translator
    ratings.py      what a rating job scored, lowest first, by score and problem
    trials.py       models tried on the same sample of a book: their figures side by side,
                    a blind judge, their versions paragraph by paragraph, one taken in
    search.py       search across a book, replace in its translations
    chat.py         the assistant: its page, the chat stream and its sessions

What they share, and the server around them:

    app.py          the ASGI app: the resources' routes, static files, one error format
    schemas.py      the JSON the API speaks (pydantic models), error answers, parameter bounds
    templating.py   the Jinja2 templates (``templates/``), ``page()`` and ``error_page()``
    uploads.py      an uploaded file saved under a safe name, within the size limit
    events.py       server-sent events: one message as an event, the heartbeat
    markdown.py     the assistant's Markdown as HTML that is safe to show
    inline_markup.py  a paragraph's inline markup drawn with the workbench's own elements,
                    and a translation with its placeholders, as a person edits it
    workbench.py    what one server process holds: the application, the dialogs
    front_end.py    the browser as a front end of the broker
    guard.py        Host, Origin and token checks; the headers that keep a page from being
                    framed; the request size limit
    serving.py      running it with uvicorn
    i18n.py         the interface's language (Chinese, English, Japanese), its catalogs, and
                    the language switch (``/language/{code}``)
    words.py        the engine's names (statuses, kinds, tools) as a translator reads them

Languages
---------
The workbench speaks Simplified Chinese, English or Japanese: the person's choice (the
switcher on every page, remembered in a cookie), else their browser's ``Accept-Language``.
The terminal stays English. English is the source text; every text a person reads is
marked, and the catalogs hold its Chinese and Japanese:

- **Templates**: ``{{ _("Import a book") }}``; with values, Jinja2's new style,
  ``{{ _("chapter %(number)s of %(count)s", number=n, count=total) }}``; plurals with
  ``{{ ngettext("%(num)s version", "%(num)s versions", n) }}``; a sentence holding markup
  in one ``{% trans %}…<a href="/models">…</a>…{% endtrans %}``, never cut into pieces.
  A macro that translates is imported ``with context``.
- **Scripts**: ``import { t } from "./i18n.js"``, then ``t("Saved.")`` or
  ``t("Delete “{title}”?", { title })``. Only a plain string literal inside ``t(…)`` is
  extracted: no template literal around it.
- **Python in** ``web/``: ``from honyaku.web.i18n import _``; ``_("…")`` translates into
  the language of the request being served (``_("…").format(…)`` for values). The
  engine's names go through ``words.word``; a name is marked with ``words.N_`` where it
  is listed. Messages of honyaku's errors are translated when the catalog has them (the
  plain-text ones the domain raises are extracted); others stay English.
- **Text from a book** carries its language: ``lang="{{ book.source_lang }}"`` on the
  source, ``lang="{{ book.target_lang }}"`` on every translation, so the style sheet's
  ``:lang(ja)`` and ``:lang(zh)`` fonts draw each with its own glyph forms.

After changing a text run ``scripts/catalogs``: it extracts the texts (``pybabel
extract`` with ``locales/babel.cfg`` into ``messages.pot``, ``locales/babel-js.cfg`` into
``js.pot``), merges them into ``locales/{zh,ja}/LC_MESSAGES/*.po`` (``pybabel update``)
and compiles the ``.mo`` files the package ships (``pybabel compile``). Translate what it
left empty, run it again, and commit all of it: ``tests/web/test_catalogs.py`` fails while
a text is missing from a catalog or a catalog is older than the code.
"""

from honyaku.web.app import create_app
from honyaku.web.serving import serve
from honyaku.web.workbench import Workbench

__all__ = ["Workbench", "create_app", "serve"]
