"""``tool-eval-gate init``: a repository gets a starter suite that validates, the workflow for its
default branch, the pre-commit entry and the .gitignore lines; nothing is ever overwritten."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gate.cli import main as cli_main
from gate.commands import starter
from gate.files.suite_loader import load_suites
from gate.suite.matcher_tree import matchers_json
from tests.builders import WEATHER_FUNCTION

ANTHROPIC_TOOL = {
    "name": "book_flight",
    "description": "Book a flight.",
    "input_schema": {
        "type": "object",
        "properties": {
            "flight": {"type": "string", "description": "Flight number, e.g. UA100."},
            "seat": {"type": "string", "enum": ["window", "aisle"]},
            "note": {"type": "string"},
        },
        "required": ["flight", "seat"],
    },
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(tmp_path)], check=True)
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "tools.json").write_text(json.dumps([WEATHER_FUNCTION, ANTHROPIC_TOOL]))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_writes_a_starter_that_validates_the_workflow_pre_commit_and_gitignore(repo, capsys):
    assert cli_main(["init", "--tools", "agent/tools.json"]) == 0
    out = capsys.readouterr().out
    assert "evals/tools.suite.yaml: valid, 3 cases to fill in" in out
    assert "the workflow needs the OPENAI_API_KEY secret" in out

    loaded = load_suites([repo / "evals"], root=repo)
    assert loaded.problems == ()
    suite = loaded.suites[0]
    assert (suite.name, suite.agent.provider, suite.agent.model) == ("tools", "openai", "gpt-4o-mini")
    assert [t.name for t in suite.agent.tools] == ["get_weather", "book_flight"]
    weather, booking, chat = suite.cases
    assert matchers_json(weather.expect.calls.calls[0].args) == {"city": {"anything": True}}
    assert matchers_json(booking.expect.calls.calls[0].args) == {
        "flight": {"anything": True},
        "seat": {"one_of": ["window", "aisle"]},
    }
    assert booking.expect.calls.calls[0].allow_extra_args  # the optional note may be sent
    assert chat.expect.calls.no_calls

    workflow = (repo / ".github" / "workflows" / "tool-eval-gate.yml").read_text()
    # The shipped example's workflow (tests/commands/test_starter.py), for this repository's default branch:
    # pull requests compared with their merge base (baseline: auto), the cache, the push that warms it.
    assert workflow == starter.workflow("trunk", ["openai"])
    precommit = (repo / ".pre-commit-config.yaml").read_text()
    assert (
        "id: tool-eval-gate-validate" in precommit
        and "repo: https://github.com/tool-eval-gate/tool-eval-gate" in precommit
    )
    assert (repo / ".gitignore").read_text().splitlines()[1:] == [
        ".tool-eval-gate/",
        "tool-eval-gate-results/",
    ]


def test_init_refuses_to_overwrite_and_writes_nothing(repo, capsys):
    (repo / "evals").mkdir()
    (repo / "evals" / "tools.suite.yaml").write_text("mine\n")
    assert cli_main(["init", "--tools", "agent/tools.json"]) == 2
    err = capsys.readouterr().err
    assert "evals/tools.suite.yaml: init never overwrites: the file exists" in err
    assert (repo / "evals" / "tools.suite.yaml").read_text() == "mine\n"
    assert not (repo / ".github").exists() and not (repo / ".gitignore").exists()


def test_existing_gitignore_and_pre_commit_config_are_added_to_or_left_alone(repo, capsys):
    (repo / ".gitignore").write_text("node_modules/\n.tool-eval-gate\n")
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    assert cli_main(["init", "--tools", "agent/tools.json", "--model", "anthropic:claude-sonnet-4-5"]) == 0
    out = capsys.readouterr().out
    assert (repo / ".gitignore").read_text() == (
        "node_modules/\n.tool-eval-gate\n"
        "# tool-eval-gate: the response cache and the reports\ntool-eval-gate-results/\n"
    )
    assert (repo / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    assert ".pre-commit-config.yaml exists and was left as it is; add to its repos:" in out
    assert "the workflow needs the ANTHROPIC_API_KEY secret" in out
    workflow = (repo / ".github" / "workflows" / "tool-eval-gate.yml").read_text()
    assert (
        "anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}" in workflow and "openai_api_key" not in workflow
    )
    assert load_suites([repo / "evals"], root=repo).suites[0].agent.provider == "anthropic"


def test_without_a_tool_file_an_example_is_written_beside_a_suite_that_validates(repo, capsys):
    assert cli_main(["init", "--dir", "quality/evals"]) == 0
    assert (
        json.loads((repo / "quality" / "evals" / "tools.json").read_text())[0]["function"]["name"]
        == "get_weather"
    )
    loaded = load_suites([repo / "quality"], root=repo)
    assert loaded.problems == () and loaded.suites[0].name == "agent"


def test_a_tool_file_with_problems_is_reported_and_nothing_is_written(repo, capsys):
    (repo / "agent" / "bad.json").write_text('[{"name": "x y"}]')
    assert cli_main(["init", "--tools", "agent/bad.json"]) == 2
    assert "agent/bad.json:1:" in capsys.readouterr().err
    assert not (repo / "evals").exists()
