"""What a tool definition already says, so that advice about it is true of it: whether a parameter is
declared and required, its type, allowed values, range and examples, what its description says, and
how much two tool descriptions share. Pure: no I/O.

A parameter is addressed by an argument path as the failures name it (``days``, ``address.city``,
``stops[0].city``); local ``$ref`` (``#/...``) are followed. Where the schema says something this
module cannot read (``anyOf``/``oneOf``/``allOf``, a remote ``$ref``), ``opaque`` is set and nothing
is claimed to be absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gate.util.json_types import JsonObject

_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script: "Flüge" is one word, not "fl", "ge"
_STOP = frozenset(
    "a an the and or of to for in on at by with from is are be this that it its as use used uses when "
    "which can will get gets returns return".split()
)
_SEGMENT = re.compile(r"\[\d+\]|[^.\[\]]+")
_COMBINATORS = ("anyOf", "oneOf", "allOf", "not", "if")
# How a description shows an example value.
_EXAMPLE_WORDS = re.compile(r"\b(e\.g\.|eg\b|for example|for instance|such as|example)", re.IGNORECASE)


@dataclass(frozen=True)
class ParameterFacts:
    """What the tool's parameter schema says about one argument. ``known`` False: the schema was not
    recorded (then every other field is empty and nothing may be claimed)."""

    known: bool
    declared: bool = False  # the schema defines the parameter
    required: bool = False  # listed in ``required`` of the object that holds it
    types: tuple[str, ...] = ()
    enum: tuple[Any, ...] = ()
    minimum: float | None = None  # inclusive or exclusive bound, as written
    maximum: float | None = None
    examples: tuple[Any, ...] = ()  # ``examples``, ``example``, ``default``, ``const``
    description: str = ""
    opaque: bool = False  # constraints the facts above do not capture

    @property
    def has_example(self) -> bool:
        """The definition shows an example value: in the schema, or in the description's words."""
        return bool(self.examples) or bool(_EXAMPLE_WORDS.search(self.description))

    @property
    def has_range(self) -> bool:
        return self.minimum is not None or self.maximum is not None


def _resolve(node: Any, root: JsonObject, depth: int = 0) -> Any:
    """``node`` with a local ``$ref`` followed (a few levels at most); anything else unchanged."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 8:
        ref = node["$ref"]
        if not ref.startswith("#"):
            return node
        target: Any = root
        for part in (p for p in ref[1:].split("/") if p):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                return node
            target = target[part]
        node, depth = target, depth + 1
    return node


def _bound(schema: JsonObject, inclusive: str, exclusive: str) -> float | None:
    for key in (inclusive, exclusive):
        value = schema.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def _examples(schema: JsonObject) -> tuple[Any, ...]:
    found: list[Any] = []
    if isinstance(schema.get("examples"), list):
        found += schema["examples"]
    for key in ("example", "default", "const"):
        if key in schema:
            found.append(schema[key])
    return tuple(found)


def _types(schema: JsonObject) -> tuple[str, ...]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return (declared,)
    if isinstance(declared, list):
        return tuple(t for t in declared if isinstance(t, str))
    return ()


def _facts_of(schema: JsonObject, *, required: bool) -> ParameterFacts:
    enum = schema.get("enum")
    return ParameterFacts(
        known=True,
        declared=True,
        required=required,
        types=_types(schema),
        enum=tuple(enum) if isinstance(enum, list) else (),
        minimum=_bound(schema, "minimum", "exclusiveMinimum"),
        maximum=_bound(schema, "maximum", "exclusiveMaximum"),
        examples=_examples(schema),
        description=schema["description"] if isinstance(schema.get("description"), str) else "",
        opaque=any(key in schema for key in (*_COMBINATORS, "$ref")),
    )


def parameter_facts(parameters: JsonObject | None, path: str) -> ParameterFacts:
    """The facts of the parameter at ``path`` in the tool's parameter schema ``parameters`` (None:
    not recorded)."""
    if parameters is None:
        return ParameterFacts(known=False)
    node: Any = _resolve(parameters, parameters)
    required = False
    for segment in _SEGMENT.findall(path) or [path]:
        if not isinstance(node, dict):
            return ParameterFacts(known=True, opaque=True)
        if any(key in node for key in _COMBINATORS) or "$ref" in node:
            return ParameterFacts(known=True, opaque=True)  # the parameter may be defined in there
        if segment.startswith("["):
            node = _resolve(node.get("items"), parameters)
            continue
        properties = node.get("properties")
        if not isinstance(properties, dict) or segment not in properties:
            return ParameterFacts(known=True, opaque=bool(node.get("patternProperties")))
        held = node.get("required")
        required = isinstance(held, list) and segment in held
        node = _resolve(properties[segment], parameters)
    if not isinstance(node, dict):
        return ParameterFacts(known=True, declared=True, required=required, opaque=True)
    return _facts_of(node, required=required)


def closed_object(parameters: JsonObject | None) -> bool | None:
    """Whether the tool's arguments object forbids keys it does not define (None: not recorded)."""
    if parameters is None:
        return None
    root = _resolve(parameters, parameters)
    return isinstance(root, dict) and root.get("additionalProperties") is False


def words(text: str) -> set[str]:
    """The content words of a description (lower case, without stop words)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


# How a description says when to use its tool, and when not to.
_SAYS_WHEN = re.compile(
    r"\b(use (it|this|me)|call (it|this)|use \w+ (for|when|to)|for questions|when(ever)? the user)\b",
    re.IGNORECASE,
)
_SAYS_WHEN_NOT = re.compile(r"\b(not for|do not|don't|never|only (for|when|if))\b", re.IGNORECASE)


def says_when(description: str) -> bool:
    """Whether a tool's description already says when to use it ("use it for", "when the user")."""
    return _SAYS_WHEN.search(description) is not None


def says_when_not(description: str) -> bool:
    """Whether a tool's description already says when not to use it ("not for", "only when")."""
    return _SAYS_WHEN_NOT.search(description) is not None


_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _stem(word: str) -> str:
    """A plural read as its singular, so "lists" is "list" and "appointments" "appointment"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def name_words(name: str) -> set[str]:
    """The content words of a tool name: ``list_appointments`` and ``listAppointments`` are {list,
    appointment}."""
    return {_stem(w.lower()) for w in _NAME_PART.findall(name) if len(w) > 1} - _STOP


def purpose_words(name: str, description: str) -> set[str]:
    """What a tool's definition says it is about: the words of its name and of its description."""
    return name_words(name) | {_stem(w) for w in words(description) if len(w) > 1}


@dataclass(frozen=True)
class Overlap:
    """The content words two descriptions share, out of the distinct content words of both."""

    shared: int
    total: int

    @property
    def ratio(self) -> float:
        """Jaccard similarity: |A ∩ B| / |A ∪ B| (0 when both are empty)."""
        return self.shared / self.total if self.total else 0.0


def overlap(a: str, b: str) -> Overlap:
    wa, wb = words(a), words(b)
    return Overlap(len(wa & wb), len(wa | wb))
