"""A command's scope where the gate runs as root: the command runs as a uid of its own, in no group,
with a private home; commands running at once get different uids; when the scope closes every process
of that uid is ended (a ``setsid`` daemon too) and the home removed, and the uid serves again. A uid
some other process already has is never taken. Driven as root in a process of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gate.containment.users import COMMAND_USER_VARIABLE, FIRST_UID
from tests.support.users import as_root, open_directory, reachable_python

DRIVER = """
import asyncio, json, os, subprocess, sys, time
from gate.containment.scope import open_scope
from gate.containment.users import FIRST_UID, POOL

PYTHON, PLACE = sys.argv[1], sys.argv[2]
PROGRAM = '''
import json, os, subprocess, sys, time
daemon = subprocess.Popen(["sleep", "60"], start_new_session=True)
home = os.environ["HOME"]
status = open("/proc/self/status").read()
print(json.dumps({"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "home": home,
                  "tmp": os.environ["TMPDIR"], "owner": os.stat(home).st_uid,
                  "mode": oct(os.stat(home).st_mode & 0o777), "daemon": daemon.pid,
                  "no_new_privs": "NoNewPrivs:\t1" in status}), flush=True)
time.sleep(60)
'''


def running(pid):  # a zombie (ended, not yet reaped by init) does not run
    try:
        with open(f"/proc/{pid}/status") as status:
            return "State:\tZ" not in status.read()
    except OSError:
        return False


async def main():
    squatter = subprocess.Popen(["sleep", "60"], user=FIRST_UID, group=FIRST_UID, extra_groups=[])
    try:
        first, second = open_scope(os.environ), open_scope(os.environ)
    finally:
        squatter.kill()
        squatter.wait()
    seen = {"uids": [first.uid, second.uid]}
    env = first.environment({"PATH": os.defpath})
    process = await first.start([PYTHON, "-c", PROGRAM], cwd=PLACE, env=env, limit=1 << 16)
    seen["program"] = json.loads(await process.stdout.readline())
    home = first.home
    await first.end(process)
    first.close()
    second.close()
    time.sleep(0.2)
    seen["daemon_alive"] = running(seen["program"]["daemon"])
    seen["home_left"] = os.path.exists(home)
    third = open_scope(os.environ)
    seen["reused"] = third.uid
    third.close()
    POOL.close()
    print(json.dumps(seen))


asyncio.run(main())
"""


def test_a_command_runs_as_a_uid_of_its_own_and_everything_of_it_ends_with_its_scope() -> None:
    place = open_directory(Path(os.environ.get("TMPDIR", "/tmp")) / f"tool-eval-gate-scope-{os.getpid()}")
    try:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        env.pop(COMMAND_USER_VARIABLE, None)
        done = subprocess.run(
            as_root([sys.executable, "-c", DRIVER, reachable_python(), str(place)], env),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout.splitlines()[-1])
    finally:
        os.rmdir(place)
    first, second = seen["uids"]
    assert FIRST_UID < first != second  # FIRST_UID was some other process's: not taken
    program = seen["program"]
    assert (program["uid"], program["gid"], program["groups"]) == (first, first, [])
    assert program["no_new_privs"]  # a setuid program gives it nothing
    assert program["home"] == program["tmp"] and program["owner"] == first and program["mode"] == "0o700"
    assert not seen["daemon_alive"], "a setsid process of the command outlived its scope"
    assert not seen["home_left"]
    assert seen["reused"] in (first, second)
