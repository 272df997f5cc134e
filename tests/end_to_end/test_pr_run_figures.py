"""What a pull request's run shows, through the real CLI with ``--baseline auto``: a known-flaky
(non-gating) case stays out of what gates and what alarms (the failed-case list, the base/head
table, the failure patterns), with one pass rate everywhere; and the requests, cost and progress
shown are the whole run's, both sides."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main as cli
from tests.end_to_end.test_baseline_auto import SCRIPT, git
from tests.end_to_end.test_sharded_pr import HEAD, NOW, pull_request

SUITE = HEAD.replace("threshold: 0.3", "threshold: 0.9") + NOW.format(n=1) + NOW.format(n=2)
SUITE += """\
  - id: weekend
    input: Will it rain at the weekend?
    non_gating: the model sometimes asks which weekend
    expect: {calls: [{tool: get_forecast, args: {city: Paris, days: 2}}]}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return pull_request(tmp_path / "repo", SUITE, SUITE)


def run(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-pr-figures")
    monkeypatch.setenv("CI", "true")  # plain progress lines
    argv = ["run", "--changed-since", "main", "--baseline", "auto", "--json", "out/r.json"]
    return cli([*argv, "--markdown", "out/r.md", *extra])


def test_a_known_flaky_case_stays_out_of_what_gates_and_alarms(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(repo, model_server(SCRIPT), monkeypatch, "--quiet") == 0
    out = capsys.readouterr().out
    assert "failed cases" not in out  # the one case that failed is known flaky
    assert "known-flaky cases that did not pass (1, non-gating: not counted):" in out
    assert re.search(r"  FAIL  weather\.suite\.yaml:\d+ weekend: ", out)
    assert "2/2 passed (100.0%" in out

    report = (repo / "out/r.md").read_text()
    # One pass rate: the base/head table says what the verdict says (2/2), not 2/3.
    row = next(line for line in report.splitlines() if line.startswith("| `weather-agent` |"))
    assert row.startswith("| `weather-agent` | 100.0% (2/2) | 100.0% (2/2) |")
    assert "**Pass rate 100.0%** (2/2 cases" in report and "1 non-gating (not counted)" in report
    assert "### Failure patterns" not in report and "### Failed cases" not in report
    assert "Known-flaky cases that did not pass" in report
    results = json.loads((repo / "out/r.json").read_text())
    assert results["comparison"]["suites"][0]["head"]["counted"] == 2


def test_the_closing_lines_count_both_sides_and_the_base_side_shows_progress(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = model_server(SCRIPT)
    assert run(repo, server, monkeypatch) == 0
    captured = capsys.readouterr()
    results = json.loads((repo / "out/r.json").read_text())
    head, base = results["settings"]["requests"], results["settings"]["baseline"]["requests"]
    assert head and base and head + base == server.request_count
    assert f"model requests: {server.request_count}, estimated cost" in captured.out
    assert f"head: {head} model request(s)" in captured.out and f"{base} model request(s)" in captured.out
    merge_base = git(repo, "merge-base", "main", "HEAD").strip()[:12]
    assert f"base side ({merge_base}): running 3 cases" in captured.err
    assert f"base side ({merge_base}): [3/3 cases]" in captured.err
