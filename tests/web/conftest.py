"""A real ``honyaku serve`` process, Debian's Chromium driven by Playwright, fake models.

One workbench process serves a whole test module (each test makes its own books and model
profiles); each test gets a fresh browser page and its own fake model server. A page that
throws a script error fails its test. The server asks for its token, as it does for anyone:
the test client sends it as a bearer, a browser holds it in the cookie the printed address
sets (``browse``).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page

from honyaku.application import Honyaku
from honyaku.testing import FakeLLMServer
from honyaku.testing.server import BackgroundServer
from honyaku.web import Workbench as WorkbenchState
from honyaku.web import create_app
from honyaku.web.front_end import WebFrontEnd

from ..conftest import BROWSER_WAIT_MS

SERVE_START_S = 30.0
JOB_WAIT_S = 60.0
SERIOUS = ("critical", "serious")
SCREENSHOTS = Path(__file__).parents[2] / "build" / "test-output" / "web"
GRACE_S = "1"
"""How long a question waits for a page before nobody answers: short, so tests are quick."""


KEY_FILE = Path("config") / "keys.json"
"""Where a served workbench keeps the keys typed into it, in its home."""


@dataclass
class Workbench:
    """The served workbench: its address (without the token), its token and home, and a
    client for setting tests up that carries the token."""

    url: str
    token: str
    home: Path
    process: subprocess.Popen[str]
    client: httpx2.Client = field(init=False)

    def __post_init__(self) -> None:
        self.client = httpx2.Client(
            base_url=self.url, timeout=30, headers={"Authorization": f"Bearer {self.token}"}
        )

    @property
    def port(self) -> int:
        return int(self.url.rstrip("/").rsplit(":", 1)[1])

    @property
    def cookie(self) -> dict[str, str]:
        """The cookie a browser keeps once it opened the printed address."""
        return {f"honyaku_token_{self.port}": self.token}

    def api(self, method: str, path: str, **options: Any) -> Any:
        response = self.client.request(method, path, **options)
        assert response.status_code < 400, f"{method} {path}: {response.text}"
        return response.json() if response.content else None

    def add_book(self, *paragraphs: str, title: str = "試験の本", chapters: int = 1) -> str:
        text = "\n".join(
            f"第{n}章\n\n" + "\n\n".join(paragraphs) + "\n" for n in range(1, chapters + 1)
        )
        files = {"file": ("book.txt", text.encode())}
        data = {"title": title, "again": "true"}
        return self.api("POST", "/api/books", files=files, data=data)["id"]

    def add_model(
        self,
        name: str,
        server: FakeLLMServer,
        protocol: str = "native",
        model: str = "fake-translator",
    ) -> str:
        profile = {"name": name, "model": model, "base_url": server.url}
        self.api("POST", "/api/models", json={**profile, "protocol": protocol})
        return name

    def start(self, book: str, model: str, kind: str = "translation", **more: Any) -> str:
        body = {"kind": kind, "model": model, **more}
        return self.api("POST", f"/api/books/{book}/jobs", json=body)["id"]

    def wait_for(self, job: str, *statuses: str) -> dict[str, Any]:
        """The job once its status is one of ``statuses`` (by default, any end)."""
        wanted = statuses or ("finished", "failed", "interrupted")
        deadline = time.monotonic() + JOB_WAIT_S
        while time.monotonic() < deadline:
            found = self.api("GET", f"/api/jobs/{job}")
            if found["status"] in wanted and not (found["running_here"] and not statuses):
                return found
            time.sleep(0.1)
        raise AssertionError(f"job {job} did not reach {wanted}: {found}")


@contextmanager
def served_here(honyaku: Honyaku) -> Iterator[tuple[str, WorkbenchState]]:
    """The workbench over ``honyaku`` served on loopback in this process: its address and
    state, for tests of the API that need no browser. It takes keys, as on loopback."""
    hosts: set[str] = set()
    bench = WorkbenchState(honyaku, WebFrontEnd(grace_s=float(GRACE_S)), key_entry=True)
    with BackgroundServer(create_app(bench, hosts=hosts)) as server:
        hosts.update({f"127.0.0.1:{server.port}", f"localhost:{server.port}"})
        yield server.origin, bench


def serve(
    home: Path, *options: str, database_url: str | None = None
) -> tuple[subprocess.Popen[str], str]:
    """``honyaku serve`` started for ``home`` (and the database at ``database_url``, else the
    home's SQLite file), with a key store of its own (``KEY_FILE`` in the home's ``config``,
    no keyring: never the developer's); the process and the address it printed."""
    environment = {
        **{k: v for k, v in os.environ.items() if k != "HONYAKU_DATABASE_URL"},
        "HONYAKU_BATCH_POLL_S": "0.05",  # a job in batch mode polls the fake's batches fast
        **({"HONYAKU_DATABASE_URL": database_url} if database_url else {}),
        "HONYAKU_HOME": str(home),
        "HONYAKU_CONFIG_DIR": str(home / "config"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "HONYAKU_WEB_GRACE_S": GRACE_S,
        "HONYAKU_RETRY_BASE_S": "0.01",
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "honyaku", "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        raise AssertionError(f"honyaku serve did not start: {line}{process.communicate()[1]}")
    return process, found[0]


def served_at(printed: str) -> tuple[str, str]:
    """The address ``honyaku serve`` printed, as its base URL and its token."""
    base, _, token = printed.partition("?token=")
    return base.rstrip("/") + "/", token


def stop(process: subprocess.Popen[str]) -> str:
    """Stop the server as Ctrl-C would; what it wrote on standard error."""
    process.send_signal(signal.SIGINT)
    try:
        _, errors = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        _, errors = process.communicate()
    return errors


@pytest.fixture(scope="module")
def workbench(
    tmp_path_factory: pytest.TempPathFactory, backend: str, request: pytest.FixtureRequest
) -> Iterator[Workbench]:
    home = tmp_path_factory.mktemp("workbench")
    with ExitStack() as stack:
        database_url = None
        if backend == "postgresql":
            cluster = request.getfixturevalue("postgresql_cluster")
            database_url = stack.enter_context(cluster.database())
        process, printed = serve(home, database_url=database_url)
        served = Workbench(*served_at(printed), home, process)
        yield served
        served.client.close()
        errors = stop(process)
    assert "Traceback" not in errors, errors


@pytest.fixture
def page(browser: Browser, workbench: Workbench) -> Iterator[Page]:
    with _page(browser, workbench, "en-US") as opened:
        yield opened


@pytest.fixture
def chinese_page(browser: Browser, workbench: Workbench) -> Iterator[Page]:
    """A page of a browser that asks for Chinese (``Accept-Language: zh-CN``)."""
    with _page(browser, workbench, "zh-CN") as opened:
        yield opened


def browse(browser: Browser, workbench: Workbench, locale: str = "en-US") -> BrowserContext:
    """A browser context that opened the workbench's printed address once: it holds the
    token's cookie."""
    context = browser.new_context(
        base_url=workbench.url, locale=locale, viewport={"width": 1280, "height": 860}
    )
    context.set_default_timeout(BROWSER_WAIT_MS)
    [(name, token)] = workbench.cookie.items()
    context.add_cookies([{"name": name, "value": token, "url": workbench.url}])
    return context


@contextmanager
def _page(browser: Browser, workbench: Workbench, locale: str) -> Iterator[Page]:
    context = browse(browser, workbench, locale)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == [], errors


@pytest.fixture
def fake_model() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(latency_s=0.02) as server:
        yield server


def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=path)
    return path


def serious_violations(page: Page, path: str) -> list[tuple[str, list[str]]]:
    """axe-core's critical and serious findings on the page, its folded parts unfolded."""
    page.goto(path)
    page.wait_for_load_state("networkidle")
    for details in page.locator("details").all():
        details.evaluate("element => element.open = true")
    found = Axe().run(page).response["violations"]
    return [(v["id"], [n["html"] for n in v["nodes"]][:3]) for v in found if v["impact"] in SERIOUS]
