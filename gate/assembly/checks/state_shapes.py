"""Changes the declared state can never take (DESIGN.md section 9), found before any model call.

A mock rule's ``set`` and ``append`` walk a state path through the declared state; where that path
meets a shape that cannot take the change, every call of the rule would be a "mock state error":
``append`` to a key declared as a mapping or a number, a path going on below a number or a text,
``set`` with a key that is not a number into a declared list. Checked against every state a rule
can start from: the suite's own, and each case's (whose top-level keys replace the suite's, so a case
can turn the suite's list into a mapping its rules append to).

Not refused: a path through a template (its keys are known only at run time), a key the state does
not hold yet (``set`` creates objects on the way, ``append`` a list), an index beyond a declared list
(the list may have grown), and a shape some rule changes first (a ``set`` or ``remove`` of that node
or of one above it).

Pure: ``(path in the document, message)`` pairs; the builder adds the hint and says where.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any, Literal

from gate.suite import mock_state
from gate.util.json_types import PathKey

Change = Literal["set", "append"]
# A path a rule sets or removes, its templated segments as None (any key).
Changed = tuple[str | None, ...]

_CHANGES: tuple[Change, ...] = ("set", "append")
_INDEX = re.compile(r"-?\d+")
_WORDS = {bool: "a boolean", int: "a number", float: "a number", str: "a text", type(None): "null"}


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return _WORDS.get(type(value), "a value")


def changed_paths(rules: Collection[Mapping[str, Any]]) -> set[Changed]:
    """The paths the rules ``set`` or ``remove`` (they may change a declared shape before a use)."""
    found: set[Changed] = set()
    for rule in rules:
        paths = [*(rule.get("set") or {}), *(rule.get("remove") or ())]
        found.update(_segments(path) for path in paths if isinstance(path, str))
    return found


def _segments(path: str) -> Changed:
    """The segments of a state path as written, a segment holding a template as None."""
    bare = mock_state.TEMPLATE.sub("\0", path)
    return tuple(None if "\0" in s or "{{" in s else s for s in mock_state.split_path(bare))


def _changed_first(node: tuple[str, ...], changed: Collection[Changed]) -> bool:
    return any(
        0 < len(p) <= len(node) and all(s is None or s == n for s, n in zip(p, node, strict=False))
        for p in changed
    )


def shape_problem(state: Any, path: str, change: Change, changed: Collection[Changed] = ()) -> str | None:
    """Why ``change`` at ``path`` can never apply to ``state`` (None: it can, or it is not known)."""
    written = _segments(path)
    if None in written:
        written = written[: written.index(None) + 1]  # known up to the first template
    segments = [s or "" for s in written]
    node = state
    for depth, segment in enumerate(written):
        if segment is None:
            return None
        where = ".".join(segments[:depth])
        if isinstance(node, dict):
            if segment not in node:
                return None
            node = node[segment]
        elif isinstance(node, list) and _INDEX.fullmatch(segment):
            index = int(segment)
            if not -len(node) <= index < len(node):
                return None
            node = node[index]
        elif _changed_first(tuple(segments[:depth]), changed):
            return None
        elif isinstance(node, list):
            return (
                f"{where!r} is a list in the declared state: it has no key {segment!r} (items are numbered)"
            )
        else:
            verb = "set" if change == "set" else "appended"
            return f"{where!r} is {_kind(node)} in the declared state: nothing can be {verb} below it"
    if change == "append" and not isinstance(node, list) and not _changed_first(tuple(segments), changed):
        return f"{path!r} is {_kind(node)} in the declared state: append needs a list"
    return None


def rule_shape_findings(
    rule: Mapping[str, Any],
    at: PathKey,
    state: Any,
    changed: Collection[Changed],
) -> Iterator[tuple[PathKey, str]]:
    """(where, why) for each ``set`` / ``append`` path of ``rule`` that ``state`` can never take."""
    for change in _CHANGES:
        for path in rule.get(change) or {}:
            if isinstance(path, str) and mock_state.path_problem(path) is None:
                why = shape_problem(state, path, change, changed)
                if why is not None:
                    yield (*at, change, path), why
