"""What the schema errors of a suite document (or of a mock file, read as the suite's ``mocks``)
damage: the parts the semantic checks must skip.

``validate`` reports what the schema finds *and* what the semantic checks find, in one run (DESIGN
section 4), so the builder also runs on a schema-invalid document: on a copy with every damaged
part cut away, so that nothing is reported twice (the schema already said what is wrong there) or
nonsensically (a check relying on a part that is not what it should be). What is damaged:

- each schema error damages the node it is about; an unknown key, a missing required key, or one
  key too many of a one-key-of choice (``input`` and ``conversation``) damages that key only;
- a node inside a unit the builder reads as a whole (one tool item, the matcher of one argument, one
  mock rule, one path assertion, one message, the params, the judge, ...) damages its whole unit;
- a mapping with an unknown key may hold a misspelt key (``tols:`` for ``tools:``): every key it does
  not hold counts as damaged too, so checks that rely on the key's absence (unknown tools, judged
  checks without a judge, template variables without a value) are skipped.

Pruning removes a damaged mapping key and replaces a damaged list item with None (the builder skips
it, so every other item keeps its index and its position in the file). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gate.util.json_types import PathKey

# The units the builder reads as a whole, as path patterns: ``int`` stands for any list index,
# ``str`` for any mapping key.
_EXPECT = ("cases", int, "expect")
_CALLS = (*_EXPECT, "calls", int)
_ALTERNATIVE_CALLS = (*_EXPECT, "alternatives", int, "calls", int)
_UNITS: tuple[tuple[Any, ...], ...] = (
    ("agent", "params"),
    ("agent", "system_prompt"),
    ("agent", "tools", int),
    ("judge",),
    ("user_simulator",),
    ("state",),
    ("tags",),
    ("mocks", "tools", str, int),
    ("mocks", "unmocked"),
    ("defaults", "scoring"),
    ("cases", int, "conversation", int),
    ("cases", int, "user"),
    ("cases", int, "state"),
    ("cases", int, "scoring"),
    ("cases", int, "tags"),
    ("cases", int, "mocks", "tools", str, int),
    ("cases", int, "mocks", "unmocked"),
    (*_CALLS, "args", str),
    (*_CALLS, "times"),
    (*_ALTERNATIVE_CALLS, "args", str),
    (*_ALTERNATIVE_CALLS, "times"),
    (*_EXPECT, "forbidden_tools"),
    (*_EXPECT, "alternatives", int, "forbidden_tools"),
    (*_EXPECT, "output", str),
    (*_EXPECT, "assert", int),
    (*_EXPECT, "final_state", str),
    (*_EXPECT, "trajectory"),
)


@dataclass(frozen=True)
class Damage:
    """The damaged parts of one document: ``points`` are the pruned nodes, ``loose`` the mappings
    holding an unknown key."""

    points: frozenset[PathKey] = frozenset()
    loose: frozenset[PathKey] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.points or self.loose)

    def hit(self, path: PathKey, data: Any) -> bool:
        """Whether the node at ``path`` of ``data`` (the document as written) is damaged: pruned,
        inside a pruned node, holding one, or missing from a mapping with an unknown key."""
        for point in self.points:
            shared = min(len(point), len(path))
            if point[:shared] == path[:shared]:
                return True
        node = data
        for depth, key in enumerate(path):
            held = isinstance(node, dict) and key in node
            held = held or (isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node))
            if not held:
                return path[:depth] in self.loose
            node = node[key]
        return False

    def prune(self, data: Any) -> Any:
        """A copy of ``data`` without the damaged nodes (``data`` itself is not changed)."""
        for point in sorted(self.points, key=len):
            data = _without(data, point)
        return data


def damage_of(errors: Iterable[Any], within: PathKey = ()) -> Damage:
    """The damage the jsonschema ``errors`` of one document do; ``within`` is where the document's
    data stands in a suite (a mock file's mapping is read as the suite's ``mocks``), for its units."""
    points: set[PathKey] = set()
    loose: set[PathKey] = set()
    for error in errors:
        path = tuple(error.absolute_path)
        keys = _damaged_keys(error)
        if keys is None:
            points.add(unit_of((*within, *path))[len(within) :])
            continue
        points.update(unit_of((*within, *path, key))[len(within) :] for key in keys)
        if error.validator == "additionalProperties":
            loose.add(path)
    return Damage(frozenset(points), frozenset(loose))


def _damaged_keys(error: Any) -> list[str] | None:
    """The keys of a mapping an error is about (None: it is about the node itself)."""
    instance, keyword = error.instance, error.validator
    if "propertyNames" in error.schema_path:
        return [instance] if isinstance(instance, str) else None
    if not isinstance(instance, dict):
        return None
    if keyword == "additionalProperties":
        return extra_keys(instance, error.schema)
    if keyword == "required":
        return [k for k in error.validator_value if k not in instance]
    if keyword in ("oneOf", "anyOf"):
        names = one_key_forms(error.validator_value)
        if names:
            present = [n for n in names if n in instance]
            return present[1:] if present else names[:1]
    return None


def extra_keys(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The keys of ``instance`` that ``schema`` (with ``additionalProperties: false``) does not allow."""
    allowed = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [k for k in instance if k not in allowed and not any(re.search(p, k) for p in patterns)]


def one_key_forms(branches: Any) -> list[str]:
    """The keys of a ``oneOf`` / ``anyOf`` whose every branch requires exactly one key (``input`` or
    ``conversation``); empty when it is not such a choice."""
    if not isinstance(branches, list):
        return []
    names = []
    for branch in branches:
        if not (isinstance(branch, dict) and set(branch) == {"required"} and len(branch["required"]) == 1):
            return []
        names.append(branch["required"][0])
    return names


def unit_of(path: PathKey) -> PathKey:
    """The node pruned for damage at ``path``: the unit holding it, or the node itself."""
    for length in range(1, len(path) + 1):
        prefix = path[:length]
        if any(_matches(pattern, prefix) for pattern in _UNITS):
            return prefix
    return path


def _matches(pattern: tuple[Any, ...], path: PathKey) -> bool:
    if len(pattern) != len(path):
        return False
    for want, part in zip(pattern, path, strict=True):
        if want is int or want is str:
            if type(part) is not want:
                return False
        elif want != part:
            return False
    return True


def _without(node: Any, path: PathKey) -> Any:
    """``node`` with the node at ``path`` removed (a list item: replaced by None), copied on the way."""
    if not path:
        return None
    head, rest = path[0], path[1:]
    if isinstance(node, dict) and head in node:
        copy = dict(node)
        if rest:
            copy[head] = _without(node[head], rest)
        else:
            del copy[head]
        return copy
    if isinstance(node, list) and isinstance(head, int) and 0 <= head < len(node):
        items = list(node)
        items[head] = _without(node[head], rest) if rest else None
        return items
    return node
