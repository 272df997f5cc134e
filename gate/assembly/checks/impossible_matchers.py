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
from gate.suite.matchers import is_matcher, json_type, matcher_key, typed_equal
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
    tool: str, parameters: Mapping[str, Any] | None, args: Any, at: PathKey
) -> list[Finding]:
    """What no value can satisfy in ``args`` (name -> matcher), against the ``parameters`` schema of
    ``tool`` (None: no schema known; then only self-contradictions are found)."""
    if not isinstance(args, Mapping):
        return []
    root = parameters if isinstance(parameters, Mapping) else None
    place = _Place(tool if root is not None else "", root)
    found: list[Finding] = []
    for name, matcher in args.items():
        schema = property_schema(root, name, root) if root is not None else None
        found.extend(_walk(matcher, (*at, name), str(name), schema, place))
    return found


def _walk(node: Any, at: PathKey, label: str, schema: Any, place: _Place) -> Iterator[Finding]:
    conflict = _kind_conflict(node, label, schema, place)
    if conflict is not None:
        yield (at, *conflict)
        return
    if not isinstance(node, (dict, list)):
        yield from _literal(node, at, label, schema, place)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _walk(item, (*at, index), f"{label}[{index}]", _item(schema, index, place), place)
    elif not is_matcher(node):
        for key, value in node.items():
            yield from _walk(value, (*at, key), f"{label}.{key}", _property(schema, key, place), place)
    else:
        yield from _matcher(node, at, label, schema, place)


def _matcher(
    node: Mapping[str, Any], at: PathKey, label: str, schema: Any, place: _Place
) -> Iterator[Finding]:
    key = matcher_key(node)
    operand = node[key]
    where = (*at, key)
    if key == "equals":
        yield from _literal(operand, where, label, schema, place)
    elif key == "one_of" and isinstance(operand, list):
        whole = _one_of_elements(operand, where, label, schema, place)
        if whole is not None:
            yield whole
            return
        for index, value in enumerate(operand):
            yield from _literal(value, (*where, index), label, schema, place)
    elif key == "optional" and operand is not True:
        yield from _walk(operand, where, label, schema, place)
    elif key in ("any_of", "all_of") and isinstance(operand, list):
        found = [f for i, item in enumerate(operand) for f in _walk(item, (*where, i), label, schema, place)]
        yield from found
        if key == "all_of" and not found:  # one problem at a time: the items' own first
            yield from _all_of_contradiction(operand, at)
    elif key == "unordered" and isinstance(operand, list):
        for index, item in enumerate(operand):
            yield from _walk(item, (*where, index), f"{label}[]", _item(schema, None, place), place)
    elif key == "contains" and not (isinstance(operand, str) and _may_be_text(schema, place)):
        item = _item(schema, None, place)
        several = _contains_several(operand, where, label, item, place)
        if several is not None:
            yield several
            return
        yield from _walk(operand, where, f"{label}[]", item, place)
    elif key == "object" and isinstance(operand, Mapping):
        for name, value in operand.items():
            yield from _walk(value, (*where, name), f"{label}.{name}", _property(schema, name, place), place)


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
    """``{key: [{contains: a}, {contains: b}]}`` for a hint (at most 3 values, then ``...``)."""
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


def _contains_several(operand: Any, at: PathKey, label: str, item: Any, place: _Place) -> Finding | None:
    """``{contains: [a, b]}`` on a list whose elements are never lists: contains looks for one element
    (here, one equal to the list ``[a, b]``), so the fix is one contains per element (None: not that
    mistake)."""
    if not isinstance(operand, list) or not operand:
        return None
    conflict = _kind_conflict(operand, f"{label}[]", item, place)
    if conflict is None:
        return None
    elements = _words(_schema_kinds(item, place) or frozenset())
    return (
        at,
        f"contains looks for one element, here one equal to the list {show(operand, 60)}, but tool "
        f"{place.tool!r} declares the elements of {label!r} as {elements}: it can never match",
        f"for a list that holds every one of them write {_matchers_text('all_of', operand)}; "
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


def matcher_kinds(node: Any) -> Kinds | None:
    """The JSON types of a present value ``node`` can match (None: any type)."""
    if not isinstance(node, (dict, list)):
        return frozenset({json_type(node)})
    if isinstance(node, list):
        return _ARRAY
    if not is_matcher(node):
        return _OBJECT
    key = matcher_key(node)
    operand = node[key]
    if key in _MATCHER_KINDS:
        return _MATCHER_KINDS[key]
    if key == "equals":
        return frozenset({json_type(operand)})
    if key == "one_of" and isinstance(operand, list):
        return frozenset(json_type(v) for v in operand)
    if key == "contains":
        return frozenset({"string", "array"}) if isinstance(operand, str) else _ARRAY
    if key == "optional" and operand is not True:
        return matcher_kinds(operand)
    if key in ("any_of", "all_of") and isinstance(operand, list):
        return _combined([matcher_kinds(item) for item in operand], union=key == "any_of")
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


def _kind_conflict(node: Any, label: str, schema: Any, place: _Place) -> tuple[str, str] | None:
    """(message, hint) when ``node`` matches only kinds of value the schema never lets through."""
    if schema is None or place.root is None or not isinstance(node, (dict, list)):
        return None  # a scalar literal is checked whole against the schema
    key = None
    if isinstance(node, dict) and is_matcher(node):
        key = matcher_key(node)
        if key not in _MATCHER_KINDS and key != "contains":
            return None  # literals are checked whole, wrapping matchers by what they wrap
        if key in NEVER_AN_OBJECT and key in declared(schema, place.root):
            return None  # read as an object's own key: gate.assembly.checks.matcher_specs says so
    allowed = _schema_kinds(schema, place)
    wanted = matcher_kinds(node)
    if allowed is None or wanted is None or wanted & allowed:
        return None
    what = _what(node, key)
    message = (
        f"{what} can never match: it matches only {_words(wanted)}, but tool {place.tool!r} declares "
        f"{label!r} as {_words(allowed)}"
    )
    if isinstance(node, list):
        return message, "for one of several values write {one_of: [...]} (a list matches a list)"
    if key is None:
        return message, "a mapping without a matcher key is matched as an object, key by key"
    return message, "use a matcher for the argument's type"


def _what(node: Any, key: str | None) -> str:
    if isinstance(node, list):
        return f"the list {show(node, 60)}"
    if key is None:
        return f"the mapping {show(node, 60)}"
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


def _presence(node: Any) -> tuple[bool, bool]:
    """(fails when the value is absent, fails whenever it is present) for a matcher."""
    if not (isinstance(node, dict) and is_matcher(node)):
        return True, False
    key = matcher_key(node)
    operand = node[key]
    items = [_presence(item) for item in (operand if isinstance(operand, list) else [operand])]
    if key == "optional":
        return False, False
    if key == "absent":
        return operand is False, operand is not False
    if key == "any_of":
        return all(r for r, _ in items), bool(items) and all(f for _, f in items)
    if key == "all_of":
        return any(r for r, _ in items), any(f for _, f in items)
    return True, False


def _all_of_contradiction(items: list[Any], at: PathKey) -> Iterator[Finding]:
    where = (*at, "all_of")
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
    literals = [_literal_value(i) for i in items]
    values = [v for ok, v in literals if ok]
    if any(not typed_equal(values[0], v) for v in values[1:]):
        shown = ", ".join(show(v, 30) for v in values)
        yield where, f"all_of asks for different values at once ({shown}): nothing can satisfy it", hint


def _literal_value(node: Any) -> tuple[bool, Any]:
    """(True, value) when ``node`` is equality with one value (a scalar literal or ``equals``)."""
    if not isinstance(node, (dict, list)):
        return True, node
    if isinstance(node, dict) and is_matcher(node) and "equals" in node:
        return True, node["equals"]
    return False, None
