"""The suites run with MCP servers are read again with the listed tools: only the cases the run
selected stay, and a base suite whose server fails is left without a base side."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from gate.errors import GateError
from gate.files.suite_loader import load_suites
from gate.run.base_side import BaseSide
from gate.run.tool_listing import base_with_listed_tools, with_listed_tools
from tests.conftest import ROOT

SUITE = """version: 1
name: shop
agent:
  provider: openai
  model: test-model
  tools:
    - mcp: {command: %s}
cases:
  - {id: one, input: add milk, expect: {calls: [{tool: add_item, args: {item: milk}}]}}
  - {id: two, input: add eggs, expect: {calls: [{tool: add_item, args: {item: eggs}}]}}
"""


def write_repo(root: Path, *flags: str) -> Path:
    (root / ".git").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "support" / "mcp_stdio_server.py", root / "server.py")
    (root / "shop.suite.yaml").write_text(SUITE % json.dumps(["python3", "server.py", *flags]))
    return root


def test_the_listed_suite_keeps_only_the_selected_cases(tmp_path):
    root = write_repo(tmp_path)
    (offline,) = load_suites([root], root=root).suites
    assert offline.agent.tools == () and offline.dependencies == ("server.py",)
    selected = dataclasses.replace(offline, cases=offline.cases[1:])
    (listed,) = with_listed_tools([selected], root)
    assert [c.id for c in listed.cases] == ["two"]
    assert [t.name for t in listed.agent.tools] == ["get_weather", "add_item", "fail"]
    assert listed.agent.tool_servers[0].tools == ("get_weather", "add_item", "fail")
    assert listed.agent.tools[1].source.path == "server.py"  # placed where its description is written


def test_a_head_server_that_fails_stops_the_run(tmp_path):
    root = write_repo(tmp_path, "--crash")
    with pytest.raises(GateError) as caught:
        with_listed_tools(list(load_suites([root], root=root).suites), root)
    assert caught.value.exit_code == 3


def test_a_base_server_that_fails_leaves_its_suite_without_a_base_side():
    directory = tempfile.TemporaryDirectory()
    root = write_repo(Path(directory.name), "--crash")
    side = BaseSide(
        ref="main",
        commit="0123456789abcdef",
        suites=load_suites([root], root=root).suites,
        without_base=(),
        problems=(),
        changed_lines={},
        directory=directory,
    )
    listed = base_with_listed_tools(side, root)
    assert listed.suites == () and listed.without_base == ("shop",)
    assert listed.failed == ("shop",)  # not new: its regressions cannot be told
    (problem,) = listed.problems
    assert problem.startswith("base 0123456789ab: the MCP server") and "cannot reach the database" in problem
    directory.cleanup()
