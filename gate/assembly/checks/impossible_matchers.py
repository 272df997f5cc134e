"""Matchers no call can ever satisfy (DESIGN.md section 9), found before any model call.

The tool's own parameter schema says what a call may send: the automatic checks fail any call that
breaks it. So an expected value (or a mock's ``when`` condition) that only a schema-breaking value
could meet can never pass (or never fire). Finding at every depth of a matcher, each at its own path:

- a literal the schema at its position refuses (``"30"`` for an integer, a value outside the enum),
  also nested: ``{equals: "30"}``, ``{optional: "30"}``, ``["30"]`` in an integer list,
  ``{contains: "30"}``, an object member, a ``one_of`` value, an ``any_of`` / ``all_of`` item;
- a matcher whose kind of value the schema never sends: ``[Paris]`` (a list) or ``{name: Paris}``
  (an object) or ``{range: ...}`` / ``{unordered: ...}`` on a string, ``{regex: ...}`` on an integer;
- an ``all_of`` that contradicts itself (with or without a schema): a value and its absence at once,
  matchers that take no common type, two different literals.

Pure: ``(path, message, hint)`` triples, reported by the builder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from gate.assembly.checks.finding import Finding
from gate.assembly.checks.matcher_specs import NEVER_AN_OBJECT
from gate.assembly.checks.schema_position import declared, item_schema, property_schema, resolve
from gate.suite import matcher_tree as mt
from gate.suite.matcher_tree import Matcher
from gate.suite.matchers import json_type, typed_equal
from gate.util import schema_check
from gate.util.escape import show
from gate.util.json_types import PathKey

Kinds = frozenset[str]  # JSON types of a value: null, boolean, number, string, array, object

_STRING: Kinds = frozenset({"string"})
_NUMBER: Kinds = frozenset({"number"})
_ARRAY: Kinds = frozenset({"array"})
_OBJECT: Kinds = frozenset({"object"})
# Matchers with one kind of value, whatever their operand.
_MATCHER_KINDS: dict[str, Kinds] = {
    "regex": _STRING,
    "normalized": _STRING,
    "range": _NUMBER,
    "approx": _NUMBER,
    "unordered": _ARRAY,
    "object": _OBJECT,
}
_KIND_WORDS = {
    "null": "null",
    "boolean": "a boolean",
    "number": "a number",
    "string": "a string",
    "array": "a list",
    "object": "an object",
}


class _Place:
    """The tool and argument a matcher is written for (``tool`` empty: no schema is known)."""

    def __init__(self, tool: str, root: Mapping[str, Any] | None):
        self.tool, self.root = tool, root


def matcher_problems(
    tool: str, parameters: Mapping[str, Any] | None, args: Mapping[str, Matcher]
) -> list[Finding]:
    """What no value can satisfy in ``args`` (name -> matcher), against the ``parameters`` schema of
    ``tool`` (None: no schema known; then only self-contradictions are found)."""
    root = parameters if isinstance(parameters, Mapping) else None
    place = _Place(tool if root is not None else "", root)
    found: list[Finding] = []
    for name, matcher in args.items():
        schema = property_schema(root, name, root) if root is not None else None
        found.extend(_walk(matcher, str(name), schema, place))
    return found


def _walk(node: Matcher, label: str, schema: Any, place: _Place) -> Iterator[Finding]:
    conflict = _kind_conflict(node, label, schema, place)
    if conflict is not None:
        yield (node.at, *conflict)
        return
    if isinstance(node, mt.Value):
        yield from _literal(node.value, node.at, label, schema, place)
    elif isinstance(node, mt.ListPattern):
        for index, item in enumerate(node.items):
            yield from _walk(item, f"{label}[{index}]", _item(schema, index, place), place)
    elif isinstance(node, mt.ObjectPattern):
        for key, value in node.fields:
            yield from _walk(value, f"{label}.{key}", _property(schema, key, place), place)
    else:
        yield from _matcher(node, label, schema, place)


def _matcher(node: Matcher, label: str, schema: Any, place: _Place) -> Iterator[Finding]:
    where = (*node.at, mt.key_of(node))
    if isinstance(node, mt.Equals):
        yield from _literal(node.value, where, label, schema, place)
    elif isinstance(node, mt.OneOf):
        whole = _one_of_elements(list(node.values), where, label, schema, place)
        if whole is not None:
            yield whole
            return
        for index, option in enumerate(node.values):
            yield from _literal(option, (*where, index), label, schema, place)
    elif isinstance(node, (mt.Optional, mt.AnyOf, mt.AllOf)):
        found = [f for item in node.children() for f in _walk(item, label, schema, place)]
        yield from found
        if isinstance(node, mt.AllOf) and not found:  # one problem at a time: the items' own first
            yield from _all_of_contradiction(node)
    elif isinstance(node, mt.Unordered):
        for item in node.items:
            yield from _walk(item, f"{label}[]", _item(schema, None, place), place)
    elif isinstance(node, mt.Contains) and not (_is_text(node.needle) and _may_be_text(schema, place)):
        item = _item(schema, None, place)
        several = _contains_several(node.needle, label, item, place)
        if several is not None:
            yield several
            return
        yield from _walk(node.needle, f"{label}[]", item, place)
    elif isinstance(node, mt.ObjectMatch):
        for name, value in node.fields:
            yield from _walk(value, f"{label}.{name}", _property(schema, name, place), place)


def _is_text(node: Matcher) -> bool:
    return isinstance(node, mt.Value) and isinstance(node.value, str)


def _literal(value: Any, at: PathKey, label: str, schema: Any, place: _Place) -> Iterator[Finding]:
    """A value compared as written: the schema at its position must accept it."""
    if schema is None or place.root is None:
        return
    if isinstance(schema, Mapping):
        schema = {**schema, "$defs": place.root.get("$defs", {})}
    if schema_check.is_valid(schema, value):  # the common case: jsonschema is not imported
        return
    error = _first_error(schema, value)
    if error is None:
        return
    yield (
        at,
        f"the expected value {json.dumps(value)} can never match: tool {place.tool!r} requires "
        f"{label!r} to satisfy its schema ({error.message})",
        _literal_fix(value, schema),
    )


def _literal_fix(value: Any, schema: Any) -> str:
    """How to write ``value`` so that the tool's ``schema`` accepts it: without quotes when that is
    what the text means (``"3"`` for an integer), as a list, or in general a value the tool accepts."""
    if isinstance(value, str):
        try:
            unquoted = json.loads(value)
        except ValueError:
            unquoted = value
        if not isinstance(unquoted, (str, list, dict)) and schema_check.is_valid(schema, unquoted):
            return "write it without quotes"
    if not isinstance(value, list) and schema_check.is_valid(schema, [value]):
        shown = show(value, 40)  # JSON text: YAML reads it as the same value
        return (
            f"the argument is a list: write {{contains: {shown}}} for a list that holds it, "
            f"[{shown}] for that list alone"
        )
    return "write a value the tool accepts"


def _matchers_text(key: str, values: list[Any]) -> str:
    """``{key: [{contains: a}, {contains: b}]}`` for a hint (at most 3 values, then ``...``; each as
    written)."""
    items = [f"{{contains: {show(v, 40)}}}" for v in values[:3]] + (["..."] if len(values) > 3 else [])
    return f"{{{key}: [{', '.join(items)}]}}"


def _one_of_elements(
    values: list[Any], at: PathKey, label: str, schema: Any, place: _Place
) -> Finding | None:
    """A ``one_of`` of elements written for a list argument: one_of compares the whole list with each
    value, so the fix is a list holding one of them (None: not that mistake)."""
    if schema is None or place.root is None or not values or _schema_kinds(schema, place) != _ARRAY:
        return None
    whole = {**schema, "$defs": place.root.get("$defs", {})} if isinstance(schema, Mapping) else schema
    if any(isinstance(v, list) or not schema_check.is_valid(whole, [v]) for v in values):
        return None
    return (
        at,
        f"one_of compares the whole list {label!r} with each value, and {show(values, 60)} are elements, "
        f"not lists: tool {place.tool!r} declares {label!r} as a list, so no call can match",
        f"for a list that holds one of them write {_matchers_text('any_of', values)}; "
        "all_of in place of any_of for a list that holds every one of them",
    )


def _contains_several(needle: Matcher, label: str, item: Any, place: _Place) -> Finding | None:
    """``{contains: [a, b]}`` on a list whose elements are never lists: contains looks for one element
    (here, one equal to the list ``[a, b]``), so the fix is one contains per element (None: not that
    mistake)."""
    if not isinstance(needle, mt.ListPattern) or not needle.items:
        return None
    conflict = _kind_conflict(needle, f"{label}[]", item, place)
    if conflict is None:
        return None
    elements = _words(_schema_kinds(item, place) or frozenset())
    written = [item.json() for item in needle.items]
    return (
        needle.at,
        f"contains looks for one element, here one equal to the list {show(written, 60)}, but tool "
        f"{place.tool!r} declares the elements of {label!r} as {elements}: it can never match",
        f"for a list that holds every one of them write {_matchers_text('all_of', written)}; "
        "any_of in place of all_of for a list that holds one of them",
    )


def _first_error(schema: Any, value: Any) -> Any:
    """jsonschema's first error for ``value`` (None when valid or the schema itself is broken)."""
    from gate.suite.matchers import schema_validator

    try:
        return next(iter(schema_validator(json.dumps(schema, sort_keys=True)).iter_errors(value)), None)
    except Exception:  # noqa: BLE001 - a broken tool schema is reported where the tool is read
        return None


# --- kinds of value: what a matcher can match, what the schema lets through -------------------------


def matcher_kinds(node: Matcher) -> Kinds | None:
    """The JSON types of a present value ``node`` can match (None: any type)."""
    if isinstance(node, mt.Value):
        return frozenset({json_type(node.value)})
    if isinstance(node, mt.ListPattern):
        return _ARRAY
    if isinstance(node, mt.ObjectPattern):
        return _OBJECT
    key = mt.key_of(node)
    if key in _MATCHER_KINDS:
        return _MATCHER_KINDS[key]
    if isinstance(node, mt.Equals):
        return frozenset({json_type(node.value)})
    if isinstance(node, mt.OneOf):
        return frozenset(json_type(v) for v in node.values)
    if isinstance(node, mt.Contains):
        return frozenset({"string", "array"}) if _is_text(node.needle) else _ARRAY
    if isinstance(node, mt.Optional) and node.inner is not None:
        return matcher_kinds(node.inner)
    if isinstance(node, (mt.AnyOf, mt.AllOf)):
        return _combined([matcher_kinds(item) for item in node.items], union=isinstance(node, mt.AnyOf))
    return None


def _combined(kinds: list[Kinds | None], *, union: bool) -> Kinds | None:
    if union:
        return None if any(k is None for k in kinds) else frozenset().union(*kinds)  # type: ignore[arg-type]
    known = [k for k in kinds if k is not None]
    return frozenset.intersection(*known) if known else None


def _schema_kinds(schema: Any, place: _Place) -> Kinds | None:
    """The JSON types a schema-valid value at this position can have (None: not said)."""
    schema = resolve(schema, place.root)
    if schema is False:
        return frozenset()
    if not isinstance(schema, Mapping):
        return None
    parts: list[Kinds | None] = [_own_kinds(schema)]
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            parts.append(_combined([_schema_kinds(b, place) for b in schema[key]], union=True))
    if isinstance(schema.get("allOf"), list):
        parts += [_schema_kinds(b, place) for b in schema["allOf"]]
    return _combined(parts, union=False)


def _own_kinds(schema: Mapping[str, Any]) -> Kinds | None:
    parts: list[Kinds | None] = []
    kind = schema.get("type")
    named = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if named is not None:
        parts.append(frozenset("number" if k == "integer" else str(k) for k in named))
    if "const" in schema:
        parts.append(frozenset({json_type(schema["const"])}))
    if isinstance(schema.get("enum"), list):
        parts.append(frozenset(json_type(v) for v in schema["enum"]))
    return _combined(parts, union=False)


def _kind_conflict(node: Matcher, label: str, schema: Any, place: _Place) -> tuple[str, str] | None:
    """(message, hint) when ``node`` matches only kinds of value the schema never lets through."""
    if schema is None or place.root is None or isinstance(node, mt.Value):
        return None  # a scalar literal is checked whole against the schema
    key = mt.key_of(node)
    if key is not None:
        if key not in _MATCHER_KINDS and key != "contains":
            return None  # literals are checked whole, wrapping matchers by what they wrap
        if key in NEVER_AN_OBJECT and key in declared(schema, place.root):
            return None  # read as an object's own key: gate.assembly.checks.matcher_specs says so
    allowed = _schema_kinds(schema, place)
    wanted = matcher_kinds(node)
    if allowed is None or wanted is None or wanted & allowed:
        return None
    message = (
        f"{_what(node, key)} can never match: it matches only {_words(wanted)}, but tool {place.tool!r} "
        f"declares {label!r} as {_words(allowed)}"
    )
    if isinstance(node, mt.ListPattern):
        return message, "for one of several values write {one_of: [...]} (a list matches a list)"
    if key is None:
        return message, "a mapping without a matcher key is matched as an object, key by key"
    return message, "use a matcher for the argument's type"


def _what(node: Matcher, key: str | None) -> str:
    if isinstance(node, mt.ListPattern):
        return f"the list {show(node.json(), 60)}"
    if key is None:
        return f"the mapping {show(node.json(), 60)}"
    return f"the matcher {{{key}: ...}}"


def _words(kinds: Kinds) -> str:
    return " or ".join(_KIND_WORDS.get(k, k) for k in sorted(kinds))


def _may_be_text(schema: Any, place: _Place) -> bool:
    """Whether a string may stand here (a ``contains`` with a string operand is then a substring)."""
    kinds = _schema_kinds(schema, place) if schema is not None else None
    return kinds is None or "string" in kinds


def _property(schema: Any, name: Any, place: _Place) -> Any:
    return property_schema(schema, name, place.root) if schema is not None else None


def _item(schema: Any, index: int | None, place: _Place) -> Any:
    """The schema of list item ``index`` (None: any item, as ``unordered`` and ``contains`` read)."""
    if schema is None:
        return None
    return item_schema(schema, index if index is not None else 1 << 30, place.root)


# --- all_of contradicting itself ------------------------------------------------------------------


def _presence(node: Matcher) -> tuple[bool, bool]:
    """(fails when the value is absent, fails whenever it is present) for a matcher."""
    if isinstance(node, mt.Optional):
        return False, False
    if isinstance(node, mt.Absent):
        return False, True
    if isinstance(node, (mt.AnyOf, mt.AllOf)):
        items = [_presence(item) for item in node.items]
        if isinstance(node, mt.AnyOf):
            return all(r for r, _ in items), bool(items) and all(f for _, f in items)
        return any(r for r, _ in items), any(f for _, f in items)
    return True, False


def _all_of_contradiction(node: mt.AllOf) -> Iterator[Finding]:
    items = node.items
    where = (*node.at, "all_of")
    hint = "all_of needs every matcher to hold; to accept either, write any_of"
    presence = [_presence(i) for i in items]
    if any(r for r, _ in presence) and any(f for _, f in presence):
        yield where, "all_of asks for a value and for its absence at once: nothing can satisfy it", hint
        return
    present = [matcher_kinds(i) for i, (_, forbids) in zip(items, presence, strict=True) if not forbids]
    known = [k for k in present if k is not None]
    if known and not frozenset.intersection(*known):
        yield where, "all_of holds matchers that take no common type of value: nothing can satisfy it", hint
        return
    values = [i.value for i in items if isinstance(i, (mt.Value, mt.Equals))]
    if any(not typed_equal(values[0], v) for v in values[1:]):
        shown = ", ".join(show(v, 30) for v in values)
        yield where, f"all_of asks for different values at once ({shown}): nothing can satisfy it", hint
