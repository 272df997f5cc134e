"""Change detection for ``run --changed-since REF``: which files changed, and which suites they affect.

``changed_files`` is the only function here that does I/O (it runs ``git``); ``affected_suites`` is
pure and maps every changed file onto the suites that read it, with the reason, so that reports can
say *why* a suite ran ("prompts/weather.md: prompt").
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from gate.errors import InputError, Problem
from gate.suite.model import Suite
from gate.util.globs import matches_any

ChangeReason = Literal["suite file", "prompt", "tool definitions", "cases", "mocks", "dependency"]

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


def _split_z(output: bytes) -> list[str]:
    return [item for item in output.decode("utf-8", "surrogateescape").split("\0") if item]


def _fail(message: str, hint: str) -> InputError:
    return InputError([Problem("", 0, 0, message, hint=hint)])


def changed_files(ref: str, root: Path) -> list[str]:
    """Files changed between the merge base of ``ref`` and HEAD, plus uncommitted and untracked
    files, as sorted POSIX paths relative to ``root``. Files outside ``root`` are left out.

    Raises ``InputError`` when ``root`` is not inside a git work tree, ``ref`` does not name a
    commit, or ``ref`` and HEAD have no merge base (typically a shallow clone)."""
    root = Path(root)
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
    prefix = inside.stdout.decode("utf-8", "surrogateescape").strip()

    verify = run_git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], root)
    if verify.returncode != 0:
        raise _fail(f"--changed-since: git reference {ref!r} is not known in this clone", FETCH_HINT)

    committed = run_git(["diff", "--name-only", "--no-renames", "-z", f"{ref}...HEAD", "--"], root)
    if committed.returncode != 0:
        detail = committed.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = detail[-1] if detail else "git diff failed"
        raise _fail(f"--changed-since {ref}: cannot compare with HEAD ({reason})", FETCH_HINT)

    paths = set(_split_z(committed.stdout))
    # Uncommitted (staged and unstaged) changes relative to HEAD, when HEAD exists.
    head = run_git(["diff", "--name-only", "--no-renames", "-z", "HEAD", "--"], root)
    if head.returncode == 0:
        paths.update(_split_z(head.stdout))
    # Untracked files (e.g. a new suite not yet added), paths relative to the top level.
    untracked = run_git(["ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", ":/"], root)
    if untracked.returncode == 0:
        paths.update(_split_z(untracked.stdout))

    result: list[str] = []
    for path in paths:
        if prefix and not path.startswith(prefix):
            continue
        result.append(path[len(prefix) :])
    return sorted(result)


def _normalise(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _source_paths(items: Iterable[object]) -> set[str]:
    paths: set[str] = set()
    for item in items:
        source = getattr(item, "source", None)
        if source is not None and getattr(source, "path", None):
            paths.add(_normalise(source.path))
    return paths


def _reasons_for(suite: Suite) -> dict[str, str]:
    """Every file the suite reads, with what it is to the suite (the first reason wins)."""
    reasons: dict[str, str] = {_normalise(suite.path): "suite file"}
    prompt = suite.agent.system_prompt
    if prompt is not None and prompt.source.path:
        reasons.setdefault(_normalise(prompt.source.path), "prompt")
    for path in sorted(_source_paths(suite.agent.tools)):
        reasons.setdefault(path, "tool definitions")
    for path in sorted(_source_paths(suite.cases)):  # data files of cases
        reasons.setdefault(path, "cases")
    mock_sets = [suite.mocks, *(case.mocks for case in suite.cases)]
    mock_paths = _source_paths(mock_sets)
    for mocks in mock_sets:
        mock_paths |= _source_paths(rule for rules in mocks.tools.values() for rule in rules)
        if mocks.unmocked is not None:
            mock_paths |= _source_paths([mocks.unmocked])
    for path in sorted(mock_paths):
        reasons.setdefault(path, "mocks")
    dependencies = {_normalise(path) for path in suite.dependencies}
    for command in suite.commands:  # a file the command names (its script): that program's code
        for item in command.argv:
            if _normalise(item) in dependencies:
                reasons.setdefault(_normalise(item), command.purpose)
    for path in suite.dependencies:
        reasons.setdefault(_normalise(path), "dependency")
    return reasons


def _watched(suite: Suite, changed: set[str]) -> dict[str, str]:
    """The ``changed`` files a ``watch`` glob of one of the suite's commands matches: the code of its
    agent program or MCP server ("agent program (watch)")."""
    hits: dict[str, str] = {}
    watching = [(command.watch, command.purpose) for command in suite.commands]
    watching += [(s.watch, "MCP server") for s in suite.agent.tool_servers if not s.command]  # at a URL
    for watch, purpose in watching:
        for path in sorted(changed):
            if path not in hits and matches_any(watch, path):
                hits[path] = f"{purpose} (watch)"
    return hits


def affected_suites(suites: Sequence[Suite], changed: Sequence[str]) -> dict[str, dict[str, str]]:
    """Suite path -> {changed file: reason} for every suite that reads one of the ``changed`` files
    (its own file, its prompt file, its tool files, its mock files or another dependency) or whose
    commands ``watch`` one. Suites not affected are absent. Pure."""
    changed_set = {_normalise(path) for path in changed}
    affected: dict[str, dict[str, str]] = {}
    for suite in suites:
        hits: dict[str, str] = _watched(suite, changed_set)
        hits.update((path, reason) for path, reason in _reasons_for(suite).items() if path in changed_set)
        if hits:
            affected[suite.path] = dict(sorted(hits.items()))
    return affected
