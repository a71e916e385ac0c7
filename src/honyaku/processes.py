"""Whether a process on this machine is still running: leases and half-written exports name
the process that made them, and what a dead one left behind may be taken over."""

from __future__ import annotations

import os


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True
