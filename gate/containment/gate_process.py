"""The gate process itself, made unreadable by the commands it starts.

``harden()`` marks the process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``): its ``/proc/<pid>/``
files then belong to root, and a process of the same user without ``CAP_SYS_PTRACE`` can no longer
read its ``environ`` (where the provider keys and the action's ``INPUT_*`` are), ``mem``, ``fd`` or
``maps``, nor attach a debugger; no core dump is written either. Its command line stays readable by
anyone, as every process's is: it holds no secret. It must be called before the first command starts
(``run`` does it before the MCP servers list their tools), and it is kept for the rest of the process.
Elsewhere than Linux it does nothing and says so.
"""

from __future__ import annotations

import ctypes
import sys

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3


def _prctl(option: int, value: int = 0) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, value, 0, 0, 0))


def harden() -> bool:
    """Make this process non-dumpable; whether it is now (False where the platform has no such thing)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        _prctl(PR_SET_DUMPABLE, 0)
        return _prctl(PR_GET_DUMPABLE) == 0
    except (OSError, AttributeError):
        return False
