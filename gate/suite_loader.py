"""Find, load and check suite files; build :class:`gate.suite_model.Suite` objects or report problems.

Three stages per suite file, each reporting every problem it finds, located at the offending node:

1. YAML (``gate.yaml_source``): syntax, encoding, size, aliases, duplicate keys.
2. The JSON Schema (``schemas/suite.schema.json``, shipped as ``gate/schemas/suite.schema.json``).
3. Semantic checks the schema cannot express: duplicate case ids, tools that are not defined, template
   variables without values, file references (missing, absolute, outside the repository, through
   symlinks), tool definitions, judged checks without a judge, regexes, choice answers, reducers.

A file with schema problems is not checked further (the semantic checks rely on its shape). Referenced
prompt, tool and mock files are read once per :func:`load_suites` call and are reported under their
own path. Nothing is cached across calls.
"""

from __future__ import annotations

import difflib
import errno
import json
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from gate import bounded_regex, cannot_work, mock_state, schema_check, state_checks, templating
from gate.errors import Problem
from gate.model_family import provider_problems
from gate.suite_model import (
    DEFAULT_THRESHOLD,
    MATCHER_KEYS,
    Agent,
    Api,
    CallExpectation,
    Case,
    Choice,
    Defaults,
    Expectation,
    ExpectedCall,
    Judge,
    Message,
    MockRule,
    Mocks,
    MockStep,
    ModelParams,
    OutputChecks,
    PathAssertion,
    Prompt,
    Ranking,
    Scoring,
    SimulatedUser,
    Source,
    Suite,
    Times,
    ToolDef,
)
from gate.tool_formats import parse_tool, parse_tools, tool_file_items
from gate.yaml_source import YamlDocument, YamlError, load_file, read_text

SUITE_SUFFIXES = (".suite.yaml", ".suite.yml")
SCHEMA_FILE = Path(__file__).parent / "schemas" / "suite.schema.json"
SKIP_DIRS = {"node_modules", "__pycache__", "venv", "env", "site-packages", "dist", "build"}
TOOL_CHOICE_MODES = ("auto", "required", "none")
JUDGED_OUTPUT_KEYS = ("criteria", "semantic_contains", "ranking", "choice", "asks_clarification")
PathKey = tuple[Any, ...]


@dataclass(frozen=True)
class LoadResult:
    """What :func:`load_suites` found: the valid suites, every problem, and every file it read."""

    suites: tuple[Suite, ...]
    problems: tuple[Problem, ...]
    checked_files: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


# ---------------------------------------------------------------------------------------------
# discovery


def is_suite_file(path: Path | str) -> bool:
    return str(path).lower().endswith(SUITE_SUFFIXES)


def find_suite_files(root: Path, problems: list[Problem] | None = None) -> list[Path]:
    """Every ``*.suite.yaml`` / ``*.suite.yml`` under ``root``, sorted, skipping hidden directories,
    ``node_modules``, virtualenvs and build output. A directory that cannot be read is a problem
    (added to ``problems`` when given), never silently skipped."""
    found: list[Path] = []

    def unreadable(error: OSError) -> None:
        if problems is not None:
            where = os.path.relpath(error.filename) if error.filename else str(root)
            problems.append(Problem(where, 0, 0, f"cannot read directory: {error.strerror or error}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames[:] = sorted(
            name
            for name in dirnames
            if not name.startswith(".") and name not in SKIP_DIRS and not _is_virtualenv(Path(dirpath, name))
        )
        found.extend(Path(dirpath, name) for name in filenames if is_suite_file(name))
    return sorted(found)


def _is_virtualenv(directory: Path) -> bool:
    try:
        return (directory / "pyvenv.cfg").exists()
    except OSError:  # unreadable: os.walk reports it
        return False


def default_root(paths: Sequence[str | Path] = ()) -> Path:
    """The repository root: the nearest ancestor of the working directory containing ``.git``, else
    the working directory. When some of ``paths`` lie outside it, the nearest ``.git`` ancestor of
    their common directory (else that directory) is used instead."""
    cwd = Path.cwd()
    root = _git_ancestor(cwd) or cwd
    absolute = [Path(os.path.abspath(p)) for p in paths]
    if absolute and not all(_inside(p, root) for p in absolute):
        common = Path(os.path.commonpath([str(p if p.is_dir() else p.parent) for p in absolute]))
        root = _git_ancestor(common) or common
    return root


def _git_ancestor(start: Path) -> Path | None:
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------
# the schema


@lru_cache(maxsize=1)
def suite_schema() -> dict[str, Any]:
    """The suite JSON Schema shipped with the package."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


@lru_cache(maxsize=8)
def _validator(definition: str | None = None) -> Any:
    """A Draft 2020-12 validator for the whole suite, or for one ``$defs`` entry; built once."""
    from jsonschema import Draft202012Validator

    schema = suite_schema()
    if definition is not None:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return Draft202012Validator(schema)


def schema_problems(
    doc: YamlDocument, data: Any, definition: str | None = None, base: PathKey = ()
) -> list[Problem]:
    """Every schema violation of ``data`` (found at ``base`` in ``doc``), readable and located."""
    fast = schema_check.checker(suite_schema(), definition)
    if fast is not None and fast(data):  # the common case: valid, and jsonschema is never imported
        return []
    problems: list[Problem] = []
    for error in _validator(definition).iter_errors(data):
        # ``input: yes`` and ``id: 010`` are a boolean and a number to YAML: say to quote them.
        hint = doc.quote_hint((*base, *error.absolute_path))
        problems.extend(replace(p, hint=p.hint or hint) for p in _explain(error, doc, base))
    return problems


def _explain(error: Any, doc: YamlDocument, base: PathKey) -> list[Problem]:
    from jsonschema.exceptions import best_match

    path = (*base, *error.absolute_path)
    where = _render_path(path)
    prefix = f"{where}: " if where else ""
    keyword, value, instance, schema = error.validator, error.validator_value, error.instance, error.schema
    if keyword == "additionalProperties" and isinstance(instance, dict):
        allowed = list(schema.get("properties", {}))
        patterns = list(schema.get("patternProperties", {}))
        extras = [k for k in instance if k not in allowed and not any(re.search(p, k) for p in patterns)]
        return [
            doc.problem(
                (*path, key), f"{prefix}unknown key {key!r}", _did_you_mean(key, allowed), at_key=True
            )
            for key in extras
        ]
    if keyword == "required" and isinstance(instance, dict):
        problems = []
        for key in value:
            if key not in instance:
                hint = _describe(schema, key)
                problems.append(doc.problem(path, f"{prefix}missing required key {key!r}", hint))
        return problems
    if keyword in ("oneOf", "anyOf"):
        forms: list[Any] = [
            s.get("required") for s in value if isinstance(s, dict) and set(s) == {"required"}
        ]
        if len(forms) == len(value) and all(f and len(f) == 1 for f in forms) and isinstance(instance, dict):
            names = [f[0] for f in forms]
            present = [n for n in names if n in instance]
            if not present:
                return [
                    doc.problem(
                        path,
                        f"{prefix}needs one of: {', '.join(names)}",
                        f"add {names[0]!r}" if len(names) > 1 else "",
                    )
                ]
            return [
                doc.problem(
                    (*path, present[1]),
                    f"{prefix}use only one of: {', '.join(present)}",
                    f"remove {present[1]!r}",
                    at_key=True,
                )
            ]
        if error.context:
            # A branch that accepted the value's type says what is wrong with it ("must not be
            # empty"); when every branch refused the type, name all the types that would do.
            in_type = [e for e in error.context if not (e.validator == "type" and not e.relative_path)]
            if in_type:
                return _explain(best_match(in_type), doc, base)
            words: list[str] = []
            for e in error.context:
                for t in e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]:
                    word = _TYPE_WORDS.get(str(t), str(t))
                    if word not in words:
                        words.append(word)
            return [doc.problem(path, f"{prefix}expected {' or '.join(words)}, got {_type_word(instance)}")]
        return [doc.problem(path, f"{prefix}{_short(error.message)}")]
    if keyword == "pattern" and "propertyNames" in error.schema_path:
        hint = schema.get("patternErrorMessage", f"names must match {value}")
        return [doc.problem((*path, instance), f"{prefix}invalid name {instance!r}", hint, at_key=True)]
    if keyword == "pattern":
        hint = schema.get("patternErrorMessage", f"must match {value}")
        return [doc.problem(path, f"{prefix}invalid value {instance!r}", hint)]
    if keyword == "type":
        expected = value if isinstance(value, list) else [value]
        return [
            doc.problem(
                path,
                f"{prefix}expected {' or '.join(_TYPE_WORDS.get(str(t), str(t)) for t in expected)}, "
                f"got {_type_word(instance)}",
            )
        ]
    if keyword == "enum":
        hint = _did_you_mean(str(instance), [str(v) for v in value]) if isinstance(instance, str) else ""
        hint = "" if hint.startswith("allowed:") else hint
        return [
            doc.problem(
                path, f"{prefix}{_short(repr(instance))} is not one of: {', '.join(map(str, value))}", hint
            )
        ]
    if keyword == "const":
        return [
            doc.problem(
                path, f"{prefix}must be {json.dumps(value)}, got {_short(json.dumps(instance, default=str))}"
            )
        ]
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        word = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "more than",
            "exclusiveMaximum": "less than",
        }[keyword]
        return [doc.problem(path, f"{prefix}must be {word} {value}, got {instance}")]
    if keyword in ("minItems", "minProperties", "minLength"):
        if value == 1:
            return [doc.problem(path, f"{prefix}must not be empty")]
        unit = {"minItems": "items", "minProperties": "keys", "minLength": "characters"}[keyword]
        return [doc.problem(path, f"{prefix}must have at least {value} {unit}")]
    if keyword == "maxProperties":
        return [doc.problem(path, f"{prefix}must have at most {value} keys")]
    if keyword == "uniqueItems":
        return [doc.problem(path, f"{prefix}has duplicate items")]
    return [doc.problem(path, f"{prefix}{_short(error.message)}")]


_TYPE_WORDS: dict[str, str] = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def _type_word(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {_short(repr(value), 40)}"
    return _TYPE_WORDS["object" if isinstance(value, dict) else "array"]


def _describe(schema: dict[str, Any], key: str) -> str:
    sub = schema.get("properties", {}).get(key, {})
    text = sub.get("description") or _definition_description(sub)
    return f"add {key!r}: {text}" if text else f"add {key!r}"


def _definition_description(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref", "") if isinstance(schema, dict) else ""
    if ref.startswith("#/$defs/"):
        description: str = suite_schema()["$defs"].get(ref[8:], {}).get("description", "")
        return description
    return ""


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if close:
        return f"did you mean {close[0]!r}?"
    return ("allowed: " + ", ".join(choices)) if choices else ""


def _render_path(path: PathKey) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# files read during one load


# Counts of the suite language: an integral float (``trials: 2.0``) passes JSON Schema's integer check.
_COUNTS = ("trials", "at_least", "max_tool_calls", "max_turns")


@dataclass
class _Repo:
    """The repository root and the files read during one :func:`load_suites` call (read once)."""

    root: Path
    real_root: Path
    read: dict[str, Any] = field(default_factory=dict)  # rel path -> parsed result
    name_positions: dict[str, tuple[int, int]] = field(default_factory=dict)  # suite path -> its name's
    checked: dict[str, None] = field(default_factory=dict)

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


class _Refused(Exception):
    def __init__(self, problem: Problem):
        self.problem = problem


_NAME_MAX = 255  # bytes in one file name on every common file system


def _shown(text: str) -> str:
    return repr(text.replace("\x00", "\\0") if len(text) <= 80 else text[:77].replace("\x00", "\\0") + "...")


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


def _stat_trouble(path: Path) -> str:
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


def _resolve_ref(repo: _Repo, doc: YamlDocument, suite_dir: Path, ref: str, at: PathKey) -> tuple[Path, str]:
    """Check a ``{file: ...}`` reference; return the file and its root-relative path, or raise."""
    if ref.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", ref):
        raise _Refused(
            doc.problem(
                at,
                f"absolute file reference {ref!r} is not allowed",
                "write a path relative to the suite file's directory",
            )
        )
    unusable = _unusable_path(ref)
    if unusable:
        raise _Refused(doc.problem(at, f"file reference {_shown(ref)} {unusable}", "fix the file name"))
    lexical = Path(os.path.normpath(suite_dir / ref))
    rel = repo.rel(lexical) if _inside(lexical, repo.root) else None
    if rel is None:
        raise _Refused(
            doc.problem(
                at,
                f"file reference {ref!r} points outside the repository",
                "suites may only read files inside the repository",
            )
        )
    trouble = _stat_trouble(lexical)
    if trouble:
        raise _Refused(doc.problem(at, f"file reference {ref!r}: {trouble}", "fix or remove the file"))
    real = lexical.resolve()
    if not _inside(real, repo.real_root):
        raise _Refused(
            doc.problem(
                at,
                f"file reference {ref!r} resolves through a symlink to outside the repository",
                "suites may only read files inside the repository",
            )
        )
    if not lexical.exists():
        raise _Refused(
            doc.problem(
                at,
                f"file not found: {ref!r} (looked for {rel})",
                "the path is relative to the suite file's directory",
            )
        )
    if not lexical.is_file():
        raise _Refused(doc.problem(at, f"file reference {ref!r} is not a regular file", "point at a file"))
    return lexical, rel


# ---------------------------------------------------------------------------------------------
# loading


def load_suites(
    paths: Sequence[str | Path], root: Path | None = None, *, skip_unreferenced: bool = False
) -> LoadResult:
    """Load and check the suites named by ``paths`` (suite files, directories searched for suites, or
    prompt / tool / mock files: then the suites under ``root`` that use them). A file that no suite
    references is checked on its own, or, with ``skip_unreferenced`` (the pre-commit hook, which is
    handed every staged file), passed over silently. See the module doc."""
    root = Path(os.path.abspath(root if root is not None else default_root(paths)))
    repo = _Repo(root, root.resolve())
    problems: list[Problem] = []
    suite_files: dict[Path, None] = {}
    others: list[tuple[Path, str]] = []
    for raw in paths:
        path = Path(os.path.abspath(raw))
        rel = repo.rel(path)
        if rel is None:
            problems.append(
                Problem(
                    str(raw),
                    0,
                    0,
                    f"{raw} is outside the repository root {root}",
                    "run from inside the repository or pass --root",
                )
            )
        elif path.is_dir():
            suite_files.update(dict.fromkeys(find_suite_files(path, problems)))
        elif not path.exists():
            trouble = _stat_trouble(path)
            problems.append(
                Problem(rel, 1 if trouble else 0, 1 if trouble else 0, trouble or "no such file or directory")
            )
        elif is_suite_file(path):
            suite_files[path] = None
        else:
            others.append((path, rel))

    loaded: dict[Path, tuple[Suite | None, list[Problem], list[str]]] = {}
    for file in suite_files:
        loaded[file] = _load_suite_file(repo, file)

    if others:
        # A prompt / tool / mock file: check the suites that read it, or the file alone if none do.
        everything = {f: loaded.get(f) or _load_suite_file(repo, f) for f in find_suite_files(root)}
        for path, rel in others:
            users = [f for f, (_, _, deps) in everything.items() if rel in deps]
            for f in users:
                loaded.setdefault(f, everything[f])
            if not users and not skip_unreferenced:
                problems.extend(_check_standalone(repo, path, rel))

    suites: list[Suite] = []
    for file in sorted(loaded):
        suite, suite_problems, _ = loaded[file]
        problems.extend(suite_problems)
        if suite is not None:
            suites.append(suite)
    problems.extend(_duplicate_names(suites, repo.name_positions))
    unique = sorted(dict.fromkeys(problems), key=lambda p: (p.path, p.line, p.column, p.message))
    return LoadResult(tuple(suites), tuple(unique), tuple(sorted(repo.checked)))


def _duplicate_names(suites: list[Suite], positions: dict[str, tuple[int, int]]) -> list[Problem]:
    """Suite names must be unique: results, baselines and reports are keyed by them."""
    first: dict[str, Suite] = {}
    problems = []
    for suite in suites:
        other = first.setdefault(suite.name, suite)
        if other is not suite:
            line, column = positions.get(suite.path, (1, 1))
            problems.append(
                Problem(
                    suite.path,
                    line,
                    column,
                    f"name: duplicate suite name {suite.name!r} (also "
                    f"{other.path}:{positions.get(other.path, (1, 1))[0]})",
                    "give every suite its own name (baselines and reports are keyed by it)",
                )
            )
    return problems


def _check_standalone(repo: _Repo, path: Path, rel: str) -> list[Problem]:
    """A prompt, tool or mock file that no suite uses: check it on its own."""
    if not _inside(path.resolve(), repo.real_root):
        return [Problem(rel, 0, 0, _SYMLINK_OUT, "suites may only read files inside the repository")]
    repo.checked[rel] = None
    suffix = path.suffix.lower()
    parts = {p.lower() for p in Path(rel).parts[:-1]}
    try:
        if suffix in (".json", ".yaml", ".yml"):
            if "mocks" in parts:
                doc = load_file(path, rel)
                if not isinstance(doc.data, dict):
                    return [doc.problem((), "a mock file must hold a mapping {tools: ..., unmocked: ...}")]
                return schema_problems(doc, doc.data, "mocksInline")
            looks = load_file(path, rel)
            if isinstance(looks.data, dict) and {"cases", "agent"} & set(looks.data):
                return [
                    looks.problem(
                        (),
                        "this looks like a suite, but suite files are named *.suite.yaml",
                        f"rename it to {Path(rel).stem}.suite.yaml",
                    )
                ]
            _, problems = _read_tool_file(repo, path, rel)
            return problems
        read_text(path, rel)
    except YamlError as exc:
        return exc.problems
    return []


def _read_tool_file(repo: _Repo, path: Path, rel: str) -> tuple[list[ToolDef], list[Problem]]:
    key = "tools:" + rel
    if key not in repo.read:
        repo.checked[rel] = None
        try:
            doc = load_file(path, rel)
        except YamlError as exc:
            repo.read[key] = ([], exc.problems)
        else:
            items, base, problems = tool_file_items(doc, doc.data)
            tools, tool_problems = parse_tools(items, doc, base)
            repo.read[key] = (tools, problems + tool_problems)
    read: tuple[list[ToolDef], list[Problem]] = repo.read[key]
    return read


_SYMLINK_OUT = "the file is a symlink to outside the repository"


def _load_suite_file(repo: _Repo, file: Path) -> tuple[Suite | None, list[Problem], list[str]]:
    rel = repo.rel(file)
    if rel is None:
        return None, [Problem(str(file), 0, 0, "suite file is outside the repository")], []
    if _stat_trouble(file) == "a symlink loop":
        return None, [Problem(rel, 1, 1, "the suite file is a symlink loop", "fix or remove the symlink")], []
    if not _inside(file.resolve(), repo.real_root):  # a symlink must not make us read (and quote) any file
        return (
            None,
            [Problem(rel, 0, 0, _SYMLINK_OUT, "suites may only read files inside the repository")],
            [],
        )
    repo.checked[rel] = None
    trouble = _stat_trouble(file)
    if trouble:
        return None, [Problem(rel, 1, 1, f"the suite file {trouble}", "fix or remove the file")], []
    try:
        doc = load_file(file, rel)
    except YamlError as exc:
        return None, exc.problems, []
    if not isinstance(doc.data, dict):
        return (
            None,
            [
                doc.problem(
                    (),
                    f"a suite must be a mapping, got {_type_word(doc.data)}",
                    "start with 'version: 1' and 'name: ...'",
                )
            ],
            [],
        )
    problems = schema_problems(doc, doc.data)
    if problems:
        return None, problems, _declared_refs(repo, file, doc.data)
    builder = _SuiteBuilder(repo, doc, file.parent)
    suite = builder.build()
    return (suite if not builder.problems else None), builder.problems, builder.dependencies


def _declared_refs(repo: _Repo, file: Path, data: dict[str, Any]) -> list[str]:
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


def model_params(raw: dict[str, Any]) -> ModelParams:
    """``agent.params`` (schema-valid) as ``ModelParams``: ``thinking: {budget_tokens}`` becomes the
    budget, ``stop`` a tuple of sequences, ``extra_body`` kept as written."""
    values = dict(raw)
    thinking = values.pop("thinking", None)
    stop = values.pop("stop", None)
    return ModelParams(
        **values,
        thinking_budget=thinking["budget_tokens"] if isinstance(thinking, dict) else None,
        stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
    )


class _SuiteBuilder:
    """Semantic checks and construction of one schema-valid suite document."""

    def __init__(self, repo: _Repo, doc: YamlDocument, suite_dir: Path):
        self.repo, self.doc, self.dir = repo, doc, suite_dir
        self.data: dict[str, Any] = doc.data
        self.problems: list[Problem] = []
        self.dependencies: list[str] = []
        self.tool_names: set[str] = set()
        self.tools: dict[str, ToolDef] = {}
        self.tools_ok = True
        # The state keys mock rules may refer to where they are being read (None: no state declared).
        self.state_keys: frozenset[str] | None = None

    def err(
        self,
        path: PathKey,
        message: str,
        hint: str = "",
        *,
        at_key: bool = False,
        doc: YamlDocument | None = None,
    ) -> None:
        where = _render_path(path)
        doc = doc or self.doc
        self.problems.append(
            doc.problem(path, f"{where}: {message}" if where else message, hint, at_key=at_key)
        )

    def report(self, found: list[tuple[PathKey, str, str]], doc: YamlDocument | None = None) -> None:
        """Report what ``gate.cannot_work`` found, each at its path."""
        for path, message, hint in found:
            self.err(path, message, hint, doc=doc)

    def depend(self, rel: str) -> None:
        if rel not in self.dependencies:
            self.dependencies.append(rel)
        self.repo.checked[rel] = None

    def ref(self, ref: str, at: PathKey) -> tuple[Path, str] | None:
        try:
            path, rel = _resolve_ref(self.repo, self.doc, self.dir, ref, at)
        except _Refused as refused:
            self.problems.append(refused.problem)
            return None
        self.depend(rel)
        return path, rel

    # -- the whole suite ------------------------------------------------------------------------

    def build(self) -> Suite:
        data = self.data
        self.repo.name_positions[self.doc.path] = self.doc.position(("name",))
        agent = self.agent(data["agent"])
        judge = self.judge_like("judge")
        simulator = self.judge_like("user_simulator")
        for index, raw in enumerate(data["cases"]):
            if "user" in raw and simulator is None:
                self.err(
                    ("cases", index, "user"),
                    "a simulated user needs the suite's user_simulator",
                    "add user_simulator: {provider: openai, model: gpt-4o-mini} at the top of the suite",
                )
        suite_vars = _vars(data.get("vars", {}))
        suite_state = data.get("state")
        self.state_keys = _state_keys(suite_state, *(c.get("state") for c in data["cases"]))
        suite_mocks = self.mocks(data["mocks"], ("mocks",)) if "mocks" in data else Mocks()
        defaults = self.defaults(data.get("defaults", {}))
        cases = []
        seen: dict[str, int] = {}
        for index, raw in enumerate(data["cases"]):
            self.state_keys = _state_keys(suite_state, raw.get("state"))
            case = self.case(raw, index, agent, suite_vars, suite_mocks, defaults, judge is not None)
            if case.id in seen:
                self.err(
                    ("cases", index, "id"),
                    f"duplicate case id {case.id!r} (first at line {seen[case.id]})",
                    "case ids must be unique in the suite",
                )
            else:
                seen[case.id] = case.source.line
            cases.append(case)
        self.check_prompt_vars(agent, suite_vars)
        return Suite(
            name=data["name"],
            path=self.doc.path,
            description=data.get("description", ""),
            tags=tuple(data.get("tags", ())),
            agent=agent,
            judge=judge,
            mocks=suite_mocks,
            defaults=defaults,
            threshold=float(data.get("threshold", DEFAULT_THRESHOLD)),
            cases=tuple(cases),
            dependencies=tuple(self.dependencies),
            source=Source(self.doc.path, 1, 1),
            user_simulator=simulator,
        )

    def judge_like(self, key: str) -> Judge | None:
        """The suite's ``judge`` or ``user_simulator`` (both configured the same way), if written."""
        if key not in self.data:
            return None
        j = self.data[key]
        model = Judge(
            provider=j["provider"],
            model=j["model"],
            max_tokens=j.get("max_tokens", Judge.max_tokens),
            api=j.get("api", Judge.api),
            reasoning_effort=j.get("reasoning_effort"),
        )
        self.check_params(
            model.provider, model.api, ModelParams(reasoning_effort=model.reasoning_effort), (key,), j
        )
        return model

    def source(self, path: PathKey) -> Source:
        line, column = self.doc.position(path)
        return Source(self.doc.path, line, column)

    # -- agent ----------------------------------------------------------------------------------

    def check_params(self, provider: str, api: Api, params: ModelParams, at: PathKey, given: Any) -> None:
        """Parameters the provider, the API or extended thinking refuse, each at its line (``given``
        is the mapping the parameters were written in, under ``at``)."""
        given = given if isinstance(given, dict) else {}
        top = self.data.get(at[0], {})
        for name, message in provider_problems(provider, api, params):
            if name in given:
                self.err((*at, name), message)
            elif name in top:
                self.err((at[0], name), message)
            else:
                self.err(at, message)

    def agent(self, raw: dict[str, Any]) -> Agent:
        params = model_params(raw.get("params", {}))
        api: Api = raw.get("api", Agent.api)
        at: PathKey = ("agent", "params") if "params" in raw else ("agent",)
        self.check_params(raw["provider"], api, params, at, raw.get("params", raw))
        prompt = None
        if "system_prompt" in raw:
            value = raw["system_prompt"]
            if isinstance(value, str):
                prompt = Prompt(value, self.source(("agent", "system_prompt")))
            else:
                found = self.ref(value["file"], ("agent", "system_prompt", "file"))
                if found:
                    prompt = self.read_prompt(*found)
        tools: list[ToolDef] = []
        seen: dict[str, Source] = {}
        for index, item in enumerate(raw.get("tools", [])):
            at = ("agent", "tools", index)
            if "file" in item:
                found = self.ref(item["file"], (*at, "file"))
                if not found:
                    self.tools_ok = False
                    continue
                file_tools, file_problems = _read_tool_file(self.repo, *found)
                self.problems.extend(file_problems)
                self.tools_ok = self.tools_ok and not file_problems
                for tool in file_tools:
                    if tool.name in seen:
                        first = seen[tool.name]
                        self.err(
                            at,
                            f"duplicate tool name {tool.name!r} ({tool.source.path}:{tool.source.line} "
                            f"and {first.path}:{first.line})",
                            "tool names must be unique",
                        )
                        continue
                    seen[tool.name] = tool.source
                    tools.append(tool)
            else:
                parsed, tool_problems = parse_tool(item, self.doc, at)
                self.problems.extend(tool_problems)
                if parsed is None:
                    self.tools_ok = False
                    continue
                if parsed.name in seen:
                    first = seen[parsed.name]
                    self.err(
                        at,
                        f"duplicate tool name {parsed.name!r} (first defined at {first.path}:{first.line})",
                        "tool names must be unique",
                    )
                    continue
                seen[parsed.name] = parsed.source
                tools.append(parsed)
        self.tool_names = {t.name for t in tools}
        self.tools = {t.name: t for t in tools}
        choice = params.tool_choice
        if choice is not None and choice not in TOOL_CHOICE_MODES:
            self.check_tool(choice, ("agent", "params", "tool_choice"), extra=TOOL_CHOICE_MODES)
        return Agent(
            provider=raw["provider"],
            model=raw["model"],
            params=params,
            system_prompt=prompt,
            tools=tuple(tools),
            api=api,
        )

    def read_prompt(self, path: Path, rel: str) -> Prompt | None:
        key = "prompt:" + rel
        if key not in self.repo.read:
            try:
                self.repo.read[key] = (read_text(path, rel), [])
            except YamlError as exc:
                self.repo.read[key] = (None, exc.problems)
        text, problems = self.repo.read[key]
        self.problems.extend(problems)
        return Prompt(text, Source(rel, 1, 1), from_file=True) if text is not None else None

    def check_tool(self, name: str, at: PathKey, extra: Sequence[str] = ()) -> None:
        if not self.tools_ok or name in self.tool_names:
            return
        names = sorted(self.tool_names)
        close = difflib.get_close_matches(name, names + list(extra), n=1, cutoff=0.6)
        hint = (
            f"did you mean {close[0]!r}?"
            if close
            else ("defined tools: " + ", ".join(names) if names else "the agent defines no tools")
        )
        self.err(at, f"unknown tool {name!r}", hint)

    # -- mocks ----------------------------------------------------------------------------------

    def mocks(self, raw: dict[str, Any], at: PathKey) -> Mocks:
        if "file" in raw:
            found = self.ref(raw["file"], (*at, "file"))
            if not found:
                return Mocks()
            path, rel = found
            key = "mocks:" + rel
            if key not in self.repo.read:
                try:
                    doc = load_file(path, rel)
                except YamlError as exc:
                    self.repo.read[key] = (None, exc.problems)
                else:
                    if not isinstance(doc.data, dict):
                        self.repo.read[key] = (
                            None,
                            [doc.problem((), "a mock file must hold a mapping {tools: ..., unmocked: ...}")],
                        )
                    else:
                        self.repo.read[key] = (doc, schema_problems(doc, doc.data, "mocksInline"))
            doc, problems = self.repo.read[key]
            if problems or doc is None:
                self.problems.extend(problems)
                return Mocks()
            return _MockReader(self, doc).read(doc.data, ())
        return _MockReader(self, self.doc).read(raw, at)

    # -- defaults and cases ---------------------------------------------------------------------

    def defaults(self, raw: dict[str, Any]) -> Defaults:
        self.report(cannot_work.whole_number_problems(raw, _COUNTS, ("defaults",)))
        base = Defaults()
        return Defaults(
            trials=raw.get("trials", base.trials),
            reducer=raw.get("reducer", base.reducer),
            at_least=raw.get("at_least", base.at_least),
            mean_pass_score=float(raw.get("mean_pass_score", base.mean_pass_score)),
            max_tool_calls=raw.get("max_tool_calls", base.max_tool_calls),
            max_turns=raw.get("max_turns", base.max_turns),
            latency_ms=raw.get("latency_ms", base.latency_ms),
            scoring=self.scoring(raw["scoring"], ("defaults", "scoring"))
            if "scoring" in raw
            else base.scoring,
        )

    def scoring(self, raw: dict[str, Any], at: PathKey) -> Scoring:
        base = Scoring()
        weights = dict(base.weights)
        weights.update({k: float(v) for k, v in raw.get("weights", {}).items()})
        if raw.get("mode", base.mode) == "weighted" and sum(weights.values()) <= 0:
            self.err((*at, "weights"), "the weights sum to 0", "give at least one metric a positive weight")
        return Scoring(
            mode=raw.get("mode", base.mode),
            pass_score=float(raw.get("pass_score", base.pass_score)),
            weights=weights,
        )

    def case(
        self,
        raw: dict[str, Any],
        index: int,
        agent: Agent,
        suite_vars: dict[str, str],
        suite_mocks: Mocks,
        defaults: Defaults,
        has_judge: bool,
    ) -> Case:
        at: PathKey = ("cases", index)
        case_vars = {**suite_vars, **_vars(raw.get("vars", {}))}
        if "input" in raw:
            conversation: tuple[Message, ...] = (Message("user", raw["input"]),)
            texts = [(raw["input"], (*at, "input"))]
        else:
            conversation = tuple(Message(m["role"], m["content"]) for m in raw["conversation"])
            texts = [
                (m["content"], (*at, "conversation", i, "content")) for i, m in enumerate(raw["conversation"])
            ]
            if conversation[-1].role != "user":
                self.err(
                    (*at, "conversation", len(conversation) - 1),
                    "the conversation must end with a user message",
                    "add the user's next message",
                )
        for text, path in texts:
            for name in templating.missing(text, case_vars):
                self.err(
                    path,
                    f"no value for template variable {{{{ {name} }}}}",
                    f"add {name} to the vars of the case or the suite",
                )
        self.report(cannot_work.whole_number_problems(raw, _COUNTS, at))
        trials = raw.get("trials", defaults.trials)
        reducer = raw.get("reducer", defaults.reducer)
        at_least = raw.get("at_least", defaults.at_least)
        if reducer == "at_least" and at_least > trials:
            where = (*at, "at_least") if "at_least" in raw else (*at, "trials") if "trials" in raw else None
            where = where or ("defaults", "at_least")  # both from the defaults: reported once, there
            self.err(
                where,
                f"reducer at_least needs {at_least} passing trials but the case runs only {trials}",
                "lower at_least or raise trials",
            )
        scoring = self.scoring(raw["scoring"], (*at, "scoring")) if "scoring" in raw else defaults.scoring
        mocks = suite_mocks
        if "mocks" in raw:
            mocks = _merge_mocks(self.mocks(raw["mocks"], (*at, "mocks")), suite_mocks)
        expect = self.expectation(raw.get("expect", {}), (*at, "expect"), defaults, has_judge)
        return Case(
            id=raw["id"],
            conversation=conversation,
            vars=case_vars,
            tags=tuple(raw.get("tags", ())),
            expect=expect,
            trials=trials,
            reducer=reducer,
            at_least=at_least,
            mean_pass_score=float(raw.get("mean_pass_score", defaults.mean_pass_score)),
            max_tool_calls=raw.get("max_tool_calls", defaults.max_tool_calls),
            max_turns=raw.get("max_turns", defaults.max_turns),
            scoring=scoring,
            mocks=mocks,
            source=self.source(at),
            skip=raw.get("skip"),
            state=mock_state.initial_state(self.data.get("state"), raw.get("state")),
            non_gating=raw.get("non_gating"),
            user=SimulatedUser(**raw["user"]) if "user" in raw else None,
        )

    def check_prompt_vars(self, agent: Agent, suite_vars: dict[str, str]) -> None:
        prompt = agent.system_prompt
        if prompt is None:
            return
        cases = self.data["cases"]
        for name in templating.missing(prompt.template, suite_vars):
            lacking = [i for i, c in enumerate(cases) if name not in c.get("vars", {})]
            if not lacking:
                continue
            where = (
                f" ({prompt.source.path}:{_placeholder_line(prompt.template, name)})"
                if prompt.from_file
                else ""
            )
            if len(lacking) == len(cases):
                self.err(
                    ("agent", "system_prompt"),
                    f"the system prompt uses {{{{ {name} }}}}{where} but no value is given",
                    f"add {name} to the suite's vars (or to every case's vars)",
                )
            else:
                for i in lacking:
                    self.err(
                        ("cases", i),
                        f"case {cases[i]['id']!r} gives no value for {{{{ {name} }}}} of the system prompt",
                        f"add {name} to the vars of this case or of the suite",
                    )

    # -- expectations ---------------------------------------------------------------------------

    def expectation(
        self, raw: dict[str, Any], at: PathKey, defaults: Defaults, has_judge: bool
    ) -> Expectation:
        calls = self.call_expectation(raw, at, has_judge)
        alternatives = tuple(
            self.call_expectation(alt, (*at, "alternatives", i), has_judge)
            for i, alt in enumerate(raw.get("alternatives", ()))
        )
        output = self.output(raw.get("output", {}), (*at, "output"), has_judge)
        asserts = tuple(
            self.path_assertion(a, (*at, "assert", i), has_judge) for i, a in enumerate(raw.get("assert", ()))
        )
        trajectory = raw["trajectory"]["criteria"] if "trajectory" in raw else None
        if trajectory is not None and not has_judge:
            self.need_judge((*at, "trajectory"), "a trajectory judgement")
        final_state = raw.get("final_state")
        if final_state is not None:
            self.check_matchers(final_state, (*at, "final_state"), has_judge)
            self.report(state_checks.final_state_findings(final_state, (*at, "final_state"), self.state_keys))
        return Expectation(
            calls=calls,
            alternatives=alternatives,
            output=output,
            latency_ms=raw.get("latency_ms", defaults.latency_ms),
            asserts=asserts,
            final_state=final_state,
            trajectory=trajectory,
        )

    def call_expectation(self, raw: dict[str, Any], at: PathKey, has_judge: bool) -> CallExpectation:
        calls = []
        for i, call in enumerate(raw.get("calls", ())):
            cat = (*at, "calls", i)
            self.check_tool(call["tool"], (*cat, "tool"))
            args = call.get("args", {})
            self.check_matchers(args, (*cat, "args"), has_judge)
            self.check_arg_names(call["tool"], args, (*cat, "args"))
            self.report(cannot_work.whole_number_problems(call, ("times",), cat))
            self.report(cannot_work.placeholder_problems(args, (*cat, "args")))
            tool = self.tools.get(call["tool"])
            if tool is not None and isinstance(args, dict):
                self.report(cannot_work.literal_problems(tool.name, tool.parameters, args, (*cat, "args")))
            times = call.get("times", ExpectedCall.times.min)
            if isinstance(times, int):
                parsed = Times(times, times)
            else:
                parsed = Times(times.get("min", Times.min), times.get("max"))
                if parsed.max is not None and parsed.min > parsed.max:
                    self.err(
                        (*cat, "times"), f"times.min ({parsed.min}) is greater than times.max ({parsed.max})"
                    )
            calls.append(
                ExpectedCall(
                    tool=call["tool"],
                    args=args,
                    times=parsed,
                    allow_extra_args=call.get("allow_extra_args", ExpectedCall.allow_extra_args),
                    source=self.source(cat),
                )
            )
        for i, name in enumerate(raw.get("forbidden_tools", ())):
            self.check_tool(name, (*at, "forbidden_tools", i))
        if raw.get("no_calls") and raw.get("calls"):
            self.err(
                (*at, "no_calls"),
                "no_calls: true contradicts the expected calls",
                "remove no_calls or the calls",
            )
        self.report(cannot_work.whole_number_problems(raw, ("max_calls",), at))
        return CallExpectation(
            calls=tuple(calls),
            order=raw.get("order", CallExpectation.order),
            extra_calls=raw.get("extra_calls", CallExpectation.extra_calls),
            forbidden_tools=tuple(raw.get("forbidden_tools", ())),
            # `calls: []` written out means "expected none" (DESIGN.md section 3), as no_calls does.
            no_calls=bool(raw.get("no_calls", False)) or raw.get("calls", None) == [],
            max_calls=raw.get("max_calls"),
        )

    def check_arg_names(self, tool_name: str, args: dict[str, Any], at: PathKey) -> None:
        tool = self.tools.get(tool_name)
        properties = tool.parameters.get("properties") if tool else None
        if not isinstance(properties, dict):
            return
        for name, matcher in args.items():
            if name in properties or (isinstance(matcher, dict) and matcher.keys() == {"absent"}):
                continue
            self.err(
                (*at, name),
                f"tool {tool_name!r} has no parameter {name!r}",
                _did_you_mean(name, list(properties)) or "the tool declares no parameters",
                at_key=True,
            )

    def check_matchers(
        self, value: Any, at: PathKey, has_judge: bool, doc: YamlDocument | None = None
    ) -> None:
        for path, key, operand in _matcher_ops(value, at):
            if key == "judge" and not has_judge:
                self.need_judge(path, "a judge matcher")
            elif key == "regex":
                self.check_regex(operand, (*path, "regex"), doc)
            elif key == "schema":
                self.check_schema(operand, (*path, "schema"), doc)
            elif key == "range" and "min" in operand and "max" in operand and operand["min"] > operand["max"]:
                self.err(
                    (*path, "range"),
                    f"range.min ({operand['min']}) is greater than range.max ({operand['max']})",
                    doc=doc,
                )

    def check_regex(self, pattern: str, at: PathKey, doc: YamlDocument | None = None) -> None:
        problem = bounded_regex.regex_problem(pattern)  # the engine the run uses
        if problem is not None:
            self.err(
                at,
                f"invalid regular expression {pattern!r}: {problem}",
                "check the escaping (in YAML, prefer single quotes)",
                doc=doc,
            )

    def check_schema(self, schema: Any, at: PathKey, doc: YamlDocument | None = None) -> None:
        from gate.tool_formats import REMOTE_REF_HINT, remote_refs

        for where, ref in remote_refs(schema, at):
            self.err(where, f"a remote schema reference {ref!r} is not allowed", REMOTE_REF_HINT, doc=doc)
        self.report(cannot_work.schema_problems(schema, at), doc)
        if schema_check.is_valid_schema(schema):
            return
        from gate.tool_formats import _meta_validator

        for error in _meta_validator().iter_errors(schema):
            self.err(
                (*at, *error.absolute_path), f"not a valid JSON Schema: {_short(error.message)}", doc=doc
            )

    def need_judge(self, at: PathKey, what: str) -> None:
        self.err(
            at,
            f"{what} needs a judge, but the suite has none",
            "add judge: {provider: openai, model: gpt-4o-mini} at the top of the suite",
        )

    def output(self, raw: dict[str, Any], at: PathKey, has_judge: bool) -> OutputChecks:
        if not has_judge:
            for key in JUDGED_OUTPUT_KEYS:
                if key in raw:
                    self.need_judge((*at, key), f"the judged check {key!r}")
        for i, pattern in enumerate(_strings(raw.get("regex"))):
            self.check_regex(pattern, (*at, "regex") if isinstance(raw["regex"], str) else (*at, "regex", i))
        ranking = choice = None
        if "ranking" in raw:
            r = raw["ranking"]
            ranking = Ranking(
                reference=r["reference"],
                wrong=r["wrong"],
                irrelevant=r["irrelevant"],
                threshold=float(r.get("threshold", Ranking.threshold)),
            )
        if "choice" in raw:
            c = raw["choice"]
            if c["correct"] not in c["options"]:
                self.err(
                    (*at, "choice", "correct"),
                    f"the correct answer {c['correct']!r} is not among the options",
                    _did_you_mean(c["correct"], c["options"]).replace("allowed:", "options:"),
                )
            choice = Choice(options=tuple(c["options"]), correct=c["correct"])
        return OutputChecks(
            contains=_strings(raw.get("contains")),
            not_contains=_strings(raw.get("not_contains")),
            regex=_strings(raw.get("regex")),
            equals=raw.get("equals"),
            criteria=_strings(raw.get("criteria")),
            semantic_contains=_strings(raw.get("semantic_contains")),
            ranking=ranking,
            choice=choice,
            asks_clarification=raw.get("asks_clarification"),
            ignore_case=raw.get("ignore_case", OutputChecks.ignore_case),
        )

    def path_assertion(self, raw: dict[str, Any], at: PathKey, has_judge: bool) -> PathAssertion:
        check_key = next(k for k in raw if k not in ("path", "aggregate", "threshold"))
        operand = raw[check_key]
        from gate.paths import PathError, parse

        try:
            parse(raw["path"])
        except PathError as exc:
            self.err((*at, "path"), str(exc), "e.g. calls[0].name, calls[*].args.city, output")
        if check_key in ("criteria", "semantic_contains") and not has_judge:
            self.need_judge((*at, check_key), f"the judged path check {check_key!r}")
        elif check_key == "matches":
            self.check_regex(operand, (*at, "matches"))
        elif check_key == "match":
            self.check_matchers({"_": operand}, (*at, "match"), has_judge)
        return PathAssertion(
            path=raw["path"],
            check={check_key: operand},
            aggregate=raw.get("aggregate", PathAssertion.aggregate),
            threshold=float(raw.get("threshold", PathAssertion.threshold)),
            source=self.source(at),
        )


class _MockReader:
    """Builds :class:`Mocks` from a schema-valid mapping found in ``doc`` (the suite or a mock file)."""

    def __init__(self, builder: _SuiteBuilder, doc: YamlDocument):
        self.builder, self.doc = builder, doc

    def read(self, raw: dict[str, Any], at: PathKey) -> Mocks:
        tools: dict[str, tuple[MockRule, ...]] = {}
        for name, rules in raw.get("tools", {}).items():
            if self.builder.tools_ok and name not in self.builder.tool_names:
                names = sorted(self.builder.tool_names)
                hint = _did_you_mean(name, names).replace("allowed:", "defined tools:")
                self.builder.err(
                    (*at, "tools", name), f"mocks for unknown tool {name!r}", hint, at_key=True, doc=self.doc
                )
            tools[name] = tuple(self.rule(rule, (*at, "tools", name, i)) for i, rule in enumerate(rules))
            tool = self.builder.tools.get(name)
            parameters = None if tool is None else tuple(tool.parameters.get("properties", {}))
            for i, rule in enumerate(rules):
                found = state_checks.rule_findings(
                    rule, (*at, "tools", name, i), parameters, self.builder.state_keys
                )
                self.builder.report(found, self.doc)
            for i, rule in enumerate(rules):
                if tool is not None and isinstance(rule.get("when"), dict):
                    found = cannot_work.unknown_when_parameters(
                        name, tool.parameters, rule["when"], (*at, "tools", name, i, "when")
                    )
                    self.builder.report(found, self.doc)
        unmocked = self.rule(raw["unmocked"], (*at, "unmocked")) if "unmocked" in raw else None
        line, column = self.doc.position(at)
        return Mocks(tools=tools, unmocked=unmocked, source=Source(self.doc.path, line, column))

    def rule(self, raw: dict[str, Any], at: PathKey) -> MockRule:
        when = raw.get("when")
        if when is not None:
            self.builder.check_matchers(when, (*at, "when"), True, self.doc)
        line, column = self.doc.position(at)
        state_when = raw.get("state_when")
        if state_when is not None:
            self.builder.check_matchers(state_when, (*at, "state_when"), True, self.doc)
        return MockRule(
            when=when,
            returns=raw.get("returns"),
            error=raw.get("error"),
            source=Source(self.doc.path, line, column),
            state_when=state_when,
            set=tuple(raw.get("set", {}).items()),
            append=tuple(raw.get("append", {}).items()),
            remove=tuple(raw.get("remove", ())),
            sequence=tuple(MockStep(s.get("returns"), s.get("error")) for s in raw.get("sequence", ())),
        )


def _state_keys(*states: Any) -> frozenset[str] | None:
    """The top-level keys of the declared states (None when none is declared)."""
    declared = [s for s in states if isinstance(s, dict)]
    return frozenset(k for s in declared for k in s) if declared else None


def _merge_mocks(case: Mocks, suite: Mocks) -> Mocks:
    """Case rules are tried before the suite's rules of the same tool."""
    tools = dict(suite.tools)
    for name, rules in case.tools.items():
        tools[name] = rules + suite.tools.get(name, ())
    return Mocks(tools=tools, unmocked=case.unmocked or suite.unmocked, source=case.source or suite.source)


def _matcher_ops(value: Any, at: PathKey) -> Iterator[tuple[PathKey, str, Any]]:
    """Every matcher operation inside an ``args`` mapping: (path of the matcher mapping, key, operand)."""
    stack: list[tuple[Any, PathKey]] = []
    if isinstance(value, dict):
        stack.extend((v, (*at, k)) for k, v in value.items())
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            keys = set(node)
            if (len(keys) == 1 and keys <= MATCHER_KEYS) or keys == {"object", "extra_keys"}:
                for key, operand in node.items():
                    if key == "extra_keys":
                        continue
                    yield path, key, operand
                    if key in ("optional", "not"):
                        stack.append((operand, (*path, key)))
                    elif key == "unordered" and isinstance(operand, list):
                        stack.extend((v, (*path, key, i)) for i, v in enumerate(operand))
                    elif key == "object" and isinstance(operand, dict):
                        stack.extend((v, (*path, key, k)) for k, v in operand.items())
            else:
                stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))


def _placeholder_line(template: str, name: str) -> int:
    """The line of the first ``{{ name }}`` in ``template`` (1-based)."""
    for match in templating.PLACEHOLDER.finditer(template):
        if match.group(1) == name:
            return template.count("\n", 0, match.start()) + 1
    return 1


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _vars(raw: dict[str, Any]) -> dict[str, str]:
    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return {k: text(v) for k, v in raw.items()}
