"""What changed since ``run --changed-since REF``: every entry git lists between the merge base and
the working tree, with what it was and what it is (a file, a symlink, a submodule).

Committed changes (the merge base to HEAD), uncommitted ones (HEAD to the working tree, submodule
checkouts included) and untracked files. Submodules are always compared, whatever ``.gitmodules``
(``ignore = all``, which a pull request can add) or the configuration says, and a submodule whose
checkout git cannot inspect is reported as such (whether its files changed cannot be told). Renames
are two entries, the old path and the new. :mod:`gate.git.affected` maps the changes onto suites.
"""

from __future__ import annotations

import posixpath
import subprocess
from collections.abc import Sequence
from pathlib import Path

from gate.errors import InputError, Problem
from gate.git.affected import Change, ChangeSet, ChangeWhere, EntryKind

FETCH_HINT = (
    "fetch enough history for the comparison: in GitHub Actions use actions/checkout with "
    "`fetch-depth: 0` (or fetch the base branch: `git fetch origin <base> --depth=<n>`)"
)


def run_git(
    args: Sequence[str], root: Path, option: str = "--changed-since"
) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``root``, output captured; an ``InputError`` naming ``option`` when git is missing."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as exc:  # git is not installed
        raise InputError(
            [Problem("", 0, 0, f"{option} needs git, which is not installed", hint="install git")]
        ) from exc


def _fail(message: str, hint: str) -> InputError:
    return InputError([Problem("", 0, 0, message, hint=hint)])


_KINDS: dict[str, EntryKind] = {
    "000000": "absent",
    "120000": "symlink",
    "160000": "submodule",
    "040000": "directory",
}
# The diff options every comparison takes: submodules compared whatever .gitmodules or the configuration
# says, no rename pairing, paths from the top level whatever diff.relative says.
_DIFF = ["-c", "diff.relative=false", "diff", "--raw", "-z", "--no-renames", "--ignore-submodules=none"]


def _kind(mode: str) -> EntryKind:
    return _KINDS.get(mode, "file")


def _raw_changes(output: bytes, where: ChangeWhere) -> list[Change]:
    """The entries of ``git diff --raw -z --no-renames`` output."""
    items = output.decode("utf-8", "surrogateescape").split("\0")
    changes = []
    for meta, path in zip(items[0::2], items[1::2], strict=False):
        fields = meta.lstrip(":").split()
        if len(fields) >= 2 and path:
            changes.append(Change(path, _kind(fields[0]), _kind(fields[1]), where))
    return changes


def _reason(done: subprocess.CompletedProcess[bytes], fallback: str) -> str:
    lines = [line.strip() for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    fatal = [line.removeprefix("fatal: ") for line in lines if line.startswith("fatal:")]
    return (fatal or lines[-1:] or [fallback])[0]


def _check_ref(ref: str, root: Path) -> str:
    """The path of ``root`` below the top level of its work tree ("" at the top); ``InputError`` when
    ``root`` is not in a work tree or ``ref`` names no commit."""
    if not ref or ref.startswith("-"):
        raise _fail(f"--changed-since: invalid git reference {ref!r}", "pass a branch, tag or commit SHA")
    inside = run_git(["rev-parse", "--show-prefix"], root)
    if inside.returncode != 0:
        detail = inside.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = f" ({detail[0].removeprefix('fatal: ')})" if detail else ""
        raise _fail(
            f"--changed-since: {root} is not inside a usable git work tree{reason}",
            "run from a git checkout (in a container: git config --global --add safe.directory <dir>), "
            "or drop --changed-since",
        )
    verify = run_git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], root)
    if verify.returncode != 0:
        raise _fail(f"--changed-since: git reference {ref!r} is not known in this clone", FETCH_HINT)
    return inside.stdout.decode("utf-8", "surrogateescape").strip()


def _uncommitted(root: Path) -> tuple[list[Change], tuple[tuple[str, str], ...]]:
    """HEAD to the working tree. When git cannot inspect a submodule's checkout, the files are
    compared without the submodules and every submodule of the index is uninspectable."""
    head = run_git([*_DIFF, "HEAD", "--"], root)
    if head.returncode == 0:
        return _raw_changes(head.stdout, "uncommitted"), ()
    why = _reason(head, "git diff failed")
    files = run_git([*_DIFF[:-1], "--ignore-submodules=all", "HEAD", "--"], root)
    if files.returncode != 0:
        raise _fail(f"--changed-since: cannot compare the working tree with HEAD ({why})", FETCH_HINT)
    index = run_git(["ls-files", "-s", "-z", "--full-name", "--", ":/"], root)
    records = index.stdout.decode("utf-8", "surrogateescape").split("\0") if index.returncode == 0 else []
    modules = [r.partition("\t")[2] for r in records if r.startswith("160000 ")]
    return _raw_changes(files.stdout, "uncommitted"), tuple((m, why) for m in modules)


def _below_root(path: str, prefix: str) -> str | None:
    """``path`` (from the top level) relative to the root at ``prefix``; None when it lies outside,
    except a ``.gitattributes`` or ``.gitmodules`` above the root (``../.gitattributes``), which
    changes how git writes the files below it."""
    if not prefix or path.startswith(prefix):
        return path[len(prefix) :]
    name, directory = posixpath.basename(path), posixpath.dirname(path)
    if name.lower() in (".gitattributes", ".gitmodules") and prefix.startswith(
        f"{directory}/" if directory else ""
    ):
        return posixpath.relpath(path, prefix.rstrip("/"))
    return None


def changed_files(ref: str, root: Path) -> ChangeSet:
    """Every entry changed between the merge base of ``ref`` and HEAD, plus the uncommitted and
    untracked ones, with paths relative to ``root`` (entries outside it left out), sorted.

    Raises ``InputError`` when ``root`` is not inside a git work tree, ``ref`` does not name a
    commit, or ``ref`` and HEAD have no merge base (typically a shallow clone)."""
    root = Path(root)
    prefix = _check_ref(ref, root)
    committed = run_git([*_DIFF, f"{ref}...HEAD", "--"], root)
    if committed.returncode != 0:
        reason = _reason(committed, "git diff failed")
        raise _fail(f"--changed-since {ref}: cannot compare with HEAD ({reason})", FETCH_HINT)
    changes = _raw_changes(committed.stdout, "committed")
    uncommitted, uninspectable = _uncommitted(root)
    changes += uncommitted
    untracked = run_git(["ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", ":/"], root)
    if untracked.returncode != 0:
        raise _fail(
            f"--changed-since: cannot list the untracked files ({_reason(untracked, 'git')})", FETCH_HINT
        )
    for name in untracked.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if name:  # a nested repository is listed as its directory ("nested/")
            kind: EntryKind = "directory" if name.endswith("/") else "file"
            changes.append(Change(name.rstrip("/"), "absent", kind, "untracked"))
    kept = []
    for change in changes:
        path = _below_root(change.path, prefix)
        if path:
            kept.append(Change(path, change.before, change.after, change.where))
    modules = tuple((p, why) for m, why in uninspectable if (p := _below_root(m, prefix)))
    return ChangeSet(tuple(sorted(kept, key=lambda c: (c.path, c.where))), modules)
