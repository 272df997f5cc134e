"""JSON Schema errors as the messages ``validate`` prints: ``file:line:column: message (fix: hint)``.

jsonschema's own messages name schema internals (``'x' is not valid under any of the given
schemas``); here each kind of error is worded for the person who wrote the file, located at the
offending node (an unknown key at the key itself), with a hint where one helps (did-you-mean for
misspelt keys and values, the description of a missing key, "quote it" for YAML 1.1 surprises).

Pure: positions come from a :class:`Document` (a :class:`gate.files.yaml_source.YamlDocument`), the
schema's ``$defs`` are passed in.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from gate.assembly.checks.schema_damage import extra_keys, one_key_forms
from gate.errors import Problem
from gate.util.escape import show, truncate
from gate.util.json_types import JsonObject, PathKey
from gate.util.wording import closest, did_you_mean

QUOTED_CHARS = 120  # a value or a jsonschema message quoted in a problem


class Document(Protocol):
    """Where the values of a parsed file were written (:class:`gate.files.yaml_source.YamlDocument`)."""

    @property
    def path(self) -> str: ...

    def problem(self, path: PathKey, message: str, hint: str = "", *, at_key: bool = False) -> Problem: ...

    def quote_hint(self, path: PathKey) -> str: ...

    def render_path(self, path: PathKey) -> str: ...


def problems_of(errors: Iterable[Any], doc: Document, definitions: Mapping[str, Any]) -> list[Problem]:
    """Every jsonschema error of ``doc``'s data, readable and located. A key
    missing beside an unknown key that misspells it (``modle:`` for ``model:``) is said once: as the
    unknown key, whose hint names the key it means."""
    errors = list(errors)
    meant = _misspelt(errors)
    problems: list[Problem] = []
    for error in errors:
        # ``input: yes`` and ``id: 010`` are a boolean and a number to YAML: say to quote them.
        hint = doc.quote_hint(tuple(error.absolute_path))
        explained = explain(error, doc, definitions, meant)
        problems.extend(replace(p, hint=p.hint or hint) for p in explained)
    return problems


def _misspelt(errors: list[Any]) -> frozenset[PathKey]:
    """The keys (as paths) that the unknown keys of ``errors`` most likely misspell."""
    meant: set[PathKey] = set()
    for error in errors:
        if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
            continue
        allowed = list(error.schema.get("properties", {}))
        for key in extra_keys(error.instance, error.schema):
            close = closest(key, allowed)
            if close is not None:
                meant.add((*error.absolute_path, close))
    return frozenset(meant)


@dataclass(frozen=True)
class _Error:
    """One jsonschema error, where it sits in the document and how its messages begin."""

    error: Any
    doc: Document
    definitions: Mapping[str, Any]
    # Keys (as paths) an unknown key beside them misspells: not reported missing (see problems_of).
    meant: frozenset[PathKey] = frozenset()

    @property
    def path(self) -> PathKey:
        return tuple(self.error.absolute_path)

    @property
    def prefix(self) -> str:
        where = self.doc.render_path(self.path)
        return f"{where}: " if where else ""

    def problem(
        self, message: str, hint: str = "", path: PathKey | None = None, at_key: bool = False
    ) -> Problem:
        where = self.path if path is None else path
        return self.doc.problem(where, f"{self.prefix}{message}", hint, at_key=at_key)


def explain(
    error: Any,
    doc: Document,
    definitions: Mapping[str, Any],
    meant: frozenset[PathKey] = frozenset(),
) -> list[Problem]:
    """The problems one jsonschema error stands for (an unknown-keys error: one per unknown key; a
    missing key that an unknown key misspells, listed in ``meant``: none)."""
    found = _Error(error, doc, definitions, meant)
    keyword = error.validator
    if keyword == "pattern" and "propertyNames" in error.schema_path:
        return [_invalid_name(found)]
    explainer = _EXPLAINERS.get(keyword)
    if explainer is not None:
        explained = explainer(found)
        if explained is not None:
            return explained
    return [found.problem(truncate(error.message, QUOTED_CHARS, brief=True))]


def _unknown_keys(found: _Error) -> list[Problem] | None:
    instance, schema = found.error.instance, found.error.schema
    if not isinstance(instance, dict):
        return None
    allowed = list(schema.get("properties", {}))
    return [
        found.problem(f"unknown key {key!r}", did_you_mean(key, allowed), (*found.path, key), at_key=True)
        for key in extra_keys(instance, schema)
    ]


def _missing_keys(found: _Error) -> list[Problem] | None:
    instance = found.error.instance
    if not isinstance(instance, dict):
        return None
    return [
        found.problem(f"missing required key {key!r}", _describe(found.error.schema, key, found.definitions))
        for key in found.error.validator_value
        if key not in instance and (*found.path, key) not in found.meant
    ]


def _alternatives(found: _Error) -> list[Problem]:
    """``oneOf`` / ``anyOf``: which one key to write, or what is wrong with the value."""
    error, instance = found.error, found.error.instance
    names = one_key_forms(error.validator_value)
    if names and isinstance(instance, dict):
        if any((*found.path, name) in found.meant for name in names):
            return []  # one of them is written, misspelt: the unknown key says so
        return [_one_key_of(found, names)]
    if error.context:
        return _no_branch(found)
    return [found.problem(truncate(error.message, QUOTED_CHARS, brief=True))]


def _one_key_of(found: _Error, names: list[str]) -> Problem:
    """Branches that each require one key (``input`` or ``conversation``): none or several written."""
    present = [n for n in names if n in found.error.instance]
    if not present:
        return found.problem(
            f"needs one of: {', '.join(names)}", f"add {names[0]!r}" if len(names) > 1 else ""
        )
    return found.problem(
        f"use only one of: {', '.join(present)}",
        f"remove {present[1]!r}",
        (*found.path, present[1]),
        at_key=True,
    )


def _no_branch(found: _Error) -> list[Problem]:
    """No branch accepted the value. A branch that accepted the value's type says what is wrong with
    it ("must not be empty"); when every branch refused the type, name all the types that would do."""
    from jsonschema.exceptions import best_match

    context = found.error.context
    in_type = [e for e in context if not (e.validator == "type" and not e.relative_path)]
    if in_type:
        return explain(best_match(in_type), found.doc, found.definitions, found.meant)
    words: list[str] = []
    for e in context:
        for t in e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]:
            word = TYPE_WORDS.get(str(t), str(t))
            if word not in words:
                words.append(word)
    return [found.problem(f"expected {' or '.join(words)}, got {type_word(found.error.instance)}")]


def _invalid_name(found: _Error) -> Problem:
    schema, instance = found.error.schema, found.error.instance
    hint = schema.get("patternErrorMessage", f"names must match {found.error.validator_value}")
    return found.problem(f"invalid name {instance!r}", hint, (*found.path, instance), at_key=True)


def _pattern(found: _Error) -> list[Problem]:
    hint = found.error.schema.get("patternErrorMessage", f"must match {found.error.validator_value}")
    return [found.problem(f"invalid value {found.error.instance!r}", hint)]


def _type(found: _Error) -> list[Problem]:
    value = found.error.validator_value
    expected = value if isinstance(value, list) else [value]
    words = " or ".join(TYPE_WORDS.get(str(t), str(t)) for t in expected)
    return [found.problem(f"expected {words}, got {type_word(found.error.instance)}")]


def _enum(found: _Error) -> list[Problem]:
    value, instance = found.error.validator_value, found.error.instance
    hint = did_you_mean(str(instance), [str(v) for v in value]) if isinstance(instance, str) else ""
    hint = "" if hint.startswith("allowed:") else hint
    shown = truncate(repr(instance), QUOTED_CHARS, brief=True)
    return [found.problem(f"{shown} is not one of: {', '.join(map(str, value))}", hint)]


def _const(found: _Error) -> list[Problem]:
    value, instance = found.error.validator_value, found.error.instance
    return [found.problem(f"must be {json.dumps(value)}, got {show(instance, QUOTED_CHARS)}")]


_BOUND_WORDS = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusiveMinimum": "more than",
    "exclusiveMaximum": "less than",
}


def _bound(found: _Error) -> list[Problem]:
    word = _BOUND_WORDS[found.error.validator]
    return [found.problem(f"must be {word} {found.error.validator_value}, got {found.error.instance}")]


_SIZE_UNITS = {"minItems": "items", "minProperties": "keys", "minLength": "characters"}


def _too_small(found: _Error) -> list[Problem]:
    value = found.error.validator_value
    if value == 1:
        return [found.problem("must not be empty")]
    return [found.problem(f"must have at least {value} {_SIZE_UNITS[found.error.validator]}")]


def _too_many_keys(found: _Error) -> list[Problem]:
    return [found.problem(f"must have at most {found.error.validator_value} keys")]


def _duplicate_items(found: _Error) -> list[Problem]:
    return [found.problem("has duplicate items")]


# Each returns the problems of its kind of error, or None to fall back to jsonschema's message.
_EXPLAINERS: dict[str, Callable[[_Error], list[Problem] | None]] = {
    "additionalProperties": _unknown_keys,
    "required": _missing_keys,
    "oneOf": _alternatives,
    "anyOf": _alternatives,
    "pattern": _pattern,
    "type": _type,
    "enum": _enum,
    "const": _const,
    **dict.fromkeys(_BOUND_WORDS, _bound),
    **dict.fromkeys(_SIZE_UNITS, _too_small),
    "maxProperties": _too_many_keys,
    "uniqueItems": _duplicate_items,
}


TYPE_WORDS: dict[str, str] = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def type_word(value: Any) -> str:
    """How a message names the type (and, when short, the value) of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {truncate(repr(value), 40, brief=True)}"
    return TYPE_WORDS["object" if isinstance(value, dict) else "array"]


def _describe(schema: JsonObject, key: str, definitions: Mapping[str, Any]) -> str:
    sub = schema.get("properties", {}).get(key, {})
    text = sub.get("description") or _definition_description(sub, definitions)
    return f"add {key!r}: {text}" if text else f"add {key!r}"


def _definition_description(schema: JsonObject, definitions: Mapping[str, Any]) -> str:
    ref = schema.get("$ref", "") if isinstance(schema, dict) else ""
    if ref.startswith("#/$defs/"):
        description: str = definitions.get(ref[8:], {}).get("description", "")
        return description
    return ""


def render_path(path: PathKey) -> str:
    """``cases[2].expect.calls[0]`` for the path ``("cases", 2, "expect", "calls", 0)``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
