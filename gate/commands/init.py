"""``tool-eval-gate init [--tools FILE]``: start the gate in a repository.

Writes a starter suite from the agent's tool file (one case per tool with its required arguments as
matchers to fill in, and a case where no tool may be called; without ``--tools``, an example tool
file beside it), the pull-request workflow (``.github/workflows/tool-eval-gate.yml``: the merge base
compared, the response cache, the push run that warms it), the pre-commit entry
(``.pre-commit-config.yaml``) and the ``.gitignore`` lines for the cache and the reports. It never
overwrites: when the suite, the tool file or the workflow exists, nothing is written (exit 2); an
existing ``.gitignore`` gets the missing lines appended; an existing pre-commit configuration is left
as it is and the entry to add is printed. The suite it writes is validated before it says so.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gate import CACHE_DIRECTORY, __version__
from gate.commands.arguments import Parser
from gate.errors import EXIT_INVALID_INPUT, EXIT_PASSED, InputError, Problem

if TYPE_CHECKING:
    from gate.suite.model import Provider, ToolDef

WORKFLOW_PATH = ".github/workflows/tool-eval-gate.yml"
PRECOMMIT_PATH = ".pre-commit-config.yaml"
DEFAULT_MODEL = "gpt-4o-mini"

EXAMPLE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city. (An example: replace this file with your tools.)",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "The city, e.g. Paris."}},
                "required": ["city"],
            },
        },
    }
]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tool-eval-gate init",
        description="Start the gate in this repository: a starter suite from your tool file, the "
        "pull-request workflow, the pre-commit entry and the .gitignore lines. Never overwrites a file.",
    )
    parser.add_argument(
        "--tools",
        metavar="FILE",
        help="your agent's tool file (OpenAI, Anthropic or MCP format); default: an example tool file is "
        "written beside the suite",
    )
    parser.add_argument("--prompt", metavar="FILE", help="your agent's system prompt file")
    parser.add_argument(
        "--model",
        metavar="[PROVIDER:]NAME",
        default=DEFAULT_MODEL,
        help=f"the agent's model (default {DEFAULT_MODEL}; anthropic:NAME or a claude-* name: Anthropic)",
    )
    parser.add_argument("--dir", metavar="DIR", default="evals", help="where the suite goes (default evals)")
    parser.add_argument("--name", metavar="NAME", help="the suite's name (default: the tool file's name)")
    parser.add_argument(
        "--root", metavar="DIR", help="repository root (default: nearest directory with .git)"
    )
    return parser


@dataclass(frozen=True)
class _File:
    """A file init writes: ``created`` (refused when it exists) or appended to."""

    path: Path
    text: str
    created: bool = True


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from gate.files.suite_loader import default_root

    root = Path(args.root) if args.root else default_root()
    if not root.is_dir():
        raise InputError(f"--root {args.root}: not a directory")
    files, notes = _plan(args, root.resolve())
    existing = [f.path for f in files if f.created and f.path.exists()]
    if existing:
        raise InputError(
            [
                Problem(
                    _shown(path, root),
                    0,
                    0,
                    "init never overwrites: the file exists",
                    "move it aside or remove it",
                )
                for path in existing
            ]
        )
    for file in files:
        _write(file)
        print(f"{'wrote' if file.created else 'added to'} {_shown(file.path, root)}")
    for note in notes:
        print(note)
    return _check(files[0].path, root)


def _plan(args: argparse.Namespace, root: Path) -> tuple[list[_File], list[str]]:
    """Every file to write (the suite first) and what to tell the user."""
    from gate.commands.starter import Starter, gitignore_lines, precommit_config, starter_suite, workflow
    from gate.git.repository import default_branch

    suite_dir = (root / args.dir).resolve()
    if not _inside(suite_dir, root):
        raise InputError(f"--dir {args.dir}: outside the repository {root}")
    files: list[_File] = []
    if args.tools:
        tools_path = _repository_file(args.tools, root, "--tools")
    else:
        tools_path = suite_dir / "tools.json"
        files.append(_File(tools_path, json.dumps(EXAMPLE_TOOLS, indent=2) + "\n"))
    tools = _read_tools(tools_path, root)
    prompt = _relative(_repository_file(args.prompt, root, "--prompt"), suite_dir) if args.prompt else None
    provider, model = _provider_model(args.model)
    name = args.name or (tools_path.stem if args.tools else "agent")
    starter = Starter(_suite_name(name), provider, model, tools, _relative(tools_path, suite_dir), prompt)
    files.insert(0, _File(suite_dir / f"{starter.name}.suite.yaml", starter_suite(starter)))
    files.append(_File(root / WORKFLOW_PATH, workflow(default_branch(root), [provider])))
    notes = [
        f"the workflow needs the {provider.upper()}_API_KEY secret "
        "(Settings > Secrets and variables > Actions)"
    ]
    precommit = root / PRECOMMIT_PATH
    entry = precommit_config(__version__)
    if not precommit.exists():
        files.append(_File(precommit, entry))
    elif "tool-eval-gate" not in precommit.read_text(encoding="utf-8", errors="replace"):
        notes.append(f"{PRECOMMIT_PATH} exists and was left as it is; add to its repos:\n{_indented(entry)}")
    ignore = _gitignore(root / ".gitignore", gitignore_lines(CACHE_DIRECTORY))
    if ignore is not None:
        files.append(ignore)
    notes.append(
        f"next: fill in the cases of {_shown(files[0].path, root)}, then: "
        f"tool-eval-gate run {args.dir} --html out/report.html"
    )
    return files, notes


def _read_tools(path: Path, root: Path) -> tuple[ToolDef, ...]:
    """The tools of a tool file (its problems: exit 2, nothing written); the example file's are known."""
    from gate.assembly.tool_formats import parse_tools
    from gate.files.file_references import Repository, read_tool_file
    from gate.files.yaml_source import parse

    if not path.exists():  # the example file init is about to write
        doc = parse(json.dumps(EXAMPLE_TOOLS), "tools.json", json_fallback=True)
        tools, _ = parse_tools(list(doc.data), doc, ())
        return tuple(tools)
    found = read_tool_file(Repository(root, root), path, _shown(path, root))
    if found.problems or not found.tools:
        raise InputError(list(found.problems) or f"--tools {_shown(path, root)}: no tool in the file")
    return found.tools


def _repository_file(given: str, root: Path, option: str) -> Path:
    path = Path(given).resolve()
    if not _inside(path, root):
        raise InputError(f"{option} {given}: outside the repository {root}")
    if not path.is_file():
        raise InputError(f"{option} {given}: no such file")
    return path


def _provider_model(text: str) -> tuple[Provider, str]:
    from gate.suite.model_choice import ModelChoice

    choice = ModelChoice.parse(text)
    if choice.provider is not None:
        return choice.provider, choice.name
    return ("anthropic" if choice.name.startswith("claude") else "openai"), choice.name


def _suite_name(name: str) -> str:
    """A suite name ([A-Za-z0-9_.-]+) from a file or given name."""
    cleaned = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_.-") else "-" for ch in name).strip(
        "-."
    )
    return cleaned or "agent"


def _gitignore(path: Path, lines: Sequence[str]) -> _File | None:
    """The lines ``.gitignore`` lacks, to append (None: it has them all)."""
    text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    have = {line.strip() for line in text.splitlines()}
    missing = [line for line in lines if line not in have and line.rstrip("/") not in have]
    if not missing:
        return None
    start = "\n" if text and not text.endswith("\n") else ""
    block = (
        start + "# tool-eval-gate: the response cache and the reports\n" + "".join(f"{m}\n" for m in missing)
    )
    return _File(path, block, created=not path.exists())


def _write(file: _File) -> None:
    file.path.parent.mkdir(parents=True, exist_ok=True)
    if file.created:
        with open(file.path, "x", encoding="utf-8") as handle:  # never over a file that appeared meanwhile
            handle.write(file.text)
    else:
        with open(file.path, "a", encoding="utf-8") as handle:
            handle.write(file.text)


def _check(suite: Path, root: Path) -> int:
    """Validate the suite just written, as ``validate`` would."""
    from gate.files.suite_loader import load_suites

    loaded = load_suites([suite], root=root)
    for problem in loaded.problems:
        print(problem.render(), file=sys.stderr)
    if loaded.problems:
        return EXIT_INVALID_INPUT
    cases = sum(len(s.cases) for s in loaded.suites)
    print(f"{_shown(suite, root)}: valid, {cases} cases to fill in")
    return EXIT_PASSED


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _relative(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path, start)).as_posix()


def _shown(path: Path, root: Path) -> str:
    return _relative(path, root) if _inside(path.resolve(), root.resolve()) else str(path)


def _indented(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())
