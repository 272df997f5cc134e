"""Change detection: which files a PR changed (real git on a scratch repository) and which suites
they affect."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.git.changes import affected_suites, changed_files
from gate.suite.model import (
    Agent,
    Case,
    Command,
    Defaults,
    Expectation,
    Message,
    MockRule,
    Mocks,
    ModelParams,
    Prompt,
    Scoring,
    Source,
    Suite,
    ToolDef,
)


def git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return out.stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    git(root, "config", "commit.gpgsign", "false")
    for name in ("evals/weather.yaml", "prompts/weather.md", "tools/weather.json", "README.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{name}\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_changes_since_merge_base_plus_uncommitted_and_untracked(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "prompts/weather.md").write_text("changed on the branch\n")
    git(repo, "commit", "-q", "-am", "change prompt")
    # main moves on after the branch point: its changes must not count (merge base, three dots).
    git(repo, "checkout", "-q", "main")
    (repo / "README.md").write_text("changed on main\n")
    git(repo, "commit", "-q", "-am", "main moves")
    git(repo, "checkout", "-q", "feature")
    (repo / "tools/weather.json").write_text("[]\n")  # unstaged change
    (repo / "evals/new suite.yaml").write_text("version: 1\n")  # untracked, with a space

    assert changed_files("main", repo) == ["evals/new suite.yaml", "prompts/weather.md", "tools/weather.json"]


def test_paths_are_relative_to_a_root_below_the_top_level(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "evals/weather.yaml").write_text("changed\n")
    (repo / "README.md").write_text("changed\n")
    git(repo, "commit", "-q", "-am", "two changes")
    assert changed_files("main", repo / "evals") == ["weather.yaml"]


def test_no_changes_gives_an_empty_list(repo: Path) -> None:
    assert changed_files("HEAD", repo) == []


def test_unknown_ref_is_an_input_error_with_a_fetch_hint(repo: Path) -> None:
    with pytest.raises(InputError) as info:
        changed_files("origin/does-not-exist", repo)
    assert "not known" in str(info.value)
    assert "fetch-depth" in str(info.value)
    assert info.value.exit_code == 2


def test_unrelated_history_without_merge_base_is_an_input_error(repo: Path) -> None:
    git(repo, "checkout", "-q", "--orphan", "other")
    git(repo, "commit", "-q", "-m", "unrelated")
    with pytest.raises(InputError) as info:
        changed_files("main", repo)
    assert "fetch" in str(info.value)


def test_not_a_git_repository(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        changed_files("main", tmp_path)
    assert "not inside a usable git work tree" in str(info.value)


def test_option_like_ref_is_rejected(repo: Path) -> None:
    with pytest.raises(InputError):
        changed_files("--output=/tmp/x", repo)


def make_suite(
    path: str,
    *,
    prompt: str | None = None,
    tools: tuple[str, ...] = (),
    mocks: str | None = None,
    case_mocks: str | None = None,
    extra: tuple[str, ...] = (),
) -> Suite:
    defaults = Defaults()
    tool_defs = tuple(
        ToolDef(name=f"t{i}", description="d", parameters={"type": "object"}, source=Source(file, 2))
        for i, file in enumerate(tools or (path,))
    )
    case = Case(
        id="c1",
        conversation=(Message("user", "hi"),),
        vars={},
        tags=(),
        expect=Expectation(),
        trials=1,
        reducer="all",
        at_least=1,
        mean_pass_score=0.5,
        max_tool_calls=16,
        max_turns=8,
        scoring=Scoring(),
        mocks=Mocks(
            tools={"t0": (MockRule(when=None, returns=1, source=Source(case_mocks)),)} if case_mocks else {},
        ),
        source=Source(path, 10),
    )
    deps = tuple(x for x in (prompt, *tools, mocks, case_mocks, *extra) if x)
    return Suite(
        name=path.rsplit("/", 1)[-1],
        path=path,
        description="",
        tags=(),
        agent=Agent(
            provider="openai",
            model="m",
            params=ModelParams(),
            system_prompt=Prompt("p", Source(prompt or path, 1 if prompt else 5), from_file=bool(prompt)),
            tools=tool_defs,
        ),
        judge=None,
        mocks=Mocks(source=Source(mocks or path)),
        defaults=defaults,
        threshold=0.9,
        cases=(case,),
        dependencies=deps,
    )


def test_affected_suites_name_the_reason_per_file() -> None:
    weather = make_suite(
        "evals/weather.yaml",
        prompt="prompts/weather.md",
        tools=("tools/weather.json",),
        mocks="mocks/weather.yaml",
    )
    travel = make_suite(
        "evals/travel.yaml",
        tools=("tools/weather.json", "tools/flights.json"),
        case_mocks="mocks/flights.yaml",
        extra=("data/airports.csv",),
    )
    inline = make_suite("evals/inline.yaml")
    changed = [
        "tools/weather.json",
        "./prompts/weather.md",
        "mocks/flights.yaml",
        "data/airports.csv",
        "README.md",
        "evals/inline.yaml",
    ]

    assert affected_suites([weather, travel, inline], changed) == {
        "evals/weather.yaml": {"prompts/weather.md": "prompt", "tools/weather.json": "tool definitions"},
        "evals/travel.yaml": {
            "data/airports.csv": "dependency",
            "mocks/flights.yaml": "mocks",
            "tools/weather.json": "tool definitions",
        },
        "evals/inline.yaml": {"evals/inline.yaml": "suite file"},
    }


def test_suite_mock_file_and_unrelated_changes() -> None:
    weather = make_suite("evals/weather.yaml", mocks="mocks/weather.yaml")
    assert affected_suites([weather], ["mocks/weather.yaml"]) == {
        "evals/weather.yaml": {"mocks/weather.yaml": "mocks"}
    }
    assert affected_suites([weather], ["docs/index.md", "evals/other.yaml"]) == {}
    assert affected_suites([weather], []) == {}


def test_a_command_watch_glob_affects_its_suite_and_names_the_command() -> None:
    program = Command(
        ("node", "agent/main.mjs"), "agent program", watch=("agent/**/*.mjs", "agent/package.json")
    )
    server = Command(("python", "-m", "tools_server"), "MCP server", watch=("tools_server/",))
    suite = dataclasses.replace(make_suite("evals/agent.yaml"), commands=(program, server))
    other = make_suite("evals/other.yaml")
    changed = ["agent/lib/route.mjs", "agent/package.json", "tools_server/x.py", "agent/README.md"]

    assert affected_suites([suite, other], changed) == {
        "evals/agent.yaml": {
            "agent/lib/route.mjs": "agent program (watch)",
            "agent/package.json": "agent program (watch)",
            "tools_server/x.py": "MCP server (watch)",
        }
    }


def test_a_file_the_suite_reads_keeps_its_own_reason_over_a_watch() -> None:
    program = Command(("python", "agent.py"), "agent program", watch=("**",))
    suite = dataclasses.replace(make_suite("evals/agent.yaml", prompt="prompts/p.md"), commands=(program,))
    assert affected_suites([suite], ["prompts/p.md", "agent.py"]) == {
        "evals/agent.yaml": {"agent.py": "agent program (watch)", "prompts/p.md": "prompt"}
    }
