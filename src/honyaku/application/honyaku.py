"""``Honyaku``: one library and everything that works on it, wired once.

Every front end (the terminal, the web workbench, the assistant's tools through what it is
handed here, workers) calls these use cases and nothing below them. Each method that reads
or writes the library is a coroutine whose database work runs in a worker thread, so no
event loop ever waits on the database (see ``honyaku.store``). The person's dialogs reach
whatever front end attaches itself to ``broker``.
"""

from __future__ import annotations

from pathlib import Path

from honyaku.agent.broker import Broker
from honyaku.application.books import Books
from honyaku.application.cast import Cast
from honyaku.application.chats import Chats
from honyaku.application.editions import Editions
from honyaku.application.glossary import Glossary
from honyaku.application.jobs import Jobs
from honyaku.application.keys import Keys
from honyaku.application.memory import Memory
from honyaku.application.models import Models, model_opener
from honyaku.application.plans import Plans
from honyaku.application.questions import Questions
from honyaku.application.queue import queue_launcher, queue_wanted
from honyaku.application.search import Search
from honyaku.application.settings import Settings
from honyaku.application.trials import Trials
from honyaku.application.versions import Versions
from honyaku.assistant import ChatService
from honyaku.jobs import InProcessLauncher, JobLauncher, JobService, RunDeps
from honyaku.store import Database, Stores


class Honyaku:
    def __init__(self, stores: Stores, *, queued: bool = False) -> None:
        """``queued``: jobs go on the job queue, for workers to run; else they run here."""
        self.stores = stores
        self.broker = Broker()
        self.open_model = model_opener(stores)
        self.engine = JobService(RunDeps(stores, self.broker, self.open_model))
        self.launcher: JobLauncher = (
            queue_launcher(self.engine) if queued else InProcessLauncher(self.engine)
        )
        self.models = Models(stores.profiles, stores.learned, stores.library)
        self.keys = Keys()
        self.books = Books(stores)
        self.editions = Editions(stores)
        self.versions = Versions(stores.library)
        self.search = Search(stores.library)
        self.glossary = Glossary(stores.glossary)
        self.cast = Cast(stores)
        self.memory = Memory(stores)
        self.settings = Settings(stores.library)
        self.plans = Plans(stores.plans)
        self.jobs = Jobs(stores, self.engine, self.launcher, self.models, self.memory)
        self.trials = Trials(stores, self.jobs, self.models)
        self._chat_service = ChatService(self, stores.chats, self.broker, self.open_model)
        self.chats = Chats(self._chat_service, stores.chats, self.models)
        self.questions = Questions(stores)

    @classmethod
    def open(cls, home: Path | None = None, *, queued: bool | None = None) -> Honyaku:
        """honyaku over the database at ``$HONYAKU_DATABASE_URL``, else the SQLite file in
        ``home`` (``--home``, else ``$HONYAKU_HOME``, else the user data folder). Its jobs
        are ``queued`` for workers (by default when ``HONYAKU_QUEUE`` says so), else run here."""
        stores = Stores.over(Database.open(home))
        try:
            return cls(stores, queued=queued if queued is not None else queue_wanted())
        except BaseException:
            stores.database.close()
            raise

    async def aclose(self) -> None:
        """Stop the jobs running here (they resume where they stopped) and close the models
        chats opened."""
        await self.launcher.aclose()
        await self._chat_service.aclose()

    def close(self) -> None:
        self.stores.database.close()
