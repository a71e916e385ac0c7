"""A local web app stays local: Host and Origin are checked, a token guards it beyond
loopback, and every error is one readable line, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from honyaku.application import Honyaku
from honyaku.web import Workbench

from .conftest import serve, served_here, stop

# Host, Origin and token checks read nothing of the database.


@pytest.fixture
def local(honyaku: Honyaku) -> Iterator[tuple[str, Workbench]]:
    """The workbench served on loopback in this process, its address and state."""
    with served_here(honyaku) as served:
        yield served


def test_a_request_for_another_host_name_is_refused(local):
    url, _ = local

    answer = httpx2.get(f"{url}/api/books", headers={"Host": "attacker.example"})

    assert answer.status_code == 400
    assert "Host" in answer.json()["detail"]


@pytest.mark.parametrize(
    "headers",
    [{"Origin": "http://attacker.example"}, {"Sec-Fetch-Site": "cross-site"}],
    ids=["origin", "fetch-metadata"],
)
def test_a_change_asked_from_another_site_is_refused_and_nothing_changes(
    local, library, book_id, headers
):
    url, _ = local

    answer = httpx2.delete(f"{url}/api/books/{book_id}", headers=headers)

    assert answer.status_code == 403
    assert [b.id for b in library.list_books()] == [book_id]


def test_a_change_from_the_workbench_itself_is_allowed(local, library, book_id):
    url, _ = local

    answer = httpx2.delete(f"{url}/api/books/{book_id}", headers={"Origin": url})

    assert answer.status_code == 204
    assert library.list_books() == []


def test_errors_are_one_readable_line_in_json_or_a_page(local):
    url, _ = local

    missing = httpx2.get(f"{url}/api/books/deadbeef")
    page = httpx2.get(f"{url}/books/deadbeef")
    invalid = httpx2.post(f"{url}/api/models", json={"name": "x"})
    nonsense = httpx2.post(
        f"{url}/api/books", files={"file": ("x.epub", b"PK\x03\x04 not really a zip")}
    )

    assert missing.status_code == 404
    assert missing.json() == {"detail": "no book with id 'deadbeef'"}
    assert page.status_code == 404
    assert "no book with id" in page.text
    assert invalid.status_code == 422
    assert "model: Field required" in invalid.json()["detail"]
    assert nonsense.status_code == 400
    assert nonsense.json()["detail"].startswith("x.epub: ")  # the file's own name, not "book"
    for answer in (missing, page, invalid, nonsense):
        assert "Traceback" not in answer.text


def test_an_upload_larger_than_the_cap_is_refused_and_nothing_is_imported(local, library):
    url, bench = local
    bench.upload_limit_bytes = 1000

    answer = httpx2.post(f"{url}/api/books", files={"file": ("big.txt", "本文。\n".encode() * 500)})

    assert answer.status_code == 400
    assert "larger than" in answer.json()["detail"]
    assert library.list_books() == []


def test_the_api_is_described_by_openapi(local):
    url, _ = local

    # The first request builds the whole schema: seconds on a loaded machine.
    paths = httpx2.get(f"{url}/openapi.json", timeout=60).json()["paths"]

    for path in (
        "/api/books",
        "/api/books/{book_id}/jobs",
        "/api/jobs/{job_id}/events",
        "/api/questions",
        "/api/questions/{request_id}/answer",
        "/api/models",
    ):
        assert path in paths


def test_served_beyond_loopback_every_request_needs_the_printed_token(tmp_path):
    process, url = serve(tmp_path / "home", "--host", "0.0.0.0")
    try:
        bare = url.split("?")[0]
        token = url.split("token=")[1]
        port = bare.rstrip("/").rsplit(":", 1)[1]
        refused = httpx2.get(f"{bare}api/books")
        handed = httpx2.get(url, follow_redirects=False)
        deep = httpx2.get(f"{bare}jobs?token={token}&view=all", follow_redirects=False)
        with_cookie = httpx2.get(bare, cookies={f"honyaku_token_{port}": token})
        other_port = httpx2.get(bare, cookies={"honyaku_token_1": token})
        with_bearer = httpx2.get(f"{bare}api/books", headers={"Authorization": f"Bearer {token}"})
        wrong = httpx2.get(f"{bare}api/books", headers={"Authorization": "Bearer guess"})
    finally:
        stop(process)

    assert "?token=" in url
    assert not url.startswith("http://127.0.0.1"), "on every interface, say the machine's name"
    assert refused.status_code == 401
    assert handed.status_code == 303
    assert f"honyaku_token_{port}={token}" in handed.headers["set-cookie"]
    assert deep.headers["location"] == "/jobs?view=all"
    assert with_cookie.status_code == 200
    assert other_port.status_code == 401
    assert with_bearer.status_code == 200
    assert wrong.status_code == 401
