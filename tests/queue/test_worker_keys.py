"""A worker finds a profile's key by name in its own key store: the machine that queues the
job has no key, the order names the key and holds none, and no table holds it afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from honyaku.store import Database, JobStatus, Library, Stores
from honyaku.testing import FakeLLMServer

from ..conftest import every_value
from .conftest import Workers, assert_translated_once, honyaku, queue, wait_for_end

KEY = "sk-worker-9d8c7b6a5f4e3d2c"


def test_a_worker_resolves_a_profiles_key_by_name_from_its_own_key_store(
    home: Path,
    stores: Stores,
    library: Library,
    queued_book: str,
    workers: Workers,
    key_store: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
):
    # Given a worker machine whose key store alone holds the key (set as its operator would)
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    worker_machine = {"HONYAKU_CONFIG_DIR": str(tmp_path / "worker-config")}
    subprocess.run(
        [sys.executable, "-m", "honyaku", "keys", "set", "DEEPSEEK_API_KEY"],
        input=KEY,
        text=True,
        env={**os.environ, **worker_machine},
        check=True,
        capture_output=True,
    )
    with FakeLLMServer(api_key=KEY) as model:
        # And a profile that names the key, saved and queued from a machine without it
        honyaku(
            "models", "add", "deepseek", "--model", "fake-translator", "--base-url", model.url,
            "--protocol", "native", "--key", "DEEPSEEK_API_KEY",
        )  # fmt: skip
        assert not key_store.exists()

        job_id = queue(queued_book, "deepseek")
        queued = stored_values(home)

        # When a worker of that machine takes the job
        worker = workers.start("--concurrency", "2", env=worker_machine)
        status = wait_for_end(stores, job_id)

    # Then it reached the model with that key (the server refuses any other) and finished
    assert status is JobStatus.FINISHED, stores.jobs.get(job_id).error
    assert model.requests
    assert_translated_once(library, queued_book)
    # And the key was in no order while it was queued, nor in any table after the job, nor
    # in the worker's output
    assert "honyaku:deepseek" in queued  # the profile's queue: the orders were searched
    assert KEY not in queued
    stored = stored_values(home)
    assert "DEEPSEEK_API_KEY" in stored
    assert KEY not in stored
    assert KEY not in workers.output(worker)


def stored_values(home: Path) -> str:
    database = Database.open(home)
    try:
        return every_value(database)
    finally:
        database.close()
