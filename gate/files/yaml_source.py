"""Safe YAML (and JSON) loading that remembers where every value was written.

Suites, tool files and mock files are parsed here and nowhere else (their text is read by
:mod:`gate.files.text_files`). Pure: text in, a document out. The document is parsed from the
event stream of PyYAML's safe parser (the C one when available), so that every mapping key, mapping
value and sequence item gets its 1-based line and column, keyed by its path from the root (e.g.
``("cases", 3, "expect", "calls", 0, "tool")``). One small iterative composer reads every document
and enforces the guards below, so each problem is found and worded in exactly one place. (Not
``yaml.compose`` with libyaml's composer: it is no faster than the event loop here, it loses the
position of an alias, and its recursion in C crashes the process on documents nested some 24,000
levels deep. Nor a second loop for plain documents beside it, as there was until issue 37: it read
the 100 suite files of ``bench/run.py --only validate`` in 28 ms against this composer's 55 ms, and
``validate`` of them took 0.31 s of CPU with it against 0.34 s without, well within the 0.5 s
budget: not a difference a user sees, so one reader.)

Building values ourselves (rather than with ``yaml.safe_load``) is also what lets us guard against
hostile input: a size limit, a nesting-depth limit, an alias expansion budget (no "billion laughs"),
no recursive aliases, no duplicate keys, no custom tags, text that must be UTF-8 and not binary.
Every failure is a :class:`gate.errors.Problem`; nothing here raises anything else for bad input.

Values are plain JSON-like data: dict, list, str, int, float, bool, None. Mapping keys are always
strings, exactly as written (so ``on:`` or ``1:`` stay ``"on"`` / ``"1"``). YAML timestamps stay
strings. Merge keys (``<<: *anchor``) are supported. In ``.json`` files numbers are read as JSON
reads them (``1e-09`` is a number, not the string YAML 1.1 would make of it).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from gate import limits
from gate.assembly.checks.schema_messages import render_path
from gate.errors import Problem
from gate.util.json_types import PathKey

MAX_DEPTH = limits.MAX_NESTING  # nesting of mappings / sequences (after alias expansion)
MAX_NODES = 200_000  # values in a document, counting every alias expansion in full
MAX_ALIASES = 1_000  # alias uses in one document


try:  # the C parser is ~10x faster; fall back to the pure-Python one
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader

_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _resolve(value: str, implicit: tuple[bool, bool]) -> str:
    """The tag YAML's resolver gives a plain scalar (PyYAML's resolver has no type annotations)."""
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, value, implicit)  # type: ignore[no-untyped-call]
    return tag


_SCALAR_TAGS = {
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    _STR,
}

_BOOL_12 = frozenset({"true", "false"})
_INT_12 = re.compile(r"[-+]?(?:0|[1-9][0-9]*)|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT_12 = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_SURPRISE_TYPES = {w: "boolean" for w in ("yes", "no", "on", "off", "y", "n", "true", "false")}
# Line breaks to YAML 1.1 (and so to the parser) but ordinary characters to YAML 1.2, JSON and editors.
_ODD_BREAKS = re.compile("[\x85\u2028\u2029]")


def _is_yaml_12_number(raw: str) -> bool:
    """A plain scalar YAML 1.2 reads as a number but YAML 1.1 as text (``1e3``, ``0o17``, ``.5``)."""
    return (_INT_12.fullmatch(raw) is not None or _FLOAT_12.fullmatch(raw) is not None) and (
        _resolve(raw, (True, False)) == _STR
    )


def _differs_in_yaml_12(tag: str, raw: str) -> bool:
    """Whether YAML 1.2's core schema would read the plain scalar ``raw`` other than as ``tag``."""
    if tag == "tag:yaml.org,2002:bool":
        return raw.lower() not in _BOOL_12 or raw not in ("true", "false", "True", "False", "TRUE", "FALSE")
    if tag == "tag:yaml.org,2002:int":
        return _INT_12.fullmatch(raw) is None
    if tag == "tag:yaml.org,2002:float":
        return _FLOAT_12.fullmatch(raw) is None
    return False


@dataclass(frozen=True)
class YamlDocument:
    """A parsed document: ``data`` plus the position of every node, by path from the root."""

    path: str
    data: Any
    # path -> (line, column) of the value (for mappings and sequences: where they start)
    values: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    # path -> (line, column) of the mapping key that introduces the value at that path
    keys: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    # path -> the text of a plain scalar that YAML 1.1 (which we read) types differently from
    # YAML 1.2: ``yes`` / ``no`` / ``on`` / ``off`` (booleans), ``010`` (octal 8), ``1:20`` (base 60),
    # ``1e3`` (text to 1.1, a number to 1.2)
    surprises: dict[PathKey, str] = field(default_factory=dict)

    def quote_hint(self, path: PathKey) -> str:
        """A "quote it" hint for a value at ``path`` that YAML 1.1 read as something else than its
        text (``input: yes`` is a boolean, ``id: 010`` the number 8); empty for any other value."""
        raw = self.surprises.get(tuple(path))
        if raw is None:
            return ""
        if _is_yaml_12_number(raw):
            return (
                f"YAML 1.1 reads {raw} as text, not a number: write the number as YAML 1.1 reads one"
                " (e.g. 1000 or 1.0e+3, 15 for 0o17)"
            )
        kind = _SURPRISE_TYPES.get(raw.lower(), "number")
        return f'quote it: YAML reads {raw} as a {kind}; write "{raw}" for the text'

    def position(self, path: PathKey) -> tuple[int, int]:
        """Line and column of the value at ``path``; the nearest known ancestor when the exact node
        has no position (e.g. inside an alias expansion); (1, 1) for the document itself."""
        path = tuple(path)
        while path:
            if path in self.values:
                return self.values[path]
            path = path[:-1]
        return self.values.get((), (1, 1))

    def key_position(self, path: PathKey) -> tuple[int, int]:
        """Line and column of the key naming ``path`` (falls back to :meth:`position`)."""
        path = tuple(path)
        if path in self.keys:
            return self.keys[path]
        return self.position(path)

    def problem(self, path: PathKey, message: str, hint: str = "", *, at_key: bool = False) -> Problem:
        line, column = self.key_position(path) if at_key else self.position(path)
        return Problem(self.path, line, column, message, hint)

    def render_path(self, path: PathKey) -> str:
        """How a message names the node at ``path`` (``cases[2].expect``)."""
        return render_path(path)

    def file_of(self, path: PathKey) -> str:
        """The file the node at ``path`` was written in: this document's own."""
        return self.path


class YamlError(Exception):
    """The file could not be read as a document; ``problems`` says where and why. ``document`` is
    what could be read all the same (a character refused where it stands, read as a space), so that
    a caller can report the file's other problems in the same run; None when nothing could be."""

    def __init__(self, problems: list[Problem], document: YamlDocument | None = None):
        self.problems = problems
        self.document = document
        super().__init__("; ".join(p.render() for p in problems))


def parse(text: str, display_path: str, *, json_fallback: bool = False) -> YamlDocument:
    """Parse one YAML document from ``text``. With ``json_fallback``, text that YAML rejects but
    JSON accepts (e.g. JSON indented with tabs) is read as JSON, positions then limited to the root."""
    if not text.strip() or all(not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()):
        raise YamlError([Problem(display_path, 1, 1, "empty file", "write the document, or delete the file")])
    if _ODD_BREAKS.search(text) is not None:
        _refuse_odd_breaks(text, display_path, json_fallback)
    try:
        try:
            return _Composer(display_path, json_numbers=json_fallback).compose(_events(text))
        except yaml.MarkedYAMLError as exc:
            if _Loader is yaml.SafeLoader:
                raise
            return _read_refused_by_libyaml(text, display_path, exc, json_numbers=json_fallback)
    except YamlError:
        raise
    except yaml.reader.ReaderError as exc:
        line, column = _line_column(text, exc.position)
        raise YamlError(
            [
                Problem(
                    display_path,
                    line,
                    column,
                    f"the control character U+{exc.character:04X} is not allowed in YAML"
                    if isinstance(exc.character, int)
                    else f"invalid YAML: {exc.reason}",
                    'remove it, or write it as an escape in a double-quoted string (e.g. "\\t")',
                )
            ]
        ) from None
    except yaml.MarkedYAMLError as exc:
        if json_fallback:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as jexc:
                raise YamlError(
                    [Problem(display_path, jexc.lineno, jexc.colno, f"invalid JSON: {jexc.msg}")]
                ) from None
            return YamlDocument(display_path, data, {(): (1, 1)}, {})
        raise YamlError([_syntax_problem(display_path, exc, text)]) from None
    except yaml.YAMLError as exc:  # unmarked errors (e.g. a reader error)
        raise YamlError([Problem(display_path, 1, 1, f"invalid YAML: {exc}")]) from None
    except RecursionError:  # pragma: no cover - the composer is iterative; belt and braces
        raise YamlError([Problem(display_path, 1, 1, "document nested too deeply")]) from None


def _refuse_odd_breaks(text: str, display_path: str, json_fallback: bool) -> None:
    """Refuse every NEL / U+2028 / U+2029 at its position, and read the document with each as a space
    (the same column count) so that the file's other problems are found in the same run."""
    found = []
    for odd in _ODD_BREAKS.finditer(text):
        line, column = _line_column(text, odd.start())
        found.append(
            Problem(
                display_path,
                line,
                column,
                f"the character U+{ord(odd.group()):04X} is a line break to YAML 1.1 but not to editors",
                "remove it, or write it as an escape in a double-quoted string",
            )
        )
    try:
        document = parse(_ODD_BREAKS.sub(" ", text), display_path, json_fallback=json_fallback)
    except YamlError as exc:
        raise YamlError(found + exc.problems) from None
    raise YamlError(found, document)


def _read_refused_by_libyaml(
    text: str, display_path: str, exc: yaml.MarkedYAMLError, *, json_numbers: bool
) -> YamlDocument:
    """Read with the pure-Python parser a document that libyaml refused, so that the gate's own limits
    apply first whatever the libyaml version: libyaml scans ahead, and from PyYAML 6.0.4 it stops flow
    nesting at its own depth (1000) before the gate's limit (64) is ever reached. libyaml also refuses
    escaped surrogate pairs (``"\\ud83d\\ude00"``, as JSON writes emoji), which the pure-Python parser
    reads and which are joined into their characters here. Any other refusal stands, worded by libyaml
    (the pure-Python parser reads some documents libyaml rightly refuses, such as a tab in a block
    scalar's indentation)."""
    try:
        document = _Composer(display_path, json_numbers=json_numbers).compose(_events(text, yaml.SafeLoader))
    except yaml.MarkedYAMLError:
        raise exc from None
    if "invalid Unicode character escape" not in str(exc.problem):
        raise exc
    return _join_surrogates(document)


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _json_number(value: str) -> float | None:
    """A plain scalar that JSON reads as a number but YAML 1.1 as a string (``1e-09``, ``1.5e3``)."""
    return float(value) if _JSON_NUMBER.fullmatch(value) else None


def _line_column(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]``, counting only ``\n`` as a line break."""
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, index - line_start + 1


def _join_surrogates(document: YamlDocument) -> YamlDocument:
    """The document with escaped UTF-16 surrogate pairs in its strings joined into characters (a
    lone surrogate stays, as JSON reads it)."""

    def join(value: Any) -> Any:
        if isinstance(value, str):
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        if isinstance(value, dict):
            return {join(k): join(v) for k, v in value.items()}
        if isinstance(value, list):
            return [join(v) for v in value]
        return value

    return replace(document, data=join(document.data))


def _events(text: str, loader_class: type | None = None) -> Iterator[yaml.Event]:
    loader = (loader_class or _Loader)(text)
    try:
        while loader.check_event():
            yield loader.get_event()
    finally:
        loader.dispose()


def _syntax_problem(path: str, exc: yaml.MarkedYAMLError, text: str) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    parts = [p for p in (exc.context, exc.problem) if p]
    message = "invalid YAML: " + (", ".join(parts) if parts else "syntax error")
    if exc.context_mark and exc.problem_mark and exc.context_mark.line != exc.problem_mark.line:
        message += f" (started at line {exc.context_mark.line + 1})"
    hint = ""
    offending = text[mark.index] if mark and 0 <= mark.index < len(text) else ""
    if offending == "\t" or (exc.problem and "'\\t'" in exc.problem):
        hint = "indent with spaces, not tabs"
    elif exc.problem and "mapping values are not allowed" in exc.problem:
        hint = "quote values that contain ': ' (e.g. \"a: b\")"
    return Problem(path, line, column, message, hint)


@dataclass
class _Frame:
    kind: str  # "map" or "seq"
    path: PathKey
    value: Any
    anchor: str | None
    start: tuple[int, int]
    size: int = 1
    depth: int = 1  # nesting depth of this collection including its content
    pending_key: Any = None  # for maps: the key waiting for its value, or None
    key_pos: tuple[int, int] | None = None
    key_is_merge: bool = False
    key_lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    merged_keys: set[str] = field(default_factory=set)
    merge_pos: tuple[int, int] | None = None  # where this mapping's merge key '<<' is


class _Composer:
    """Builds plain values from parser events, iteratively, recording positions and enforcing the
    limits. Aliases share the anchored value (no copy) but count its full size and depth."""

    def __init__(self, path: str, *, json_numbers: bool = False):
        self.path = path
        self.json_numbers = json_numbers
        self.values: dict[PathKey, tuple[int, int]] = {}
        self.keys: dict[PathKey, tuple[int, int]] = {}
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # name -> (value, size, depth)
        self.open_anchors: set[str] = set()
        self.nodes = 0
        self.aliases = 0
        self.surprises: dict[PathKey, str] = {}

    def fail(self, pos: tuple[int, int], message: str, hint: str = "") -> YamlError:
        return YamlError([Problem(self.path, pos[0], pos[1], message, hint)])

    def compose(self, events: Iterator[yaml.Event]) -> YamlDocument:
        stack: list[_Frame] = []
        root: Any = None
        have_root = False
        documents = 0
        for event in events:
            pos = (event.start_mark.line + 1, event.start_mark.column + 1) if event.start_mark else (1, 1)
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise self.fail(
                        pos, "more than one YAML document in the file", "remove the '---' separator"
                    )
                continue
            if isinstance(event, yaml.StreamStartEvent | yaml.StreamEndEvent | yaml.DocumentEndEvent):
                continue
            if isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                frame = stack.pop()
                if frame.anchor is not None:
                    self.open_anchors.discard(frame.anchor)
                    self.anchors[frame.anchor] = (frame.value, frame.size, frame.depth)
                value, size, depth = frame.value, frame.size, frame.depth
            else:
                # A value starts (scalar, alias, or a collection that we push).
                path = self._next_path(stack)
                if path is None:  # a mapping key
                    self._take_key(stack[-1], event, pos)
                    continue
                if isinstance(event, yaml.AliasEvent):
                    value, size, depth = self._alias(event, pos)
                elif isinstance(event, yaml.ScalarEvent):
                    value, size, depth = self._scalar(event, pos, path), 1, 0
                    if event.anchor is not None:
                        self.anchors[event.anchor] = (value, 1, 0)
                else:
                    assert isinstance(event, yaml.CollectionStartEvent)  # the only events left
                    kind = "map" if isinstance(event, yaml.MappingStartEvent) else "seq"
                    self._check_tag(event, pos, kind)
                    self.values[path] = pos
                    if len(stack) + 1 > MAX_DEPTH:
                        raise self.fail(
                            pos, f"nesting deeper than {MAX_DEPTH} levels", "flatten the document"
                        )
                    if event.anchor is not None:
                        self.open_anchors.add(event.anchor)
                    stack.append(_Frame(kind, path, {} if kind == "map" else [], event.anchor, pos))
                    self._count(1, pos)
                    continue
                self.values[path] = pos
                self._count(size, pos)
            # ``value`` is complete: attach it to its parent.
            if not stack:
                root, have_root = value, True
                continue
            parent = stack[-1]
            parent.size += size
            parent.depth = max(parent.depth, depth + 1)
            if parent.depth + len(stack) - 1 > MAX_DEPTH:
                raise self.fail(
                    parent.start, f"nesting deeper than {MAX_DEPTH} levels", "flatten the document"
                )
            if parent.kind == "seq":
                parent.value.append(value)
            else:
                self._put(parent, value)
        if not have_root:
            raise self.fail((1, 1), "empty file", "write the document, or delete the file")
        self.values.setdefault((), (1, 1))
        return YamlDocument(self.path, root, self.values, self.keys, self.surprises)

    def _next_path(self, stack: list[_Frame]) -> PathKey | None:
        if not stack:
            return ()
        top = stack[-1]
        if top.kind == "seq":
            return (*top.path, len(top.value))
        if top.pending_key is None:
            return None
        return (*top.path, top.pending_key)

    def _take_key(self, frame: _Frame, event: yaml.Event, pos: tuple[int, int]) -> None:
        if isinstance(event, yaml.ScalarEvent):
            tag = self._scalar_tag(event)
            if tag == _MERGE:
                if frame.merge_pos is not None:
                    first = frame.merge_pos
                    raise self.fail(
                        pos,
                        f"a second merge key '<<' in one mapping (first at line {first[0]}, column "
                        f"{first[1]})",
                        "merge several mappings with one key: <<: [*first, *second]",
                    )
                frame.merge_pos = pos
                frame.pending_key, frame.key_pos, frame.key_is_merge = "<<", pos, True
                return
            key = event.value
            if event.anchor is not None:
                self.anchors[event.anchor] = (key, 1, 0)
        elif isinstance(event, yaml.AliasEvent):
            # YAML 1.1 and 1.2 disagree on where such an alias name ends (``*a: 1``): write the key.
            raise self.fail(
                pos, f"an alias (*{event.anchor}) cannot be a mapping key", "write the key itself"
            )
        else:
            raise self.fail(pos, "a mapping key must be a plain value, not a mapping or list")
        if key in frame.key_lines and key not in frame.merged_keys:
            first = frame.key_lines[key]
            raise self.fail(
                pos,
                f"duplicate key {key!r} (first defined at line {first[0]}, column {first[1]})",
                "remove one of them",
            )
        frame.key_lines[key] = pos
        frame.merged_keys.discard(key)
        frame.pending_key, frame.key_pos, frame.key_is_merge = key, pos, False
        self.keys[frame.path + (key,)] = pos

    def _put(self, frame: _Frame, value: Any) -> None:
        key, key_pos = frame.pending_key, frame.key_pos or frame.start
        if frame.key_is_merge:
            self.values.pop((*frame.path, "<<"), None)
            sources = value if isinstance(value, list) else [value]
            for source in sources:
                if not isinstance(source, dict):
                    raise self.fail(
                        key_pos, "'<<' merges mappings only", "merge an anchored mapping: <<: *name"
                    )
                for k, v in source.items():
                    if k not in frame.key_lines:  # explicit keys win over merged ones
                        frame.value[k] = v
                        frame.key_lines[k] = key_pos
                        frame.merged_keys.add(k)
                        self.keys[frame.path + (k,)] = key_pos
                        self.values[frame.path + (k,)] = key_pos
        else:
            frame.value[key] = value
        frame.pending_key, frame.key_pos, frame.key_is_merge = None, None, False

    def _alias(self, event: yaml.AliasEvent, pos: tuple[int, int]) -> tuple[Any, int, int]:
        name = event.anchor
        if name in self.open_anchors:
            raise self.fail(pos, f"recursive alias *{name}", "an anchor cannot contain an alias to itself")
        if name not in self.anchors:
            raise self.fail(pos, f"unknown alias *{name}", f"define the anchor &{name} before using it")
        self.aliases += 1
        if self.aliases > MAX_ALIASES:
            raise self.fail(pos, f"too many aliases (more than {MAX_ALIASES})", "write the values out")
        return self.anchors[name]

    def _count(self, size: int, pos: tuple[int, int]) -> None:
        self.nodes += size
        if self.nodes > MAX_NODES:
            if self.aliases:
                raise self.fail(
                    pos,
                    f"document too large after alias expansion (more than {MAX_NODES} values)",
                    "aliases that expand exponentially are rejected; write the values out",
                )
            raise self.fail(
                pos, f"document too large (more than {MAX_NODES} values)", "split it into several suite files"
            )

    def _check_tag(self, event: yaml.Event, pos: tuple[int, int], kind: str) -> None:
        tag = getattr(event, "tag", None)
        if tag in (None, "!", f"tag:yaml.org,2002:{kind}"):
            return
        if tag in ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"):
            what = "mapping" if kind == "map" else "sequence"
            raise self.fail(
                pos, f"the tag {tag.replace('tag:yaml.org,2002:', '!!')} on a {what}", "remove the tag"
            )
        raise self.fail(pos, f"unsupported YAML tag {tag!r}", "remove the tag; plain values only")

    def _scalar_tag(self, event: yaml.ScalarEvent) -> str:
        if event.tag in (None, "!"):
            return _resolve(event.value, event.implicit)
        return event.tag

    def _scalar(self, event: yaml.ScalarEvent, pos: tuple[int, int], path: PathKey) -> Any:
        tag = self._scalar_tag(event)
        if tag == _TIMESTAMP and event.tag in (None, "!"):
            return event.value  # dates stay the text written (as YAML 1.2 reads them); arguments are JSON
        if tag not in _SCALAR_TAGS:
            raise self.fail(pos, f"unsupported YAML tag {tag!r}", "remove the tag; plain values only")
        if tag == _STR:
            if self.json_numbers and event.tag is None and event.implicit[0]:
                number = _json_number(event.value)
                if number is not None:
                    return number
            if event.tag is None and event.implicit[0] and _is_yaml_12_number(event.value):
                self.surprises[path] = event.value
            return event.value
        # The C parser's marks are another class than the pure one's; ScalarNode reads only their fields.
        marks: tuple[Any, Any] = (event.start_mark, event.end_mark)
        node = yaml.ScalarNode(tag, event.value, marks[0], marks[1], event.style)
        name = tag.rsplit(":", 1)[-1]
        try:
            value = _CONSTRUCTOR.yaml_constructors[tag](_CONSTRUCTOR, node)
        except Exception:  # noqa: BLE001 - PyYAML's constructors raise KeyError, IndexError, ValueError...
            hint = {"bool": "write true or false", "null": "write null"}.get(name, f"write a valid {name}")
            raise self.fail(pos, f"invalid !!{name} value {event.value!r}", hint) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(
                pos,
                f"{event.value!r} is not a finite number",
                "write a number (NaN and infinity cannot work here)",
            )
        if event.tag in (None, "!") and event.implicit[0] and _differs_in_yaml_12(tag, event.value):
            self.surprises[path] = event.value
        return value
