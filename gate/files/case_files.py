"""Cases kept in data files: ``cases: [{file: cases.jsonl}]``, beside cases written in the suite.

Two formats, chosen by the file's suffix:

- **JSON lines** (``.jsonl``, ``.ndjson``): one case a line, a JSON object with the keys a case has
  in the suite (``id``, ``input`` or ``conversation``, ``expect``, ``tags``, ``vars``, ...). Blank
  lines are skipped.
- **CSV** (``.csv``): the simple shape. A header row names the columns: ``id`` and ``input`` (both
  needed), ``tool`` (the one expected call; an empty cell: the agent must not call a tool), ``args``
  (the call's arguments as a JSON object of matchers; an empty cell: any arguments) and ``tags``
  (separated by commas or spaces).

The suite with every data file's cases in place of its reference is checked as one document (the
schema, then the builder): :class:`SuiteWithCaseFiles` says where each of its values was written, so
a problem of a data file's case is reported at that file's ``line:column``, and a case's ``file:line``
in every report is the data file's line. Positions inside a JSON line are looked up only when a
problem needs one. Pure: the text of a data file is read by :mod:`gate.files.file_references`.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal, Protocol

from gate import limits
from gate.assembly.checks.schema_messages import render_path, type_word
from gate.errors import Problem
from gate.files.yaml_source import YamlDocument, YamlError, parse
from gate.util import strict_json
from gate.util.escape import show
from gate.util.json_types import JsonObject, PathKey

CaseFileKind = Literal["jsonl", "csv"]

CASE_FILE_KINDS: dict[str, CaseFileKind] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
CSV_COLUMNS = ("id", "input", "tool", "args", "tags")
_CSV_NEEDED = ("id", "input")
_JSONL_HINT = "write each case on one line as a JSON object"
# A line ends at CR LF, LF or a lone CR (as YAML and the csv module read them): a file saved with
# old Mac line endings has the same lines everywhere the gate counts them.
_LINE_END = re.compile(r"\r\n|\r|\n")


def case_file_kind(name: str) -> CaseFileKind | None:
    """The format of a data file of cases by its suffix; None when it is not one."""
    return CASE_FILE_KINDS.get(PurePosixPath(name.replace("\\", "/")).suffix.lower())


def is_case_file_ref(item: Any) -> bool:
    """Whether a ``cases`` item is a reference to a data file of cases (``{file: PATH}``)."""
    return isinstance(item, dict) and list(item) == ["file"] and isinstance(item["file"], str)


class CaseFile(Protocol):
    """The cases of one data file and where each was written: ``position((row, *path))``."""

    @property
    def path(self) -> str: ...

    @property
    def rows(self) -> Sequence[JsonObject]: ...

    @property
    def problems(self) -> Sequence[Problem]: ...

    def position(self, path: PathKey) -> tuple[int, int]: ...

    def key_position(self, path: PathKey) -> tuple[int, int]: ...


def parse_case_file(text: str, path: str) -> CaseFile:
    """The cases of a data file's ``text`` (its format by ``path``'s suffix, JSON lines unless CSV),
    with a problem for every line that is not a case."""
    if case_file_kind(path) == "csv":
        return CsvCases(path, text)
    return JsonLinesCases(path, text)


# -- JSON lines -----------------------------------------------------------------------------------


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> JsonObject:
    value: JsonObject = {}
    for key, item in pairs:
        if key in value:
            raise _DuplicateKey(key)
        value[key] = item
    return value


def _json_value(text: str) -> Any:
    """A JSON value read strictly: every key once per object, only numbers a suite may hold."""
    return strict_json.loads(text, object_pairs_hook=_unique_keys)


def _json_case(text: str, path: str, line: int) -> tuple[JsonObject | None, Problem | None]:
    """The case a JSON line holds, or the problem that keeps it from being one."""
    try:
        value = _json_value(text)
    except _DuplicateKey as exc:
        return None, Problem(path, line, 1, f"duplicate key {exc.key!r}", "write each key once per case")
    except json.JSONDecodeError as exc:
        return None, Problem(path, line, exc.colno, f"invalid JSON: {exc.msg}", _JSONL_HINT)
    except strict_json.RefusedNumber as exc:
        column = strict_json.refused_at(text)[1] or 1
        return None, Problem(path, line, column, f"invalid number: {exc}", "write a finite number")
    except ValueError as exc:
        return None, Problem(path, line, 1, f"invalid JSON: {exc}", _JSONL_HINT)
    except RecursionError:
        value = None  # nested beyond what the parser takes: refused below like any deep value
    if value is None or limits.nested_deeper_than(value):
        return None, Problem(path, line, 1, f"the case is nested deeper than {limits.MAX_NESTING} levels")
    if not isinstance(value, dict):
        return None, Problem(path, line, 1, f"a case is a JSON object, got {type_word(value)}", _JSONL_HINT)
    if is_case_file_ref(value):
        return None, Problem(
            path,
            line,
            1,
            "a data file holds cases, not references to other data files",
            f"list {show(value['file'], 80)} in the suite's own cases: [{{file: ...}}]",
        )
    return value, None


class JsonLinesCases:
    """A JSON lines file of cases, one case a line."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.rows: list[JsonObject] = []
        self.problems: list[Problem] = []
        self._lines: list[int] = []
        self._texts: list[str] = []
        self._documents: dict[int, YamlDocument | None] = {}
        for number, line in enumerate(_LINE_END.split(text), 1):
            if not line.strip():
                continue
            case, problem = _json_case(line, path, number)
            if problem is not None:
                self.problems.append(problem)
            elif case is not None:
                self.rows.append(case)
                self._lines.append(number)
                self._texts.append(line)

    def _document(self, row: int) -> YamlDocument | None:
        """The positions inside one line (read as YAML, which JSON is; None when YAML refuses it)."""
        if row not in self._documents:
            try:
                self._documents[row] = parse(self._texts[row], self.path, json_fallback=True)
            except YamlError:
                self._documents[row] = None
        return self._documents[row]

    def _shifted(self, row: int, found: Callable[[YamlDocument], tuple[int, int]]) -> tuple[int, int]:
        document = self._document(row)
        if document is None:
            return self._lines[row], 1
        line, column = found(document)
        return self._lines[row] + line - 1, column

    def position(self, path: PathKey) -> tuple[int, int]:
        return self._shifted(path[0], lambda document: document.position(path[1:]))

    def key_position(self, path: PathKey) -> tuple[int, int]:
        return self._shifted(path[0], lambda document: document.key_position(path[1:]))


# -- CSV ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CsvRow:
    line: int  # where the row starts
    offset: int  # index of its first character in the text


class CsvCases:
    """A CSV file of cases in the simple shape (see the module doc)."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.rows: list[JsonObject] = []
        self.problems: list[Problem] = []
        self._text = text
        self._where: list[_CsvRow] = []
        self._line_starts = [0] + [match.end() for match in _LINE_END.finditer(text)]
        self.columns: tuple[str, ...] = ()
        self._read(text)

    def _read(self, text: str) -> None:
        reader = csv.reader(io.StringIO(text, newline=""))
        ended = 0  # the last physical line read so far
        try:
            for cells in reader:
                start, ended = ended + 1, reader.line_num
                if not any(cell.strip() for cell in cells):
                    continue
                if not self.columns:
                    if not self._header(cells, start):
                        return
                    continue
                self._row(cells, start)
        except csv.Error as exc:
            self.problems.append(Problem(self.path, reader.line_num, 1, f"invalid CSV: {exc}"))

    def _header(self, cells: list[str], line: int) -> bool:
        names = tuple(cell.strip().lower() for cell in cells)
        problems = []
        for index, name in enumerate(names):
            if name not in CSV_COLUMNS:
                problems.append(f"unknown column {name!r}")
            elif name in names[:index]:
                problems.append(f"the column {name!r} appears twice")
        problems += [f"the column {name!r} is missing" for name in _CSV_NEEDED if name not in names]
        hint = "the header names the columns: " + ", ".join(CSV_COLUMNS) + " (id and input are needed)"
        self.problems += [Problem(self.path, line, 1, message, hint) for message in problems]
        self.columns = names
        return not problems

    def _row(self, cells: list[str], line: int) -> None:
        if len(cells) != len(self.columns):
            self.problems.append(
                Problem(
                    self.path,
                    line,
                    1,
                    f"this row has {len(cells)} fields, the header names {len(self.columns)}",
                    "quote a field that holds a comma",
                )
            )
            return
        values = dict(zip(self.columns, cells, strict=True))
        case, problem = self._case(values, line)
        if problem is not None:
            self.problems.append(problem)
            return
        self.rows.append(case)
        self._where.append(_CsvRow(line, self._line_starts[line - 1]))

    def _case(self, values: dict[str, str], line: int) -> tuple[JsonObject, Problem | None]:
        case: JsonObject = {"id": values["id"].strip(), "input": values["input"]}
        tool, args = values.get("tool", "").strip(), values.get("args", "").strip()
        if tool:
            call: JsonObject = {"tool": tool}
            if args:
                parsed, problem = self._arguments(args, line)
                if problem is not None:
                    return case, problem
                call["args"] = parsed
            case["expect"] = {"calls": [call]}
        elif args:
            where = self._cell_at(line, self.columns.index("args"))
            return case, Problem(
                self.path, *where, "arguments without a tool", "name the tool in the tool column"
            )
        elif "tool" in self.columns:
            case["expect"] = {"no_calls": True}
        tags = [tag for tag in re.split(r"[,\s]+", values.get("tags", "")) if tag]
        if tags:
            case["tags"] = tags
        return case, None

    def _arguments(self, text: str, line: int) -> tuple[Any, Problem | None]:
        where = self._cell_at(line, self.columns.index("args"))
        hint = (
            'write the arguments as a JSON object, e.g. {"city": "Paris"} (in CSV: "{""city"": ""Paris""}")'
        )
        try:
            value = _json_value(text)
        except strict_json.RefusedNumber as exc:
            return None, Problem(self.path, *where, f"args: invalid number: {exc}", "write a finite number")
        except (ValueError, RecursionError) as exc:
            return None, Problem(self.path, *where, f"args: not JSON ({exc})", hint)
        if limits.nested_deeper_than(value):
            return None, Problem(self.path, *where, f"args: nested deeper than {limits.MAX_NESTING} levels")
        if not isinstance(value, dict):
            return None, Problem(self.path, *where, f"args: a JSON object, got {type_word(value)}", hint)
        return value, None

    def _cell_at(self, line: int, column: int) -> tuple[int, int]:
        """Line and column where field ``column`` of the row starting at ``line`` starts."""
        index = self._line_starts[line - 1]
        commas, quoted = 0, False
        text = self._text
        while commas < column and index < len(text):
            char = text[index]
            if char == '"':
                quoted = not quoted
            elif char == "," and not quoted:
                commas += 1
            index += 1
        row_line = bisect.bisect_right(self._line_starts, index)
        return row_line, index - self._line_starts[row_line - 1] + 1

    def _column_of(self, path: PathKey) -> str | None:
        """The column a value of the case comes from (None: the row as a whole)."""
        if not path:
            return None
        if path[0] == "expect":
            args = len(path) > 3 and path[3] == "args"
            return "args" if args or "tool" not in self.columns else "tool"
        return str(path[0]) if path[0] in self.columns else None

    def position(self, path: PathKey) -> tuple[int, int]:
        row = self._where[path[0]]
        column = self._column_of(path[1:])
        if column is None:
            return row.line, 1
        return self._cell_at(row.line, self.columns.index(column))

    def key_position(self, path: PathKey) -> tuple[int, int]:
        return self.position(path)


# -- the suite with its data files' cases in place -------------------------------------------------


class _Positions(Protocol):
    @property
    def path(self) -> str: ...

    def position(self, path: PathKey) -> tuple[int, int]: ...

    def key_position(self, path: PathKey) -> tuple[int, int]: ...


class SuiteWithCaseFiles:
    """A suite document whose ``cases`` hold the cases of its data files in place of their references:
    ``data`` is what the schema and the builder read; every position, file and path rendering is
    the one of the file the value was written in."""

    def __init__(self, suite: YamlDocument, data: JsonObject, origins: Sequence[tuple[_Positions, PathKey]]):
        self.suite = suite
        self.data = data
        # merged case index -> (the document it was written in, its path there)
        self.origins = tuple(origins)

    @property
    def path(self) -> str:
        return self.suite.path

    def _locate(self, path: PathKey) -> tuple[_Positions, PathKey]:
        path = tuple(path)
        if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
            if 0 <= path[1] < len(self.origins):
                document, prefix = self.origins[path[1]]
                return document, (*prefix, *path[2:])
        return self.suite, path

    def position(self, path: PathKey) -> tuple[int, int]:
        document, where = self._locate(path)
        return document.position(where)

    def key_position(self, path: PathKey) -> tuple[int, int]:
        document, where = self._locate(path)
        return document.key_position(where)

    def file_of(self, path: PathKey) -> str:
        return self._locate(path)[0].path

    def render_path(self, path: PathKey) -> str:
        document, where = self._locate(path)
        return render_path(where if document is self.suite else where[1:])

    def quote_hint(self, path: PathKey) -> str:
        document, where = self._locate(path)
        return self.suite.quote_hint(where) if document is self.suite else ""

    def problem(self, path: PathKey, message: str, hint: str = "", *, at_key: bool = False) -> Problem:
        document, where = self._locate(path)
        line, column = document.key_position(where) if at_key else document.position(where)
        return Problem(document.path, line, column, message, hint)


ReadCaseFile = Callable[[str, PathKey], tuple[CaseFile | None, list[Problem]]]


def with_case_files(
    doc: YamlDocument, read: ReadCaseFile
) -> tuple[YamlDocument | SuiteWithCaseFiles, list[Problem]]:
    """The suite with its data files' cases in place (``doc`` itself when it refers to none), and
    the problems of reading them. A reference whose file gives no case stays in place (the builder
    passes over it), so the suite is not also told it has no cases."""
    cases = doc.data.get("cases") if isinstance(doc.data, dict) else None
    if not isinstance(cases, list) or not any(is_case_file_ref(item) for item in cases):
        return doc, []
    merged: list[Any] = []
    origins: list[tuple[_Positions, PathKey]] = []
    problems: list[Problem] = []
    for index, item in enumerate(cases):
        found = None
        if is_case_file_ref(item):
            found, found_problems = read(item["file"], ("cases", index, "file"))
            problems += found_problems
        if found is not None and found.rows:
            merged += found.rows
            origins += [(found, (row,)) for row in range(len(found.rows))]
        else:
            merged.append(item)
            origins.append((doc, ("cases", index)))
    return SuiteWithCaseFiles(doc, {**doc.data, "cases": merged}, origins), problems
