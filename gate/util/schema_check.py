"""A fast yes/no JSON Schema (Draft 2020-12) validator for the success path.

``jsonschema`` is thorough but slow on the happy path: it builds a validator object for every
subschema it descends into, resolves every ``$ref`` through its registry and creates an error object
for every branch of an ``anyOf`` / ``oneOf`` / ``if`` that does not match. Almost every document the
gate validates is valid, so it pays for explanations it never prints.

:func:`compile_schema` turns a schema into a tree of small closures that answer only "valid or
not", with no error objects and no resolver. Callers run ``jsonschema`` only when the answer is
"not valid", to word the errors exactly as before. It supports the keyword subset the suite, results
and meta schemas use (see ``SUPPORTED``) and decides it exactly as ``jsonschema``'s
``Draft202012Validator`` without a format checker does, for JSON-like data (dict, list, str, int,
float, bool, None); hypothesis tests keep the two in agreement. A schema using anything else raises
:class:`Unsupported`, and the caller uses ``jsonschema`` for everything.

:func:`is_valid_schema` checks a JSON Schema itself (a tool's ``parameters``, a ``schema`` matcher)
against the Draft 2020-12 meta-schema, written out below with its vocabularies merged.

Why a second validator beside ``jsonschema`` (issue 37 asked; each use below was replaced by
``jsonschema``'s own ``is_valid``, bounded patterns included, and measured against this module, in
alternating runs on one machine, 2 CPUs):

- ``validate``, suite and mock documents: ``bench/run.py --only validate`` (100 suite files, cold)
  took 0.95-1.01 s instead of 0.31 s: the 0.5 s budget of DESIGN section 8 missed by double. With
  only the tool ``parameters`` checked by ``jsonschema`` (its meta-schema), 0.42 s: most of it is
  ``jsonschema``'s import (about 0.1 s), which a valid suite never pays while every check of the
  success path is here (the documents, the tools' schemas, and the literals of
  ``gate.assembly.checks.impossible_matchers``).
- ``report`` and ``--baseline``, a results file against the results schema
  (``gate.results_json.codec``): ``--only results_size`` re-rendered 1,000 cases in 1.41-1.50 s
  instead of 0.44-0.47 s.
- scoring, every call's arguments against its tool's parameter schema (the automatic *schema
  violation* check): ``bench/score_ab.py`` scored 10,000 cases in 0.47 s of CPU instead of 0.35 s
  (collector paused).

``jsonschema`` stays what explains: an invalid document, call or schema goes to it for its errors.
Both run user-written ``pattern`` / ``patternProperties`` through ``gate.util.bounded_regex``.

Pure: no I/O, and ``jsonschema`` is never imported here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.util import bounded_regex
from gate.util.json_types import JsonObject

Check = Callable[[Any], bool]

_OBJECT_KEYWORDS = (
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
)
# Keywords this module evaluates.
SUPPORTED = frozenset(
    {
        "type",
        "const",
        "enum",
        "$ref",
        *_OBJECT_KEYWORDS,
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
    }
)
# Keywords jsonschema asserts (or that change how references resolve) and this module does not: a
# schema using one of them is compiled by nobody here.
UNSUPPORTED = frozenset(
    {
        "$dynamicRef",
        "$dynamicAnchor",
        "$anchor",
        "$recursiveRef",
        "$recursiveAnchor",
        "contains",
        "minContains",
        "maxContains",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "prefixItems",
        "unevaluatedItems",
        "unevaluatedProperties",
        "multipleOf",
    }
)
# Everything else is an annotation to jsonschema (``format`` too, without a format checker;
# ``then`` / ``else`` are read by ``if``; ``$defs`` by ``$ref``), and ignored here as well.
ROOT_ONLY = frozenset({"$id", "$schema"})


class Unsupported(Exception):
    """The schema uses a keyword (or a reference form) this module does not evaluate."""


def _true(_: Any) -> bool:
    return True


def _false(_: Any) -> bool:
    return False


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _is_number,
    "integer": _is_integer,
}

_TRUE, _FALSE = object(), object()


def _unbool(value: Any) -> Any:
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    return value


def equal(one: Any, two: Any) -> bool:
    """JSON equality as JSON Schema (and jsonschema) defines it: ``true != 1``, ``1 == 1.0``,
    element by element in lists and objects."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(k in two and equal(v, two[k]) for k, v in one.items())
    return bool(_unbool(one) == _unbool(two))


def _unique(items: list[Any]) -> bool:
    if all(isinstance(item, str) for item in items):
        return len(set(items)) == len(items)
    seen: list[Any] = []
    for item in items:
        item = _unbool(item)
        if any(equal(other, item) for other in seen):
            return False
        seen.append(item)
    return True


def _regex(pattern: Any) -> Callable[[str], bool]:
    """A bounded-time search for ``pattern`` (``gate.util.bounded_regex``); a search that runs out of
    time raises ``RegexTimeout``, which makes the whole check "not valid" (``compile_schema``)."""
    if not isinstance(pattern, str):
        raise Unsupported(f"pattern {pattern!r} is not a string")
    try:
        bounded_regex.compile_regex(pattern)
    except bounded_regex.RegexError as exc:
        raise Unsupported(f"pattern {pattern!r}: {exc}") from None

    def found(text: str) -> bool:
        return bounded_regex.search(pattern, text)

    return found


def _all(checks: list[Check]) -> Check:
    if not checks:
        return _true
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks

        def both(value: Any) -> bool:
            return first(value) and second(value)

        return both
    frozen = tuple(checks)

    def every(value: Any) -> bool:
        for check in frozen:
            if not check(value):
                return False
        return True

    return every


# Exact Python types (as json.loads and the YAML reader make them) that certainly satisfy a JSON type.
_EXACT: dict[str, frozenset[type]] = {
    "object": frozenset({dict}),
    "array": frozenset({list}),
    "string": frozenset({str}),
    "boolean": frozenset({bool}),
    "null": frozenset({type(None)}),
    "number": frozenset({int, float}),
    "integer": frozenset({int}),
}
_ASSERTING = SUPPORTED | UNSUPPORTED | ROOT_ONLY


def _exact_types(schema: Any) -> frozenset[type] | None:
    """For a subschema that asserts nothing but ``type``: the exact types that pass it."""
    if not isinstance(schema, dict) or "type" not in schema:
        return None
    if any(key in _ASSERTING for key in schema if key != "type"):
        return None
    kind = schema["type"]
    kinds = [kind] if isinstance(kind, str) else kind
    if not isinstance(kinds, list) or not kinds or not all(k in _EXACT for k in kinds):
        return None
    return frozenset().union(*(_EXACT[k] for k in kinds))


@dataclass(frozen=True)
class _ObjectParts:
    """The compiled object keywords of one schema."""

    properties: dict[str, Check]
    required: tuple[str, ...]
    patterns: tuple[tuple[Callable[[str], bool], Check], ...]
    joined: Callable[[str], bool] | None  # any of the patterns
    additional: Check | None  # None: anything
    names: Check | None
    least: int
    most: int | None


def _simple_object(parts: _ObjectParts, exact: dict[str, frozenset[type]]) -> Check:
    """An object check with only properties, required and additionalProperties; a property whose
    schema only asks for an exact JSON type is checked without a call."""
    required, additional, get, exact_get = parts.required, parts.additional, parts.properties.get, exact.get

    def simple(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        for name in required:
            if name not in v:
                return False
        for key, item in v.items():
            types = exact_get(key)
            if types is not None and type(item) in types:
                continue
            check = get(key)
            if check is None:
                if additional is not None and not additional(item):
                    return False
            elif not check(item):
                return False
        return True

    return simple


def _full_object(parts: _ObjectParts) -> Check:
    """An object check with every object keyword."""
    required, additional, get, names = parts.required, parts.additional, parts.properties.get, parts.names
    patterns, joined, least, most = parts.patterns, parts.joined, parts.least, parts.most

    def full(v: Any) -> bool:
        if not isinstance(v, dict):
            return True
        if len(v) < least or (most is not None and len(v) > most):
            return False
        for name in required:
            if name not in v:
                return False
        for key, item in v.items():
            if names is not None and not names(key):
                return False
            check = get(key)
            if check is not None and not check(item):
                return False
            for pattern, sub in patterns:
                if pattern(key) and not sub(item):
                    return False
            if (
                check is None
                and additional is not None
                and not (joined is not None and joined(key))
                and not additional(item)
            ):
                return False
        return True

    return full


class _Compiler:
    """Compiles the nodes of one root schema; ``$ref`` targets are compiled once and shared, so
    recursive definitions (a matcher inside a matcher) compile to a cycle of closures."""

    def __init__(self, root: Any):
        self.root = root
        self.refs: dict[str, Check] = {}

    def ref(self, ref: Any) -> Check:
        if not isinstance(ref, str):
            raise Unsupported(f"$ref {ref!r}")
        if ref not in self.refs:
            if ref == "#":
                target = self.root
            elif ref.startswith("#/$defs/") and not re.search(r"[/~%]", ref[8:]):
                defs = self.root.get("$defs") if isinstance(self.root, dict) else None
                if not isinstance(defs, dict) or ref[8:] not in defs:
                    raise Unsupported(f"unresolvable $ref {ref!r}")
                target = defs[ref[8:]]
            else:
                raise Unsupported(f"$ref {ref!r} (only '#' and '#/$defs/<name>' are supported)")
            cell: list[Check] = []

            def via(value: Any) -> bool:
                return cell[0](value)

            self.refs[ref] = via
            cell.append(self.node(target, root=target is self.root))
        return self.refs[ref]

    def node(self, schema: Any, *, root: bool = False) -> Check:
        if schema is True:
            return _true
        if schema is False:
            return _false
        if not isinstance(schema, dict):
            raise Unsupported(f"a schema must be an object or a boolean, got {schema!r}")
        for key in schema:
            if key in UNSUPPORTED or (key in ROOT_ONLY and not root):
                raise Unsupported(key)
        checks: list[Check] = []
        if "type" in schema:
            checks.append(self.type(schema["type"]))
        for key, build in (("const", self.const), ("enum", self.enum)):
            if key in schema:
                checks.append(build(schema[key]))
        checks += [c for c in (self.object(schema), self.array(schema), self.string(schema)) if c]
        checks += [c for c in (self.number(schema),) if c]
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
        checks += self.applicators(schema)
        return _all(checks)

    # -- keywords -------------------------------------------------------------------------------

    def type(self, value: Any) -> Check:
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(n in _TYPES for n in names):
            raise Unsupported(f"type {value!r}")
        if len(names) == 1:
            return _TYPES[names[0]]
        tests = tuple(_TYPES[n] for n in names)

        def any_type(v: Any) -> bool:
            for test in tests:
                if test(v):
                    return True
            return False

        return any_type

    def const(self, value: Any) -> Check:
        if isinstance(value, str):
            return lambda v: isinstance(v, str) and v == value
        return lambda v: equal(v, value)

    def enum(self, values: Any) -> Check:
        if not isinstance(values, list):
            raise Unsupported(f"enum {values!r}")
        if all(isinstance(v, str) for v in values):
            options = frozenset(values)
            return lambda v: isinstance(v, str) and v in options
        return lambda v: any(equal(option, v) for option in values)

    def object(self, schema: JsonObject) -> Check | None:
        if not any(k in schema for k in _OBJECT_KEYWORDS):
            return None
        parts = self.object_parts(schema)
        if not parts.patterns and parts.names is None and not parts.least and parts.most is None:
            # properties that only constrain the type: a value of an exact JSON type passes without a call
            properties = schema.get("properties", {})
            exact = {name: t for name, t in ((n, _exact_types(sub)) for n, sub in properties.items()) if t}
            return _simple_object(parts, exact)
        return _full_object(parts)

    def object_parts(self, schema: JsonObject) -> _ObjectParts:
        """The object keywords of ``schema``, compiled."""
        properties = schema.get("properties", {})
        if not isinstance(properties, dict):
            raise Unsupported("properties")
        patterns_raw = schema.get("patternProperties", {})
        if not isinstance(patterns_raw, dict):
            raise Unsupported("patternProperties")
        additional_raw = schema.get("additionalProperties", True)
        additional: Check | None
        if isinstance(additional_raw, dict):
            additional = self.node(additional_raw)
        elif additional_raw is True:
            additional = None
        elif additional_raw is False:
            additional = _false
        else:
            raise Unsupported(f"additionalProperties {additional_raw!r}")
        return _ObjectParts(
            properties={name: self.node(sub) for name, sub in properties.items()},
            required=tuple(schema.get("required", ())),
            patterns=tuple((_regex(p), self.node(sub)) for p, sub in patterns_raw.items()),
            joined=_regex("|".join(patterns_raw)) if patterns_raw else None,
            additional=additional,
            names=self.node(schema["propertyNames"]) if "propertyNames" in schema else None,
            least=schema.get("minProperties", 0),
            most=schema.get("maxProperties"),
        )

    def array(self, schema: JsonObject) -> Check | None:
        if not any(k in schema for k in ("items", "minItems", "maxItems", "uniqueItems")):
            return None
        items = self.node(schema["items"]) if "items" in schema else None
        least = schema.get("minItems", 0)
        most = schema.get("maxItems")
        unique = bool(schema.get("uniqueItems", False))

        def check(v: Any) -> bool:
            if not isinstance(v, list):
                return True
            if len(v) < least or (most is not None and len(v) > most):
                return False
            if items is not None:
                for item in v:
                    if not items(item):
                        return False
            return not unique or _unique(v)

        return check

    def string(self, schema: JsonObject) -> Check | None:
        if not any(k in schema for k in ("minLength", "maxLength", "pattern")):
            return None
        least = schema.get("minLength", 0)
        most = schema.get("maxLength")
        pattern = _regex(schema["pattern"]) if "pattern" in schema else None

        def check(v: Any) -> bool:
            if not isinstance(v, str):
                return True
            if len(v) < least or (most is not None and len(v) > most):
                return False
            return pattern is None or pattern(v)

        return check

    def number(self, schema: JsonObject) -> Check | None:
        bounds = [
            (k, schema[k])
            for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
            if k in schema
        ]
        if not bounds:
            return None
        for key, bound in bounds:
            if not _is_number(bound):
                raise Unsupported(f"{key} {bound!r}")
        low = schema.get("minimum")
        high = schema.get("maximum")
        xlow = schema.get("exclusiveMinimum")
        xhigh = schema.get("exclusiveMaximum")

        def check(v: Any) -> bool:
            if not _is_number(v):
                return True
            if low is not None and v < low:
                return False
            if high is not None and v > high:
                return False
            if xlow is not None and v <= xlow:
                return False
            return xhigh is None or v < xhigh

        return check

    def applicators(self, schema: JsonObject) -> list[Check]:
        checks: list[Check] = []
        for key in ("allOf", "anyOf", "oneOf"):
            if key in schema:
                subs = schema[key]
                if not isinstance(subs, list) or not subs:
                    raise Unsupported(key)
                compiled = tuple(self.node(sub) for sub in subs)
                checks.append(self.combine(key, compiled))
        if "not" in schema:
            inner = self.node(schema["not"])
            checks.append(lambda v: not inner(v))
        if "if" in schema:
            condition = self.node(schema["if"])
            then = self.node(schema["then"]) if "then" in schema else _true
            otherwise = self.node(schema["else"]) if "else" in schema else _true

            def branch(v: Any) -> bool:
                return then(v) if condition(v) else otherwise(v)

            checks.append(branch)
        return checks

    @staticmethod
    def combine(key: str, subs: tuple[Check, ...]) -> Check:
        if key == "allOf":
            return _all(list(subs))
        if key == "anyOf":

            def any_of(v: Any) -> bool:
                for sub in subs:
                    if sub(v):
                        return True
                return False

            return any_of

        def one_of(v: Any) -> bool:
            found = False
            for sub in subs:
                if sub(v):
                    if found:
                        return False
                    found = True
            return found

        return one_of


def compile_schema(schema: Any, definition: str | None = None) -> Check:
    """A function telling whether a JSON-like value is valid against ``schema`` (or against its
    ``$defs`` entry ``definition``). Raises :class:`Unsupported` for a schema outside the subset."""
    compiler = _Compiler(schema)
    check = compiler.ref(f"#/$defs/{definition}") if definition is not None else compiler.ref("#")

    def guarded(value: Any) -> bool:
        try:
            return check(value)
        except (RecursionError, bounded_regex.RegexTimeout):
            # nested deeper than the interpreter allows, or a pattern ran out of time: not
            # confirmed valid, so the explaining validator runs and says why
            return False

    return guarded


_COMPILED: dict[tuple[int, str | None], tuple[Any, Check | None]] = {}


def checker(schema: Any, definition: str | None = None) -> Check | None:
    """:func:`compile_schema`, cached per schema object (kept alive by the cache); None when the
    schema is unsupported."""
    key = (id(schema), definition)
    cached = _COMPILED.get(key)
    if cached is None or cached[0] is not schema:
        try:
            check: Check | None = compile_schema(schema, definition)
        except Unsupported:
            check = None
        cached = _COMPILED[key] = (schema, check)
    return cached[1]


def is_valid(schema: Any, value: Any, definition: str | None = None) -> bool:
    """True when ``value`` is valid against ``schema``; False when it is not, or when the schema is
    outside the supported subset (then ask ``jsonschema``)."""
    check = checker(schema, definition)
    return check is not None and check(value)


# ---------------------------------------------------------------------------------------------
# The Draft 2020-12 meta-schema, its vocabularies merged into one document. Every ``$dynamicRef:
# "#meta"`` of the published vocabularies resolves to the full meta-schema (the outermost schema
# with ``$dynamicAnchor: meta``), written here as ``$ref: "#"``. ``format`` is not asserted, as in
# jsonschema without a format checker.

_SCHEMA = {"$ref": "#"}
_ANCHOR = {"type": "string", "pattern": "^[A-Za-z_][-A-Za-z0-9._]*$"}
_STRING = {"type": "string"}
_NUMBER = {"type": "number"}
_BOOLEAN = {"type": "boolean"}
_COUNT = {"type": "integer", "minimum": 0}
_SCHEMA_ARRAY = {"type": "array", "minItems": 1, "items": _SCHEMA}
_SCHEMA_MAP = {"type": "object", "additionalProperties": _SCHEMA}
_STRING_ARRAY = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
_SIMPLE_TYPES = {"enum": ["array", "boolean", "integer", "null", "number", "object", "string"]}

META_SCHEMA: JsonObject = {
    "type": ["object", "boolean"],
    "properties": {
        # core
        "$id": {"type": "string", "pattern": "^[^#]*#?$"},
        "$schema": _STRING,
        "$ref": _STRING,
        "$anchor": _ANCHOR,
        "$dynamicRef": _STRING,
        "$dynamicAnchor": _ANCHOR,
        "$vocabulary": {"type": "object", "propertyNames": _STRING, "additionalProperties": _BOOLEAN},
        "$defs": _SCHEMA_MAP,
        "$comment": _STRING,
        # applicator
        "prefixItems": _SCHEMA_ARRAY,
        "items": _SCHEMA,
        "contains": _SCHEMA,
        "additionalProperties": _SCHEMA,
        "properties": _SCHEMA_MAP,
        "patternProperties": _SCHEMA_MAP,
        "dependentSchemas": _SCHEMA_MAP,
        "propertyNames": _SCHEMA,
        "if": _SCHEMA,
        "then": _SCHEMA,
        "else": _SCHEMA,
        "allOf": _SCHEMA_ARRAY,
        "anyOf": _SCHEMA_ARRAY,
        "oneOf": _SCHEMA_ARRAY,
        "not": _SCHEMA,
        # unevaluated
        "unevaluatedItems": _SCHEMA,
        "unevaluatedProperties": _SCHEMA,
        # validation
        "type": {
            "anyOf": [
                _SIMPLE_TYPES,
                {"type": "array", "items": _SIMPLE_TYPES, "minItems": 1, "uniqueItems": True},
            ]
        },
        "enum": {"type": "array"},
        "multipleOf": {"type": "number", "exclusiveMinimum": 0},
        "maximum": _NUMBER,
        "exclusiveMaximum": _NUMBER,
        "minimum": _NUMBER,
        "exclusiveMinimum": _NUMBER,
        "maxLength": _COUNT,
        "minLength": _COUNT,
        "pattern": _STRING,
        "maxItems": _COUNT,
        "minItems": _COUNT,
        "uniqueItems": _BOOLEAN,
        "maxContains": _COUNT,
        "minContains": _COUNT,
        "maxProperties": _COUNT,
        "minProperties": _COUNT,
        "required": _STRING_ARRAY,
        "dependentRequired": {"type": "object", "additionalProperties": _STRING_ARRAY},
        # meta-data
        "title": _STRING,
        "description": _STRING,
        "deprecated": _BOOLEAN,
        "readOnly": _BOOLEAN,
        "writeOnly": _BOOLEAN,
        "examples": {"type": "array"},
        # format-annotation
        "format": _STRING,
        # content
        "contentEncoding": _STRING,
        "contentMediaType": _STRING,
        "contentSchema": _SCHEMA,
        # the meta-schema's own (deprecated) keywords
        "definitions": _SCHEMA_MAP,
        "dependencies": {"type": "object", "additionalProperties": {"anyOf": [_SCHEMA, _STRING_ARRAY]}},
        "$recursiveAnchor": _ANCHOR,
        "$recursiveRef": _STRING,
    },
}


def is_valid_schema(schema: Any) -> bool:
    """True when ``schema`` is a valid JSON Schema by the Draft 2020-12 meta-schema, decided as
    ``jsonschema``'s meta-schema check decides it; False otherwise (ask ``jsonschema`` why)."""
    return is_valid(META_SCHEMA, schema)
