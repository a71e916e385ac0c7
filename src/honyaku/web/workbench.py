"""What one ``honyaku serve`` process holds: the library, its jobs, the person's dialogs."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from honyaku.agent.broker import Broker
from honyaku.assistant import ChatService
from honyaku.errors import NotFoundError
from honyaku.jobs import JobService
from honyaku.jobs.runs import JobProgress, JobRuns
from honyaku.llm.models import DEMO_MODEL, ModelChoice
from honyaku.store import Library, ModelProfiles
from honyaku.web.front_end import WebFrontEnd

MAX_UPLOAD_BYTES = 256 * 1024 * 1024


@dataclass
class Workbench:
    library: Library
    broker: Broker
    front_end: WebFrontEnd
    jobs: JobService
    runs: JobRuns
    chats: ChatService
    profiles: ModelProfiles
    upload_limit_bytes: int = MAX_UPLOAD_BYTES

    @classmethod
    def open(cls, library: Library, *, grace_s: float | None = None) -> Workbench:
        broker = Broker()
        front_end = WebFrontEnd() if grace_s is None else WebFrontEnd(grace_s)
        jobs = JobService(library, broker)
        runs = JobRuns(jobs)
        chats = ChatService(library, broker, runs)
        return cls(library, broker, front_end, jobs, runs, chats, ModelProfiles(library.database))

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
        return self.runs.progress(job_id)


def workbench(request: Request) -> Workbench:
    """The workbench of the app that got ``request`` (a FastAPI dependency)."""
    found: Workbench = request.app.state.workbench
    return found
