"""Change detection as ``run --changed-since`` does it: real repositories, suites read by the real
loader (the files they read as the builder records them), real git. Each test is a way a pull request
can change what a suite reads without changing a path the suite writes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.git.detection import affected_since

TOOLS = '[{"name": "get_forecast", "description": "Forecast. $Id$", "input_schema": {"type": "object"}}]\n'
SUITE = """\
version: 1
name: weather
agent: {provider: openai, model: m, tools: [{file: tools/forecast.json}]}
cases: [{id: c, input: hi, expect: {no_calls: true}}]
"""
PROGRAM = """\
version: 1
name: desk
agent:
  command: [python3, agent/main.py]
  watch: ["agent/**"]
  tools: [{name: get_forecast, description: Forecast., input_schema: {type: object}}]
cases: [{id: c, input: hi, expect: {no_calls: true}}]
"""


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "protocol.file.allow=always", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tools").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "tools" / "forecast.json").write_text(TOOLS)
    (root / "weather.suite.yaml").write_text(SUITE)
    (root / "README.md").write_text("demo\n")
    return root


def affected(root: Path) -> dict[str, dict[str, str]]:
    loaded = load_suites([root], root=root)
    assert not loaded.problems, loaded.problems
    return affected_since("main", root, loaded.suites)


def on_a_branch(root: Path) -> None:
    commit(root, "base")
    git(root, "checkout", "-q", "-b", "pr")


def test_a_gitattributes_change_alone_changes_what_git_writes(repo: Path) -> None:
    on_a_branch(repo)
    (repo / ".gitattributes").write_text("tools/*.json ident\n")  # $Id$ expands on checkout
    commit(repo, "attributes")
    git(repo, "rm", "-q", "--cached", "tools/forecast.json")  # written again, as a new checkout does
    git(repo, "reset", "-q", "--hard")
    assert "$Id: " in (repo / "tools" / "forecast.json").read_text()  # the file the suite reads changed
    assert git(repo, "diff", "--name-only", "main...HEAD") == ".gitattributes"
    assert affected(repo) == {
        "weather.suite.yaml": {
            ".gitattributes": "suite file: .gitattributes changes how git writes weather.suite.yaml"
        }
    }


def test_a_name_differing_in_letter_case_is_the_same_file_where_case_is_ignored(repo: Path) -> None:
    on_a_branch(repo)
    (repo / "TOOLS").mkdir(exist_ok=True)
    (repo / "TOOLS" / "Forecast.json").write_text("[]\n")
    commit(repo, "a file a case-insensitive checkout writes over tools/forecast.json")
    assert affected(repo) == {"weather.suite.yaml": {"TOOLS/Forecast.json": "tool definitions"}}


def test_a_file_the_suite_reads_that_git_ignores_runs_the_suite(repo: Path) -> None:
    (repo / ".gitignore").write_text("tools/forecast.json\n")
    on_a_branch(repo)
    assert affected(repo) == {
        "weather.suite.yaml": {
            "tools/forecast.json": "tool definitions: not tracked by git, so whether it changed "
            "cannot be told"
        }
    }


def test_a_file_replaced_by_a_symlink_and_back(repo: Path) -> None:
    (repo / "shared").mkdir()
    (repo / "shared" / "forecast.json").write_text(TOOLS)
    on_a_branch(repo)
    (repo / "tools" / "forecast.json").unlink()
    os.symlink("../shared/forecast.json", repo / "tools" / "forecast.json")
    commit(repo, "a link now")
    assert affected(repo) == {"weather.suite.yaml": {"tools/forecast.json": "tool definitions"}}
    (repo / "shared" / "forecast.json").write_text(TOOLS.replace("Forecast.", "Weekly."))  # uncommitted
    assert affected(repo)["weather.suite.yaml"]["shared/forecast.json"] == (
        "tool definitions, read as tools/forecast.json"
    )


def test_a_program_watched_through_a_symlinked_directory(repo: Path) -> None:
    (repo / "agent").mkdir()
    (repo / "agent" / "main.py").write_text("import lib.route\n")
    (repo / "shared" / "lib").mkdir(parents=True)
    (repo / "shared" / "lib" / "route.py").write_text("ROUTE = 1\n")
    os.symlink("../shared/lib", repo / "agent" / "lib")
    (repo / "desk.suite.yaml").write_text(PROGRAM)
    on_a_branch(repo)
    (repo / "shared" / "lib" / "route.py").write_text("ROUTE = 2\n")
    commit(repo, "change the linked code only")
    assert affected(repo) == {
        "desk.suite.yaml": {"shared/lib/route.py": "agent program (watch), read as agent/lib"}
    }


def add_submodule(root: Path, tmp_path: Path, path: str, files: dict[str, str]) -> Path:
    upstream = tmp_path / path.replace("/", "-")
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    for name, text in files.items():
        (upstream / name).write_text(text)
    commit(upstream, "v1")
    git(root, "submodule", "add", "-q", str(upstream), path)
    return root / path


def test_a_program_in_a_submodule_and_a_tool_file_linked_into_one(repo: Path, tmp_path: Path) -> None:
    desk = PROGRAM.replace("agent/**", "vendor/agent/src/*.py").replace(
        "agent/main.py", "vendor/agent/src/main.py"
    )
    (repo / "desk.suite.yaml").write_text(desk)
    (repo / "vendor").mkdir()
    program = add_submodule(repo, tmp_path, "vendor/agent", {"README": "agent\n"})
    (program / "src").mkdir()
    (program / "src" / "main.py").write_text("print('v1')\n")
    commit(program, "main")
    tools = add_submodule(repo, tmp_path, "vendor/tools", {"forecast.json": TOOLS})
    (repo / "tools" / "forecast.json").unlink()
    os.symlink("../vendor/tools/forecast.json", repo / "tools" / "forecast.json")
    on_a_branch(repo)
    (program / "src" / "main.py").write_text("print('v2')\n")
    commit(program, "v2")
    (tools / "forecast.json").write_text(TOOLS.replace("Forecast.", "Weekly."))
    commit(tools, "v2")
    commit(repo, "bump both")
    assert affected(repo) == {
        "desk.suite.yaml": {
            "vendor/agent": "agent program: submodule moved (vendor/agent/src/main.py inside it)",
        },
        "weather.suite.yaml": {
            "vendor/tools": "tool definitions: submodule moved (vendor/tools/forecast.json inside it)"
        },
    }


def test_a_submodule_whose_checkout_git_cannot_inspect_runs_the_suites_reading_in_it(
    repo: Path, tmp_path: Path
) -> None:
    tools = add_submodule(repo, tmp_path, "vendor/tools", {"forecast.json": TOOLS})
    (repo / "weather.suite.yaml").write_text(
        SUITE.replace("tools/forecast.json", "vendor/tools/forecast.json")
    )
    on_a_branch(repo)
    (tools / ".git").write_text("gitdir: /nowhere\n")
    found = affected(repo)["weather.suite.yaml"]
    assert list(found) == ["vendor/tools"]
    assert found["vendor/tools"].startswith(
        "tool definitions: the submodule's checkout cannot be inspected ("
    )


def test_what_changes_nothing_a_suite_reads_affects_nothing(repo: Path, tmp_path: Path) -> None:
    add_submodule(repo, tmp_path, "vendor/tools", {"forecast.json": TOOLS})
    (repo / "tools" / "forecast.json").unlink()
    os.symlink("../vendor/tools/forecast.json", repo / "tools" / "forecast.json")
    (repo / "docs").mkdir()
    (repo / "docs" / "index.md").write_text("docs\n")
    on_a_branch(repo)
    (repo / "docs" / "index.md").write_text("more docs\n")
    (repo / "docs" / ".gitattributes").write_text("*.md text\n")
    commit(repo, "docs")
    assert affected(repo) == {}
