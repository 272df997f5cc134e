"""The base side of ``run --baseline auto``: the repository as it was at the merge base, read from git.

Nothing here touches the working tree or the index. ``merge_base`` names the commit;
``materialize`` writes that commit's files into a new temporary directory (``git archive`` piped
into a tar reader that refuses links leaving the directory), so that the suite loader reads the
base's suites, prompts, tools and mocks exactly as it reads the head's, resolving every file
reference against the base tree and keeping the base files' own ``path:line`` positions (paths are
relative to the root on both sides). ``changed_lines`` gives the head-side line numbers each changed
file added or modified, so that reports can point at the line that explains a regression.
"""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from gate.errors import InputError, Problem
from gate.git.changes import FETCH_HINT, run_git

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _git(args: Sequence[str], root: Path) -> subprocess.CompletedProcess[bytes]:
    return run_git(args, root, "--baseline auto")


def _fail(message: str) -> InputError:
    return InputError([Problem("", 0, 0, message, hint=FETCH_HINT)])


def merge_base(ref: str, root: Path) -> str:
    """The commit SHA of the merge base of ``ref`` and HEAD."""
    if not ref or ref.startswith("-"):
        raise InputError(f"--baseline auto: invalid git reference {ref!r}")
    found = _git(["merge-base", "--end-of-options", ref, "HEAD"], root)
    if found.returncode != 0:
        detail = found.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = f" ({detail[-1]})" if detail else ""
        raise _fail(f"--baseline auto: no merge base of {ref!r} and HEAD in this clone{reason}")
    return found.stdout.decode().strip()


def _top_level_prefix(root: Path) -> str:
    inside = _git(["rev-parse", "--show-prefix"], root)
    return inside.stdout.decode("utf-8", "surrogateescape").strip() if inside.returncode == 0 else ""


def materialize(commit: str, root: Path) -> tempfile.TemporaryDirectory[str]:
    """A temporary directory holding the files under ``root`` as they were at ``commit``; the
    directory's path stands for ``root`` (the caller cleans it up)."""
    prefix = _top_level_prefix(root)
    tree = f"{commit}:{prefix}" if prefix else commit
    archive = _git(["archive", "--format=tar", tree], root)
    if archive.returncode != 0:
        detail = archive.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _fail(f"--baseline auto: cannot read commit {commit[:12]} ({detail[-1] if detail else 'git'})")
    directory = tempfile.TemporaryDirectory(prefix="tool-eval-gate-base-")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout), mode="r:") as tar:
        tar.extractall(directory.name, filter="data")  # refuses absolute paths and links out
    return directory


def changed_lines(commit: str, root: Path, paths: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Path (relative to ``root``) -> the head-side lines added or modified since ``commit``
    (the working tree included). Files whose changes are only deletions map to the line after."""
    if not paths:
        return {}
    diff = _git(["diff", "--no-color", "--no-renames", "--relative", "-U0", commit, "--", *paths], root)
    if diff.returncode != 0:
        return {}
    result: dict[str, list[int]] = {}
    current: list[int] | None = None
    for raw in diff.stdout.decode("utf-8", "replace").splitlines():
        if raw.startswith("+++ "):
            name = raw[4:]
            current = result.setdefault(name[2:], []) if name.startswith("b/") else None
            continue
        header = _HUNK.match(raw)
        if header and current is not None:
            start = int(header.group(1))
            count = int(header.group(2)) if header.group(2) is not None else 1
            current.extend(range(start, start + count) if count else [start + 1])
    return {path: tuple(sorted(set(lines))) for path, lines in result.items() if lines}
