"""The MCP example as a pull request sees it: the PR edits one docstring of the example's MCP server,
the action (``commands: allow``) compares the PR with its merge base (``--baseline auto``, the default
on pull requests), reports the regression, and its review comment sits on that docstring's line of
the server's source, through the fake GitHub API."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gate.github.entrypoint import main as entrypoint
from tests.conftest import ROOT
from tests.github.test_entrypoint import _restore_git_config_env, actions_env, git  # noqa: F401
from tests.support.fake_github import FakeGitHub
from tests.support.model_server import Script

SERVER = "examples/mcp_weather/server.py"
BEFORE = '"""Forecast for a city for the coming days (1 to 7), day by day.'
AFTER = '"""Weather data for a city, day by day.'


@pytest.fixture()
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    # The server runs with python3 from PATH: the interpreter the gate (and the mcp extra) runs on.
    monkeypatch.setenv("PATH", f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}")
    root = tmp_path / "workspace"
    shutil.copytree(ROOT / "examples" / "mcp_weather", root / "examples" / "mcp_weather")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "feature")
    source = (root / SERVER).read_text()
    assert BEFORE in source
    (root / SERVER).write_text(source.replace(BEFORE, AFTER))  # the PR shortens one docstring
    git(root, "commit", "-q", "-am", "shorter forecast docstring")
    head = git(root, "rev-parse", "HEAD")
    diff = git(root, "diff", base, head, "--", SERVER)
    return {"root": root, "base": base, "head": head, "patch": diff[diff.index("@@") :], "tmp": tmp_path}


@pytest.fixture()
def github(workspace: dict[str, Any]) -> Iterator[FakeGitHub]:
    with FakeGitHub("acme/agents") as fake:
        fake.add_pull(7, {SERVER: workspace["patch"]}, head_sha=workspace["head"], base_sha=workspace["base"])
        yield fake


def test_a_docstring_edit_is_a_regression_reviewed_on_that_docstring(workspace, github, model_server):
    server = model_server(Script.load(str(ROOT / "examples" / "scripted" / "mcp_weather.yaml")))
    env = actions_env(workspace, github, server, trials="4", commands="allow")
    assert entrypoint([], env) == 1  # significant regressions fail the check

    import json

    results = json.loads((workspace["root"] / "gate-out/results.json").read_text())
    statuses = {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}
    assert statuses == {
        "now-in-paris": "unchanged",
        "sunglasses-tomorrow": "regressed",
        "next-two-days": "regressed",
        "which-city": "unchanged",
    }
    lines = (workspace["root"] / SERVER).read_text().splitlines()
    docstring_line = next(i for i, text in enumerate(lines, 1) if AFTER in text)
    body = github.comments_on(7)[0]["body"]
    assert f"{SERVER}:{docstring_line}" in body  # the changed line that explains the regressions
    on_docstring = [c for c in github.review_comments if (c["path"], c["line"]) == (SERVER, docstring_line)]
    assert on_docstring and any("get_forecast" in c["body"] for c in on_docstring)
    assert {c["path"] for c in github.review_comments} == {SERVER}
