"""What one ``honyaku serve`` process holds: the library, its jobs, the person's dialogs."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from honyaku.agent.broker import Broker
from honyaku.errors import NotFoundError
from honyaku.jobs import JobService
from honyaku.llm.models import DEMO_MODEL, ModelChoice
from honyaku.store import Library, ModelProfiles
from honyaku.web.front_end import WebFrontEnd
from honyaku.web.job_runs import JobProgress, JobRuns

MAX_UPLOAD_BYTES = 256 * 1024 * 1024


@dataclass
class Workbench:
    library: Library
    broker: Broker
    front_end: WebFrontEnd
    jobs: JobService
    runs: JobRuns
    profiles: ModelProfiles
    upload_limit_bytes: int = MAX_UPLOAD_BYTES

    @classmethod
    def open(cls, library: Library, *, grace_s: float | None = None) -> Workbench:
        broker = Broker()
        front_end = WebFrontEnd() if grace_s is None else WebFrontEnd(grace_s)
        jobs = JobService(library, broker)
        return cls(library, broker, front_end, jobs, JobRuns(jobs), ModelProfiles(library.database))

    def model(self, name: str) -> ModelChoice:
        """The saved model profile called ``name``, or the built-in demo model."""
        profile = self.profiles.get(name)
        if profile is not None:
            return ModelChoice.from_profile(profile)
        if name == DEMO_MODEL:
            return ModelChoice(DEMO_MODEL)
        raise NotFoundError(f"no saved model called {name!r}: add one on the Models page")

    def job_progress(self, job_id: str) -> JobProgress:
        """The job as its page draws it: live if it runs here, else as stored."""
        if run := self.runs.get(job_id):
            return run.progress
        total, done = self.jobs.progress(job_id)
        return JobProgress.of(self.jobs.store.get(job_id), total, done)


def workbench(request: Request) -> Workbench:
    """The workbench of the app that got ``request`` (a FastAPI dependency)."""
    found: Workbench = request.app.state.workbench
    return found
