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
    assert tracked_under(repo / "cache") == ()
    git(repo, "add", "cache/ab/k.json")  # staged counts: the index is what a commit takes
    assert tracked_under(repo / "cache") == ("cache/ab/k.json",)
    assert tracked_under(repo / "cache" / "missing") == ()
    assert tracked_under(repo.parent) == ()  # outside any repository


def test_paths_are_reported_from_the_top_of_the_work_tree(repo: Path) -> None:
    git(repo, "add", "cache/ab/k.json")
    assert tracked_under(repo / "cache" / "ab") == ("cache/ab/k.json",)


def test_no_repository_tracks_nothing(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert tracked_under(tmp_path / "plain") == ()


def test_a_repository_git_refuses_to_read_is_not_taken_as_empty(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in the action's container, root over the runner's checkout without safe.directory: git
    refuses the repository ("dubious ownership"), which is no proof that nothing is tracked."""
    subprocess.run(["chown", "-R", "1001:1001", str(repo)], check=True)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    with pytest.raises(GitUnavailable, match="dubious ownership"):
        tracked_under(repo / "cache")


def test_files_a_submodule_tracks_are_tracked(repo: Path, tmp_path: Path) -> None:
    """A pull request can add a submodule (from a repository of its choice) where the cache lives; a
    checkout with submodules then fills it with answers git lists only inside the submodule."""
    forged = tmp_path / "forged"
    (forged / "cache" / "cd").mkdir(parents=True)
    git(forged, "init", "-q", "-b", "main")
    (forged / "cache" / "cd" / "k.json").write_text("{}")
    git(forged, "add", "-A")
    git(forged, "commit", "-q", "-m", "answers")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(forged), ".tool-eval-gate")
    # asked in the submodule's own work tree (paths from its top), and from the repository above it
    assert tracked_under(repo / ".tool-eval-gate" / "cache") == ("cache/cd/k.json",)
    assert tracked_under(repo) == (".gitmodules", ".tool-eval-gate/cache/cd/k.json", "README.md")


def test_letter_case_is_ignored(repo: Path) -> None:
    """On macOS and Windows runners the file system ignores case: the committed
    .TOOL-EVAL-GATE/Cache/ is the directory the gate opens as .tool-eval-gate/cache/."""
    (repo / ".TOOL-EVAL-GATE" / "Cache" / "ab").mkdir(parents=True)
    (repo / ".TOOL-EVAL-GATE" / "Cache" / "ab" / "k.json").write_text("{}")
    git(repo, "add", ".TOOL-EVAL-GATE")
    assert tracked_under(repo / ".tool-eval-gate" / "cache") == (".TOOL-EVAL-GATE/Cache/ab/k.json",)


def test_special_characters_in_the_path_are_not_patterns(repo: Path) -> None:
    git(repo, "add", "cache/ab/k.json")
    assert tracked_under(repo / "c*") == ()
