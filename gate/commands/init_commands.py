"""What ``init --agent-command`` and ``--mcp-command`` need from the repository: the command's words,
the globs of the program's code (``watch``), the dependency files its workflow installs, the tools an
MCP server lists (init starts it once, as ``run --allow-commands`` would), and the command rule checked
in the repository itself (the starter's scratch copy holds no program)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.assembly.tool_formats import MCP_KEYS, parse_tools
from gate.errors import InputError, Problem
from gate.files.file_references import Repository, SuiteFiles
from gate.files.server_tools import argv_files
from gate.files.yaml_source import parse
from gate.suite.model import Source, ToolDef, ToolServer
from gate.tool_servers.listing import list_server_tools
from gate.util.json_types import PathKey


def command_words(text: str) -> tuple[str, ...]:
    """An option's command line split as a POSIX shell would (no shell runs it): the argv a suite's
    ``command`` holds."""
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} cannot be split into words: {exc}") from None
    if not words:
        raise argparse.ArgumentTypeError(
            "an empty command: write it as you start it, e.g. 'python3 agent/run.py'"
        )
    return words


def watch_globs(root: Path, command: Sequence[str]) -> tuple[str, ...]:
    """The globs of a program's code: the directory of each repository file its command names
    (``dir/**``), or the file itself when it lies at the root."""
    globs = [
        f"{Path(rel).parent.as_posix()}/**" if Path(rel).parent != Path(".") else rel
        for rel in argv_files(root, root.resolve(), command)
    ]
    return tuple(dict.fromkeys(globs))


@dataclass(frozen=True)
class Dependencies:
    """What the workflow installs for the commands: pip requirements files and npm project
    directories (repository-relative)."""

    requirements: tuple[str, ...]
    npm_prefixes: tuple[str, ...]


def dependencies(root: Path, commands: Sequence[Sequence[str]]) -> Dependencies:
    """The nearest ``requirements.txt`` and ``package-lock.json`` at or above each repository file the
    commands name (up to the root)."""
    requirements: list[str] = []
    npm: list[str] = []
    for command in commands:
        for rel in argv_files(root, root.resolve(), command):
            requirement = _nearest(root, Path(rel).parent, "requirements.txt")
            if requirement is not None:
                requirements.append((requirement / "requirements.txt").as_posix())
            lock = _nearest(root, Path(rel).parent, "package-lock.json")
            if lock is not None:
                npm.append(lock.as_posix())
    return Dependencies(tuple(dict.fromkeys(requirements)), tuple(dict.fromkeys(npm)))


def _nearest(root: Path, start: Path, name: str) -> Path | None:
    for directory in (start, *start.parents):
        if (root / directory / name).is_file():
            return directory
    return None


def server_tools(root: Path, command: tuple[str, ...]) -> tuple[ToolDef, ...]:
    """The tools the MCP server started with ``command`` lists (every page), checked as a tool file's;
    a server that cannot be used is a :class:`gate.errors.GateError` naming it."""
    server = ToolServer(command=command, directory=str(root), source=Source("--mcp-command"))
    if importlib.util.find_spec("mcp") is None:  # the mcp extra is an option of its own
        raise InputError(
            [
                Problem(
                    "--mcp-command",
                    0,
                    0,
                    "reading an MCP server's tools needs the MCP SDK",
                    "pip install 'tool-eval-gate[mcp]'",
                )
            ]
        )
    items = [
        {k: v for k, v in item.items() if k in MCP_KEYS} if isinstance(item, dict) else item
        for item in list_server_tools(server)
    ]
    doc = parse(json.dumps(items, indent=2), f"tools/list of {server.label}", json_fallback=True)
    tools, problems = parse_tools(list(doc.data), doc, ())
    if problems or not tools:
        raise InputError(
            list(problems) or [Problem("--mcp-command", 0, 0, f"the MCP server {server.label} lists no tool")]
        )
    return tuple(tools)


def command_problems(
    text: str, suite: Path, root: Path, commands: Sequence[tuple[PathKey, tuple[str, ...]]]
) -> list[Problem]:
    """The command rule's problems of the starter's ``commands`` (each at its key), checked against
    the repository itself: a virtualenv's interpreter, a link, a missing program."""
    rel = Path(os.path.relpath(suite, root)).as_posix()
    files = SuiteFiles(Repository(root, root.resolve()), parse(text, rel), suite.parent)
    return [problem for at, argv in commands for problem in files.command_files(argv, at)]


def named_paths(root: Path, commands: Sequence[Sequence[str]]) -> list[Path]:
    """The repository paths the commands' words name (what the scratch copy stands in for, once the
    repository itself has passed the command rule)."""
    found: list[Path] = []
    for command in commands:
        for word in command:
            if not word or word.startswith("-") or "\0" in word or os.path.isabs(word):
                continue
            path = Path(os.path.normpath(root / word))
            if path != root and root in path.parents and os.path.lexists(path):
                found.append(path.relative_to(root))
    return found
