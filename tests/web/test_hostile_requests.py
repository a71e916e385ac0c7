"""What a probe of ``honyaku serve`` found, as an attacker and as a careless user would try it,
each now refused or answered: a regular expression that would hold the server, a page framed
by another site, requests without the token on loopback, nulls and empty books that answered
500, moments without their time zone. Against a real ``honyaku serve``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urljoin, urlsplit

import httpx2
import pytest
from playwright.sync_api import Page, expect

from honyaku.application import TOOL_NAMES, Honyaku
from honyaku.testing.server import BackgroundServer
from honyaku.web import Workbench as WorkbenchState
from honyaku.web import create_app
from honyaku.web.front_end import WebFrontEnd

from .conftest import Workbench, serve, stop

# What is probed here reads the database the same way on both.

CATASTROPHIC = "(a+)+$"
ANSWER_S = 60
"""Long enough for a loaded machine; a backtracking engine would never answer."""
"""Python's re backtracks through every way of splitting the a's: 26 took 6 s, 28 took 22 s."""


def translated_book(workbench: Workbench, *translations: str) -> tuple[str, list[str]]:
    """A book whose paragraphs are translated as ``translations``; its paragraph ids."""
    book = workbench.add_book(*(f"段落{n}。" for n in range(len(translations))))
    chapter = workbench.api("GET", f"/api/books/{book}/chapters/1")
    ids = [p["id"] for p in chapter["paragraphs"] if p["text"].startswith("段落")]
    for paragraph, text in zip(ids, translations, strict=True):
        workbench.api(
            "POST", f"/api/books/{book}/paragraphs/{paragraph}/versions", json={"text": text}
        )
    return book, ids


def never_seen_model(workbench: Workbench) -> str:
    """A saved model no job ran with yet: its estimate guesses between two behaviours."""
    name = f"unseen-{time.monotonic_ns()}"
    profile = {"name": name, "model": name, "base_url": "http://127.0.0.1:9/v1"}
    workbench.api("POST", "/api/models", json={**profile, "protocol": "native"})
    return name


def test_a_catastrophic_regex_does_not_hold_the_server(workbench: Workbench):
    # Given paragraphs of 30 and of 3,000 "a" and a "!", in source and translation: a
    # backtracking engine would try (a+)+$ on the long one for longer than the universe has
    # lasted, so an answer at all shows the pattern ran in linear time
    short, long = "a" * 30 + "!", "a" * 3000 + "!"
    book, _ = translated_book(workbench, short, long)
    search = {"q": CATASTROPHIC, "regex": "true"}
    replace = {"q": CATASTROPHIC, "regex": True, "replacement": "x"}

    # When the pattern is searched and replaced while another person lists the books
    token = workbench.client.headers
    with (
        ThreadPoolExecutor(2) as pool,
        httpx2.Client(base_url=workbench.url, headers=token, timeout=ANSWER_S) as replacer,
        httpx2.Client(base_url=workbench.url, headers=token, timeout=ANSWER_S) as lister,
    ):
        searching = pool.submit(
            lambda: workbench.client.get(f"/api/books/{book}/search", params=search)
        )
        replacing = pool.submit(lambda: replacer.post(f"/api/books/{book}/replace", json=replace))
        meanwhile = [lister.get("/api/books") for _ in range(3)]
        found = searching.result(timeout=ANSWER_S)
        preview = replacing.result(timeout=ANSWER_S)

    # Then everything is answered: no match, nothing to replace, the books listed meanwhile
    assert found.status_code == 200, found.text
    assert found.json()["total"] == 0
    assert preview.status_code == 200, preview.text
    assert preview.json() == []
    assert [answer.status_code for answer in meanwhile] == [200, 200, 200]


def test_a_catastrophic_chapter_pattern_at_import_does_not_hold_the_server(
    workbench: Workbench,
):
    # Given a text file with a line of 78 "a" and a "b" (a chapter heading is at most 80
    # characters): Python's re took 0.24 s on 22 of them, doubling with each one more
    text = "序\n\n" + "a" * 78 + "b\n\n第一話\n\n本文。\n"
    files = {"file": ("serial.txt", text.encode())}
    data = {"chapter_pattern": CATASTROPHIC + "|^第.話$", "again": "true"}

    # When it is imported with (a+)+$ as its chapter pattern while another person lists books
    token = workbench.client.headers
    with (
        ThreadPoolExecutor(1) as pool,
        httpx2.Client(base_url=workbench.url, headers=token, timeout=ANSWER_S) as lister,
    ):
        started = time.monotonic()
        importing = pool.submit(lambda: workbench.client.post("/api/books", files=files, data=data))
        meanwhile = [lister.get("/api/books") for _ in range(3)]
        imported = importing.result(timeout=ANSWER_S)
        took = time.monotonic() - started

    # Then it is imported at once, its chapters found, and the books were listed meanwhile
    assert imported.status_code == 201, imported.text
    assert took < ANSWER_S / 4
    assert [answer.status_code for answer in meanwhile] == [200, 200, 200]
    book = workbench.api("GET", f"/api/books/{imported.json()['id']}")
    assert [chapter["title"] for chapter in book["chapter_list"]][-1] == "第一話"


@pytest.mark.parametrize("pattern", [r"^(第)\1", "(?<=「)章", "第(?!二)"])
def test_a_chapter_pattern_only_a_backtracking_engine_runs_is_refused_in_one_line(
    workbench: Workbench, pattern: str
):
    files = {"file": ("serial.txt", "第一章\n本文。\n".encode())}

    refused = workbench.client.post(
        "/api/books", files=files, data={"chapter_pattern": pattern, "again": "true"}
    )

    assert refused.status_code == 400
    assert "time proportional to the text" in refused.json()["detail"]
    assert "\n" not in refused.json()["detail"]


@pytest.mark.parametrize("pattern", [r"(\w)\1", "(?<=「)[^」]+", "彼(?!女)"])
def test_a_regex_only_a_backtracking_engine_runs_is_refused_in_one_line(
    workbench: Workbench, pattern: str
):
    book, _ = translated_book(workbench, "他走了。")

    refused = workbench.client.get(
        f"/api/books/{book}/search", params={"q": pattern, "regex": "true"}
    )

    assert refused.status_code == 400
    assert "time proportional to the text" in refused.json()["detail"]


def test_the_refusal_of_a_backtracking_regex_speaks_the_readers_language(workbench: Workbench):
    book, _ = translated_book(workbench, "他走了。")

    refused = workbench.client.get(
        f"/api/books/{book}/search",
        params={"q": "(a)\\1", "regex": "true"},
        headers={"Accept-Language": "zh-CN"},
    )

    assert refused.status_code == 400
    assert "反向引用" in refused.json()["detail"]


@pytest.mark.parametrize("path", ["/", "/models", "/api/books", "/static/style.css", "/nothing"])
def test_every_answer_forbids_framing_sniffing_and_foreign_scripts(workbench: Workbench, path: str):
    answer = workbench.client.get(path)
    refused = httpx2.get(workbench.url.rstrip("/") + path)  # no token: refused, headers too

    for headers in (answer.headers, refused.headers):
        policy = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy
        assert "script-src 'self'" in policy
        assert "style-src 'self'" in policy
        assert headers["x-frame-options"] == "DENY"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("setting", ["approve_tools", "always_allow", "chunk_chars"])
def test_a_setting_patched_to_null_is_refused_not_a_failure(workbench: Workbench, setting: str):
    book = workbench.add_book("彼は歩いた。")

    answer = workbench.client.patch(f"/api/books/{book}/settings", json={setting: None})

    assert answer.status_code == 422
    assert setting in answer.json()["detail"]


def test_clearing_the_cap_with_null_is_still_allowed(workbench: Workbench):
    book = workbench.add_book("彼は歩いた。")
    workbench.api("PATCH", f"/api/books/{book}/settings", json={"max_cost": 2.5})

    cleared = workbench.api("PATCH", f"/api/books/{book}/settings", json={"max_cost": None})

    assert cleared["max_cost"] is None


def test_the_estimate_of_a_fully_translated_book_is_nothing_to_do(workbench: Workbench):
    book = workbench.add_book("彼は歩いた。", "雨が降っていた。")
    workbench.wait_for(workbench.start(book, "demo"), "finished")
    model = never_seen_model(workbench)

    found = workbench.api("GET", f"/api/books/{book}/estimate?kind=translation&model={model}")

    assert found["chunks"] == 0
    assert found["requests"] == 0


@pytest.mark.parametrize("kind", ["polish", "proofreading"])
def test_the_estimate_of_polishing_or_proofreading_answers(workbench: Workbench, kind: str):
    untouched = workbench.add_book("彼は歩いた。")
    translated, _ = translated_book(workbench, "他走了。")

    model = never_seen_model(workbench)

    nothing = workbench.api("GET", f"/api/books/{untouched}/estimate?kind={kind}&model={model}")
    something = workbench.api("GET", f"/api/books/{translated}/estimate?kind={kind}&model={model}")

    assert nothing["requests"] == 0
    assert something["requests"] > 0


def test_moments_in_the_api_carry_their_time_zone(workbench: Workbench):
    book, [paragraph] = translated_book(workbench, "他走了。")

    chapter = workbench.api("GET", f"/api/books/{book}/chapters/1")

    [version] = next(p for p in chapter["paragraphs"] if p["id"] == paragraph)["versions"]
    assert datetime.fromisoformat(version["created_at"]).utcoffset() is not None


def test_the_schema_says_which_settings_take_null(workbench: Workbench):
    schema = workbench.api("GET", "/openapi.json")["components"]["schemas"]["SettingsPatch"]

    chunk = schema["properties"]["chunk_chars"]
    cap = schema["properties"]["max_cost"]
    assert "anyOf" not in chunk
    assert chunk["type"] == "integer"
    assert {"type": "null"} in cap["anyOf"]
    assert schema["properties"]["approve_tools"]["items"]["enum"] == list(TOOL_NAMES)


def test_on_loopback_too_every_request_needs_the_printed_token(workbench: Workbench):
    bare = workbench.url

    refused = [
        httpx2.get(bare + "api/books"),
        httpx2.get(bare),
        httpx2.get(bare + "openapi.json"),
        httpx2.post(bare + "api/models/check", json={"name": "x", "model": "m"}),
    ]
    wrong = httpx2.get(bare + "api/books", headers={"Authorization": "Bearer guess"})
    with_cookie = httpx2.get(bare, cookies=workbench.cookie)
    handed = httpx2.get(f"{bare}?token={workbench.token}", follow_redirects=False)

    assert bare.startswith("http://127.0.0.1:")
    assert [answer.status_code for answer in refused] == [401, 401, 401, 401]
    assert wrong.status_code == 401
    assert with_cookie.status_code == 200
    assert handed.status_code == 303
    assert f"honyaku_token_{workbench.port}={workbench.token}" in handed.headers["set-cookie"]


@pytest.mark.parametrize(
    ("path", "place"),
    [
        ("//evil.example/x", "/evil.example/x"),
        ("/\\evil.example/x", "/evil.example/x"),
        ("///evil.example/", "/evil.example/"),
        ("/books/x", "/books/x"),
    ],
)
def test_the_token_in_an_address_never_sends_the_browser_to_another_host(
    workbench: Workbench, path: str, place: str
):
    # An address with two slashes was sent back as //evil.example/x: another host to a browser
    origin = workbench.url.rstrip("/")
    with socket.create_connection(("127.0.0.1", workbench.port), timeout=10) as connection:
        connection.sendall(
            f"GET {path}?token={workbench.token}&a=1 HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{workbench.port}\r\nConnection: close\r\n\r\n".encode()
        )
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    location = next(
        line.split(":", 1)[1].strip() for line in head if line.lower().startswith("location:")
    )

    assert head[0].split()[1] == "303"
    assert location == f"{place}?a=1"
    assert urlsplit(urljoin(origin + "/", location)).netloc == urlsplit(origin).netloc


def test_the_api_is_described_at_openapi_json_and_no_page_loads_scripts_from_elsewhere(
    workbench: Workbench,
):
    described = workbench.client.get("/openapi.json")
    # Swagger UI and ReDoc load their scripts from a CDN the workbench's own policy blocks:
    # they rendered blank, so they are not served
    pages = [workbench.client.get(path) for path in ("/docs", "/redoc")]

    assert described.status_code == 200
    assert described.json()["info"]["title"] == "honyaku"
    assert [page.status_code for page in pages] == [404, 404]
    assert not any("cdn.jsdelivr.net" in page.text for page in pages)


def test_no_token_serves_loopback_as_before_and_says_so_in_the_terminal(tmp_path):
    process, printed = serve(tmp_path / "home", "--no-token")
    try:
        answer = httpx2.get(printed + "api/books")
    finally:
        errors = stop(process)

    assert "?token=" not in printed
    assert answer.status_code == 200
    assert "--no-token" in errors
    assert "warning" in errors


def test_no_token_beyond_loopback_is_refused_in_one_line(tmp_path):
    finished = subprocess.run(
        [sys.executable, "-m", "honyaku", "serve", "--host", "0.0.0.0", "--no-token"],
        capture_output=True,
        text=True,
        env={**os.environ, "HONYAKU_HOME": str(tmp_path / "home")},
        timeout=60,
    )

    assert finished.returncode != 0
    assert "always needs its token" in finished.stderr
    assert "Traceback" not in finished.stderr


def test_an_unexpected_failure_closes_its_connection_and_the_next_request_is_answered(
    honyaku: Honyaku,
):
    app = create_app(WorkbenchState(honyaku, WebFrontEnd(grace_s=0.1)), hosts=None)

    async def failing() -> None:
        raise RuntimeError("a defect")

    app.add_api_route("/api/failing", failing)
    with BackgroundServer(app) as server, httpx2.Client(base_url=server.origin) as client:
        failed = client.get("/api/failing")
        after = client.get("/api/books")  # on the same client, as a browser would

    assert failed.status_code == 500
    assert failed.headers["connection"] == "close"
    assert "Traceback" not in failed.text
    assert after.status_code == 200


@contextmanager
def page_elsewhere(html: str) -> Iterator[str]:
    """A page served on another port of this machine: its address."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_page_on_another_port_cannot_frame_the_workbench(workbench: Workbench, page: Page):
    # Given a book, and a page elsewhere that frames the book's page (its Start button
    # under a decoy) in a browser that holds the workbench's token
    book = workbench.add_book("彼は歩いた。")
    frame_html = f'<!doctype html><title>decoy</title><iframe src="{workbench.url}books/{book}">'
    page.goto(workbench.url)
    expect(page.locator("#import-form")).to_be_visible()

    # When the browser opens that page
    with page_elsewhere(frame_html) as elsewhere:
        page.goto(elsewhere)
        page.wait_for_load_state("load")
        framed = page.frames[1]

        # Then the frame holds nothing of the workbench: no button to click
        assert framed.locator("button, form, nav").count() == 0
