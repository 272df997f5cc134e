"""What ``validate`` refuses in matcher specs because no user can mean it (DESIGN.md section 2).

A matcher is a mapping with exactly one matcher key; any other mapping is an object literal matched
key by key. So a mapping that *looks* like a matcher but is not one would silently become an object
literal that no call ever sends. These checks refuse, each at the mapping's ``file:line:column``:

- several matcher keys in one mapping (``{regex: ..., optional: true}``), or a matcher key mixed
  with other keys (``{normalized: C#, ignore: [punctuation]}``): the fix is to nest them
  (``{optional: {regex: ...}}``) or, for an object whose keys happen to be matcher names, to write
  ``{equals: {...}}``;
- a misspelled matcher key (``{regexp: ...}``: did you mean ``regex``?), judged by string similarity
  and by the operand having the shape that matcher takes;
- ``one_of`` holding matcher mappings (``one_of`` takes values, ``any_of`` takes matchers), in a
  matcher or in a path assertion;
- a ``normalized`` matcher whose ``ignore`` names ``chars`` beside ``punctuation``, or letters or
  digits in ``chars`` (``gate.util.text_normalization`` says why).

None of this applies where the mapping is a real object literal: the tool's own parameter schema
for the argument is consulted, and keys it declares as properties are object keys, never matchers.
Where no schema is known (``final_state``, ``state_when``, path ``match``) the checks still apply;
``{equals: {...}}`` states an object literal there.

Pure: ``(path, message, hint)`` triples, reported by the suite builder.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gate.assembly.checks.finding import Finding
from gate.assembly.checks.schema_position import declared, item_schema, property_schema, types
from gate.suite import matcher_tree as mt
from gate.suite.matcher_tree import MATCHER_KEYS, Matcher, is_matcher
from gate.util.escape import show
from gate.util.json_types import PathKey
from gate.util.text_normalization import ignore_chars
from gate.util.wording import closest

# The operand shapes of the matchers whose operand has one: a misspelled key is only reported when its
# operand fits the matcher it resembles (``{regexp: {title: "a.*"}}`` is an object literal, as in a
# search DSL, not a misspelled ``regex``).
_OPERAND_TYPES: dict[str, tuple[type, ...]] = {
    "one_of": (list,),
    "any_of": (list,),
    "all_of": (list,),
    "unordered": (list,),
    "regex": (str,),
    "judge": (str,),
    "normalized": (str, dict),
    "range": (dict,),
    "approx": (dict,),
    "object": (dict,),
    "schema": (dict, bool),
    "absent": (bool,),
    "anything": (bool,),
}
# Matchers that only ever match strings, numbers or arrays: where the schema declares an object
# property of their name, ``{key: ...}`` is more likely that object than the matcher.
NEVER_AN_OBJECT = frozenset({"regex", "normalized", "range", "approx", "unordered", "contains"})
# difflib ratio of the keys with case, "-" and "_" ignored: where the schema says the value is no object
# (a mapping there can only be a matcher), and the stricter one where no schema is known (a state, a
# path match: ``{option: dark}`` or ``{ordered: [...]}`` are as likely an object's own keys).
_SIMILARITY = 0.85
_SIMILARITY_WITHOUT_SCHEMA = 0.9


def arguments_problems(
    args: Mapping[str, Matcher], parameters: Mapping[str, Any] | None = None
) -> list[Finding]:
    """Problems in a mapping of name -> matcher (expected ``args``, a mock's ``when``, ``final_state``,
    ``state_when``); ``parameters`` is the tool's parameter schema when the names are its arguments."""
    root = parameters if isinstance(parameters, Mapping) else None
    found: list[Finding] = []
    for name, matcher in args.items():
        found.extend(_walk(matcher, property_schema(root, name, root), root))
    return found


def _walk(node: Matcher, schema: Any, root: Mapping[str, Any] | None) -> Iterator[Finding]:
    if isinstance(node, mt.ListPattern):
        for index, item in enumerate(node.items):
            yield from _walk(item, item_schema(schema, index, root), root)
    elif isinstance(node, mt.ObjectPattern):
        yield from _object_literal(node, schema, root)
    elif not isinstance(node, mt.Value):
        yield from _matcher(node, schema, root)


def _matcher(node: Matcher, schema: Any, root: Mapping[str, Any] | None) -> Iterator[Finding]:
    """Problems inside a matcher's operand (matchers nest)."""
    key = mt.key_of(node)
    if key in NEVER_AN_OBJECT and key in declared(schema, root) and types(schema, root) == {"object"}:
        yield (
            node.at,
            f"{{{key}: ...}} is read as the matcher {key!r}, which never matches an object, "
            f"but this argument is an object with a property {key!r}",
            f"for the object write {{equals: {{{key}: ...}}}} or {{object: {{{key}: ...}}}}",
        )
    if isinstance(node, mt.OneOf):
        yield from one_of_problems(node.values, (*node.at, "one_of"))
    elif isinstance(node, mt.Normalized):
        yield from _ignored_problems(node, (*node.at, "normalized", "ignore"))
    elif isinstance(node, (mt.Optional, mt.Not, mt.AnyOf, mt.AllOf)):
        for inner in node.children():
            yield from _walk(inner, schema, root)
    elif isinstance(node, mt.Unordered):
        for index, item in enumerate(node.items):
            yield from _walk(item, item_schema(schema, index, root), root)
    elif isinstance(node, mt.Contains):
        yield from _walk(node.needle, item_schema(schema, 0, root), root)
    elif isinstance(node, mt.ObjectMatch):
        for name, value in node.fields:
            yield from _walk(value, property_schema(schema, name, root), root)


def _ignored_problems(node: mt.Normalized, at: PathKey) -> Iterator[Finding]:
    """A ``normalized`` matcher's ``ignore`` that cannot keep its promises: ``chars`` beside
    ``punctuation`` (one turns a hyphen into a space, the other drops it: together, adding an option
    could turn a pass into a fail), or ``chars`` naming letters or digits (they change the value)."""
    ignored = node.ignored
    if ignored.chars and "punctuation" in ignored.kinds:
        yield (
            at,
            "ignore names both punctuation and chars: punctuation ignores every punctuation mark except "
            "inside a number, chars exactly the characters it names",
            'keep one: ignore: [punctuation] or ignore: {chars: " -"} (name every mark to ignore)',
        )
    named = sorted(c for c in ignore_chars(ignored.chars) if c.isalnum())
    if named:
        yield (
            at,
            f"chars names {'letters or digits' if len(named) > 1 else 'a letter or digit'} "
            f"({show(''.join(named))}): a letter or digit always counts, ignoring it changes the value",
            'name only marks, symbols and white space, e.g. {chars: " -_/"}',
        )


def one_of_problems(options: Any, at: PathKey, instead: str = "{any_of: [...]}") -> Iterator[Finding]:
    """Matcher mappings among the values of a ``one_of`` (a matcher's or a path assertion's, where
    ``instead`` is ``match: {any_of: [...]}``)."""
    if not isinstance(options, (list, tuple)):
        return
    for index, option in enumerate(options):
        if isinstance(option, Mapping) and is_matcher(option):
            yield (
                (*at, index),
                f"one_of takes values, not matchers: {show(option, 80)} would be compared as an object",
                f"one_of takes values; any_of takes matchers: write {instead} (values may stay in it)",
            )


def _object_literal(node: mt.ObjectPattern, schema: Any, root: Mapping[str, Any] | None) -> Iterator[Finding]:
    """A plain mapping: an object matched key by key, unless it can only be a mistaken matcher."""
    names = declared(schema, root)
    keys = [key for key, _ in node.fields]
    looks_like_matcher = [k for k in keys if k in MATCHER_KEYS and k not in names]
    if looks_like_matcher and len(keys) > 1:
        yield (node.at, *_several_keys(keys, looks_like_matcher))
    elif len(keys) == 1:
        ((key, operand),) = node.fields
        meant = None
        if key not in names and "object" not in types(schema, root):  # an object's own keys are its own
            cutoff = _SIMILARITY if schema is not None else _SIMILARITY_WITHOUT_SCHEMA
            meant = _misspelled(key, _written_type(operand), cutoff)
        if meant is not None:
            yield (
                node.at,
                f"unknown matcher key {key!r}: did you mean {meant!r}?",
                f"write {{{meant}: ...}}; for an object with a key {key!r} write {{equals: {{{key}: ...}}}}",
            )
    for name, value in node.fields:
        yield from _walk(value, property_schema(schema, name, root), root)


def _written_type(node: Matcher) -> type:
    """The Python type of the JSON ``node`` was read from (a matcher mapping is a ``dict``)."""
    if isinstance(node, mt.Value):
        return type(node.value)
    return list if isinstance(node, mt.ListPattern) else dict


def _several_keys(keys: list[str], matcher_keys: list[str]) -> tuple[str, str]:
    others = [k for k in keys if k not in matcher_keys]
    literal = "for an object whose keys happen to be matcher names write {equals: {...}}"
    if len(matcher_keys) > 1:
        names = ", ".join(sorted(matcher_keys))
        message = f"several matcher keys in one mapping ({names}): a matcher has exactly one key"
        return message, f"nest them, e.g. {_nested(matcher_keys)}; {literal}"
    key = matcher_keys[0]
    names = ", ".join(repr(k) for k in others)
    message = f"the matcher key {key!r} is mixed with {names}: a matcher has exactly one key"
    if key == "normalized" and set(others) <= {"ignore", "value"}:
        return message, f"write {{normalized: {{value: ..., ignore: [...]}}}}; {literal}"
    return message, f"put the other keys inside the matcher's operand; {literal}"


def _nested(keys: list[str]) -> str:
    """How to write several matchers at once: wrapped in optional / not, else all_of."""
    wrappers = [k for k in ("optional", "not") if k in keys]
    rest = [k for k in keys if k not in wrappers]
    if wrappers and len(rest) == 1:
        return f"{{{wrappers[0]}: {{{rest[0]}: ...}}}}"
    return "{all_of: [" + ", ".join(f"{{{k}: ...}}" for k in sorted(keys)) + "]}"


def _canonical(key: str) -> str:
    return key.casefold().replace("-", "").replace("_", "")


_CANONICAL_KEYS = {_canonical(k): k for k in MATCHER_KEYS}


def _misspelled(key: str, operand: type, cutoff: float) -> str | None:
    """The matcher key ``key`` most likely stands for (at least ``cutoff`` similar), when its operand
    (of type ``operand``) fits that matcher."""
    canonical = _canonical(key)
    meant = _CANONICAL_KEYS.get(canonical)
    if meant is None:
        close = closest(canonical, list(_CANONICAL_KEYS), cutoff)
        meant = _CANONICAL_KEYS[close] if close is not None else None
    if meant is None or meant == key:
        return None
    kinds = _OPERAND_TYPES.get(meant)
    if kinds is not None and not (issubclass(operand, kinds) and not _bool_for_number(operand, kinds)):
        return None
    return meant


def _bool_for_number(operand: type, kinds: tuple[type, ...]) -> bool:
    return operand is bool and bool not in kinds


def never_judged(place: str) -> tuple[str, str]:
    """The problem of a ``judge`` matcher where no judge is ever asked (a mock rule, final_state):
    mocks answer during the run, and the final state is checked without verdicts."""
    return (
        f"a judge matcher cannot decide {place}: it is never asked there",
        "match with regex, one_of or any_of here; judge criteria are asked for expected call arguments, "
        "output checks and path assertions",
    )
