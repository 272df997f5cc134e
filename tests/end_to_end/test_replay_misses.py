"""A case a replay cannot answer makes the run not verified, never an error the error budget absorbs
(DESIGN section 6), through the real CLI on a real git repository and through the action: a fork's
pull request changes one case of twelve (five trials each) so that the model gets it wrong; its
requests are not in the cache the base branch's runs filled, so a replay-only run cannot evaluate it.
One case of twelve is within the 10% error budget: the run said PASSED. The same change run with a
key fails as a regression."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gate.commands.run import main as run_main
from gate.errors import GateError
from gate.github.entrypoint import main as entrypoint
from tests.conftest import ROOT
from tests.end_to_end.test_baseline_auto import git
from tests.github.test_entrypoint import read_outputs
from tests.support.fake_github import FakeGitHub

CITIES = [
    "Paris",
    "Rome",
    "Oslo",
    "Lima",
    "Cairo",
    "Quito",
    "Dakar",
    "Hanoi",
    "Seoul",
    "Tunis",
    "Bern",
    "Riga",
]
SCHEMA = json.loads((ROOT / "schemas" / "results.schema.json").read_text())
SCRIPT = {
    "rules": [
        {  # the PR's new wording makes the model reach for the forecast
            "when": {"last_user": "later today", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris"}}],
        },
        {
            "when": {"last_user": "weather in (?P<city>[A-Z][a-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is 18 degrees."},
        {"when": {"after_tool": "get_forecast"}, "text": "Sunny later."},
    ],
    "default": {"text": "I am not sure."},
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {name.split('_')[1]} in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
    for name in ("get_weather", "get_forecast")
]


def suite(paris: str = "What is the weather in Paris?") -> str:
    cases = "".join(
        f"  - id: {city.lower()}\n"
        f"    input: {paris if city == 'Paris' else f'What is the weather in {city}?'}\n"
        f"    expect: {{calls: [{{tool: get_weather, args: {{city: {city}}}}}]}}\n"
        for city in CITIES
    )
    return f"""version: 1
name: weather
agent:
  provider: openai
  model: test-model
  tools: [{{file: tools.json}}]
mocks:
  tools:
    get_weather: [{{returns: {{temp_c: 18}}}}]
    get_forecast: [{{returns: {{sky: sunny}}}}]
defaults: {{trials: 5}}
cases:
{cases}"""


@pytest.fixture
def pr(tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """main: the suite, its answers in the gate's own (untracked) cache as a push's run left them;
    the PR (a fork's): one case reworded."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "tools.json").write_text(json.dumps(TOOLS))
    (root / "weather.suite.yaml").write_text(suite())
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    monkeypatch.chdir(root)
    server = model_server(SCRIPT)
    assert gate(monkeypatch, server, "--cache", ".tool-eval-gate/cache") == 0  # the base branch's run
    git(root, "checkout", "-qb", "pr")
    (root / "weather.suite.yaml").write_text(suite("What is the weather in Paris later today?"))
    git(root, "commit", "-qam", "one case reworded")
    return root


def gate(monkeypatch: pytest.MonkeyPatch, server: Any | None, *argv: str) -> int:
    if server is None:  # a fork's pull_request run: no secrets
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    else:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-replay-misses")
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    try:
        return run_main(["--quiet", *argv])
    except GateError as exc:
        return exc.exit_code


COMPARE = ["--changed-since", "main", "--baseline", "auto", "--json", "out/results.json"]


def test_a_replay_that_cannot_answer_a_changed_case_is_not_verified(
    pr: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    capsys.readouterr()
    assert gate(monkeypatch, None, *COMPARE, "--replay", "--suggest-fixes") == 3
    out = capsys.readouterr().out
    assert "tool-eval-gate NOT VERIFIED" in out
    assert "not verified: a replay could not answer 5 request(s) of 1 case(s) (weather/paris)" in out
    results = json.loads((pr / "out/results.json").read_text())
    jsonschema.validate(results, SCHEMA)
    assert results["unverified"].startswith("not verified: a replay could not answer")
    assert (results["verdict"]["outcome"], results["verdict"]["exit_code"]) == ("unverified", 3)
    # No fix is searched for on a run that is not verified (DESIGN section 11).
    assert results["fixes"]["skipped"].startswith("the run is not verified")
    statuses = {c["case_id"]: c["status"] for c in results["suites"][0]["cases"]}
    assert statuses["paris"] == "error" and list(statuses.values()).count("passed") == 11
    # Re-rendered from the results (the publishing workflow), it is still not verified.
    capsys.readouterr()
    assert run_report(pr / "out/results.json") == 3
    assert "tool-eval-gate: not verified" in (pr / "out/report.md").read_text()
    # The same change with a key: the model answers, and the case regressed.
    assert gate(monkeypatch, model_server(SCRIPT), *COMPARE) == 1
    results = json.loads((pr / "out/results.json").read_text())
    assert "unverified" not in results
    assert {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}["paris"] == "regressed"


def run_report(results: Path) -> int:
    from gate.commands.report import main as report_main

    return report_main([str(results), "--markdown", str(results.parent / "report.md")])


def test_the_action_says_unverified_for_a_forks_replay_that_cannot_answer_a_case(
    pr: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = git(pr, "rev-parse", "main").strip(), git(pr, "rev-parse", "HEAD").strip()
    event = {
        "number": 7,
        "pull_request": {
            "number": 7,
            "user": {"login": "someone"},
            "base": {"sha": base, "repo": {"full_name": "acme/agents"}},
            "head": {"sha": head, "repo": {"full_name": "someone/agents"}},
        },
    }
    (tmp_path / "event.json").write_text(json.dumps(event))
    (tmp_path / "home").mkdir()
    with FakeGitHub("acme/agents") as github:
        github.add_pull(7, {}, head_sha=head, base_sha=base)
        env = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(pr),
            "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_REPOSITORY": "acme/agents",
            "GITHUB_API_URL": github.url,
            "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "HOME": str(tmp_path / "home"),
            "INPUT_GITHUB_TOKEN": "ghs_fake_token",
        }
        assert entrypoint([], env) == 3
    outputs = read_outputs(tmp_path / "output.txt")
    assert outputs["verdict"] == "unverified" and outputs["exit_code"] == "3"
    assert "not verified: a replay could not answer" in (tmp_path / "summary.md").read_text()
