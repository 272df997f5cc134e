"""``agent: {command: [...], watch: [...], timeout_s: ..., reuse: ...}``: the team's own agent program as a
suite's agent (DESIGN section 10), read and checked offline (nothing runs here).

A program picks its own model, parameters and prompt, so a program agent names none of them; its
``tools`` are the tools its mocks answer (served as an MCP server) and its expectations name. The
command follows the rule of every command the gate starts (:mod:`gate.assembly.command_rule`).
``watch`` globs must be repository globs.
"""

from __future__ import annotations

from typing import Any

from gate.assembly.command_rule import CommandFiles, check_command
from gate.assembly.context import BuildContext
from gate.suite.model import DEFAULT_PROGRAM_TIMEOUT_S, Command
from gate.util.globs import glob_problem

PROGRAM_KEYS = ("command", "watch", "timeout_s", "reuse")
# What the program decides for itself: a program agent writes none of these.
MODEL_KEYS = ("provider", "model", "api", "params", "system_prompt")
AGENT_PROGRAM = "agent program"


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
        check_command(context, argv, ("agent", "command"), files)
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
        reuse=raw.get("reuse") is True,
    )
