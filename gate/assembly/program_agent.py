"""``agent: {command: [...], watch: [...], timeout_s: ...}``: the team's own agent program as a suite's
agent (DESIGN section 10), read and checked offline (nothing runs here).

A program picks its own model, parameters and prompt, so a program agent names none of them; its
``tools`` are the tools its mocks answer (served as an MCP server) and its expectations name. The
command is argv without a shell: ``argv[0]`` is a program found on PATH or a path relative to the
repository root, which must then be a file inside it. ``watch`` globs must be repository globs.

Pure: the repository side (whether a path exists) comes from :class:`CommandFiles`.
"""

from __future__ import annotations

from typing import Any, Protocol

from gate.assembly.context import BuildContext
from gate.errors import Problem
from gate.suite.model import DEFAULT_PROGRAM_TIMEOUT_S, Command
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
    if "command" not in raw:
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
    argv = tuple(raw["command"]) if not context.damaged(("agent", "command")) else ()
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


def _check_program(context: BuildContext, argv: tuple[str, ...], files: CommandFiles) -> None:
    program = argv[0]
    if program.startswith(("/", "~")) or program[1:3] in (":/", ":\\"):
        context.err(
            ("agent", "command", 0),
            f"the program {program!r} is an absolute path",
            "name a program found on PATH (python, node) or write its path relative to the repository root",
        )
        return
    context.problems.extend(files.command_files(argv, ("agent", "command")))
