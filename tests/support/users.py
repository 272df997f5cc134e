"""Running the gate as CI runs it, for the containment tests: as root (the action's container, a CLI
run as root), or as a job's user. Where the tests run as root, a job's user is modelled by root
without any capability (``setpriv``): the uid alone, which is what a process is to another process of
its user (it may read its ``/proc`` files unless they are non-dumpable, signal it, write its files).
Where they do not run as root, root is reached through ``sudo -n``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gate.containment.reach import unreachable


def as_root(command: list[str], env: dict[str, str]) -> list[str]:
    """``command`` as root: as it is where the tests run as root, else through sudo (which resets the
    environment: ``env`` is passed again on the command line)."""
    if os.geteuid() == 0:
        return command
    return ["sudo", "-n", "env", *(f"{k}={v}" for k, v in env.items()), *command]


def as_a_job_user(command: list[str]) -> list[str]:
    """``command`` as a job's user (see the module doc), started with ``exec`` from a shell that held
    the environment, as the documented workflow starts the CLI."""
    shell = ["bash", "-c", 'exec "$@"', "bash", *command]
    if os.geteuid() != 0:
        return shell
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", *shell]


def reachable_python() -> str:
    """An interpreter a user of its own can run (the one running the tests may live where only root can
    enter, as under ``/root``): for programs that need only the standard library."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate) and not unreachable(candidate, execute=True):
            return os.path.realpath(candidate)
    raise AssertionError("no Python interpreter that other users can run")


def open_directory(path: Path) -> Path:
    """``path`` made, readable and enterable by every user."""
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o755)
    return path
