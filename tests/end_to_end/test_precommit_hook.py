"""The pre-commit hook, run for real: ``pre-commit try-repo`` installs this project into a fresh
virtualenv and runs ``tool-eval-gate-validate`` on a scratch repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

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
    assert validate["entry"].startswith("tool-eval-gate validate --skip-unreferenced")
    assert validate["language"] == "python" and "files" not in validate
    assert run["entry"] == "tool-eval-gate run --skip-unreferenced"
    assert run["stages"] == ["manual"] and run["require_serial"] is True
    # the base package has no SDK: the live hook brings the ones `run` needs
    assert {d.split(">")[0] for d in run["additional_dependencies"]} == {"openai", "anthropic"}


def test_the_validate_hook_environment_has_no_sdk_and_no_pygithub():
    text = (ROOT / "pyproject.toml").read_text()
    block = re.search(r"^dependencies = \[(.*?)^\]", text, re.S | re.M)
    assert block, "pyproject.toml lost its dependencies"
    base = {re.split(r"[<>=\[ ]", d)[0].lower() for d in re.findall(r'"([^"]+)"', block.group(1))}
    assert base and base.isdisjoint({"openai", "anthropic", "pygithub", "mcp"}), base
    assert re.search(r'^all = \["tool-eval-gate\[openai,anthropic,github,mcp\]"\]', text, re.M)


def test_hook_decides_by_the_reference_graph(scratch_repo, hook_repo, pre_commit_home):
    """An unrelated JSON under some tools/ folder is never refused; a broken tool file that a suite
    references from an unusual folder is."""
    (scratch_repo / "bad.suite.yaml").unlink()
    (scratch_repo / "build" / "tools").mkdir(parents=True)
    (scratch_repo / "build" / "tools" / "package.json").write_text('{"name": "not-a-tool-file"}')
    (scratch_repo / "defs").mkdir()
    (scratch_repo / "defs" / "broken.json").write_text('[{"name": "ping", "parameters": {"type": "objet"}}]')
    (scratch_repo / "uses-defs.suite.yaml").write_text(
        GOOD.replace("name: good", "name: uses-defs").replace("tools/t.json", "defs/broken.json")
    )
    _git(scratch_repo, "add", "-A")

    unrelated = _try_repo(scratch_repo, hook_repo, pre_commit_home, "--files", "build/tools/package.json")
    assert unrelated.returncode == 0, unrelated.stdout + unrelated.stderr

    broken = _try_repo(scratch_repo, hook_repo, pre_commit_home, "--files", "defs/broken.json")
    output = broken.stdout + broken.stderr
    assert broken.returncode == 1, output
    assert "defs/broken.json:1:" in output and "package.json" not in output


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
