"""Who commands run as: a user of their own where the gate can switch users (root), the gate's own
user elsewhere or where ``TOOL_EVAL_GATE_COMMAND_USER=gate`` says so; anything else is refused."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from gate.containment.users import COMMAND_USER_VARIABLE, command_user
from gate.errors import InputError
from tests.support.users import as_a_job_user, as_root

ASK = "import sys; from gate.containment.users import command_user as c; print(c({'%s': sys.argv[1]}))"


def test_the_variable_says_own_or_gate_and_nothing_else() -> None:
    assert command_user({COMMAND_USER_VARIABLE: "gate"}) == "gate"
    assert command_user({COMMAND_USER_VARIABLE: " GATE "}) == "gate"
    with pytest.raises(InputError, match="say 'own'"):
        command_user({COMMAND_USER_VARIABLE: "root"})


def test_root_gives_commands_a_user_of_their_own_a_job_user_cannot() -> None:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    env.pop(COMMAND_USER_VARIABLE, None)
    script = ["-c", ASK % COMMAND_USER_VARIABLE]
    root = subprocess.run(
        as_root([sys.executable, *script, ""], env), env=env, capture_output=True, text=True
    )
    assert root.stdout.strip() == "own", root.stderr
    job = subprocess.run(
        as_a_job_user([sys.executable, *script, ""]), env=env, capture_output=True, text=True
    )
    assert job.stdout.strip() == "gate", job.stderr
    asked = subprocess.run(
        as_a_job_user([sys.executable, *script, "own"]), env=env, capture_output=True, text=True
    )
    assert "cannot give commands a user of their own unless it runs as root" in asked.stderr
