"""``agent: {command: [...], watch: [...], timeout_s: ...}``: the team's own agent program as a suite's
agent (DESIGN section 10), read and checked offline (nothing runs here).

A program picks its own model, parameters and prompt, so a program agent names none of them; its
``tools`` are the tools its mocks answer (served as an MCP server) and its expectations name. The
command is argv without a shell: ``argv[0]`` is a program found on PATH or a path relative to the
repository root, which must then be a file inside it. ``watch`` globs must be repository globs.

Pure: the repository side (whether a path exists) comes from :class:`CommandFiles`.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Protocol

from gate.assembly.context import BuildContext
from gate.errors import Problem
from gate.suite.model import DEFAULT_PROGRAM_TIMEOUT_S, Command
from gate.util.escape import show
from gate.util.globs import glob_problem
from gate.util.json_types import PathKey

PROGRAM_KEYS = ("command", "watch", "timeout_s")
# What the program decides for itself: a program agent writes none of these.
MODEL_KEYS = ("provider", "model", "api", "params", "system_prompt")
AGENT_PROGRAM = "agent program"


class CommandFiles(Protocol):
    def command_files(self, argv: tuple[str, ...], at: PathKey) -> list[Problem]:
        """The problems of a command's paths (its program, relative to the repository root); the
        repository files it names become the suite's dependencies."""
        ...


def read_program(context: BuildContext, raw: dict[str, Any], files: CommandFiles) -> Command | None:
    """The agent program of ``agent`` (None when the agent is a model), every problem reported."""
    written = context.doc.data.get("agent") if isinstance(context.doc.data, dict) else None
    if "command" not in raw and not (isinstance(written, dict) and "command" in written):
        for key in PROGRAM_KEYS:
            if key in raw:
                context.err(
                    ("agent", key),
                    f"{key} goes with agent.command (the team's own agent program)",
                    "add the program's command, or remove " + key,
                )
        return None
    for key in MODEL_KEYS:
        if key in raw:
            context.err(
                ("agent", key),
                f"an agent program picks its own model, parameters and prompt: {key} does not apply",
                f"remove agent.{key} (the program's own requests name the model)",
                at_key=True,
            )
    argv = tuple(raw["command"]) if "command" in raw and not context.damaged(("agent", "command")) else ()
    if argv:
        _check_program(context, argv, files)
    watch = tuple(raw.get("watch", ())) if not context.damaged(("agent", "watch")) else ()
    for index, pattern in enumerate(watch):
        problem = glob_problem(pattern)
        if problem is not None:
            context.err(
                ("agent", "watch", index),
                f"watch pattern {pattern!r}: {problem}",
                "write a glob relative to the repository root, e.g. agent/**/*.py",
            )
    timeout = raw.get("timeout_s", DEFAULT_PROGRAM_TIMEOUT_S)
    return Command(
        argv=argv,
        purpose=AGENT_PROGRAM,
        watch=watch,
        timeout_s=float(timeout) if isinstance(timeout, int | float) else DEFAULT_PROGRAM_TIMEOUT_S,
        source=context.source(("agent", "command")),
    )


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


def _check_program(context: BuildContext, argv: tuple[str, ...], files: CommandFiles) -> None:
    if not check_argv(context, argv, ("agent", "command")):
        return
    program = argv[0]
    if program.startswith(("/", "~")) or program[1:3] in (":/", ":\\"):
        context.err(
            ("agent", "command", 0),
            f"the program {program!r} is an absolute path",
            "name a program found on PATH (python, node) or write its path relative to the repository root",
        )
        return
    context.problems.extend(files.command_files(argv, ("agent", "command")))
