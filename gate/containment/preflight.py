"""Before the first command starts (``run``): which user the commands run as, whether that user can
run them, and the gate process made unreadable to them (``gate_process.harden``).

Where commands get a user of their own (the gate runs as root), each command's directory must be
readable by that user and its program reachable and executable (``gate.containment.reach``): one
that is not is invalid input (exit 2) at the line that names the command, before any request, rather
than a program that cannot start in every trial.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from gate.containment.gate_process import harden
from gate.containment.reach import resolve_executable, unreachable
from gate.containment.users import COMMAND_USER_VARIABLE, FIRST_UID, command_user
from gate.errors import InputError, Problem
from gate.suite.model import Suite

HINT = (
    f"the gate runs as root, so each command runs as a user of its own (uid {FIRST_UID} and up, in no "
    "group), which must be able to read the repository and run the program: make them readable by "
    f"other users, or set {COMMAND_USER_VARIABLE}=gate to run commands as the gate's own user (then "
    "root: they are not contained, see SECURITY.md)"
)


def contain_commands(sides: Iterable[tuple[Sequence[Suite], Path]], environ: Mapping[str, str]) -> bool:
    """Check the commands of the suites (each side: its suites and the root they run in) for the user
    they will run as (``InputError`` naming every one that cannot run), then harden the gate process.
    Whether any suite runs a command (none: nothing to do)."""
    sides = [(suites, root) for suites, root in sides if any(s.commands for s in suites)]
    if not sides:
        return False
    if command_user(environ) == "own":
        problems = _unreachable_commands(sides, environ)
        if problems:
            raise InputError(problems)
    harden()
    return True


def _unreachable_commands(
    sides: Sequence[tuple[Sequence[Suite], Path]], environ: Mapping[str, str]
) -> list[Problem]:
    problems: list[Problem] = []
    homes = unreachable(tempfile.gettempdir())
    if homes:
        problems.append(
            Problem("", 0, 0, f"the commands' private homes go to {tempfile.gettempdir()}: {homes}")
        )
    seen: set[tuple[Path, str]] = set()
    for root, suite, command in ((r, s, c) for suites, r in sides for s in suites for c in s.commands):
        if (root, command.argv[0]) in seen:
            continue
        seen.add((root, command.argv[0]))
        why = unreachable(root)
        executable = resolve_executable(command.argv[0], root, environ)
        if not why and executable is not None:
            why = unreachable(executable, execute=True)
        if why:
            message = f"the {command.purpose} {command.argv[0]!r} cannot run as a user of its own: {why}"
            where = command.source or suite.source
            at = (where.path, where.line, where.column) if where else (suite.path, 0, 0)
            problems.append(Problem(*at, message, hint=HINT))
    return problems
