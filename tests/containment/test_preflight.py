"""Where commands get a user of their own, one that user cannot run is invalid input before anything
starts (exit 2), at the line that names it, saying which directory stops it and what to do."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from gate.containment.users import COMMAND_USER_VARIABLE
from tests.support.users import as_root

SUITE = """\
version: 1
name: hidden
agent:
  command: [python3, agent.py]
  tools:
    - type: function
      function: {name: get_weather, description: The weather., parameters: {type: object}}
cases:
  - {id: c1, input: Weather in Paris?}
"""


def test_a_repository_its_user_cannot_read_is_refused_at_the_command() -> None:
    top = Path(tempfile.mkdtemp(prefix="tool-eval-gate-preflight-"))
    try:
        _refused_at_the_command(top)
    finally:
        shutil.rmtree(top)


def _refused_at_the_command(top: Path) -> None:
    os.chmod(top, 0o755)
    hidden = top / "hidden"
    (hidden / "repo").mkdir(parents=True)
    os.chmod(hidden, 0o700)  # as a home only its owner may enter
    (hidden / "repo" / "s.suite.yaml").write_text(SUITE)
    (hidden / "repo" / "agent.py").write_text("print('never started')\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "OPENAI_API_KEY": "sk-x" * 4}
    env.pop(COMMAND_USER_VARIABLE, None)
    root = hidden / "repo"
    command = [sys.executable, "-m", "gate", "run", "--root", str(root), "--allow-commands", str(root)]
    done = subprocess.run(as_root(command, env), env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        f"s.suite.yaml:4:12: the agent program 'python3' cannot run as a user of its own: {hidden}"
        in done.stderr
    )
    assert f"{hidden} is not searchable by other users" in done.stderr
    assert f"{COMMAND_USER_VARIABLE}=gate" in done.stderr and "Traceback" not in done.stderr
