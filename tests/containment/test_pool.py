"""A command user belongs to one gate at a time, on the whole machine: a gate never hands a command a
uid that another gate (another run, another job of a self-hosted runner) holds, nor one whose
processes another gate's reaper is still on its way to end, so that no gate ever kills a command of
another (which that run would report as its program's crash: a false FAIL). And a gate's reaper
serves it as long as the gate lives, whichever thread started it.

Each race is forced, not timed: a reaper that has not yet been scheduled is modelled by stopping it
(SIGSTOP) across the step it would be late for. Driven as root in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from gate.containment.users import COMMAND_USER_VARIABLE
from tests.support.users import as_root

COMMON = """
import json, os, signal, subprocess, sys, threading, time
from gate.containment.users import UserPool


def reapers():
    # The reapers this process started (their command line names the script).
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and b"reaper.py" in cmdline:
            found.append(int(name))
    return found


def command_as(uid):
    return subprocess.Popen(["sleep", "60"], user=uid, group=uid, extra_groups=[])


def fate(process):
    # "running" unless it ended or a SIGKILL waits for it (sent, not yet delivered).
    if process.poll() is not None:
        return f"ended {process.returncode}"
    with open(f"/proc/{process.pid}/status") as handle:
        status = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
    pending = int(status["SigPnd"], 16) | int(status["ShdPnd"], 16)
    return "SIGKILL pending" if pending & (1 << 8) else "running"
"""

ANOTHER_GATE = (
    COMMON
    + """
first, second = UserPool(), UserPool()  # two gates: each its own pool and reaper
held = first.acquire()
first.end_user(held)  # its command ended: the uid waits in the first gate's pool for its next command
reaper = reapers()[0]
os.kill(reaper, signal.SIGSTOP)  # the first gate's reaper, not scheduled yet ...
given = second.acquire()
command = command_as(given)
os.kill(reaper, signal.SIGTERM)  # ... when its gate ends (its death, or its own ending at exit)
os.kill(reaper, signal.SIGCONT)
os.waitpid(reaper, 0)  # it has ended every uid it served
seen = {"held": held, "given": given, "command": fate(command)}
other = first.acquire()  # the first gate's reaper is gone: a new one, and a uid the second does not hold
seen["other"] = other
command.kill()
command.wait()
second.end_user(given)
first.end_user(other)
first.close()
second.close()
print(json.dumps(seen))
"""
)

THREAD_GONE = (
    COMMON
    + """
pool = UserPool()
first, done, go = [], threading.Event(), threading.Event()


def trial():  # a thread that ends its user (as a scope's aclose does, in an executor's thread)
    uid = pool.acquire()
    pool.end_user(uid)
    first.append(uid)
    done.set()
    go.wait()


worker = threading.Thread(target=trial)
worker.start()
done.wait()
[reaper] = reapers()
os.kill(reaper, signal.SIGSTOP)  # not scheduled while the thread ends
go.set()
worker.join()
while str(worker.native_id) in os.listdir("/proc/self/task"):
    time.sleep(0.01)
given = pool.acquire()
command = command_as(given)
os.kill(reaper, signal.SIGCONT)
other = pool.acquire()  # a round trip to the reaper: whatever it was told meanwhile, it has done
pool.end_user(other)
seen = {"first": first[0], "given": given, "command": fate(command), "reapers": reapers() == [reaper]}
command.kill()
command.wait()
pool.end_user(given)
pool.close()
print(json.dumps(seen))
"""
)


def _drive(script: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    env.pop(COMMAND_USER_VARIABLE, None)
    done = subprocess.run(
        as_root([sys.executable, "-c", script], env), env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return seen


def test_a_uid_another_gate_holds_or_is_still_ending_is_never_handed_out() -> None:
    """The first gate holds a uid between two commands; its reaper is late to end that uid's processes
    when the gate ends: the second gate's command, started meanwhile, is not one of them."""
    seen = _drive(ANOTHER_GATE)
    assert seen["given"] != seen["held"]
    assert seen["command"] == "running", "the other gate's reaper killed this gate's command"
    assert seen["other"] != seen["given"]


def test_the_reaper_outlives_the_thread_that_started_it() -> None:
    """The reaper was started by a thread of the gate (an executor's) that has ended since: it still
    serves the gate, and ends nothing of a command it was not asked to."""
    seen = _drive(THREAD_GONE)
    assert seen["given"] == seen["first"]  # the uid served again, as it should
    assert seen["command"] == "running", "the reaper killed a running command when a thread of the gate ended"
    assert seen["reapers"], "the reaper did not survive the thread that started it"


GATE_KILLED = """
import os, signal, subprocess, sys, time
from gate.containment.users import UserPool

pool = UserPool()
uid = pool.acquire()
command = subprocess.Popen(["sleep", "60"], user=uid, group=uid, extra_groups=[], start_new_session=True)
print(command.pid, flush=True)
time.sleep(60)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended and not yet reaped by init, does not)."""
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def test_nothing_of_a_command_outlives_a_gate_killed_in_its_trial() -> None:
    """The gate is killed (SIGKILL: the job's timeout, an OOM kill) while its first command runs: its
    reaper ends that command's every process all the same."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    gate = subprocess.Popen(
        as_root([sys.executable, "-c", GATE_KILLED], env), env=env, stdout=subprocess.PIPE, text=True
    )
    assert gate.stdout is not None
    command = int(gate.stdout.readline())
    try:
        assert _running(command)
        gate.kill()
        gate.wait()
        deadline = time.monotonic() + 30.0  # ends at once; the bound is for a loaded machine
        while _running(command) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(command), "a command of the killed gate outlived it"
    finally:
        gate.stdout.close()
        if _running(command):
            subprocess.run(as_root(["kill", "-9", str(command)], env), check=False)
