"""tracked_under: the files git tracks below a directory (real git on a scratch repository)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gate.git.tracked import GitUnavailable, tracked_under


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root, check=True
    )


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "cache" / "ab").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "cache" / "ab" / "k.json").write_text("{}")
    (root / "README.md").write_text("r\n")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_untracked_and_ignored_files_are_not_tracked_but_added_ones_are(repo: Path) -> None:
    assert tracked_under(repo / "cache", repo) == ()
    git(repo, "add", "cache/ab/k.json")  # staged counts: the index is what a commit takes
    assert tracked_under(repo / "cache", repo) == ("cache/ab/k.json",)
    assert tracked_under(repo / "cache" / "missing", repo) == ()
    assert tracked_under(repo.parent, repo) == ()  # outside the repository


def test_a_root_below_the_top_level_reports_paths_from_the_top(repo: Path) -> None:
    git(repo, "add", "cache/ab/k.json")
    assert tracked_under(repo / "cache" / "ab", repo / "cache") == ("cache/ab/k.json",)


def test_no_repository_tracks_nothing(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert tracked_under(tmp_path / "plain", tmp_path) == ()


def test_a_repository_git_refuses_to_read_is_not_taken_as_empty(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in the action's container, root over the runner's checkout without safe.directory: git
    refuses the repository ("dubious ownership"), which is no proof that nothing is tracked."""
    subprocess.run(["chown", "-R", "1001:1001", str(repo)], check=True)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    with pytest.raises(GitUnavailable, match="dubious ownership"):
        tracked_under(repo / "cache", repo)
