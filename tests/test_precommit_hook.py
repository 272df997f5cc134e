"""The pre-commit hook, run for real: ``pre-commit try-repo`` installs this project into a fresh
virtualenv and runs ``tool-eval-gate-validate`` on a scratch repository."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

GOOD = """\
version: 1
name: good
agent:
  provider: openai
  model: gpt-4o-mini
  tools: [{file: tools/t.json}]
cases:
  - id: a
    input: hi
    expect:
      calls: [{tool: ping}]
"""

BAD = GOOD.replace("name: good", "name: bad").replace("tool: ping", "tool: pong")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory) -> Path:
    """One pre-commit cache for the session, so the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> Path:
    """A committed snapshot of this working tree. try-repo on a dirty tree makes a new commit (and a
    new hook environment) on every call; on a clean snapshot every call reuses one environment."""
    snapshot = tmp_path_factory.mktemp("hook-repo")
    listed = _git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
    for rel in filter(None, listed):
        source = ROOT / rel
        if source.is_file():
            (snapshot / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / rel)
    _git(snapshot, "init", "-q")
    _git(snapshot, "add", "-A")
    _git(
        snapshot,
        "-c",
        "user.name=test",
        "-c",
        "user.email=test@example.com",
        "commit",
        "-q",
        "-m",
        "snapshot",
    )
    return snapshot


@pytest.fixture
def scratch_repo(tmp_path) -> Path:
    repo = tmp_path / "scratch"
    (repo / "tools").mkdir(parents=True)
    (repo / "tools" / "t.json").write_text(
        '[{"name": "ping", "description": "Ping.", "parameters": {"type": "object"}}]'
    )
    (repo / "good.suite.yaml").write_text(GOOD)
    (repo / "bad.suite.yaml").write_text(BAD)
    (repo / "README.md").write_text("not a suite\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    return repo


def _try_repo(repo: Path, hook_repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    pre_commit = shutil.which("pre-commit")
    assert pre_commit, "pre-commit is a test dependency"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [pre_commit, "try-repo", str(hook_repo), "tool-eval-gate-validate", "--color", "never", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_hook_definitions():
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    validate, run = hooks["tool-eval-gate-validate"], hooks["tool-eval-gate-run"]
    assert validate["entry"] == "tool-eval-gate validate" and validate["language"] == "python"
    assert (
        run["entry"] == "tool-eval-gate run" and run["stages"] == ["manual"] and run["require_serial"] is True
    )
    import re

    pattern = re.compile(validate["files"])
    for path in (
        "a.suite.yaml",
        "x/b.suite.yml",
        "prompts/p.md",
        "agents/tools/t.json",
        "mocks/m.yaml",
        "x/prompts/q.txt",
    ):
        assert pattern.search(path), path
    for path in ("README.md", "config.yaml", "src/tools.py", "tools.json"):
        assert not pattern.search(path), path
    assert run["files"] == validate["files"]


def test_try_repo_fails_on_the_bad_suite_with_a_line_numbered_message(
    scratch_repo, hook_repo, pre_commit_home
):
    run = _try_repo(scratch_repo, hook_repo, pre_commit_home, "--all-files")
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert (
        "bad.suite.yaml:11:22: cases[0].expect.calls[0].tool: unknown tool 'pong' (fix: did you mean 'ping'?)"
        in output
    )
    assert "good.suite.yaml:" not in output


def test_try_repo_passes_when_only_the_good_files_change(scratch_repo, hook_repo, pre_commit_home):
    run = _try_repo(scratch_repo, hook_repo, pre_commit_home, "--files", "good.suite.yaml", "tools/t.json")
    # tools/t.json is used by both suites: the bad one is found through it
    assert run.returncode == 1 and "unknown tool 'pong'" in run.stdout + run.stderr
    (scratch_repo / "bad.suite.yaml").unlink()
    _git(scratch_repo, "add", "-A")
    run = _try_repo(scratch_repo, hook_repo, pre_commit_home, "--files", "good.suite.yaml", "tools/t.json")
    assert run.returncode == 0, run.stdout + run.stderr
