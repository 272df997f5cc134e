"""What a pull request changed is what the gate sees changed, end to end: a real repository whose suite
reads its tool file through a symlink or inside a git submodule, a pull request that changes only what
the link leads to or only moves the submodule, and ``run --changed-since main --baseline auto`` against
the scripted model. The PR's tool description makes the model stop calling get_forecast: the suite must
run, say which change made it run, and find the regression against a base side read the same way."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gate.commands.run import main as run_main
from gate.errors import InputError
from tests.end_to_end.test_baseline_auto import SCRIPT, SUITE, git, tools

GOOD = "Forecast for the next days, starting tomorrow."
BAD = "Forecast for the coming week."


def suite(tool_file: str) -> str:
    return SUITE.replace("tools/weather.json", tool_file)


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text(".tool-eval-gate/\nout/\n")
    (path / "README.md").write_text("demo\n")
    return path


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def submodule(repo: Path, *args: str) -> None:
    """``git submodule ...`` in ``repo``, allowed to clone a repository of this machine."""
    git(repo, "-c", "protocol.file.allow=always", "submodule", *args)


def run(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-changes-seen")
    out = repo / "out"
    argv = ["--changed-since", "main", "--baseline", "auto", "--concurrency", "4"]
    code = run_main([*argv, "--json", str(out / "r.json"), "--markdown", str(out / "r.md")])
    results = json.loads((out / "r.json").read_text()) if (out / "r.json").exists() else {}
    return code, results


def statuses(results: dict[str, Any]) -> dict[str, str]:
    return {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}


def file_link(repo: Path) -> str:
    """tools/weather.json is a symlink to the shared file."""
    (repo / "shared").mkdir()
    (repo / "shared" / "forecast-tools.json").write_text(tools(GOOD))
    (repo / "tools").mkdir()
    os.symlink("../shared/forecast-tools.json", repo / "tools" / "weather.json")
    return "shared/forecast-tools.json"


def directory_link(repo: Path) -> str:
    """tools is a symlink to a directory holding weather.json."""
    (repo / "shared" / "tools").mkdir(parents=True)
    (repo / "shared" / "tools" / "weather.json").write_text(tools(GOOD))
    os.symlink("shared/tools", repo / "tools", target_is_directory=True)
    return "shared/tools/weather.json"


def chain_of_links(repo: Path) -> str:
    """tools/weather.json links to links/current.json, which links (absolutely, inside the repository)
    to the file in versions/."""
    (repo / "versions").mkdir()
    (repo / "versions" / "v2.json").write_text(tools(GOOD))
    (repo / "links").mkdir()
    os.symlink(repo / "versions" / "v2.json", repo / "links" / "current.json")
    (repo / "tools").mkdir()
    os.symlink("../links/current.json", repo / "tools" / "weather.json")
    return "versions/v2.json"


@pytest.mark.parametrize("layout", [file_link, directory_link, chain_of_links])
def test_a_pr_that_changes_only_what_a_symlink_leads_to_runs_the_suite_on_both_sides(
    layout: Callable[[Path], str], tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "repo")
    target = layout(repo)
    (repo / "weather.suite.yaml").write_text(suite("tools/weather.json"))
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / target).write_text(tools(BAD))
    commit(repo, "reword get_forecast where the link leads")

    code, results = run(repo, model_server(SCRIPT), monkeypatch)

    assert code == 1  # the regression the reworded description causes, found against the base side
    assert results["suites"][0]["triggered_by"] == {target: "tool definitions, read as tools/weather.json"}
    assert statuses(results) == {"tomorrow": "regressed", "now": "unchanged", "hello": "unchanged"}
    line = next(n for n, text in enumerate(tools(BAD).splitlines(), 1) if "coming week" in text)
    regressed = next(c for c in results["comparison"]["cases"] if c["status"] == "regressed")
    assert regressed["culprit"] == f"{target}:{line}"  # the changed line, in the file the PR changed
    assert f"{target} (tool definitions, read as tools/weather.json)" in (repo / "out" / "r.md").read_text()


def test_a_pr_that_retargets_a_symlink_runs_the_suite(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / "versions").mkdir()
    (repo / "versions" / "v1.json").write_text(tools(GOOD))
    (repo / "versions" / "v2.json").write_text(tools(BAD))
    (repo / "tools").mkdir()
    os.symlink("../versions/v1.json", repo / "tools" / "weather.json")
    (repo / "weather.suite.yaml").write_text(suite("tools/weather.json"))
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "pr")
    os.unlink(repo / "tools" / "weather.json")
    os.symlink("../versions/v2.json", repo / "tools" / "weather.json")
    commit(repo, "point at v2")

    code, results = run(repo, model_server(SCRIPT), monkeypatch)

    assert code == 1
    assert results["suites"][0]["triggered_by"] == {"tools/weather.json": "tool definitions"}
    assert statuses(results)["tomorrow"] == "regressed"


def tools_repository(tmp_path: Path) -> Path:
    """A repository of tool definitions, with the good description, to be used as a submodule."""
    upstream = new_repo(tmp_path / "tools-upstream")
    (upstream / "weather.json").write_text(tools(GOOD))
    commit(upstream, "tools v1")
    return upstream


def repo_with_submodule(tmp_path: Path) -> Path:
    """The suite reads vendor/tools/weather.json, a file of a submodule; main holds it, "pr" is new."""
    upstream = tools_repository(tmp_path)
    repo = new_repo(tmp_path / "repo")
    submodule(repo, "add", "-q", str(upstream), "vendor/tools")
    (repo / "weather.suite.yaml").write_text(suite("vendor/tools/weather.json"))
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "pr")
    return repo


def bump_submodule(repo: Path, *, orphan: bool = False) -> None:
    """Commit the bad description in the submodule and move the gitlink to it (what a submodule
    update does); ``orphan``: a commit that does not descend from the one the base records."""
    checkout = repo / "vendor" / "tools"
    if orphan:
        git(checkout, "checkout", "-q", "--orphan", "rewritten")
    (checkout / "weather.json").write_text(tools(BAD))
    commit(checkout, "tools v2")
    git(repo, "add", "vendor/tools")
    git(repo, "commit", "-qm", "bump vendor/tools")


@pytest.mark.parametrize("ignored", [False, True], ids=["plain", "gitmodules-ignore-all"])
def test_a_pr_that_only_moves_a_submodule_runs_the_suites_reading_inside_it(
    ignored: bool, tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repo_with_submodule(tmp_path)
    if ignored:  # the PR also tells git to hide the submodule's changes from diffs
        git(repo, "config", "-f", ".gitmodules", "submodule.vendor/tools.ignore", "all")
        git(repo, "add", ".gitmodules")
    bump_submodule(repo)
    assert git(repo, "diff", "--name-only", "main...HEAD").split() == (
        [".gitmodules"] if ignored else ["vendor/tools"]
    )

    code, results = run(repo, model_server(SCRIPT), monkeypatch)

    assert code == 1
    triggered = results["suites"][0]["triggered_by"]
    moved = "tool definitions: submodule moved (vendor/tools/weather.json inside it)"
    assert triggered["vendor/tools"] == moved
    assert set(triggered) == ({".gitmodules", "vendor/tools"} if ignored else {"vendor/tools"})
    assert statuses(results) == {
        "tomorrow": "regressed",
        "now": "unchanged",
        "hello": "unchanged",
    }  # the base side read v1
    line = next(n for n, text in enumerate(tools(BAD).splitlines(), 1) if "coming week" in text)
    regressed = next(c for c in results["comparison"]["cases"] if c["status"] == "regressed")
    assert regressed["culprit"] == f"vendor/tools/weather.json:{line}"  # the line inside the submodule


def test_a_submodule_whose_merge_base_commit_is_not_in_the_clone_is_refused_before_any_request(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = repo_with_submodule(tmp_path)
    bump_submodule(repo, orphan=True)
    checkout = repo / "vendor" / "tools"
    base_commit = git(repo, "rev-parse", "main:vendor/tools").strip()
    for ref in git(checkout, "for-each-ref", "--format=%(refname)").split():
        if ref != "refs/heads/rewritten":
            git(checkout, "update-ref", "-d", ref)
    git(checkout, "reflog", "expire", "--expire=now", "--all")
    git(checkout, "gc", "-q", "--prune=now")
    gone = subprocess.run(
        ["git", "cat-file", "-e", f"{base_commit}^{{commit}}"], cwd=checkout, check=False, capture_output=True
    )
    assert gone.returncode != 0
    server = model_server(SCRIPT)

    with pytest.raises(InputError) as refused:
        run(repo, server, monkeypatch)

    assert refused.value.exit_code == 2
    assert server.request_count == 0
    message = str(refused.value)
    assert message.startswith("weather.suite.yaml: --baseline auto: the base side of weather-agent needs the")
    assert f"needs the submodule vendor/tools at {base_commit[:12]}" in message
    assert "(vendor/tools/weather.json inside it)" in message and "fetch-depth: 0" in message


def test_a_pr_that_changes_nothing_a_suite_reads_through_links_or_submodules_runs_nothing(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    upstream = tools_repository(tmp_path)
    repo = new_repo(tmp_path / "repo")
    submodule(repo, "add", "-q", str(upstream), "vendor/tools")
    os.symlink("vendor/tools", repo / "tools", target_is_directory=True)
    (repo / "weather.suite.yaml").write_text(suite("tools/weather.json"))
    (repo / "shared").mkdir()
    (repo / "shared" / "unrelated.json").write_text("{}\n")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "shared" / "unrelated.json").write_text('{"x": 1}\n')
    (repo / "README.md").write_text("reworded\n")
    commit(repo, "unrelated changes")
    server = model_server(SCRIPT)

    code, _ = run(repo, server, monkeypatch)

    assert code == 0
    assert server.request_count == 0
    assert "no suite is affected by the changes since main" in capsys.readouterr().err
