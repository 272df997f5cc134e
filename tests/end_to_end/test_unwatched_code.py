"""A program's code is seen changed also where the suite does not name it: an MCP server started with
``python3 servers/weather/server.py`` that takes its tool descriptions from a module beside it, and a
pull request that rewords only that module. The suite declares no ``watch``, so which files the server
reads cannot be told: the suite runs (and finds the regression), never "no suite is affected"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.commands.run import main as run_main
from tests.end_to_end.test_baseline_auto import SCRIPT, git
from tests.end_to_end.test_changes_seen import BAD, GOOD, commit, new_repo, statuses

SERVER = """\
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from descriptions import FORECAST  # noqa: E402

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
DAYS = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city", "days"]}
TOOLS = [{"name": "get_weather", "description": "Weather now.", "inputSchema": CITY},
         {"name": "get_forecast", "description": FORECAST, "inputSchema": DAYS}]
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        version = message["params"].get("protocolVersion", "2025-06-18")
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "weather", "version": "1"}}
    elif message["method"] == "tools/list":
        result = {"tools": TOOLS}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""

SUITE = """\
version: 1
name: weather-agent
agent:
  provider: openai
  model: test-model
  tools:
    - mcp: {command: [python3, servers/weather/server.py]}
mocks:
  tools:
    get_weather: [{returns: {temp_c: 18}}]
    get_forecast: [{returns: {sky: sunny}}]
defaults: {trials: 5}
threshold: 0.5
cases:
  - id: tomorrow
    input: Do I need sunglasses in Paris tomorrow?
    expect: {calls: [{tool: get_forecast, args: {city: Paris, days: 1}}]}
  - id: now
    input: What's the weather in Paris right now?
    expect: {calls: [{tool: get_weather, args: {city: Paris}}]}
  - id: hello
    input: Hello there
    expect: {no_calls: true}
"""


def run(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unwatched")
    argv = ["--changed-since", "main", "--baseline", "auto", "--allow-commands", "--concurrency", "4"]
    code = run_main([*argv, "--json", str(repo / "out/r.json")])
    results = json.loads((repo / "out/r.json").read_text()) if (repo / "out/r.json").exists() else {}
    return code, results


def test_a_pr_that_changes_a_module_an_unwatched_server_imports_runs_the_suite(
    tmp_path: Path, model_server, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / "servers/weather").mkdir(parents=True)
    (repo / "servers/weather/server.py").write_text(SERVER)
    (repo / "servers/weather/descriptions.py").write_text(f"FORECAST = {GOOD!r}\n")
    (repo / "evals").mkdir()
    (repo / "evals/weather.suite.yaml").write_text(SUITE)
    commit(repo, "base")
    git(repo, "checkout", "-qb", "pr")
    (repo / "servers/weather/descriptions.py").write_text(f"FORECAST = {BAD!r}\n")
    commit(repo, "reword the forecast tool")
    code, results = run(repo, model_server(SCRIPT), monkeypatch)
    out = capsys.readouterr()
    assert code == 1, out
    assert statuses(results)["tomorrow"] == "regressed"
    [suite] = results["suites"]
    assert suite["triggered_by"] == {
        "servers/weather/descriptions.py": "MCP server: it declares no watch, so which files its code "
        "reads cannot be told (declare watch to say)"
    }
