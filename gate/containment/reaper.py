"""The reaper of a gate that runs as root: a small process (``python -I -S reaper.py``, standard
library only, never imported) that ends every process of a command user when asked. The gate cannot
do it itself: ``kill(-1, SIGKILL)`` reaches every process of the caller's user only when the caller
*is* that user, and the gate (threads, an event loop) must not fork to become it. The reaper is
single-threaded: for each request it forks a child that takes the uid and sends SIGKILL to every
process it may signal (all of that user's, whatever session, group or parent they have), and
answers once that child is done.

    reaper.py FIRST_UID LAST_UID      stdin: "kill UID\\n" ...    stdout: "killed UID\\n" for each

It kills only users between FIRST_UID and LAST_UID (the command users' range), never another.

On end of input, SIGTERM or the gate's death (``PR_SET_PDEATHSIG``) it ends every user it was asked
about, so that nothing of theirs outlives the gate, and exits.
"""

from __future__ import annotations

import _signal as signal  # type: ignore[import-not-found]  # the C module: ``signal`` imports enum
import ctypes
import os
import sys

PR_SET_PDEATHSIG = 1

_seen: set[int] = set()
_range: list[int] = []


def _kill_user(uid: int) -> None:
    """SIGKILL every process of ``uid`` (one pass of ``kill(-1)`` by a child running as ``uid``: the
    kernel signals them all at once, so none can fork its way past it)."""
    _seen.add(uid)
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        os._exit(0)
    os.waitpid(pid, 0)


def _end(signum: int = 0, frame: object = None) -> None:
    for uid in sorted(_seen):
        _kill_user(uid)
    os._exit(0)


def main() -> None:
    first, last = int(sys.argv[1]), int(sys.argv[2])
    parent = os.getppid()
    signal.signal(signal.SIGTERM, _end)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the gate's own ending is the only one
        pass
    if os.getppid() != parent:  # the gate died before the death signal was set
        _end()
    for line in sys.stdin:
        words = line.split()
        if len(words) == 2 and words[0] == "kill" and words[1].isdigit():
            uid = int(words[1])
            if first <= uid <= last and first > 0:
                _kill_user(uid)
            sys.stdout.write(f"killed {uid}\n")
            sys.stdout.flush()
    _end()


if __name__ == "__main__":
    main()
