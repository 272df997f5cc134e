"""The commands a team writes, run: an agent program and an MCP server started with the repository's
virtualenv interpreter (``.venv/bin/python``, a link out of the repository) pass ``validate`` and
``run``; a command the rule refuses is never started, not even to list its tools."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

AGENT = """\
import json, sys
for line in sys.stdin:
    print(json.dumps({"content": "prefix " + sys.prefix}), flush=True)
"""

SUITE = """\
version: 1
name: venv
agent:
  command: [.venv/bin/python, agent.py]
  tools:
    - mcp: {command: [PROGRAM, server.py, --starts, starts.log]}
cases:
  - id: a
    input: hi
    expect: {no_calls: true, output: {contains: prefix}}
"""


def _repository(root: Path, server_program: str) -> Path:
    (root / ".git").mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    (root / "agent.py").write_text(AGENT)
    shutil.copy(ROOT / "tests" / "support" / "mcp_stdio_server.py", root / "server.py")  # standard library
    (root / "venv.suite.yaml").write_text(SUITE.replace("PROGRAM", server_program))
    return root


def _gate(*args: str, root: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    return subprocess.run(
        [sys.executable, "-m", "gate", *args, "--root", str(root), str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_program_and_a_server_on_the_repository_s_virtualenv_validate_and_run(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", ".venv/bin/python")
    assert (root / ".venv" / "bin" / "python").is_symlink()
    checked = _gate("validate", root=root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    results = tmp_path / "results.json"
    done = _gate("run", "--allow-commands", "--quiet", "--json", str(results), root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    [case] = json.loads(results.read_text())["suites"][0]["cases"]
    # The program ran on the virtualenv's interpreter, and so did the server that listed its tools.
    assert case["trials"][0]["record"]["output"] == f"prefix {root / '.venv'}"
    assert (root / "starts.log").read_text().strip()


def test_a_refused_server_command_is_never_started(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", "tools/python")
    (root / "tools").mkdir()
    (root / "tools" / "python").symlink_to(sys.executable)  # an interpreter outside, no virtualenv's
    done = _gate("run", "--allow-commands", "--quiet", root=root)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        "venv.suite.yaml:6:23: agent.tools[0].mcp.command[0]: the program 'tools/python' is a link to "
        in (done.stdout + done.stderr)
    )
    assert not (root / "starts.log").exists()  # not started, not even to list its tools
