"""``tool-eval-gate init [--tools FILE]``: start the gate in a repository.

Writes a starter suite from the agent's tool file (one case per tool with its required arguments as
matchers to fill in, and a case where no tool may be called; without ``--tools``, an example tool
file beside it), the pull-request workflow (``.github/workflows/tool-eval-gate.yml``: the merge base
compared, the response cache, the push run that warms it), the pre-commit entry
(``.pre-commit-config.yaml``) and the ``.gitignore`` lines for the cache and the reports. It never
overwrites: when the suite, the tool file or the workflow exists, nothing is written (exit 2); an
existing ``.gitignore`` gets the missing lines appended; an existing pre-commit configuration is left
as it is and the entry to add is printed. Before anything is written, every path is checked as
DESIGN section 9 asks of every writer (:mod:`gate.files.repository_writes`: nothing outside the
repository, through a dangling link, or into what is not a regular file) and the starter is validated
in a scratch copy: init never writes a suite its own ``validate`` refuses.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from gate import CACHE_DIRECTORY, __version__
from gate.assembly.tool_formats import parse_tools
from gate.commands.arguments import Parser, model_choice, nonempty
from gate.commands.init_commands import (
    command_problems,
    command_words,
    dependencies,
    named_paths,
    server_tools,
    watch_globs,
)
from gate.commands.starter import (
    Starter,
    gitignore_lines,
    precommit_config,
    program_workflow,
    starter_suite,
    workflow,
)
from gate.errors import EXIT_PASSED, InputError, Problem
from gate.files.file_references import Repository, read_tool_file
from gate.files.repository_writes import RepositoryWrite, check_writes, read_checked, write_all
from gate.files.suite_loader import default_root, load_suites
from gate.files.text_files import read_text
from gate.files.yaml_source import YamlError, parse
from gate.git.repository import default_branch
from gate.suite.model import Provider, ToolDef
from gate.suite.model_choice import ModelChoice
from gate.util.json_types import PathKey

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
        type=nonempty,
        metavar="FILE",
        help="your agent's tool file (OpenAI, Anthropic or MCP format); default: an example tool file is "
        "written beside the suite",
    )
    parser.add_argument("--prompt", type=nonempty, metavar="FILE", help="your agent's system prompt file")
    parser.add_argument(
        "--model",
        type=model_choice,
        metavar="[PROVIDER:]NAME",
        help=f"the agent's model (default {DEFAULT_MODEL}; anthropic:NAME or a claude-* name: Anthropic)",
    )
    parser.add_argument(
        "--agent-command",
        type=command_words,
        metavar="COMMAND",
        help="your agent program as you start it from the repository root ('python3 agent/run.py'): "
        "a program suite (no model or prompt: the program picks its own) and the workflow that runs it "
        "with the CLI",
    )
    parser.add_argument(
        "--mcp-command",
        type=command_words,
        metavar="COMMAND",
        help="your MCP server as you start it (stdio, from the repository root): the suite takes its "
        "tools from the server's tools/list (init starts it once to read them)",
    )
    parser.add_argument(
        "--dir", type=nonempty, metavar="DIR", default="evals", help="where the suite goes (default evals)"
    )
    parser.add_argument(
        "--name", type=nonempty, metavar="NAME", help="the suite's name (default: the tool file's name)"
    )
    parser.add_argument(
        "--root", type=nonempty, metavar="DIR", help="repository root (default: nearest directory with .git)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))

    root = Path(args.root) if args.root else default_root()
    if not root.is_dir():
        raise InputError([Problem("--root", 0, 0, f"{args.root}: not a directory")])
    root = Path(os.path.abspath(root))
    if not os.path.lexists(root / ".git"):  # run in the home directory or /, init wrote its files there
        where = "--root" if args.root else str(root)
        message = f"{args.root}: not a git repository (no .git)" if args.root else "not a git repository"
        raise InputError(
            [
                Problem(
                    where,
                    0,
                    0,
                    f"{message}: init writes a repository's suite, workflow and .gitignore",
                    hint="run init in your repository's checkout (git init first for a new one), or name "
                    "its top directory with --root",
                )
            ]
        )
    files, notes, reads = _plan(args, root)
    check_writes(files, root)  # every path, before anything is written
    problems = _starter_problems(files, reads, root)
    if problems:  # a starter its own validate refuses is never written
        raise InputError(problems)
    write_all(files)
    for file in files:
        print(f"{'wrote' if file.created else 'added to'} {_shown(file.path, root)}")
    for note in notes:
        print(note)
    cases = len(parse(files[0].text, "suite").data["cases"])
    print(f"{_shown(files[0].path, root)}: valid, {cases} cases to fill in")
    return EXIT_PASSED


def _plan(args: argparse.Namespace, root: Path) -> tuple[list[RepositoryWrite], list[str], list[Path]]:
    """Every file to write (the suite first), what to tell the user, and the files of the repository
    the suite reads (its tool file and prompt, when they exist already)."""

    suite_dir = Path(os.path.normpath(root / args.dir))
    if not _inside(suite_dir, root) or not _inside(Path(os.path.realpath(suite_dir)), root.resolve()):
        raise InputError([Problem("--dir", 0, 0, f"{args.dir}: outside the repository {root}")])
    program: tuple[str, ...] = args.agent_command or ()
    server: tuple[str, ...] = args.mcp_command or ()
    if program:
        _no_model_options(args)
    provider, model = _provider_model(args.model or DEFAULT_MODEL)
    files: list[RepositoryWrite] = []
    reads: list[Path] = []
    tools: tuple[ToolDef, ...] = ()
    tools_file: str | None = None
    if args.tools:
        tools_path = _repository_file(args.tools, root, "--tools")
        reads.append(tools_path)
        tools, tools_file = _read_tools(tools_path, root), _relative(tools_path, suite_dir)
    elif not server:
        tools_path = suite_dir / "tools.json"
        files.append(RepositoryWrite(tools_path, json.dumps(EXAMPLE_TOOLS, indent=2) + "\n"))
        tools, tools_file = _example_tools(), _relative(tools_path, suite_dir)
    if server:
        tools += server_tools(root, server)
    prompt = None
    if args.prompt:
        reads.append(_repository_file(args.prompt, root, "--prompt"))
        prompt = _relative(reads[-1], suite_dir)
    starter = Starter(
        _suite_name(args.name or _default_name(args, program, server)),
        provider,
        model,
        tools,
        tools_file,
        prompt,
        command=program,
        watch=watch_globs(root, program),
        server=server,
        server_watch=watch_globs(root, server),
    )
    files.insert(0, RepositoryWrite(suite_dir / f"{starter.name}.suite.yaml", starter_suite(starter)))
    if program or server:
        needs = dependencies(root, [c for c in (program, server) if c])
        text = program_workflow(
            default_branch(root), needs.requirements, needs.npm_prefixes, ["openai" if program else provider]
        )
        key = f"the {provider.upper()}_API_KEY secret"
        if program:  # the program picks its own model
            key = "the OPENAI_API_KEY secret (or ANTHROPIC_API_KEY: the provider your program calls)"
    else:
        text, key = workflow(default_branch(root), [provider]), f"the {provider.upper()}_API_KEY secret"
    files.append(RepositoryWrite(root / WORKFLOW_PATH, text))
    notes = [f"the workflow needs {key} (Settings > Secrets and variables > Actions)"]
    return _with_repository_files(files, notes, root, args.dir, bool(program or server)), notes, reads


def _no_model_options(args: argparse.Namespace) -> None:
    """A program suite names no model or system prompt (the program picks its own)."""
    given = [option for option, value in (("--model", args.model), ("--prompt", args.prompt)) if value]
    if given:
        raise InputError(
            [
                Problem(option, 0, 0, "an agent program picks its own model and prompt", "leave it out")
                for option in given
            ]
        )


def _default_name(args: argparse.Namespace, program: Sequence[str], server: Sequence[str]) -> str:
    if args.tools:
        return Path(args.tools).stem
    return "agent" if program or not server else "tools"


def _with_repository_files(
    files: list[RepositoryWrite], notes: list[str], root: Path, directory: str, commands: bool
) -> list[RepositoryWrite]:
    """``files`` with the pre-commit entry and the ``.gitignore`` lines (when missing), and ``notes``
    with what to do next."""

    entry = precommit_config(__version__)
    existing = read_checked(root / PRECOMMIT_PATH, root)
    if existing is None:
        files.append(RepositoryWrite(root / PRECOMMIT_PATH, entry))
    elif "tool-eval-gate" not in existing:
        notes.append(f"{PRECOMMIT_PATH} exists and was left as it is; add to its repos:\n{_indented(entry)}")
    ignore = _gitignore(
        root / ".gitignore", read_checked(root / ".gitignore", root), gitignore_lines(CACHE_DIRECTORY)
    )
    if ignore is not None:
        files.append(ignore)
    allow = " --allow-commands" if commands else ""
    notes.append(
        f"next: fill in the cases of {_shown(files[0].path, root)}, then: "
        f"tool-eval-gate run {shlex.quote(directory)}{allow} --html out/report.html"
    )
    return files


def _example_tools() -> tuple[ToolDef, ...]:
    """The tools of the example tool file init writes."""

    doc = parse(json.dumps(EXAMPLE_TOOLS), "tools.json", json_fallback=True)
    tools, _ = parse_tools(list(doc.data), doc, ())
    return tuple(tools)


def _read_tools(path: Path, root: Path) -> tuple[ToolDef, ...]:
    """The tools of a tool file (its problems: exit 2, nothing written)."""

    found = read_tool_file(Repository(root, root.resolve()), path, _shown(path, root))
    if found.problems or not found.tools:
        raise InputError(list(found.problems) or f"--tools {_shown(path, root)}: no tool in the file")
    return found.tools


def _repository_file(given: str, root: Path, option: str) -> Path:
    """The file ``given`` names, as the suite will name it (below ``root``, written as the suite's
    references are read: normalised); it and where it leads must be inside the repository."""
    path = Path(os.path.normpath(os.path.abspath(given)))
    if not _inside(path, root) or not _inside(Path(os.path.realpath(path)), root.resolve()):
        raise InputError([Problem(option, 0, 0, f"{given}: outside the repository {root}")])
    if not path.is_file():
        what = "not a regular file" if os.path.lexists(path) else "no such file"  # a FIFO, a directory
        raise InputError([Problem(option, 0, 0, f"{given}: {what}")])
    return path


def _provider_model(text: str) -> tuple[Provider, str]:

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


def _gitignore(path: Path, text: str | None, lines: Sequence[str]) -> RepositoryWrite | None:
    """The lines ``.gitignore`` (its ``text``; None: there is none) lacks, to append (None: it has them
    all)."""

    have = {line.strip() for line in (text or "").splitlines()}
    missing = [line for line in lines if line not in have and line.rstrip("/") not in have]
    if not missing:
        return None
    start = "\n" if text and not text.endswith("\n") else ""
    block = (
        start + "# tool-eval-gate: the response cache and the reports\n" + "".join(f"{m}\n" for m in missing)
    )
    return RepositoryWrite(path, block, created=text is None)


def _starter_problems(files: Sequence[RepositoryWrite], reads: Sequence[Path], root: Path) -> list[Problem]:
    """What ``validate`` refuses in the starter suite (``files[0]``), checked in a scratch copy of the
    files it reads (the example tool file, or ``reads``: the tool file and prompt) before anything is
    written in the repository. The commands it starts are checked in the repository itself (a program
    is a virtualenv's interpreter, a link...), then stand in the copy as empty files."""

    commands = _commands(files[0].text)
    problems = command_problems(files[0].text, files[0].path, root, commands)
    if problems:
        return problems
    staged = [(path, b"") for path in named_paths(root, [argv for _, argv in commands])]
    staged.append((files[0].path.relative_to(root), files[0].text.encode("utf-8")))
    staged += [
        (f.path.relative_to(root), f.text.encode("utf-8")) for f in files[1:] if f.path.suffix == ".json"
    ]
    try:
        staged += [
            (path.relative_to(root), read_text(path, _shown(path, root)).encode("utf-8")) for path in reads
        ]
    except YamlError as exc:  # a prompt that is not text: the suite's own problem
        return list(exc.problems)
    with tempfile.TemporaryDirectory(prefix="tool-eval-gate-init-") as scratch:
        copy = Path(scratch)
        (copy / ".git").mkdir()
        for relative, data in staged:
            (copy / relative).parent.mkdir(parents=True, exist_ok=True)
            if not data and (root / relative).is_dir():
                (copy / relative).mkdir(exist_ok=True)
            else:
                (copy / relative).write_bytes(data)
        return list(load_suites([copy / staged[0][0]], root=copy).problems)


def _commands(text: str) -> list[tuple[PathKey, tuple[str, ...]]]:
    """The commands the starter suite ``text`` starts, each at its key: the program's, the servers'."""
    agent = parse(text, "suite").data["agent"]
    found: list[tuple[PathKey, tuple[str, ...]]] = []
    if "command" in agent:
        found.append((("agent", "command"), tuple(agent["command"])))
    for index, item in enumerate(agent["tools"]):
        if "mcp" in item:
            found.append((("agent", "tools", index, "mcp", "command"), tuple(item["mcp"]["command"])))
    return found


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _relative(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path, start)).as_posix()


def _shown(path: Path, root: Path) -> str:
    return _relative(path, root) if _inside(path.resolve(), root.resolve()) else str(path)


def _indented(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())
