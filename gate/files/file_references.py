"""File references of suites: resolved inside the repository, read once per load, checked.

A suite refers to its system prompt, tool files and mock files as ``{file: PATH}``, relative to the
suite file's directory. A reference is refused, with the reason at the reference's line, when it is
absolute, cannot name a file, points (lexically or through a symlink) outside the repository or into
git's own directory (``.git``, in any letter case), is a symlink loop, unreadable, missing or not a
regular file. Each referenced file is read and checked
once per :class:`Repository` (one ``load_suites`` call), however many suites use it, and its
problems are reported under its own path. Also: checking a prompt, tool or mock file that no suite
uses, and the references a schema-invalid suite declares.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gate import limits
from gate.assembly.context import SuiteDocument
from gate.assembly.suite_builder import ToolFile, written_tool_name
from gate.assembly.tool_formats import parse_tools, tool_file_items
from gate.errors import Problem
from gate.files.case_files import CASE_FILE_KINDS, CaseFile, case_file_kind, parse_case_file
from gate.files.discovery import inside
from gate.files.server_tools import (
    ToolLister,
    argv_files,
    listed_tools,
    no_listing,
    offline_note,
    server_sources,
)
from gate.files.suite_schema import schema_findings
from gate.files.text_files import load_file, read_text
from gate.files.yaml_source import YamlDocument, YamlError
from gate.suite.model import Prompt, Source, ToolServer
from gate.util.escape import truncate
from gate.util.json_types import JsonObject, PathKey

SYMLINK_OUT = "the file is a symlink to outside the repository"
COMMAND_HINT = (
    "a command runs a program on PATH (python3, node), a file of the repository, or a virtualenv's "
    "interpreter there (.venv/bin/python, beside .venv/pyvenv.cfg)"
)
_VENV_INTERPRETER = re.compile(r"(python|pypy)[0-9.]*")
_NAME_MAX = 255  # bytes in one file name on every common file system


@dataclass
class Repository:
    """The repository root and the files read during one ``load_suites`` call (read once)."""

    root: Path
    real_root: Path
    read: JsonObject = field(default_factory=dict)  # kind:rel path -> parsed result and problems
    checked: dict[str, None] = field(default_factory=dict)
    # Starts MCP servers and lists their tools (None: servers are not started, as in validate).
    lister: ToolLister | None = None
    notes: dict[str, None] = field(default_factory=dict)  # what the loader says besides problems

    def rel(self, path: Path) -> str | None:
        """Root-relative POSIX path of ``path`` (None when outside the repository)."""
        absolute = Path(os.path.abspath(path))
        for base in (self.root, self.real_root):
            try:
                return absolute.relative_to(base).as_posix()
            except ValueError:
                pass
        try:
            return path.resolve().relative_to(self.real_root).as_posix()
        except ValueError:
            return None


class SuiteFiles:
    """The files one suite refers to (the builder's view of the repository): each reference is
    checked, each file read through the :class:`Repository`, and every file used is a dependency."""

    def __init__(self, repo: Repository, doc: SuiteDocument, suite_dir: Path):
        self.repo, self.doc, self.dir = repo, doc, suite_dir
        self.dependencies: list[str] = []

    def _resolve(self, ref: str, at: PathKey) -> tuple[Path, str] | Problem:
        try:
            path, rel = resolve_ref(self.repo, self.doc, self.dir, ref, at)
        except Refused as refused:
            return refused.problem
        if rel not in self.dependencies:
            self.dependencies.append(rel)
        self.repo.checked[rel] = None
        return path, rel

    def tool_file(self, ref: str, at: PathKey) -> ToolFile:
        """The tools of the referenced tool file, its problems and the names written in it."""
        found = self._resolve(ref, at)
        if isinstance(found, Problem):
            return ToolFile(None, (found,), None)
        return read_tool_file(self.repo, *found)

    def prompt_file(self, ref: str, at: PathKey) -> tuple[Prompt | None, list[Problem]]:
        """The referenced system prompt (None when it cannot be read) and its problems."""
        found = self._resolve(ref, at)
        if isinstance(found, Problem):
            return None, [found]
        path, rel = found
        key = "prompt:" + rel
        if key not in self.repo.read:
            try:
                self.repo.read[key] = (read_text(path, rel), [])
            except YamlError as exc:
                self.repo.read[key] = (None, exc.problems)
        text, problems = self.repo.read[key]
        return (Prompt(text, Source(rel, 1, 1), from_file=True) if text is not None else None), problems

    def tool_server(self, server: ToolServer, at: PathKey) -> tuple[ToolServer, ToolFile]:
        """The server, to be started in the repository root, and the tools it lists (unknown, with a
        note, when servers are not started); the files its argv names are dependencies."""
        repo = self.repo
        server = replace(server, directory=str(repo.root))
        for rel in argv_files(repo.root, repo.real_root, server.command):
            if rel not in self.dependencies:
                self.dependencies.append(rel)
        if repo.lister is None:
            repo.notes[offline_note(server)] = None
            return server, ToolFile((), (), None)
        items = repo.lister(server)
        if not items:
            return server, ToolFile((), (no_listing(server),), None)
        key = "sources:" + "\0".join([*server.watch, "", *server.command])
        if key not in repo.read:
            repo.read[key] = server_sources(repo.root, repo.real_root, server)
        found = listed_tools(server, items, repo.read[key])
        listed = tuple(t.name for t in found.tools or ())
        return replace(server, tools=listed), found

    def command_files(self, argv: tuple[str, ...], at: PathKey) -> list[Problem]:
        """A command's program, when written as a path (relative to the repository root, where the
        command runs), must be a file of the repository or a virtualenv's interpreter there
        (:mod:`gate.assembly.command_rule`); it and every other argument that names a file of the
        repository (``agent/main.py``) become dependencies of the suite."""
        program = argv[0]
        if "/" in program or "\\" in program:
            problem = self._command_path(program, (*at, 0))
            if problem is not None:
                return [problem]
        for rel in argv_files(self.repo.root, self.repo.real_root, argv):
            if rel not in self.dependencies:
                self.dependencies.append(rel)
        return []

    def _command_path(self, program: str, at: PathKey) -> Problem | None:
        unusable = _unusable_path(program)
        if unusable:
            return self._command_problem(at, f"the program {_shown(program)} {unusable}", "fix the file name")
        lexical = Path(os.path.normpath(self.repo.root / program))
        if not inside(lexical, self.repo.root):
            return self._command_problem(
                at, f"the program {program!r} is outside the repository", COMMAND_HINT
            )
        # What the system starts: the path as written, a '..' after a link leaving that link's target
        # ('sub/../run.sh' with sub a link out is not the repository's run.sh), never its normal form.
        written = Path(os.path.join(self.repo.root, program))
        trouble = stat_trouble(written)
        if trouble or not written.is_file():
            hint = "a command's path is relative to the repository root, where the command runs"
            if venv_interpreter_name(lexical):
                hint = "create the virtualenv (python3 -m venv) where the gate runs, before validate and run"
            return self._command_problem(
                at, f"program not found: {program!r} ({trouble or 'no such file'})", hint
            )
        real = Path(os.path.realpath(written))
        if not inside(real, self.repo.real_root) and not venv_interpreter(lexical, written):
            return self._command_problem(
                at, f"the program {program!r} is a link to outside the repository", COMMAND_HINT
            )
        if not written.stat().st_mode & 0o111:  # git keeps the execute bit: what it checks out runs
            return self._command_problem(
                at,
                f"the program {program!r} is not executable (its file has no execute permission)",
                f"mark it executable in git (git update-index --chmod=+x {program}), or start it with "
                f"its interpreter ([python3, {program}])",
            )
        return None

    def _command_problem(self, at: PathKey, message: str, hint: str) -> Problem:
        """A problem of a command's program, named by its key as every other problem of a suite."""
        return self.doc.problem(at, f"{self.doc.render_path(at)}: {message}", hint)

    def mock_file(self, ref: str, at: PathKey) -> tuple[YamlDocument | None, list[Problem]]:
        """The referenced mock file (None when it cannot be read) and its problems; with schema
        problems, its data holds only what they did not damage (see
        :mod:`gate.assembly.checks.schema_damage`)."""
        found = self._resolve(ref, at)
        if isinstance(found, Problem):
            return None, [found]
        path, rel = found
        key = "mocks:" + rel
        if key not in self.repo.read:
            self.repo.read[key] = _read_mock_file(path, rel)
        doc, problems = self.repo.read[key]
        return doc, problems

    def case_file(self, ref: str, at: PathKey) -> tuple[CaseFile | None, list[Problem]]:
        """The cases of the referenced data file (None when it cannot be read) and its problems."""
        if case_file_kind(ref) is None:
            kinds = ", ".join(sorted(CASE_FILE_KINDS))
            return None, [
                self.doc.problem(at, f"{_shown(ref)} is not a data file of cases", f"name a {kinds} file")
            ]
        found = self._resolve(ref, at)
        if isinstance(found, Problem):
            return None, [found]
        path, rel = found
        key = "cases:" + rel
        if key not in self.repo.read:
            self.repo.read[key] = _read_case_file(path, rel)
        cases, problems = self.repo.read[key]
        if cases is not None and not cases.rows and not problems:
            problems = [self.doc.problem(at, f"{_shown(ref)} holds no case", "write one case per line")]
        return cases, list(problems)


def _read_case_file(path: Path, rel: str) -> tuple[CaseFile | None, list[Problem]]:
    try:
        text = read_text(path, rel, max_bytes=limits.MAX_CASES_FILE_BYTES)
    except YamlError as exc:
        return None, exc.problems
    cases = parse_case_file(text, rel)
    return cases, list(cases.problems)


def _read_mock_file(path: Path, rel: str) -> tuple[YamlDocument | None, list[Problem]]:
    read: list[Problem] = []
    try:
        doc = load_file(path, rel)
    except YamlError as exc:
        if exc.document is None:
            return None, exc.problems
        doc, read = exc.document, exc.problems  # refused, and read on for its other problems
    if not isinstance(doc.data, dict):
        return None, [*read, doc.problem((), "a mock file must hold a mapping {tools: ..., unmocked: ...}")]
    problems, damage = schema_findings(doc, doc.data, "mocksInline", within=("mocks",))
    problems = read + problems
    if damage:  # read on without what the schema errors damaged, as in a suite's own mocks
        doc = replace(doc, data=damage.prune(doc.data))
    return doc, problems


def read_tool_file(repo: Repository, path: Path, rel: str) -> ToolFile:
    """The tools of a tool file, its problems and the names written in it, read once per repository."""
    key = "tools:" + rel
    if key not in repo.read:
        repo.checked[rel] = None
        try:
            doc = load_file(path, rel)
        except YamlError as exc:
            if exc.document is None:
                repo.read[key] = ToolFile((), tuple(exc.problems), None)
            else:  # refused, and read on for its other problems
                found = _tool_file(exc.document)
                repo.read[key] = ToolFile(found.tools, (*exc.problems, *found.problems), found.names)
        else:
            repo.read[key] = _tool_file(doc)
    read: ToolFile = repo.read[key]
    return read


def _tool_file(doc: YamlDocument) -> ToolFile:
    """The tools of a loaded tool file, its problems and the names written in it."""
    items, base, problems = tool_file_items(doc, doc.data)
    tools, tool_problems = parse_tools(items, doc, base)
    names = [written_tool_name(item) for item in items]
    known = None if None in names or (problems and not items) else frozenset(n for n in names if n)
    return ToolFile(tuple(tools), (*problems, *tool_problems), known)


class Refused(Exception):
    """A file reference that must not be read; ``problem`` says why, at the reference."""

    def __init__(self, problem: Problem):
        self.problem = problem


def _shown(text: str) -> str:
    return repr(truncate(text, 80, brief=True).replace("\x00", "\\0"))


def venv_interpreter_name(path: Path) -> bool:
    """Whether ``path`` is named as a virtualenv's interpreter: ``<venv>/bin/python…`` (or ``pypy…``)."""
    return path.parent.name == "bin" and _VENV_INTERPRETER.fullmatch(path.name) is not None


def venv_interpreter(path: Path, written: Path | None = None) -> bool:
    """Whether ``path`` (inside the repository, normalised) is a virtualenv's interpreter: so named,
    beside the virtualenv's ``pyvenv.cfg`` (a file, never read), and leading to an executable file.
    The one kind of link a command may follow out of the repository: a virtualenv's interpreter is a
    link to the Python it was made from. ``written``: the path as the system reads it (default
    ``path``); its directory must be the normalised one's (no '..' after a link on the way), so the
    marker looked at is the one beside what runs."""
    if not venv_interpreter_name(path):
        return False
    written = written if written is not None else path
    try:
        directory = path.parent.parent
        if os.path.realpath(written.parent.parent) != os.path.realpath(directory):
            return False
        marker = directory / "pyvenv.cfg"
        return marker.is_file() and written.resolve().is_file() and os.access(written, os.X_OK)
    except (OSError, RuntimeError):
        return False


def _unusable_path(ref: str) -> str:
    """Why ``ref`` cannot name a file at all (a NUL byte, a name too long); empty when it can."""
    if "\x00" in ref:
        return "contains a NUL character"
    try:
        os.fsencode(ref)
    except UnicodeEncodeError:
        return "cannot be a file name (it holds a lone surrogate)"
    if any(
        len(part.encode("utf-8", "surrogateescape")) > _NAME_MAX for part in ref.replace("\\", "/").split("/")
    ):
        return f"has a file name longer than {_NAME_MAX} bytes"
    return ""


def stat_trouble(path: Path) -> str:
    """Why ``path`` cannot be read (a symlink loop, no permission, ...); empty when it can, or when
    it simply does not exist (reported as "file not found")."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop"
        return f"cannot be read ({exc.strerror or exc})"
    except (ValueError, RuntimeError) as exc:
        return f"cannot be read ({exc})"
    if stat.S_ISDIR(info.st_mode):
        return ""
    if not os.access(path, os.R_OK):
        return "cannot be read (permission denied)"
    return ""


def resolve_ref(
    repo: Repository, doc: SuiteDocument, suite_dir: Path, ref: str, at: PathKey
) -> tuple[Path, str]:
    """Check a ``{file: ...}`` reference; return the file and its root-relative path, or raise
    :class:`Refused`."""
    if ref.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", ref):
        raise Refused(
            doc.problem(
                at,
                f"absolute file reference {ref!r} is not allowed",
                "write a path relative to the suite file's directory",
            )
        )
    unusable = _unusable_path(ref)
    if unusable:
        raise Refused(doc.problem(at, f"file reference {_shown(ref)} {unusable}", "fix the file name"))
    lexical = Path(os.path.normpath(suite_dir / ref))
    rel = repo.rel(lexical) if inside(lexical, repo.root) else None
    if rel is None:
        raise Refused(
            doc.problem(
                at,
                f"file reference {ref!r} points outside the repository",
                "suites may only read files inside the repository",
            )
        )
    if _in_git_directory(rel):
        raise Refused(_git_directory_problem(doc, at, ref, ""))
    trouble = stat_trouble(lexical)
    if trouble:
        raise Refused(doc.problem(at, f"file reference {ref!r}: {trouble}", "fix or remove the file"))
    real = lexical.resolve()
    if not inside(real, repo.real_root):
        raise Refused(
            doc.problem(
                at,
                f"file reference {ref!r} resolves through a symlink to outside the repository",
                "suites may only read files inside the repository",
            )
        )
    if _in_git_directory(real.relative_to(repo.real_root).as_posix()):
        raise Refused(_git_directory_problem(doc, at, ref, " through a symlink"))
    if not lexical.exists():
        raise Refused(
            doc.problem(
                at,
                f"file not found: {ref!r} (looked for {rel})",
                "the path is relative to the suite file's directory",
            )
        )
    if not lexical.is_file():
        raise Refused(doc.problem(at, f"file reference {ref!r} is not a regular file", "point at a file"))
    return lexical, rel


def _in_git_directory(rel: str) -> bool:
    """Whether the root-relative path ``rel`` is or lies in a ``.git`` (the repository's, a
    submodule's), in any letter case and with the trailing dots and spaces Windows ignores: a
    case-insensitive file system opens ``.GIT/config`` as ``.git/config``."""
    return any(part.rstrip(". ").lower() == ".git" for part in rel.split("/"))


def _git_directory_problem(doc: SuiteDocument, at: PathKey, ref: str, how: str) -> Problem:
    return doc.problem(
        at,
        f"file reference {ref!r} points{how} into git's own directory (.git)",
        "suites read their prompts, tools, mocks and cases from the repository's files, never from "
        "git's (its config can hold the checkout's credentials)",
    )


def check_unreferenced(repo: Repository, path: Path, rel: str) -> list[Problem]:
    """A prompt, tool or mock file that no suite uses: check it on its own."""
    if not inside(path.resolve(), repo.real_root):
        return [Problem(rel, 0, 0, SYMLINK_OUT, "suites may only read files inside the repository")]
    repo.checked[rel] = None
    suffix = path.suffix.lower()
    parts = {p.lower() for p in Path(rel).parts[:-1]}
    if suffix in CASE_FILE_KINDS:
        return _read_case_file(path, rel)[1]
    try:
        if suffix in (".json", ".yaml", ".yml"):
            if "mocks" in parts:
                return _read_mock_file(path, rel)[1]
            looks = load_file(path, rel)
            if isinstance(looks.data, dict) and {"cases", "agent"} & set(looks.data):
                return [
                    looks.problem(
                        (),
                        "this looks like a suite, but suite files are named *.suite.yaml",
                        f"rename it to {Path(rel).stem}.suite.yaml",
                    )
                ]
            return list(_tool_file(looks).problems)  # already loaded: not read again
        read_text(path, rel)
    except YamlError as exc:
        return exc.problems
    return []


def declared_refs(repo: Repository, file: Path, data: JsonObject) -> list[str]:
    """The files a schema-invalid suite refers to (best effort), so that it is still found by them."""
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("file"), str) and len(node) == 1:
                rel = repo.rel(Path(os.path.normpath(file.parent / node["file"])))
                if rel:
                    refs.append(rel)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk({k: data.get(k) for k in ("agent", "mocks", "cases")})
    return refs
