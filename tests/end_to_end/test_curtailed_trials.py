"""``--trials-policy curtailed`` (the default) end to end: through the CLI, the real SDK and the
scripted server, a case stops starting trials once its verdict (and its comparison with the base)
is decided; the verdicts are those of ``--trials-policy full``; answers keep their cache keys."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gate.commands.run import main as run_main

TRIALS = 5
SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "right now", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is 18 degrees."},
    ],
    "default": {"text": "I am not sure."},
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather now.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
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
defaults: {{trials: {TRIALS}}}
threshold: 0.5
cases:
  - id: now
    input: What's the weather in Paris right now?
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
  - id: never-called
    input: Is it sunny in Paris today?
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
  - id: any-of-five
    input: Weather in Paris right now, please.
    reducer: any
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    (repo / "tools" / "weather.json").write_text(json.dumps(TOOLS, indent=2))
    (repo / "weather.suite.yaml").write_text(SUITE)
    (repo / ".gitignore").write_text("out/\ncache/\n")
    return repo


def run(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch, *extra: str) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-curtailed")
    # One trial at a time: which trials are in flight when a case is decided is then fixed.
    code = run_main(["--quiet", "--concurrency", "1", "--json", "out/r.json", *extra])
    return code, json.loads((repo / "out" / "r.json").read_text())


def statuses(results: dict[str, Any]) -> dict[str, tuple[str, int, int]]:
    """Each case's status, trials run and trials planned."""
    return {
        case["case_id"]: (
            case["status"],
            len(case["trials"]),
            case.get("planned_trials", len(case["trials"])),
        )
        for suite in results["suites"]
        for case in suite["cases"]
    }


def test_a_decided_case_stops_starting_trials_with_the_full_runs_verdict(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = model_server(SCRIPT)
    full_code, full = run(repo, server, monkeypatch, "--trials-policy", "full")
    full_requests = server.request_count
    server.reset_stats()
    code, curtailed = run(repo, server, monkeypatch)
    printed = capsys.readouterr().out

    assert code == full_code
    assert {k: v[0] for k, v in statuses(curtailed).items()} == {k: v[0] for k, v in statuses(full).items()}
    assert statuses(full)["never-called"] == ("failed", TRIALS, TRIALS)
    # pass^k failed at its first trial; pass@k passed at its first; the passing case ran every trial.
    assert statuses(curtailed) == {
        "now": ("passed", TRIALS, TRIALS),
        "never-called": ("failed", 1, TRIALS),
        "any-of-five": ("passed", 1, TRIALS),
    }
    # Requests: "now" 2 a trial, "never-called" 1, "any-of-five" 2 (curtailed: 10 + 1 + 2).
    assert full_requests == 2 * TRIALS + TRIALS + 2 * TRIALS
    assert server.request_count == 2 * TRIALS + 1 + 2
    assert "curtailed trials: 8 of 15 planned trials not run (2 cases decided early" in printed


def test_curtailing_keeps_cache_keys_a_full_run_reuses_and_a_replay_sends_nothing(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = model_server(SCRIPT)
    run(repo, server, monkeypatch, "--cache", "cache")
    curtailed_requests = server.request_count
    server.reset_stats()
    _, replayed = run(repo, server, monkeypatch, "--cache", "cache", "--replay")
    assert server.request_count == 0
    assert replayed["settings"]["cache"]["misses"] == 0
    server.reset_stats()
    _, full = run(repo, server, monkeypatch, "--cache", "cache", "--trials-policy", "full")
    # The full run sends only what the curtailed run never asked: trials 2-5 of two cases.
    assert server.request_count == (2 * TRIALS + TRIALS + 2 * TRIALS) - curtailed_requests
    assert full["settings"]["cache"]["hits"] == curtailed_requests


def test_with_a_base_side_a_case_failing_on_both_sides_stops_the_base_early(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The head's "never-called" fails every trial; against a base that might pass, how many head
    trials fail decides a regression, so the head runs all five. The base side then knows the head:
    its first failed trial makes the case still failing whatever its other trials say."""
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "weather.suite.yaml").write_text(SUITE.replace("threshold: 0.5", "threshold: 0.4"))
    git(repo, "commit", "-qam", "lower the threshold")
    server = model_server(SCRIPT)
    argv = ("--changed-since", "main", "--baseline", "auto", "--baseline-json", "out/base.json")
    full_code, full = run(repo, server, monkeypatch, *argv, "--trials-policy", "full")
    full_base = json.loads((repo / "out" / "base.json").read_text())
    shutil.rmtree(repo / ".tool-eval-gate")  # the default cache: the curtailed run starts cold too
    server.reset_stats()
    code, curtailed = run(repo, server, monkeypatch, *argv)
    base = json.loads((repo / "out" / "base.json").read_text())

    assert code == full_code
    calls = {c["case_id"]: c["status"] for c in curtailed["comparison"]["cases"]}
    assert calls == {c["case_id"]: c["status"] for c in full["comparison"]["cases"]}
    assert calls["never-called"] == "still_failing"
    assert {k: v[0] for k, v in statuses(base).items()} == {k: v[0] for k, v in statuses(full_base).items()}
    # Head: "never-called" runs all five (against a base that might pass, how many fail matters).
    assert statuses(curtailed) == {
        "now": ("passed", TRIALS, TRIALS),
        "never-called": ("failed", TRIALS, TRIALS),
        "any-of-five": ("passed", 1, TRIALS),
    }
    # Base: "never-called" failed like the head: still failing whatever its other trials say.
    assert statuses(base) == {
        "now": ("passed", TRIALS, TRIALS),
        "never-called": ("failed", 1, TRIALS),
        "any-of-five": ("passed", 1, TRIALS),
    }
    # The head's requests (10 + 5 + 2) answer the base's same requests from the cache.
    assert curtailed["settings"]["requests"] == 2 * TRIALS + TRIALS + 2
    assert server.request_count == curtailed["settings"]["requests"]
