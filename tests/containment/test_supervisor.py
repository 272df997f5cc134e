"""The supervisor of a command run as the gate's own user: it exits as the command did, reports a
command that could not start, and ends every process the command started (a ``setsid`` child, a double
fork) when the command ends or when it is told to end it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from gate.containment.scope import SUPERVISOR


def supervise(*command: str) -> subprocess.Popen[bytes]:
    """``command`` (its first word a path) under the supervisor, as the gate starts it."""
    return subprocess.Popen(
        [sys.executable, "-I", "-S", SUPERVISOR, "--", command[0], *command],
        start_new_session=True,
        stdout=subprocess.PIPE,
    )


def status_of(*command: str) -> tuple[bytes, int]:
    """What the supervisor writes on its status descriptor for ``command``, and its exit status."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", SUPERVISOR, "--status-fd", str(write_end), "--", command[0], *command],
        pass_fds=(write_end,),
        start_new_session=True,
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as status:
        return status.read(), process.wait(10)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status").read_text() if Path(f"/proc/{pid}").exists() else ""
    return "State:\tZ" not in status


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def test_it_exits_as_the_command_did() -> None:
    assert supervise("/bin/sh", "-c", "exit 7").wait(10) == 7
    assert supervise("/bin/sh", "-c", "kill -TERM $$").wait(10) == -signal.SIGTERM
    assert supervise("/bin/sh", "-c", "kill -KILL $$").wait(10) == -signal.SIGKILL


def test_a_command_that_cannot_start_is_reported_on_the_status_descriptor(tmp_path: Path) -> None:
    assert status_of("/bin/sh", "-c", "exit 0") == (b"ok\n", 0)
    assert status_of("/nonexistent/agent") == (b"2\n", 127)  # ENOENT, as execve said
    (tmp_path / "agent").write_text("#!/bin/sh\n")  # not executable
    assert status_of(str(tmp_path / "agent")) == (b"13\n", 127)  # EACCES


LEAVES_A_DAEMON = """
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            open(sys.argv[1], "w").write(str(os.getpid()))
            time.sleep(60)
        os._exit(0)
    time.sleep(0.3)
    {then}
"""


def test_what_the_command_left_behind_is_ended_when_it_exits(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent(LEAVES_A_DAEMON.format(then="sys.exit(3)")))
    process = supervise(sys.executable, str(script), str(tmp_path / "daemon.pid"))
    assert process.wait(15) == 3
    daemon = int((tmp_path / "daemon.pid").read_text())
    assert wait_gone(daemon), "the double-forked setsid process outlived the command"


def test_told_to_end_it_ends_the_command_and_everything_below_it(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent(LEAVES_A_DAEMON.format(then="time.sleep(60)")))
    process = supervise(sys.executable, str(script), str(tmp_path / "daemon.pid"))
    deadline = time.monotonic() + 10
    while not (tmp_path / "daemon.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    daemon = int((tmp_path / "daemon.pid").read_text())
    time.sleep(0.4)
    os.kill(process.pid, signal.SIGTERM)
    assert process.wait(10) == -signal.SIGTERM  # the command was ended by SIGTERM, as it reports
    assert wait_gone(daemon)


def test_the_command_may_not_gain_privileges() -> None:
    """``PR_SET_NO_NEW_PRIVS``: a setuid program (sudo, su) gives nothing back."""
    process = supervise(sys.executable, "-c", "print(open('/proc/self/status').read())")
    out = process.communicate(timeout=10)[0].decode()
    assert "NoNewPrivs:\t1" in out
