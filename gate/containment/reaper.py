"""The reaper of a gate that runs as root: a small process (``python -I -S reaper.py``, standard
library only, never imported) that holds the gate's command users and ends every process of one when
asked. The gate cannot end them itself: ``kill(-1, SIGKILL)`` reaches every process of the caller's
user only when the caller *is* that user, and the gate (threads, an event loop) must not fork to
become it. The reaper is single-threaded: for each request it forks a child that takes the uid and
sends SIGKILL to every process it may signal (all of that user's, whatever session, group or parent
they have), and answers once that child is done.

    reaper.py FIRST_UID LAST_UID LOCKS
    stdin: "take UID\\n"  stdout: "took UID\\n" (it is this gate's now) or "busy UID\\n" (another's)
    stdin: "kill UID\\n"  stdout: "killed UID\\n" (ended, and still this gate's) or "unheld UID\\n"

A uid is a gate's while its reaper holds an exclusive ``flock`` on ``LOCKS/UID`` (a directory only
root writes, the same for every gate of the machine): taken before the uid is first handed to a
command, held while the reaper lives, and released only when the reaper exits, after it has ended
every process of every uid it held. So no two gates ever share a uid, and a uid is never handed to a
new command of another gate while a kill of it is still on its way. A uid whose lock the reaper does
not hold (a reaper started again after the first one was killed, and another gate took the uid
meanwhile) is not killed: its processes may be that gate's commands.

It kills only users between FIRST_UID and LAST_UID (the command users' range), never another.

On end of input (the gate closed it, or died: the kernel closes its end) or SIGTERM it ends every user
it holds, so that nothing of theirs outlives the gate, and exits. It takes no signal from the death
of the thread that started it (``PR_SET_PDEATHSIG`` would: the gate starts it from whichever of its
threads first needs it, and that thread may end long before the gate).
"""

from __future__ import annotations

import _signal as signal  # type: ignore[import-not-found]  # the C module: ``signal`` imports enum
import fcntl
import os
import sys

_held: dict[int, int] = {}  # uid -> the descriptor of its lock file
_locks: list[str] = []


def _take(uid: int) -> bool:
    """Hold ``uid``'s lock (True), or find another gate holding it (False)."""
    if uid in _held:
        return True
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(os.path.join(_locks[0], str(uid)), flags, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    _held[uid] = fd
    return True


def _kill_user(uid: int) -> None:
    """SIGKILL every process of ``uid`` (one pass of ``kill(-1)`` by a child running as ``uid``: the
    kernel signals them all at once, so none can fork its way past it)."""
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
    for uid in sorted(_held):
        _kill_user(uid)
    os._exit(0)  # the locks go with the process, after every kill


def _answer(word: str, uid: int) -> str:
    if word == "take":
        return "took" if _take(uid) else "busy"
    if not _take(uid):
        return "unheld"
    _kill_user(uid)
    return "killed"


def main() -> None:
    first, last = int(sys.argv[1]), int(sys.argv[2])
    _locks.append(sys.argv[3])
    signal.signal(signal.SIGTERM, _end)
    for line in sys.stdin:
        words = line.split()
        if len(words) == 2 and words[0] in ("take", "kill") and words[1].isdigit():
            uid = int(words[1])
            answer = _answer(words[0], uid) if first <= uid <= last and first > 0 else "busy"
            sys.stdout.write(f"{answer} {uid}\n")
            sys.stdout.flush()
    _end()


if __name__ == "__main__":
    main()
