"""Answers a pull request can write never decide its verdict in CI (DESIGN section 6), through the real
CLI on a real git repository: the PR rewords a tool description so that the real model stops calling
the tool, records answers from a model scripted to answer correctly, and commits them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gate.commands.run import main as run_main
from gate.errors import EXIT_INCOMPLETE, GateError
from tests.end_to_end.test_baseline_auto import SCRIPT, git, make_repo, pr_changes_description

# The forger's model calls the expected tool whatever the description says.
FORGED = {
    "rules": [
        {
            "when": {"last_user": "tomorrow", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        *SCRIPT["rules"][1:],
    ],
    "default": SCRIPT["default"],
}
CACHE = ".tool-eval-gate/cache"
COMPARE = ["--changed-since", "main", "--baseline", "auto", "--concurrency", "4"]


def gate(repo: Path, monkeypatch: pytest.MonkeyPatch, server: Any | None, *argv: str) -> int:
    """``tool-eval-gate run`` as the CLI runs it (an expected error is its exit code)."""
    monkeypatch.chdir(repo)
    if server is None:  # a fork: no key, no model
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cache-trust")
    try:
        return run_main(["--quiet", "--json", str(repo.parent / "r.json"), *argv])
    except GateError as exc:
        print(f"tool-eval-gate run: {exc}")
        return exc.exit_code


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


@pytest.fixture
def forged_pr(repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The PR: the worse description, and both sides' answers recorded from the forger's model,
    committed (forced past .gitignore)."""
    pr_changes_description(repo)
    assert gate(repo, monkeypatch, model_server(FORGED), *COMPARE, "--cache", CACHE, "--record") == 0
    git(repo, "add", "-f", CACHE)
    git(repo, "commit", "-qm", "answers")
    return repo


def statuses(repo: Path) -> dict[str, str]:
    results = json.loads((repo.parent / "r.json").read_text())
    return {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}


def test_committed_answers_do_not_decide_the_verdict_in_ci(
    forged_pr: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    real = model_server(SCRIPT)
    capsys.readouterr()
    assert gate(forged_pr, monkeypatch, real, *COMPARE) == 1  # the regression the real model shows
    assert statuses(forged_pr)["tomorrow"] == "regressed"
    assert real.request_count > 0  # both sides asked the model
    err = capsys.readouterr().err
    assert f"the response cache {forged_pr / CACHE} holds files tracked by git" in err
    assert "none is read from it" in err
    assert git(forged_pr, "status", "--porcelain") == ""  # nothing was written into the PR's files


def test_a_fork_that_can_only_replay_committed_answers_is_not_verified(
    forged_pr: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    (forged_pr.parent / "r.json").unlink()  # the forger's own run
    capsys.readouterr()
    assert gate(forged_pr, monkeypatch, None, *COMPARE, "--replay") == EXIT_INCOMPLETE
    out = capsys.readouterr().out
    assert "not verified: the response cache" in out and "holds files tracked by git" in out
    assert not (forged_pr.parent / "r.json").exists()  # no result that could read as a pass


def test_a_cache_reached_through_a_symlink_is_not_read_in_ci(
    repo: Path,
    model_server: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pr_changes_description(repo)
    forged = repo.parent / "elsewhere"
    assert gate(repo, monkeypatch, model_server(FORGED), *COMPARE, "--cache", str(forged), "--record") == 0
    (repo / ".tool-eval-gate").mkdir()
    os.symlink(forged, repo / CACHE)  # untracked, but a link: a PR can commit one
    monkeypatch.setenv("CI", "1")
    assert gate(repo, monkeypatch, None, *COMPARE, "--replay") == EXIT_INCOMPLETE
    assert f"is reached through the symlink {repo / CACHE}" in capsys.readouterr().out
    assert gate(repo, monkeypatch, model_server(SCRIPT), *COMPARE) == 1
    assert statuses(repo)["tomorrow"] == "regressed"


def test_outside_ci_committed_answers_replay_and_say_they_are_recorded(
    forged_pr: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Committed cassettes serve demos and offline runs (README's first command)."""
    capsys.readouterr()
    assert gate(forged_pr, monkeypatch, None, *COMPARE, "--replay") == 0
    err = capsys.readouterr().err
    assert f"the answers taken from {forged_pr / CACHE} are recorded ones" in err


def test_the_gates_own_cache_is_trusted_in_ci(
    repo: Path,
    model_server: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where only the gate writes (untracked, restored by actions/cache), a replay is verified. The
    gate's own directory ignores itself: a `git add -A` never commits the cache."""
    (repo / ".gitignore").write_text("out/\n")  # the repository does not ignore .tool-eval-gate/
    pr_changes_description(repo)
    server = model_server(SCRIPT)
    assert gate(repo, monkeypatch, server, *COMPARE) == 1  # fills the default cache
    git(repo, "add", "-A")
    assert ".tool-eval-gate" not in git(repo, "status", "--porcelain", "--untracked-files=all")
    monkeypatch.setenv("CI", "true")
    assert gate(repo, monkeypatch, None, *COMPARE, "--replay") == 1
    assert statuses(repo)["tomorrow"] == "regressed"
