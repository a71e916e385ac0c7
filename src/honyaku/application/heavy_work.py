"""Where CPU-heavy work runs: threads of its own, apart from the event loop and from the
threads the database is read on.

A request that computes for seconds (a trial's chrF++ over long paragraphs, a comparison of
two long versions, the side-by-side page of a long trial, an export) would hold every other
request if it ran on the event loop; run in the loop's default threads, a few of them at once
would take every thread the database is read on, and every request would wait all the same.
Here they take turns on ``HEAVY_THREADS`` threads; what they compute is theirs to cache.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

HEAVY_THREADS = 2
"""Heavy work at once; more waits its turn, and light requests never wait for it."""

_P = ParamSpec("_P")
_T = TypeVar("_T")
_threads = ThreadPoolExecutor(HEAVY_THREADS, thread_name_prefix="honyaku-heavy")


async def run_heavy(work: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``work(*args, **kwargs)`` on a heavy work thread, in this context (the reader's
    language, say); its result."""
    context = contextvars.copy_context()
    call = functools.partial(context.run, work, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_threads, call)
