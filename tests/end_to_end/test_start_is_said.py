"""Nothing is silent while something starts (issue 34, item 8): a run whose MCP server and agent
program take long to start says, before either has done anything, what is starting. Each waits for the
test to see its line on the gate's standard error before it goes on (a file the test writes), so the
order is what is tested, not a time: on a gate that said nothing until a trial finished, they would
wait in vain and exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

WAIT = """\
import os, sys, time
deadline = time.monotonic() + 20
while not os.path.exists({flag!r}):
    if time.monotonic() > deadline:
        sys.exit("nobody said I was starting")
    time.sleep(0.05)
"""

AGENT = """\
import json, sys
for line in sys.stdin:
    print(json.dumps({"content": "hello"}), flush=True)
"""

SERVER = """\
import runpy, sys
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

SUITE = """\
version: 1
name: slow-start
agent:
  command: [python3, agent.py]
  tools: [{mcp: {command: [python3, server.py, weather_server.py]}}]
cases:
  - id: hello
    input: Hello
    expect: {no_calls: true, output: {contains: hello}}
"""


def test_the_mcp_server_and_the_agent_program_are_said_as_they_start(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    server_flag, agent_flag = tmp_path / "server-may-start", tmp_path / "agent-may-start"
    (root / "agent.py").write_text(WAIT.format(flag=str(agent_flag)) + AGENT)
    (root / "server.py").write_text(WAIT.format(flag=str(server_flag)) + SERVER)
    (root / "weather_server.py").write_text((ROOT / "examples/mcp_weather/server.py").read_text())
    (root / "slow.suite.yaml").write_text(SUITE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.pop("CI", None)  # standard error is a pipe: plain lines, as in a CI log
    gate = subprocess.Popen(
        [sys.executable, "-m", "gate", "run", "--root", str(root), "--allow-commands", "slow.suite.yaml"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    said: list[str] = []
    try:
        assert gate.stderr is not None
        for line in gate.stderr:
            said.append(line.rstrip("\n"))
            if line.startswith("starting MCP servers to list their tools: "):
                assert "`python3 server.py weather_server.py` (slow.suite.yaml)" in line
                server_flag.touch()
            if line.startswith("starting the agent program "):
                assert line.rstrip("\n") == "starting the agent program `python3 agent.py` (slow-start)"
                assert not any(s.startswith("[") for s in said)  # before any trial was done
                agent_flag.touch()
        out = gate.stdout.read() if gate.stdout is not None else ""
        assert gate.wait(120) == 0, "\n".join(said) + out
    finally:
        if gate.poll() is None:
            gate.kill()
            gate.wait()
    assert server_flag.exists() and agent_flag.exists(), said
    assert said.index("running 1 case x 1 trial = 1 trial") < len(said) - 1
