"""The one rule for every command a suite makes the gate start (an agent program's, an MCP server's),
checked offline, before anything starts, at the item's ``file:line:column``.

First what no machine could start (:func:`argv_problems`): a blank program name, white space around
it, a control character in it, a program written as a directory, an argument holding a NUL or a lone
surrogate.

``argv`` runs without a shell from the repository root. Its program, ``argv[0]``, is either a bare name
found on ``PATH`` when the command starts (``python3``, ``node``, ``uv``: what the team's own shell
would run), or a path relative to the repository root: never absolute (suites stay portable), and it
must name a file of the repository, or a virtualenv's interpreter there (``.venv/bin/python``: a
``python…`` or ``pypy…`` in a ``bin/`` directory beside ``pyvenv.cfg``, an executable file, the one
kind of link a command may follow out of the repository). Whatever else a path names, a link leaving
the repository above all, is refused: a command never runs a file the repository does not hold
without saying so in its own words (a name on ``PATH``).

Pure: the repository side (whether a path exists, where a link leads) comes from
:class:`CommandFiles`; the other arguments are not interpreted, but each that names a file of the
repository becomes a dependency of the suite.
"""

from __future__ import annotations

import unicodedata
from typing import Protocol

from gate.assembly.context import BuildContext
from gate.errors import Problem
from gate.util.escape import show
from gate.util.json_types import PathKey

ABSOLUTE_HINT = (
    "name a program found on PATH (python, node) or write its path relative to the repository root"
)


class CommandFiles(Protocol):
    def command_files(self, argv: tuple[str, ...], at: PathKey) -> list[Problem]:
        """The problems of a command's program written as a path (at ``(*at, 0)``); the repository
        files the command names become the suite's dependencies."""
        ...


def check_command(context: BuildContext, argv: tuple[str, ...], at: PathKey, files: CommandFiles) -> bool:
    """Report every problem of the command ``argv`` written at ``at``; whether it may be started."""
    if not check_argv(context, argv, at):
        return False
    program = argv[0]
    if program.startswith(("/", "~")) or program[1:3] in (":/", ":\\"):
        context.err((*at, 0), f"the program {program!r} is an absolute path", ABSOLUTE_HINT)
        return False
    problems = files.command_files(argv, at)
    context.problems.extend(problems)
    return not problems


def _control(text: str) -> str | None:
    """The first control character of ``text`` (a line break, a tab, NUL...), shown; None if none."""
    for char in text:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            return repr(char)
    return None


def argv_problems(argv: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """What keeps an argv from ever being started, whatever the machine: (index, problem, fix) for a
    blank program name, one with white space around it or a control character in it (a newline, a
    NUL), a program written as a directory (``agents/x.py/``, ``.``), and an argument the system
    cannot pass (a NUL, a lone surrogate)."""
    problems: list[tuple[int, str, str]] = []
    program = argv[0]
    control = _control(program)
    last = program.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    name_fix = "write the program's name or path alone, e.g. [python3, agent/main.py]"
    if not program.strip():
        problems.append((0, "the program name is blank", name_fix))
    elif control is not None:
        problems.append((0, f"the program name holds a control character ({control})", name_fix))
    elif program != program.strip():
        problems.append((0, f"the program {show(program, 80)} has white space around its name", name_fix))
    elif program.endswith(("/", "\\")) or last in (".", ".."):
        problems.append(
            (
                0,
                f"the program {show(program, 80)} names a directory: a program is a file",
                "name the program's file (agent/main.py, without a trailing '/')",
            )
        )
    for index, word in enumerate(argv):
        if index and "\x00" in word:
            problems.append((index, "the argument holds a NUL character, which no program can be given", ""))
        elif "\x00" not in word and not _encodable(word):
            problems.append((index, "the argument holds a lone surrogate, which no program can be given", ""))
    return problems


def _encodable(word: str) -> bool:
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_argv(context: BuildContext, argv: tuple[str, ...], at: PathKey) -> bool:
    """Report :func:`argv_problems` at their items under ``at``; whether there were none."""
    problems = argv_problems(argv)
    for index, message, hint in problems:
        context.err((*at, index), message, hint)
    return not problems
