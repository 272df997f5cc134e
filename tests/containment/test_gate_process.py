"""The gate process hardened: another process of its user can no longer read its environment (where the
keys are) or its memory; without it, it can."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.users import as_a_job_user

HOLDER = """
import sys, time
from gate.containment.gate_process import harden
if sys.argv[1] == "hardened":
    assert harden()
print("ready", flush=True)
time.sleep(30)
"""
READER = """
import sys
for part in ("environ", "mem"):
    try:
        with open(f"/proc/{sys.argv[1]}/{part}", "rb") as handle:
            data = handle.read(1 << 20).decode("latin-1")
            print(part, sys.argv[2] in data if part == "environ" else "readable")
    except OSError as exc:
        print(part, "refused", exc.errno)
"""


@pytest.mark.parametrize(("state", "seen"), [("hardened", False), ("as started", True)])
def test_a_process_of_the_same_user_cannot_read_the_hardened_gate(state: str, seen: bool) -> None:
    secret = "sk-hardened-" + secrets.token_hex(12)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "OPENAI_API_KEY": secret}
    holder = subprocess.Popen(
        as_a_job_user([sys.executable, "-c", HOLDER, state]), env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        reader_env = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
        done = subprocess.run(
            as_a_job_user([sys.executable, "-c", READER, str(holder.pid), secret]),
            env=reader_env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        holder.kill()
        holder.wait()
    if seen:
        assert done.stdout.splitlines()[0] == "environ True", done.stdout + done.stderr
    else:
        assert done.stdout.splitlines() == ["environ refused 13", "mem refused 13"], done.stdout + done.stderr
