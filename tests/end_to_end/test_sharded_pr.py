"""A pull request run in shards (``run --baseline auto --shard i/n``) and merged with ``report`` is
judged exactly as the whole run: each case's base side runs once, in the shard that runs its head
side; the comparison and the policy survive the merge, whatever the order of the files; shards that
disagree about a suite are refused, naming both files; and ``report`` of a PR run's results renders
its comparison again. Through the real CLI, a real git repository and the scripted model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main as cli
from tests.end_to_end.test_baseline_auto import SCRIPT, git, tools

# The model calls get_forecast for "tomorrow" only while the description says "tomorrow" (SCRIPT): the
# PR's rewording makes every "tomorrow" case regress.
HEAD = """\
version: 1
name: weather-agent
agent:
  provider: openai
  model: test-model
  tools: [{file: tools/weather.json}]
mocks:
  tools:
    get_weather: [{returns: {temp_c: 18}}]
    get_forecast: [{returns: {sky: sunny}}]
threshold: 0.3
cases:
"""
TOMORROW = "  - id: tomorrow-{n}\n    input: Sunglasses in Paris tomorrow, take {n}?\n"
TOMORROW += "    expect: {{calls: [{{tool: get_forecast, args: {{city: Paris, days: 1}}}}]}}\n"
NOW = "  - id: now-{n}\n    input: What's the weather in Paris right now, take {n}?\n"
NOW += "    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}\n"
HELLO = "  - id: {id}\n    input: Hello there ({id})\n    expect: {{no_calls: true}}\n"


def suite(*, pr: bool) -> str:
    cases = [TOMORROW.format(n=n) for n in range(1, 5)] + [NOW.format(n=n) for n in range(1, 5)]
    cases.append(HELLO.format(id="added-by-the-pr" if pr else "removed-by-the-pr"))
    return HEAD + "".join(cases)


def pull_request(repo: Path, base_suite: str, pr_suite: str) -> Path:
    """A repository whose ``main`` has ``base_suite`` and the tool description the model follows, and
    a ``pr`` branch (checked out) that rewords get_forecast's description and has ``pr_suite``."""
    (repo / "tools").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text(".tool-eval-gate/\ncaches/\nout/\n")
    (repo / "tools" / "weather.json").write_text(tools("Forecast for the next days, starting tomorrow."))
    (repo / "weather.suite.yaml").write_text(base_suite)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "tools" / "weather.json").write_text(tools("Forecast for the coming week."))
    (repo / "weather.suite.yaml").write_text(pr_suite)
    git(repo, "commit", "-qam", "reword get_forecast")
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return pull_request(tmp_path / "repo", suite(pr=False), suite(pr=True))


def run(repo: Path, name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    """``run --changed-since main --baseline auto`` with a cache of its own (a fresh matrix job)."""
    out = repo / "out" / f"{name}.json"
    argv = ["run", "--changed-since", "main", "--baseline", "auto", "--quiet", "--cache"]
    code = cli([*argv, str(repo / "caches" / name), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


@pytest.fixture
def in_repo(repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The repository as the working directory, the scripted model behind the OpenAI variables."""
    server = model_server(SCRIPT)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-sharded")
    return repo


def test_shards_merged_in_any_order_are_judged_as_the_whole_run(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = in_repo

    whole_code, whole = run(repo, "whole")
    assert whole_code == 1  # four significant regressions (the suite's threshold alone would pass)
    counts = whole["comparison"]["counts"]
    assert (counts["regressed"], counts["new"], counts["removed"]) == (4, 1, 1)

    shards = [run(repo, f"s{i}", "--shard", f"{i}/3")[1] for i in (1, 2, 3)]
    # Each case's base side ran once, in the shard that ran its head side (each shard has a cache
    # of its own, as matrix jobs do): the shards' base sides sent what the whole run's did.
    base_requests = [s["settings"]["baseline"]["requests"] for s in shards]
    assert sum(base_requests) == whole["settings"]["baseline"]["requests"]
    assert sum(s["comparison"]["counts"]["removed"] for s in shards) == 1  # not "8 removed" per shard
    assert sum(len(s["base"]["suites"][0]["cases"]) for s in shards) == 9  # the base's nine cases, once

    files = [str(repo / "out" / f"s{i}.json") for i in (1, 2, 3)]
    capsys.readouterr()
    merged_out = repo / "out" / "merged.json"
    assert cli(["report", *files, "--json", str(merged_out), "--markdown", str(repo / "out/m.md")]) == 1
    out = capsys.readouterr().out
    assert "4 case(s) regressed against the baseline" in out
    merged = json.loads(merged_out.read_text())
    assert merged["comparison"]["counts"] == counts
    assert merged["settings"]["baseline"]["requests"] == whole["settings"]["baseline"]["requests"]
    assert (repo / "out/m.md").read_text().count("- regression in weather-agent: ") == 4

    # The same shards in another order: the same verdict and the same merged results.
    again = repo / "out" / "again.json"
    assert cli(["report", files[2], files[0], files[1], "--json", str(again)]) == 1
    assert again.read_bytes() == merged_out.read_bytes()

    # The whole run's results, re-rendered later (the publishing workflow): its comparison again.
    rendered = repo / "out" / "whole.md"
    assert cli(["report", str(repo / "out/whole.json"), "--markdown", str(rendered)]) == 1
    assert rendered.read_text().count("- regression in weather-agent: ") == 4


def test_shards_that_disagree_about_a_suite_are_refused_naming_both_files(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = in_repo
    for i in (1, 2):
        run(repo, f"s{i}", "--shard", f"{i}/2")
    # The second shard ran with another threshold (an older commit of the suite, say).
    second = repo / "out" / "s2.json"
    data = json.loads(second.read_text())
    data["suites"][0]["threshold"] = 0.95
    second.write_text(json.dumps(data))
    first = str(repo / "out" / "s1.json")
    capsys.readouterr()

    for order in ([first, str(second)], [str(second), first]):
        assert cli(["report", *order]) == 2
        err = capsys.readouterr().err
        assert first in err and str(second) in err and "threshold" in err


def test_shards_run_with_different_trials_are_refused_not_merged_into_one_verdict(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A matrix whose jobs ran ``--trials 1`` and ``--trials 3`` merged into one verdict, each half
    judged by a different number of trials."""
    repo = in_repo
    run(repo, "s1", "--shard", "1/2", "--trials", "1")
    run(repo, "s2", "--shard", "2/2", "--trials", "3")
    first, second = (str(repo / "out" / f"s{i}.json") for i in (1, 2))
    capsys.readouterr()
    assert cli(["report", first, second]) == 2
    err = capsys.readouterr().err
    assert f"{first} and {second} disagree about --trials: 1 in one, 3 in the other" in err
