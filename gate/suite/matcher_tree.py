"""Argument matchers as a typed tree, parsed once (docs/architecture.md, "Argument matchers").

A suite writes an expected value in JSON (YAML): a literal, a matcher mapping with exactly one key
from ``MATCHER_KEYS`` (or ``object`` beside ``extra_keys``), a plain mapping (an object matched key by
key) or a plain list (matched element by element). :func:`parse_matcher` reads that JSON once, when the
suite is assembled, into one frozen node per kind; matching (``gate.suite.matchers``), the checks of
``validate`` (``gate.assembly.checks``) and the judge requests walk these nodes, never the JSON again.

Each node keeps ``at``, its path in the document it was read from, so that a problem found in it is
reported at its ``file:line:column``. :func:`to_json` gives back exactly the JSON a node was read from
(key order included): results and reports show an expected value that way.

The parser accepts what the suite schema's ``matcher`` definition accepts (a test holds the two equal);
anything else is a :class:`MatcherError` saying where and why. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

from gate import limits
from gate.util.json_types import JsonObject, JsonValue, PathKey
from gate.util.text_normalization import LOOSER_COMPARISONS, Ignored, LooserComparison

# The keys that make a one-key mapping an argument matcher.
MATCHER_KEYS = frozenset(
    {
        "equals",
        "one_of",
        "regex",
        "contains",
        "range",
        "approx",
        "schema",
        "normalized",
        "optional",
        "absent",
        "anything",
        "unordered",
        "object",
        "not",
        "any_of",
        "all_of",
        "judge",
    }
)

Scalar: TypeAlias = "str | int | float | bool | None"
Number: TypeAlias = "int | float"


class MatcherError(ValueError):
    """An expected value the matcher language cannot read: ``at`` is where, ``hint`` the fix."""

    def __init__(self, at: PathKey, message: str, hint: str = ""):
        self.at, self.message, self.hint = at, message, hint
        super().__init__(message)


@dataclass(frozen=True)
class _Node:
    at: PathKey = field(default=(), compare=False, repr=False, kw_only=True)

    def json(self) -> JsonValue:
        """The JSON this node was read from."""
        raise NotImplementedError

    def children(self) -> tuple[Matcher, ...]:
        """The matchers directly inside this one, in the order written."""
        return ()


@dataclass(frozen=True)
class _Mapping(_Node):
    """A matcher mapping: ``{KEY: operand}``."""

    KEY: ClassVar[str]

    def json(self) -> JsonValue:
        return {self.KEY: self.operand_json()}

    def operand_json(self) -> JsonValue:
        raise NotImplementedError


# --- the forms that are not matcher mappings ---------------------------------------------------------


@dataclass(frozen=True)
class Value(_Node):
    """A scalar written as itself: typed equality (``5 == 5.0``, ``True != 1``, ``"5" != 5``)."""

    value: Scalar

    def json(self) -> JsonValue:
        return self.value


@dataclass(frozen=True)
class ObjectPattern(_Node):
    """A plain mapping: an object with exactly these keys, each value matching its matcher."""

    fields: tuple[tuple[str, Matcher], ...]

    def json(self) -> JsonValue:
        return {k: m.json() for k, m in self.fields}

    def children(self) -> tuple[Matcher, ...]:
        return tuple(m for _, m in self.fields)


@dataclass(frozen=True)
class ListPattern(_Node):
    """A plain list: a list of as many elements, each matching the matcher at its index."""

    items: tuple[Matcher, ...]

    def json(self) -> JsonValue:
        return [m.json() for m in self.items]

    def children(self) -> tuple[Matcher, ...]:
        return self.items


# --- matcher mappings (``KEY`` is the key that names each) -------------------------------------------


@dataclass(frozen=True)
class Equals(_Mapping):
    KEY: ClassVar[str] = "equals"
    value: JsonValue

    def operand_json(self) -> JsonValue:
        return self.value


@dataclass(frozen=True)
class OneOf(_Mapping):
    KEY: ClassVar[str] = "one_of"
    values: tuple[JsonValue, ...]

    def operand_json(self) -> JsonValue:
        return list(self.values)


@dataclass(frozen=True)
class Regex(_Mapping):
    KEY: ClassVar[str] = "regex"
    pattern: str

    def operand_json(self) -> JsonValue:
        return self.pattern


@dataclass(frozen=True)
class Contains(_Mapping):
    """A string containing ``needle`` (a string :class:`Value`), or a list with an element matching it."""

    KEY: ClassVar[str] = "contains"
    needle: Matcher

    def operand_json(self) -> JsonValue:
        return self.needle.json()

    def children(self) -> tuple[Matcher, ...]:
        return (self.needle,)


@dataclass(frozen=True)
class Range(_Mapping):
    """A number within inclusive bounds; ``keys`` the bounds in the order written."""

    KEY: ClassVar[str] = "range"
    min: Number | None
    max: Number | None
    keys: tuple[str, ...] = ("min", "max")

    def operand_json(self) -> JsonValue:
        return {k: getattr(self, k) for k in self.keys}


@dataclass(frozen=True)
class Approx(_Mapping):
    """A number within ``tolerance`` (or ``rel_tolerance`` times the value) of ``value``."""

    KEY: ClassVar[str] = "approx"
    value: Number
    tolerance: Number | None = None
    rel_tolerance: Number | None = None
    keys: tuple[str, ...] = ("value", "tolerance", "rel_tolerance")

    def operand_json(self) -> JsonValue:
        return {k: getattr(self, k) for k in self.keys}


@dataclass(frozen=True)
class Schema(_Mapping):
    KEY: ClassVar[str] = "schema"
    schema: JsonObject | bool

    def operand_json(self) -> JsonValue:
        return self.schema


@dataclass(frozen=True)
class IgnoredChars:
    """``{chars: " -"}`` in a ``normalized`` matcher's ``ignore``."""

    chars: str


@dataclass(frozen=True)
class Normalized(_Mapping):
    """Text equality after normalisation (``gate.util.text_normalization``). ``keys`` are those of the
    mapping form in the order written (empty: the text form); ``ignore`` its options, ``ignore_listed``
    False when ``ignore`` was written as one ``{chars: ...}`` mapping rather than a list."""

    KEY: ClassVar[str] = "normalized"
    text: str
    ignore: tuple[LooserComparison | IgnoredChars, ...] = ()
    ignore_listed: bool = True
    keys: tuple[str, ...] = ()

    @property
    def ignored(self) -> Ignored:
        kinds = frozenset(o for o in self.ignore if isinstance(o, str))
        chars = frozenset(c for o in self.ignore if isinstance(o, IgnoredChars) for c in o.chars)
        return Ignored(kinds, chars)

    def operand_json(self) -> JsonValue:
        if not self.keys:
            return self.text
        items = [o if isinstance(o, str) else {"chars": o.chars} for o in self.ignore]
        parts: JsonObject = {"value": self.text, "ignore": items if self.ignore_listed else items[0]}
        return {k: parts[k] for k in self.keys}


@dataclass(frozen=True)
class Optional(_Mapping):
    """May be absent; if present must match ``inner`` (None: written ``true``, any value)."""

    KEY: ClassVar[str] = "optional"
    inner: Matcher | None

    def operand_json(self) -> JsonValue:
        return True if self.inner is None else self.inner.json()

    def children(self) -> tuple[Matcher, ...]:
        return () if self.inner is None else (self.inner,)


@dataclass(frozen=True)
class Absent(_Mapping):
    KEY: ClassVar[str] = "absent"

    def operand_json(self) -> JsonValue:
        return True


@dataclass(frozen=True)
class Anything(_Mapping):
    KEY: ClassVar[str] = "anything"

    def operand_json(self) -> JsonValue:
        return True


@dataclass(frozen=True)
class _Several(_Mapping):
    items: tuple[Matcher, ...]

    def operand_json(self) -> JsonValue:
        return [m.json() for m in self.items]

    def children(self) -> tuple[Matcher, ...]:
        return self.items


@dataclass(frozen=True)
class Unordered(_Several):
    KEY: ClassVar[str] = "unordered"


@dataclass(frozen=True)
class AnyOf(_Several):
    KEY: ClassVar[str] = "any_of"


@dataclass(frozen=True)
class AllOf(_Several):
    KEY: ClassVar[str] = "all_of"


@dataclass(frozen=True)
class ObjectMatch(_Mapping):
    """``{object: {...}}``, with ``extra_keys`` (None: not written); ``keys`` in the order written."""

    KEY: ClassVar[str] = "object"
    fields: tuple[tuple[str, Matcher], ...]
    extra_keys: bool | None = None
    keys: tuple[str, ...] = ("object", "extra_keys")

    def json(self) -> JsonValue:
        parts: JsonObject = {"object": self.operand_json(), "extra_keys": self.extra_keys}
        return {k: parts[k] for k in self.keys}

    def operand_json(self) -> JsonValue:
        return {k: m.json() for k, m in self.fields}

    def children(self) -> tuple[Matcher, ...]:
        return tuple(m for _, m in self.fields)


@dataclass(frozen=True)
class Not(_Mapping):
    KEY: ClassVar[str] = "not"
    inner: Matcher

    def operand_json(self) -> JsonValue:
        return self.inner.json()

    def children(self) -> tuple[Matcher, ...]:
        return (self.inner,)


@dataclass(frozen=True)
class Judge(_Mapping):
    KEY: ClassVar[str] = "judge"
    criterion: str

    def operand_json(self) -> JsonValue:
        return self.criterion


Matcher: TypeAlias = (
    "Value | ObjectPattern | ListPattern | Equals | OneOf | Regex | Contains | Range | Approx | Schema"
    " | Normalized | Optional | Absent | Anything | Unordered | ObjectMatch | Not | AnyOf | AllOf | Judge"
)


def key_of(node: Matcher) -> str | None:
    """The key that names a matcher mapping (None: a literal, a plain mapping or a plain list)."""
    return node.KEY if isinstance(node, _Mapping) else None


# --- parsing -------------------------------------------------------------------------------------


def is_matcher(value: Any) -> bool:
    """Whether JSON ``value`` is written as a matcher mapping rather than a literal or a plain mapping."""
    if type(value) is not dict and not isinstance(value, Mapping):
        return False
    if len(value) == 1:
        return next(iter(value)) in MATCHER_KEYS
    return len(value) == 2 and "object" in value and "extra_keys" in value


def parse_matchers(value: Any, at: PathKey = ()) -> dict[str, Matcher]:
    """A mapping of name -> expected value (``args``, a mock's ``when``, ``state_when``,
    ``final_state``) as name -> matcher."""
    if not isinstance(value, Mapping):
        raise MatcherError(at, f"expected a mapping of names to matchers, got {_kind(value)}")
    return {_name(key, at): parse_matcher(item, (*at, key)) for key, item in value.items()}


def parse_matcher(value: Any, at: PathKey = ()) -> Matcher:
    """One expected value as its matcher tree (``at``: where it is written)."""
    return _parse(value, at, 1)


def _parse(value: Any, at: PathKey, depth: int) -> Matcher:
    if depth > limits.MAX_NESTING:
        raise MatcherError(at, f"matcher nested deeper than {limits.MAX_NESTING} levels", "flatten it")
    if isinstance(value, Mapping):
        if is_matcher(value):
            return _parse_mapping(value, at, depth)
        return ObjectPattern(_fields(value, at, depth), at=at)
    if isinstance(value, list):
        return ListPattern(tuple(_parse(v, (*at, i), depth + 1) for i, v in enumerate(value)), at=at)
    if value is None or isinstance(value, (str, int, float)):
        return Value(value, at=at)
    raise MatcherError(at, f"not a JSON value: {_kind(value)}")


def _fields(value: Mapping[Any, Any], at: PathKey, depth: int) -> tuple[tuple[str, Matcher], ...]:
    return tuple((_name(k, at), _parse(v, (*at, k), depth + 1)) for k, v in value.items())


def _name(key: Any, at: PathKey) -> str:
    if not isinstance(key, str):
        raise MatcherError(at, f"a key must be a string, got {_kind(key)}")
    return key


def _parse_mapping(value: Mapping[str, Any], at: PathKey, depth: int) -> Matcher:
    key = "object" if "object" in value else next(iter(value))
    operand = value[key]
    where = (*at, key)
    if key == "object":
        return _object_match(value, at, depth)
    reader = _READERS.get(key)
    if reader is not None:
        return reader(key, operand, where, at, depth + 1)
    return _parse_operand(key, operand, where, at, depth + 1)


def _parse_operand(key: str, operand: Any, where: PathKey, at: PathKey, depth: int) -> Matcher:
    """The matchers whose operand is one value or one matcher."""
    if key == "equals":
        return Equals(_json(operand, where, depth), at=at)
    if key == "regex":
        return Regex(_text(operand, where, key), at=at)
    if key == "judge":
        criterion = _text(operand, where, key)
        if not criterion:
            raise MatcherError(where, "judge needs a criterion", "write the criterion the judge decides")
        return Judge(criterion, at=at)
    if key == "contains":
        return Contains(_parse(operand, where, depth), at=at)
    if key == "schema":
        if isinstance(operand, dict):
            _json(operand, where, depth)
        elif not isinstance(operand, bool):
            raise MatcherError(
                where, f"schema takes a JSON Schema (a mapping or a boolean), got {_kind(operand)}"
            )
        return Schema(operand, at=at)
    if key == "optional":
        return Optional(None if operand is True else _parse(operand, where, depth), at=at)
    if key == "not":
        return Not(_parse(operand, where, depth), at=at)
    if operand is not True:
        raise MatcherError(where, f"{key} takes true, got {_kind(operand)}", f"write {{{key}: true}}")
    return Absent(at=at) if key == "absent" else Anything(at=at)


def _listed(key: str, operand: Any, where: PathKey, at: PathKey, depth: int) -> Matcher:
    """The matchers whose operand is a list: of values (``one_of``) or of matchers."""
    if not isinstance(operand, list):
        raise MatcherError(where, f"{key} takes a list, got {_kind(operand)}")
    if not operand and key != "unordered":
        raise MatcherError(where, f"{key} takes at least one item")
    if key == "one_of":
        return OneOf(tuple(_json(v, (*where, i), depth) for i, v in enumerate(operand)), at=at)
    items = tuple(_parse(v, (*where, i), depth + 1) for i, v in enumerate(operand))
    if key == "any_of":
        return AnyOf(items, at=at)
    return AllOf(items, at=at) if key == "all_of" else Unordered(items, at=at)


def _range(key: str, operand: Any, where: PathKey, at: PathKey, depth: int) -> Matcher:
    bounds = _numbers(key, operand, where, ("min", "max"))
    if not bounds:
        raise MatcherError(where, "range takes min, max or both", "e.g. {range: {min: 1, max: 7}}")
    return Range(bounds.get("min"), bounds.get("max"), tuple(bounds), at=at)


def _approx(key: str, operand: Any, where: PathKey, at: PathKey, depth: int) -> Matcher:
    spec = _numbers(key, operand, where, ("value", "tolerance", "rel_tolerance"))
    if "value" not in spec or not ({"tolerance", "rel_tolerance"} & set(spec)):
        raise MatcherError(where, "approx takes value and tolerance or rel_tolerance")
    for name in ("tolerance", "rel_tolerance"):
        if spec.get(name, 0) < 0:
            raise MatcherError((*where, name), f"{name} cannot be negative")
    return Approx(spec["value"], spec.get("tolerance"), spec.get("rel_tolerance"), tuple(spec), at=at)


def _numbers(key: str, operand: Any, where: PathKey, names: tuple[str, ...]) -> dict[str, Number]:
    if not isinstance(operand, Mapping):
        raise MatcherError(where, f"{key} takes a mapping of {', '.join(names)}, got {_kind(operand)}")
    found: dict[str, Number] = {}
    for name, number in operand.items():
        if name not in names:
            raise MatcherError((*where, name), f"{key} has no {name!r}", f"{key} takes {', '.join(names)}")
        if not isinstance(number, (int, float)) or isinstance(number, bool):
            raise MatcherError((*where, name), f"{key}.{name} must be a number, got {_kind(number)}")
        found[name] = number
    return found


def _normalized(key: str, operand: Any, where: PathKey, at: PathKey, depth: int) -> Matcher:
    if isinstance(operand, str):
        return Normalized(operand, at=at)
    if not isinstance(operand, Mapping) or not isinstance(operand.get("value"), str):
        raise MatcherError(
            where, f"normalized takes a text or {{value: text, ignore: [...]}}, got {_kind(operand)}"
        )
    unknown = [k for k in operand if k not in ("value", "ignore")]
    if unknown:
        raise MatcherError(
            (*where, unknown[0]), f"normalized has no {unknown[0]!r}", "it takes value and ignore"
        )
    ignore: tuple[LooserComparison | IgnoredChars, ...] = ()
    listed = True
    if "ignore" in operand:
        written = operand["ignore"]
        listed = isinstance(written, list)
        items = written if listed else [written]
        ignore = tuple(
            _ignored(item, (*where, "ignore", i) if listed else (*where, "ignore"))
            for i, item in enumerate(items)
        )
        if len(set(ignore)) != len(ignore):
            raise MatcherError((*where, "ignore"), "ignore names an option twice")
    return Normalized(operand["value"], ignore, listed, tuple(operand), at=at)


def _ignored(item: Any, where: PathKey) -> LooserComparison | IgnoredChars:
    for name in LOOSER_COMPARISONS:
        if item == name:
            return name
    if (
        isinstance(item, Mapping)
        and set(item) == {"chars"}
        and isinstance(item["chars"], str)
        and item["chars"]
    ):
        return IgnoredChars(item["chars"])
    raise MatcherError(
        where, f"ignore takes punctuation, accents, whitespace or {{chars: ...}}, got {_kind(item)}"
    )


def _object_match(value: Mapping[str, Any], at: PathKey, depth: int) -> Matcher:
    fields, extra = value["object"], value.get("extra_keys")
    if not isinstance(fields, Mapping):
        raise MatcherError(
            (*at, "object"), f"object takes a mapping of keys to matchers, got {_kind(fields)}"
        )
    if "extra_keys" in value and not isinstance(extra, bool):
        raise MatcherError((*at, "extra_keys"), f"extra_keys takes true or false, got {_kind(extra)}")
    parsed = _fields(fields, (*at, "object"), depth + 1)
    return ObjectMatch(parsed, extra, tuple(value), at=at)


# The matchers read by a function of (key, operand, where the operand is, where the matcher is, depth).
_READERS: dict[str, Callable[[str, Any, PathKey, PathKey, int], Matcher]] = {
    "one_of": _listed,
    "any_of": _listed,
    "all_of": _listed,
    "unordered": _listed,
    "range": _range,
    "approx": _approx,
    "normalized": _normalized,
}


def _json(value: Any, at: PathKey, depth: int) -> JsonValue:
    """A literal operand (``equals``, ``one_of``, ``schema``): any JSON value, within the nesting bound."""
    stack = [(value, at, depth)]
    while stack:
        item, where, level = stack.pop()
        if level > limits.MAX_NESTING:
            raise MatcherError(where, f"value nested deeper than {limits.MAX_NESTING} levels", "flatten it")
        if isinstance(item, Mapping):
            stack.extend((v, (*where, _name(k, where)), level + 1) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*where, i), level + 1) for i, v in enumerate(item))
        elif not (item is None or isinstance(item, (str, int, float))):
            raise MatcherError(where, f"not a JSON value: {_kind(item)}")
    return value  # type: ignore[no-any-return]


def _text(operand: Any, where: PathKey, key: str) -> str:
    if not isinstance(operand, str):
        raise MatcherError(where, f"{key} takes a text, got {_kind(operand)}")
    return operand


def _kind(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a text", bool: "a boolean", type(None): "null"}
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return "a number" if isinstance(value, (int, float)) else type(value).__name__


# --- rendering and walking -----------------------------------------------------------------------


def to_json(node: Matcher | None) -> JsonValue:
    """The JSON ``node`` was read from, exactly (None: no expectation, as for an unexpected argument)."""
    return None if node is None else node.json()


def walk(node: Matcher) -> Iterator[Matcher]:
    """``node`` and every matcher inside it, each before the ones it holds, in the order written."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children()))


def has_judge(node: Matcher) -> bool:
    """Whether a ``judge`` matcher is anywhere in ``node``."""
    return any(isinstance(n, Judge) for n in walk(node))


def any_judged(nodes: Mapping[str, Matcher] | None) -> bool:
    """Whether any matcher of a mapping of them holds a ``judge`` matcher."""
    return nodes is not None and any(has_judge(n) for n in nodes.values())


def matchers_json(nodes: Mapping[str, Matcher]) -> JsonObject:
    """A mapping of name -> matcher, as written."""
    return {name: node.json() for name, node in nodes.items()}
