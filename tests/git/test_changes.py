"""What a PR changed, as git lists it (real git on scratch repositories): committed, uncommitted and
untracked entries, with what each was and is (a file, a symlink, a submodule)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.git.affected import Change
from gate.git.changes import changed_files


def git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def paths(ref: str, root: Path) -> list[str]:
    return sorted({change.path for change in changed_files(ref, root).changes})


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

    assert paths("main", repo) == ["evals/new suite.yaml", "prompts/weather.md", "tools/weather.json"]


def test_paths_are_relative_to_a_root_below_the_top_level(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "evals/weather.yaml").write_text("changed\n")
    (repo / "README.md").write_text("changed\n")
    git(repo, "commit", "-q", "-am", "two changes")
    assert paths("main", repo / "evals") == ["weather.yaml"]


def test_no_changes_gives_an_empty_list(repo: Path) -> None:
    assert changed_files("HEAD", repo).changes == ()


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


def kinds(ref: str, root: Path) -> dict[str, tuple[str, str, str]]:
    return {c.path: (c.before, c.after, c.where) for c in changed_files(ref, root).changes}


def test_each_change_says_what_stood_there_before_and_after(repo: Path) -> None:
    os.symlink("weather.json", repo / "tools" / "current.json")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a link")
    git(repo, "checkout", "-q", "-b", "feature")
    os.unlink(repo / "tools" / "current.json")  # the link becomes a file
    (repo / "tools" / "current.json").write_text("{}\n")
    (repo / "prompts" / "weather.md").unlink()  # a file becomes a link
    os.symlink("../README.md", repo / "prompts" / "weather.md")
    os.chmod(repo / "README.md", 0o755)  # a mode change
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "types")
    git(repo, "mv", "evals/weather.yaml", "evals/renamed.yaml")  # uncommitted rename: both paths
    assert kinds("main", repo) == {
        "README.md": ("file", "file", "committed"),
        "evals/renamed.yaml": ("absent", "file", "uncommitted"),
        "evals/weather.yaml": ("file", "absent", "uncommitted"),
        "prompts/weather.md": ("file", "symlink", "committed"),
        "tools/current.json": ("symlink", "file", "committed"),
    }


def submodule_repo(tmp_path: Path, repo: Path) -> Path:
    """``repo`` with a submodule at vendor/tools (on main), on a new branch "feature"."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    (upstream / "forecast.json").write_text("[]\n")
    git(upstream, "add", "-A")
    git(upstream, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "v1")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "vendor/tools")
    git(repo, "commit", "-q", "-m", "submodule")
    git(repo, "checkout", "-q", "-b", "feature")
    return repo / "vendor" / "tools"


def test_a_submodule_moved_in_a_commit_or_in_the_working_tree(repo: Path, tmp_path: Path) -> None:
    checkout = submodule_repo(tmp_path, repo)
    (checkout / "forecast.json").write_text('["v2"]\n')
    git(checkout, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-am", "v2")
    assert kinds("main", repo) == {"vendor/tools": ("submodule", "submodule", "uncommitted")}
    git(repo, "add", "vendor/tools")
    git(repo, "commit", "-q", "-m", "bump")
    assert kinds("main", repo) == {"vendor/tools": ("submodule", "submodule", "committed")}
    (checkout / "forecast.json").write_text("edited in place\n")  # a dirty checkout
    assert changed_files("main", repo).changes[-1] == Change(
        "vendor/tools", "submodule", "submodule", "uncommitted"
    )


def test_gitmodules_cannot_hide_a_submodule_from_the_comparison(repo: Path, tmp_path: Path) -> None:
    checkout = submodule_repo(tmp_path, repo)
    git(repo, "config", "-f", ".gitmodules", "submodule.vendor/tools.ignore", "all")
    git(repo, "config", "diff.ignoreSubmodules", "all")
    (checkout / "forecast.json").write_text('["v2"]\n')
    git(checkout, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-am", "v2")
    git(repo, "add", ".gitmodules", "vendor/tools")
    git(repo, "commit", "-q", "-m", "bump, hidden")
    assert git(repo, "diff", "--name-only", "main...HEAD") == ".gitmodules"
    assert kinds("main", repo) == {
        ".gitmodules": ("file", "file", "committed"),
        "vendor/tools": ("submodule", "submodule", "committed"),
    }


def test_a_submodule_whose_checkout_git_cannot_inspect_is_said(repo: Path, tmp_path: Path) -> None:
    checkout = submodule_repo(tmp_path, repo)
    (checkout / ".git").write_text("gitdir: ../../.git/modules/nowhere\n")
    found = changed_files("main", repo)
    assert [m for m, _ in found.uninspectable] == ["vendor/tools"]
    assert "not a git repository" in found.uninspectable[0][1]


def test_a_gitattributes_above_the_root_is_kept(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / ".gitattributes").write_text("*.yaml ident\n")
    (repo / "evals" / ".gitattributes").write_text("*.yaml eol=crlf\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "attributes")
    assert paths("main", repo / "evals") == ["../.gitattributes", ".gitattributes"]


def test_diff_relative_in_the_configuration_changes_nothing(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "evals" / "weather.yaml").write_text("changed\n")
    git(repo, "commit", "-q", "-am", "change")
    git(repo, "config", "diff.relative", "true")
    (repo / "evals" / "weather.yaml").write_text("changed again\n")
    assert paths("main", repo / "evals") == ["weather.yaml"]
