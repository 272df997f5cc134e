"""The merge base's tree as git stores it (real git on scratch repositories): symlinks written as the
symlinks they are and never followed out, ``.gitattributes`` without effect, crafted trees that
cannot make the gate write outside its temporary directory, and no dependence on ``tarfile``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gate.git.base_tree import materialize


def git(root: Path, *args: str, stdin: str | None = None) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        input=stdin,
    )
    return out.stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def commit_all(root: Path) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return git(root, "rev-parse", "HEAD")


def test_symlinks_are_written_as_symlinks_and_never_followed(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("do not read\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "readme.md").write_text("docs\n")
    os.symlink("/etc/hostname", repo / "docs" / "hostname")  # absolute
    os.symlink("../../outside", repo / "docs" / "escape")  # relative, leaving the tree
    os.symlink("readme.md", repo / "docs" / "inside")  # relative, inside the tree
    commit = commit_all(repo)

    base = materialize(commit, repo).directory
    try:
        top = Path(base.name)
        assert os.readlink(top / "docs" / "hostname") == "/etc/hostname"
        assert os.readlink(top / "docs" / "escape") == "../../outside"
        assert (top / "docs" / "inside").read_text() == "docs\n"
        assert (top / "docs" / "readme.md").read_text() == "docs\n"
    finally:
        base.cleanup()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_gitattributes_change_nothing_that_is_compared(repo: Path) -> None:
    (repo / "evals").mkdir()
    (repo / "evals" / "weather.suite.yaml").write_text("version: 1\n")
    (repo / "prompt.md").write_text("Commit: $Format:%H$\n")
    (repo / ".gitattributes").write_text("evals/** export-ignore\nprompt.md export-subst\n")
    commit = commit_all(repo)

    base = materialize(commit, repo).directory
    try:
        top = Path(base.name)
        assert (top / "evals" / "weather.suite.yaml").read_text() == "version: 1\n"
        assert (top / "prompt.md").read_text() == "Commit: $Format:%H$\n"
    finally:
        base.cleanup()


def test_large_files_are_streamed_whole_and_modes_kept(repo: Path) -> None:
    content = os.urandom(3 * 1024 * 1024 + 17)
    (repo / "big.bin").write_bytes(content)
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    (repo / "empty").write_bytes(b"")
    commit = commit_all(repo)

    base = materialize(commit, repo).directory
    try:
        top = Path(base.name)
        assert (top / "big.bin").read_bytes() == content
        assert (top / "empty").read_bytes() == b""
        assert os.access(top / "run.sh", os.X_OK) and not os.access(top / "empty", os.X_OK)
    finally:
        base.cleanup()


def test_a_root_below_the_top_level_gets_only_its_own_subtree(repo: Path) -> None:
    (repo / "agents" / "weather").mkdir(parents=True)
    (repo / "agents" / "weather" / "w.suite.yaml").write_text("version: 1\n")
    (repo / "other.md").write_text("elsewhere\n")
    commit = commit_all(repo)

    base = materialize(commit, repo / "agents").directory
    try:
        top = Path(base.name)
        assert sorted(p.relative_to(top).as_posix() for p in top.rglob("*")) == [
            "weather",
            "weather/w.suite.yaml",
        ]
    finally:
        base.cleanup()


def test_a_crafted_tree_never_makes_the_gate_write_outside_its_directory(repo: Path, tmp_path: Path) -> None:
    """git itself accepts such trees (``git mktree``): an entry that is a symlink to a directory
    outside, then a file below that same name; and an entry named ``..``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    link = git(repo, "hash-object", "-w", "--stdin", stdin=str(outside))
    blob = git(repo, "hash-object", "-w", "--stdin", stdin="written outside\n")
    inner = git(repo, "mktree", stdin=f"100644 blob {blob}\tpwned\n")
    tree = git(
        repo,
        "mktree",
        stdin=f"120000 blob {link}\tdocs\n040000 tree {inner}\tdocs\n040000 tree {inner}\t..\n"
        f"040000 tree {inner}\t.git\n100644 blob {blob}\tkept.txt\n",
    )
    commit = git(repo, "commit-tree", tree, "-m", "crafted")

    base = materialize(commit, repo).directory
    try:
        top = Path(base.name)
        assert os.readlink(top / "docs") == str(outside)
        assert (top / "kept.txt").read_text() == "written outside\n"
        assert not (top / ".git").exists()
    finally:
        base.cleanup()
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "pwned").exists()


def test_an_absolute_symlink_into_the_working_tree_leads_to_the_base_trees_file(repo: Path) -> None:
    (repo / "tools").mkdir()
    (repo / "tools" / "v1.json").write_text("base\n")
    os.symlink(repo / "tools" / "v1.json", repo / "current.json")
    commit = commit_all(repo)
    (repo / "tools" / "v1.json").write_text("head\n")

    base = materialize(commit, repo).directory
    try:
        top = Path(base.name)
        assert os.readlink(top / "current.json") == str(top / "tools" / "v1.json")
        assert (top / "current.json").read_text() == "base\n"
    finally:
        base.cleanup()


def submodule(root: Path, upstream: Path, path: str) -> None:
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), path)


def new_repository(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    for name, text in files.items():
        (path / name).write_text(text)
    commit_all(path)
    return path


def test_submodules_hold_their_files_at_the_commit_the_base_records(repo: Path, tmp_path: Path) -> None:
    inner = new_repository(tmp_path / "inner", {"deep.json": "deep v1\n"})
    tools = new_repository(tmp_path / "tools", {"forecast.json": "v1\n"})
    submodule(tools, inner, "inner")
    commit_all(tools)
    submodule(repo, tools, "vendor/tools")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--recursive")
    base_commit = commit_all(repo)
    checkout = repo / "vendor" / "tools"
    (checkout / "forecast.json").write_text("v2\n")  # the head moves the submodule on
    (checkout / "inner" / "deep.json").write_text("deep v2\n")
    git(checkout / "inner", "commit", "-q", "-am", "v2")
    commit_all(checkout)
    commit_all(repo)

    tree = materialize(base_commit, repo)
    try:
        top = Path(tree.directory.name)
        assert (top / "vendor" / "tools" / "forecast.json").read_text() == "v1\n"
        assert (top / "vendor" / "tools" / "inner" / "deep.json").read_text() == "deep v1\n"
        assert not (top / "vendor" / "tools" / ".git").exists()
        assert tree.missing_submodules == {}
    finally:
        tree.directory.cleanup()


def test_a_submodule_not_checked_out_stays_empty_and_one_lacking_its_commit_is_listed(
    repo: Path, tmp_path: Path
) -> None:
    tools = new_repository(tmp_path / "tools", {"forecast.json": "v1\n"})
    submodule(repo, tools, "vendor/tools")
    submodule(repo, tools, "vendor/unused")
    base_commit = commit_all(repo)
    recorded = git(repo, "rev-parse", "HEAD:vendor/tools")
    git(repo, "submodule", "deinit", "-q", "vendor/unused")
    checkout = repo / "vendor" / "tools"
    git(checkout, "checkout", "-q", "--orphan", "rewritten")
    (checkout / "forecast.json").write_text("v2\n")  # another commit than the one recorded
    commit_all(checkout)
    for ref in git(checkout, "for-each-ref", "--format=%(refname)").split():
        if ref != "refs/heads/rewritten":
            git(checkout, "update-ref", "-d", ref)
    git(checkout, "reflog", "expire", "--expire=now", "--all")
    git(checkout, "gc", "-q", "--prune=now")

    tree = materialize(base_commit, repo)
    try:
        top = Path(tree.directory.name)
        assert tree.missing_submodules == {"vendor/tools": recorded}
        assert list((top / "vendor" / "unused").iterdir()) == []
        assert list((top / "vendor" / "tools").iterdir()) == []
    finally:
        tree.directory.cleanup()


def test_no_dependence_on_tarfile(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.11.2 and 3.10 before 3.10.12 have no extraction filter: whatever tarfile does, the base
    tree is read the same."""
    import tarfile

    def refuse(*args: object, **kwargs: object) -> None:
        raise TypeError("extractall() got an unexpected keyword argument 'filter'")

    monkeypatch.setattr(tarfile.TarFile, "extractall", refuse)
    os.symlink("/etc/hostname", repo / "hostname")
    (repo / "a.md").write_text("a\n")
    commit = commit_all(repo)

    base = materialize(commit, repo).directory
    try:
        assert (Path(base.name) / "a.md").read_text() == "a\n"
    finally:
        base.cleanup()


# materialize in a child process under resource limits, printing how many files it wrote or the
# error it raised.
UNDER_LIMITS = """
import os, resource, signal, sys
from pathlib import Path
from gate.errors import GateError
from gate.git.base_tree import materialize
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file size limit fails (EFBIG)
resource.setrlimit(getattr(resource, sys.argv[1]), (int(sys.argv[2]), int(sys.argv[2])))
try:
    base = materialize(sys.argv[3], Path(".")).directory
except GateError as exc:
    print("error:", exc)
else:
    print(sum(len(files) for _, _, files in os.walk(base.name)))
"""


def under_limits(repo: Path, commit: str, limit: str, value: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", UNDER_LIMITS, limit, str(value), commit],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_tree_with_more_directories_than_open_files_allowed_is_written_whole(repo: Path) -> None:
    """Every directory's descriptor was kept open: past the process's limit (1,024 or 256 on many
    machines) every later directory was left out without a word, and the base suites with it."""
    for n in range(400):
        (repo / f"pkg{n // 20}" / f"mod{n}").mkdir(parents=True)
        (repo / f"pkg{n // 20}" / f"mod{n}" / "x.txt").write_text("x\n")
    commit = commit_all(repo)
    assert under_limits(repo, commit, "RLIMIT_NOFILE", 64) == "400"


def test_a_base_tree_that_cannot_be_written_is_an_error_that_says_why(repo: Path) -> None:
    """A full disk (here: a file size limit) ended in a traceback."""
    (repo / "data.bin").write_bytes(os.urandom(100_000))
    commit = commit_all(repo)
    assert under_limits(repo, commit, "RLIMIT_FSIZE", 10_000).startswith(
        "error: --baseline auto: cannot write the merge base's 1 file(s) to"
    )
