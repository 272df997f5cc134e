"""``run --baseline auto`` end to end: a real git repository (a base commit and a PR commit) in a
temporary directory, the real OpenAI SDK, and a scripted model whose answers depend on the tool
descriptions it is sent: the PR rewords get_forecast's description so that the model stops calling
it for "tomorrow"."""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gate.commands.run import main as run_main
from tests.conftest import ROOT

TRIALS = 5
SCRIPT = {
    "rules": [
        {  # the model calls get_forecast for "tomorrow" only while its description says so
            "when": {"last_user": "tomorrow", "described": "get_forecast: [^\n]*tomorrow", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        {
            "when": {"last_user": "right now", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        },
        {"when": {"after_tool": "get_forecast"}, "text": "Sunny tomorrow."},
        {"when": {"after_tool": "get_weather"}, "text": "It is 18 degrees."},
    ],
    "default": {"text": "I am not sure."},
}


def tools(forecast_description: str) -> str:
    city = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    forecast = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city", "days"],
    }
    return json.dumps(
        [
            {
                "type": "function",
                "function": {"name": "get_weather", "description": "Weather now.", "parameters": city},
            },
            {
                "type": "function",
                "function": {
                    "name": "get_forecast",
                    "description": forecast_description,
                    "parameters": forecast,
                },
            },
        ],
        indent=2,
    )


SUITE = f"""\
version: 1
name: weather-agent
agent:
  provider: openai
  model: test-model
  tools: [{{file: tools/weather.json}}]
mocks:
  tools:
    get_weather: [{{returns: {{temp_c: 18}}}}]
    get_forecast: [{{returns: {{sky: sunny}}}}]
defaults: {{trials: {TRIALS}}}
threshold: 0.5
cases:
  - id: tomorrow
    input: Do I need sunglasses in Paris tomorrow?
    expect: {{calls: [{{tool: get_forecast, args: {{city: Paris, days: 1}}}}]}}
  - id: now
    input: What's the weather in Paris right now?
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
  - id: hello
    input: Hello there
    expect: {{no_calls: true}}
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def make_repo(tmp_path: Path) -> Path:
    """A repository whose main holds the weather suite, on a new branch "pr"."""
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text(".tool-eval-gate/\nout/\n")
    (repo / "tools" / "weather.json").write_text(tools("Forecast for the next days, starting tomorrow."))
    (repo / "weather.suite.yaml").write_text(SUITE)
    (repo / "README.md").write_text("demo\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    return repo


def pr_changes_description(repo: Path) -> int:
    """Commit the PR's change; the line of get_forecast's description in the PR's tool file."""
    text = tools("Forecast for the coming week.")
    (repo / "tools" / "weather.json").write_text(text)
    git(repo, "commit", "-qam", "reword get_forecast")
    return next(n for n, line in enumerate(text.splitlines(), 1) if "coming week" in line)


def run(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-baseline-auto")
    out = repo / "out"
    argv = ["--changed-since", "main", "--baseline", "auto", "--quiet", "--concurrency", "4"]
    argv += ["--json", str(out / "r.json"), "--junit", str(out / "j.xml"), "--markdown", str(out / "r.md")]
    return run_main([*argv, *extra])


def test_a_reworded_tool_description_is_reported_as_the_regression_it_caused(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    line = pr_changes_description(repo)
    server = model_server(SCRIPT)
    code = run(repo, server, monkeypatch)
    printed = capsys.readouterr().out

    # Both sides ran every trial: 3 cases x 5 trials; the tool cases take two requests per trial.
    assert server.request_count == 2 * (2 * TRIALS + 2 * TRIALS + TRIALS) - TRIALS
    assert code == 1  # a significant regression fails under the default policy (suite is above 0.5)
    results = json.loads((repo / "out" / "r.json").read_text())
    jsonschema.validate(results, json.loads((ROOT / "schemas" / "results.schema.json").read_text()))
    comparison = results["comparison"]
    statuses = {c["case_id"]: c["status"] for c in comparison["cases"]}
    assert statuses == {"tomorrow": "regressed", "now": "unchanged", "hello": "unchanged"}
    regressed = next(c for c in comparison["cases"] if c["status"] == "regressed")
    assert (regressed["head_passed_trials"], regressed["base_passed_trials"]) == (0, TRIALS)
    assert regressed["p_value"] == pytest.approx(1 / 252)
    assert regressed["culprit"] == f"tools/weather.json:{line}"
    assert results["settings"]["fail_on"] == "regression_or_threshold"
    base = results["settings"]["baseline"]
    assert base["requests"] == server.request_count - results["settings"]["requests"]

    report = (repo / "out" / "r.md").read_text()
    opening = report.split("## ❌ tool-eval-gate failed")[0]  # what the PR did comes before the verdict
    assert (
        "- regression in weather-agent: get\\_forecast is no longer called for 'Do I need sunglasses in "
        f"Paris tomorrow?' (tomorrow: 0/5 vs 5/5, p = 0.004) after the change to tools/weather.json:{line}"
    ) in opening
    assert "66.7% (2/3)" in opening and "100.0% (3/3)" in opening  # pass rate base -> head
    junit = ET.parse(repo / "out" / "j.xml").getroot()
    change = {
        tc.get("name"): {p.get("name"): p.get("value") for p in tc.iter("property")}
        for tc in junit.iter("testcase")
    }
    assert change["tomorrow"]["baseline"] == "regressed"
    assert change["now"]["baseline"] == "unchanged"
    assert "1 case(s) regressed against the baseline: weather-agent/tomorrow" in printed
    # The console says what the change did, the changed line behind the regression included, as the
    # Markdown does, and lists the regression first among the failed cases.
    lines = printed.splitlines()
    said = lines.index("what this change did:")
    assert lines[said + 1] == (
        "  regression in weather-agent: get_forecast is no longer called for 'Do I need sunglasses in "
        f"Paris tomorrow?' (tomorrow: 0/5 vs 5/5, p = 0.004) after the change to tools/weather.json:{line}"
    )
    failed = lines.index("failed cases (1: 1 regressed; regressions first):")
    assert lines[failed + 1].startswith(
        "  FAIL  weather.suite.yaml:14 tomorrow [0/5 trials passed] (regressed): "
    )
    assert "base (" in printed and "model request(s)" in printed

    # The same PR again: every answer of both sides comes from the cache.
    server.reset_stats()
    assert run(repo, server, monkeypatch) == 1
    assert server.request_count == 0
    again = json.loads((repo / "out" / "r.json").read_text())
    assert {c["case_id"]: c["status"] for c in again["comparison"]["cases"]} == statuses


def test_a_pr_that_changes_nothing_the_suites_read_sends_no_request(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "README.md").write_text("reworded\n")
    git(repo, "commit", "-qam", "docs")
    server = model_server(SCRIPT)
    assert run(repo, server, monkeypatch) == 0
    assert server.request_count == 0


def test_fixes_are_reported_and_do_not_fail(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "checkout", "-q", "main")
    pr_changes_description(repo)  # main now has the bad description
    git(repo, "checkout", "-q", "-b", "fix")
    (repo / "tools" / "weather.json").write_text(tools("Forecast for the next days, starting tomorrow."))
    git(repo, "commit", "-qam", "fix")
    server = model_server(SCRIPT)
    assert run(repo, server, monkeypatch) == 0
    results = json.loads((repo / "out" / "r.json").read_text())
    assert {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}["tomorrow"] == "fixed"
    assert "- fix in weather-agent: passes now" in (repo / "out" / "r.md").read_text()


def test_a_suite_new_in_the_pr_has_no_base_side_and_a_removed_case_is_listed(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "other.suite.yaml").write_text(SUITE.replace("weather-agent", "other-agent"))
    (repo / "weather.suite.yaml").write_text(SUITE.split("  - id: hello")[0])
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "new suite, one case less")
    server = model_server(SCRIPT)
    assert run(repo, server, monkeypatch) == 0
    results = json.loads((repo / "out" / "r.json").read_text())
    assert results["settings"]["baseline"]["suites_without_base"] == ["other-agent"]
    cases = {(c["suite"], c["case_id"]): c["status"] for c in results["comparison"]["cases"]}
    assert cases[("weather-agent", "hello")] == "removed"
    assert cases[("other-agent", "tomorrow")] == "new"
    report = (repo / "out" / "r.md").read_text()
    assert "new suite(s) without a base side: other-agent" in report


def test_baseline_auto_needs_a_reference(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    from gate.errors import InputError

    with pytest.raises(InputError, match="--changed-since"):
        run_main(["--baseline", "auto"])


def test_a_request_budget_covers_both_sides_case_by_case(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pr_changes_description(repo)
    server = model_server(SCRIPT)
    base_json = repo / "out" / "base.json"
    code = run(repo, server, monkeypatch, "--max-requests", "20", "--baseline-json", str(base_json))
    assert code == 3  # the budget left cases unrun: incomplete, every report still written
    assert server.request_count == 15 <= 20
    results = json.loads((repo / "out" / "r.json").read_text())
    assert (
        "base side: request budget ran out (--max-requests 20, 15 left for the base side)"
        in (results["incomplete_reason"])
    )
    head = {c["case_id"]: c for c in results["suites"][0]["cases"]}
    base = {c["case_id"]: c for c in json.loads(base_json.read_text())["suites"][0]["cases"]}
    # "tomorrow" started first (alone: its 8 turns x 5 trials per side do not fit) with half of what
    # was left held back for its base side: it is evaluated on both sides, every trial.
    assert head["tomorrow"]["status"] == "failed" and base["tomorrow"]["status"] == "passed"
    assert len(head["tomorrow"]["trials"]) == len(base["tomorrow"]["trials"]) == TRIALS
    for case_id in ("now", "hello"):
        assert head[case_id]["status"] == base[case_id]["status"] == "error"
        assert "request budget ran out" in head[case_id]["trials"][0]["record"]["error"]
        assert "before this case ran on the head side" in base[case_id]["trials"][0]["record"]["error"]


def land_on_main(repo: Path, message: str, write: Callable[[], object]) -> None:
    """Commit what ``write`` writes on main (the merge base to be), and bring it into the PR."""
    git(repo, "checkout", "-q", "main")
    write()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    git(repo, "checkout", "-q", "pr")
    git(repo, "merge", "-q", "main")


def test_symlinks_anywhere_in_the_merge_base_never_break_the_base_side(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def links() -> None:
        (repo / "docs").mkdir()
        os.symlink("/etc/hostname", repo / "docs" / "hostname")  # absolute
        os.symlink("../../../outside", repo / "docs" / "escape")  # leaves the tree

    land_on_main(repo, "links on main", links)
    pr_changes_description(repo)
    server = model_server(SCRIPT)
    assert run(repo, server, monkeypatch) == 1  # the regression, as without the links
    results = json.loads((repo / "out" / "r.json").read_text())
    assert {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}["tomorrow"] == "regressed"


def test_the_base_side_needs_no_tarfile_extraction_filter(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on Python 3.11.2 and 3.10 before 3.10.12, where ``extractall`` has no ``filter``."""
    import tarfile

    original = tarfile.TarFile.extractall

    def without_filter(
        self: Any, path: Any = ".", members: Any = None, *, numeric_owner: bool = False, **kw: Any
    ) -> None:
        if kw:
            raise TypeError(f"extractall() got an unexpected keyword argument {next(iter(kw))!r}")
        original(self, path, members, numeric_owner=numeric_owner)

    monkeypatch.setattr(tarfile.TarFile, "extractall", without_filter)
    pr_changes_description(repo)
    assert run(repo, model_server(SCRIPT), monkeypatch) == 1


def test_gitattributes_never_change_what_is_compared(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def attributes() -> None:
        (repo / "prompt.md").write_text("You are a weather agent. Build $Format:%H$.\n")
        (repo / "weather.suite.yaml").write_text(
            SUITE.replace("  tools: [", "  system_prompt: {file: prompt.md}\n  tools: [")
        )
        (repo / ".gitattributes").write_text("*.suite.yaml export-ignore\nprompt.md export-subst\n")

    land_on_main(repo, "attributes on main", attributes)
    pr_changes_description(repo)
    server = model_server(SCRIPT)
    # export-ignore made every suite "new" (no base side, nothing regressed: exit 0)
    assert run(repo, server, monkeypatch, "--fail-on", "regression") == 1
    results = json.loads((repo / "out" / "r.json").read_text())
    assert results["settings"]["baseline"]["suites_without_base"] == []
    assert {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}["tomorrow"] == "regressed"
    # export-subst rewrote the base prompt into one that never existed
    systems = {
        str(m.get("content"))
        for r in server.requests
        for m in r["body"].get("messages", [])
        if m.get("role") == "system"
    }
    assert systems == {"You are a weather agent. Build $Format:%H$.\n"}
