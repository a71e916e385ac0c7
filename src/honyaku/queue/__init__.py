"""The job queue: jobs run by workers on any number of machines, through PostgreSQL.

A deployment past one machine keeps its library in PostgreSQL, and its queue in the same
database (Procrastinate): no second server. A front end queues a job's chapters in the
transaction that opens the job (``QueueLauncher``); workers (``honyaku worker``) take them,
each chapter's chunks in order on one worker at a time, chapters side by side everywhere.
Questions wait for a person in the database, rate limits and spending caps are kept there
for every worker together, and every front end follows a job from there.

app.py        the Procrastinate app and its one task, a chapter of a queued job
orders.py     queuing chapters inside the library's transactions; withdrawing them
launcher.py   QueueLauncher: the application's launcher when the queue is on
worker.py     Worker: take chapters, run them, keep house, stop gracefully

Procrastinate (``honyaku[postgres]``) is imported when a queue is opened, not with the
package: without it, opening one says what to install.
"""

from honyaku.queue.launcher import QueueLauncher
from honyaku.queue.orders import JobQueue
from honyaku.queue.worker import StoppingGate, Worker

__all__ = ["JobQueue", "QueueLauncher", "StoppingGate", "Worker"]
