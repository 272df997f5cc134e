"""Where each string value of a JSON or YAML document is written: its path in the document, its
value and the characters of its literal in the text (quotes, block indicators and all).

A definition's description is edited by replacing exactly those characters, so the locator reads
the text as it is written, not a re-serialisation of it. JSON is read by a small scanner of its own
(the standard library gives no positions); YAML by PyYAML's event stream (safe: events only, no
object is constructed). Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from gate.limits import MAX_NESTING

PathPart = str | int
_SPACE = re.compile(r"[ \t\r\n]*")
_SCANSTRING: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_RESOLVER = yaml.resolver.Resolver()  # how YAML reads a plain scalar (a number, a boolean, a string)
_ATOM = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


@dataclass(frozen=True)
class Scalar:
    """A string value: ``path`` in the document, ``value``, its literal at ``text[start:end]`` and
    how it is written (``style``: ``"`` for JSON; PyYAML's style for YAML: "" plain, ``'``, ``"``,
    ``|``, ``>``)."""

    path: tuple[PathPart, ...]
    value: str
    start: int
    end: int
    style: str


class NotADocument(ValueError):
    """The text is not a document of the kind asked (or nests beyond the bound)."""


def json_scalars(text: str) -> tuple[Scalar, ...]:
    """Every string value of the JSON ``text`` (object keys are not values). ``NotADocument`` when it
    is not JSON."""
    found: list[Scalar] = []
    end = _json_value(text, _skip(text, 0), (), found)
    if _skip(text, end) != len(text):
        raise NotADocument("text after the JSON value")
    return tuple(found)


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _json_string(text: str, at: int) -> tuple[str, int]:
    if not text.startswith('"', at):
        raise NotADocument(f"a string was expected at offset {at}")
    try:
        value, end = _SCANSTRING(text, at + 1)
    except ValueError as exc:
        raise NotADocument(str(exc)) from None
    return value, end


def _json_value(text: str, at: int, path: tuple[PathPart, ...], found: list[Scalar]) -> int:
    if len(path) > MAX_NESTING:
        raise NotADocument("nested too deeply")
    char = text[at : at + 1]
    if char == '"':
        value, end = _json_string(text, at)
        found.append(Scalar(path, value, at, end, '"'))
        return end
    if char in ("{", "["):
        return _json_container(text, at, path, found)
    atom = _ATOM.match(text, at)
    if atom is None:
        raise NotADocument(f"a JSON value was expected at offset {at}")
    return atom.end()


def _json_container(text: str, at: int, path: tuple[PathPart, ...], found: list[Scalar]) -> int:
    closing = "}" if text[at] == "{" else "]"
    at = _skip(text, at + 1)
    index = 0
    while not text.startswith(closing, at):
        if index:
            if not text.startswith(",", at):
                raise NotADocument(f"',' or {closing!r} was expected at offset {at}")
            at = _skip(text, at + 1)
        key: PathPart = index
        if closing == "}":
            key, at = _json_string(text, at)
            at = _skip(text, at)
            if not text.startswith(":", at):
                raise NotADocument(f"':' was expected at offset {at}")
            at = _skip(text, at + 1)
        at = _skip(text, _json_value(text, at, (*path, key), found))
        index += 1
    return at + 1


def yaml_scalars(text: str) -> tuple[Scalar, ...]:
    """Every string value of the YAML ``text`` (mapping keys are not values; a plain scalar that YAML
    reads as a number, a boolean or null is not a string). ``NotADocument`` when it is not YAML."""
    found: list[Scalar] = []
    stack: list[list[Any]] = []  # per open collection: [path, next index or None, pending key]
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            _yaml_event(event, stack, found)
    except yaml.YAMLError as exc:
        raise NotADocument(str(exc)) from None
    return tuple(found)


def _yaml_event(event: yaml.Event, stack: list[list[Any]], found: list[Scalar]) -> None:
    if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
        path = _yaml_place(stack)
        if len(stack) > MAX_NESTING:
            raise NotADocument("nested too deeply")
        is_sequence = isinstance(event, yaml.SequenceStartEvent)
        stack.append([path, 0 if is_sequence else None, None])
    elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
        stack.pop()
    elif isinstance(event, yaml.ScalarEvent):
        if stack and stack[-1][1] is None and stack[-1][2] is None:  # a mapping's key
            stack[-1][2] = event.value
            return
        path = _yaml_place(stack)
        if _is_string(event):
            start, end = event.start_mark, event.end_mark
            assert start is not None and end is not None  # the parser marks every event
            found.append(Scalar(path, event.value, start.index, end.index, event.style or ""))
    elif isinstance(event, yaml.AliasEvent):
        if stack and stack[-1][1] is None and stack[-1][2] is None:
            stack[-1][2] = ""  # an aliased key: its value is not one a definition is read from
        else:
            _yaml_place(stack)


def _yaml_place(stack: list[list[Any]]) -> tuple[PathPart, ...]:
    """The path of the value that comes now, and the collection moved on past it."""
    if not stack:
        return ()
    frame = stack[-1]
    if frame[1] is None:  # a mapping: the key read last
        key, frame[2] = frame[2], None
        return (*frame[0], key)
    frame[1] += 1
    return (*frame[0], frame[1] - 1)


def _is_string(event: yaml.ScalarEvent) -> bool:
    if event.style or event.tag == "tag:yaml.org,2002:str":
        return True
    if event.tag is not None and event.tag != "!":
        return False
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit)  # type: ignore[no-untyped-call]
    return tag == "tag:yaml.org,2002:str"


def parse(text: str, kind: str) -> Any:
    """The document ``text`` holds (``kind``: "json" or "yaml"); ``NotADocument`` when it holds none."""
    try:
        return json.loads(text) if kind == "json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise NotADocument(str(exc)) from None
