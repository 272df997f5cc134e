"""Property-based tests of the argument matchers (gate.suite.matcher_tree, gate.suite.matchers).

Model output is untrusted and suites are written by people: whatever a suite writes, reading it as a
matcher gives a tree or a located refusal, exactly as the suite schema decides; whatever the matcher
and whatever the value, matching gives an outcome and never raises; a tree renders back to what was
written; and the matcher algebra holds (literal equality is reflexive, ``not`` inverts, ``optional``
accepts absence, ``equals`` is literal).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gate.files.suite_schema import suite_schema
from gate.suite import matchers as matching
from gate.suite.matcher_tree import MATCHER_KEYS, MatcherError, is_matcher, parse_matcher
from gate.suite.matchers import MatchOutcome
from gate.util import schema_check

FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

keys = st.text(min_size=0, max_size=6).filter(lambda k: k not in MATCHER_KEYS)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
numbers = st.integers(-1000, 1000) | st.floats(-1e6, 1e6, allow_nan=False)
schemas = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 1, "maximum": 7},
        {"type": "array", "items": {"type": "number"}},
        {"type": "object", "required": ["a"], "properties": {"a": {"type": "boolean"}}},
        {"enum": ["metric", "imperial", None]},
        {"type": "strng"},  # an invalid schema: reported, not raised
        {"minimum": "zero"},
    ]
)

base_matchers = st.one_of(
    scalars,
    st.builds(lambda v: {"equals": v}, json_values),
    st.builds(lambda vs: {"one_of": vs}, st.lists(json_values, min_size=1, max_size=4)),
    st.builds(
        lambda p: {"regex": p}, st.text(max_size=8) | st.sampled_from(["^Par", r"\d+", "(", "[a-", "a{2,1}"])
    ),
    st.builds(lambda n: {"contains": n}, json_values),
    st.builds(
        lambda lo, hi: {"range": {k: v for k, v in (("min", lo), ("max", hi)) if v is not None}},
        st.none() | numbers,
        st.none() | numbers,
    ).filter(lambda m: m["range"]),
    st.builds(
        lambda v, t, r: {"approx": {"value": v, "tolerance": t, "rel_tolerance": r}},
        numbers,
        st.floats(0, 100, allow_nan=False),
        st.floats(0, 1, allow_nan=False),
    ),
    st.builds(lambda s: {"schema": s}, schemas),
    st.builds(lambda t: {"normalized": t}, st.text(max_size=12)),
    st.just({"anything": True}),
    st.just({"absent": True}),
    st.just({"optional": True}),
)


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda m: {"optional": m}, inner),
        st.builds(lambda m: {"not": m}, inner),
        st.builds(lambda ms: {"unordered": ms}, st.lists(inner, max_size=3)),
        st.builds(
            lambda d, e: {"object": d, "extra_keys": e},
            st.dictionaries(keys, inner, max_size=3),
            st.booleans(),
        ),
        st.dictionaries(keys, inner, max_size=3),  # a plain object pattern
        st.lists(inner, max_size=3),  # a plain list pattern
    )


matchers = st.recursive(base_matchers, _extend, max_leaves=8)

# Matcher keys with arguments of any shape at all (what a careless suite could contain), including
# the sub-keys the matchers read (range bounds, approx tolerances) with values of the wrong type.
junk_keys = (
    st.sampled_from(["min", "max", "value", "tolerance", "rel_tolerance", "extra_keys", "object"]) | keys
)
junk_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(junk_keys, inner, max_size=3),
    max_leaves=8,
)
junk_matchers = st.recursive(
    junk_values | st.builds(lambda k, v: {k: v}, st.sampled_from(sorted(MATCHER_KEYS)), junk_values),
    lambda inner: (
        st.builds(lambda k, v: {k: v}, st.sampled_from(sorted(MATCHER_KEYS)), inner)
        | st.builds(lambda d, e: {"object": d, "extra_keys": e}, inner, junk_values)
        | st.lists(inner, max_size=3)
        | st.dictionaries(junk_keys, inner, max_size=3)
    ),
    max_leaves=8,
)


def match_value(written: Any, present: bool, value: Any, path: str = "") -> MatchOutcome:
    return matching.match_value(parse_matcher(written), present, value, path=path)


def _check(outcome: object) -> MatchOutcome:
    assert isinstance(outcome, MatchOutcome)
    assert isinstance(outcome.ok, bool)
    if outcome.ok:
        assert outcome.reason is None
    else:
        assert outcome.reason in {
            "missing_argument",
            "unexpected_argument",
            "type_error",
            "value_error",
            "judge_failed",
        }
        assert outcome.detail  # a failure always says why
    return outcome


def _has_matcher_mapping(value: Any) -> bool:
    """Whether a literal value contains a mapping that the language reads as a matcher."""
    if isinstance(value, dict):
        return is_matcher(value) or any(_has_matcher_mapping(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_matcher_mapping(v) for v in value)
    return False


@FUZZ
@given(matcher=matchers, present=st.booleans(), value=json_values)
def test_match_value_never_raises_on_well_formed_matchers(matcher: Any, present: bool, value: Any) -> None:
    _check(match_value(matcher, present, value if present else None, path="arg"))


@FUZZ
@given(matcher=junk_matchers, present=st.booleans(), value=json_values)
def test_a_malformed_matcher_is_refused_where_it_is_written_or_else_matches_without_raising(
    matcher: Any, present: bool, value: Any
) -> None:
    try:
        tree = parse_matcher(matcher, ("args", "x"))
    except MatcherError as exc:
        assert exc.at[:2] == ("args", "x") and exc.message
        return
    _check(matching.match_value(tree, present, value if present else None, path="arg"))


@FUZZ
@given(matcher=junk_matchers | matchers)
def test_the_parser_reads_exactly_what_the_suite_schema_accepts_as_a_matcher(matcher: Any) -> None:
    try:
        parse_matcher(matcher)
    except MatcherError:
        read = False
    else:
        read = True
    assert read is schema_check.is_valid(suite_schema(), matcher, "matcher")


@FUZZ
@given(matcher=junk_matchers | matchers)
def test_a_tree_renders_back_to_what_was_written_key_order_included(matcher: Any) -> None:
    try:
        tree = parse_matcher(matcher)
    except MatcherError:
        return
    assert json.dumps(tree.json()) == json.dumps(matcher)


@FUZZ
@given(value=json_values)
def test_literal_equality_is_reflexive(value: Any) -> None:
    assert _check(match_value({"equals": value}, True, value)).ok
    if not _has_matcher_mapping(value):
        assert _check(match_value(value, True, value)).ok


@FUZZ
@given(value=st.integers(-(10**9), 10**9))
def test_literals_are_typed(value: int) -> None:
    assert match_value(value, True, float(value)).ok  # 5 == 5.0
    assert not match_value(value, True, str(value)).ok  # "5" != 5
    assert match_value(value, True, str(value)).reason == "type_error"
    assert not match_value(True, True, 1).ok and not match_value(1, True, True).ok  # true != 1


@FUZZ
@given(matcher=matchers, value=json_values)
def test_not_inverts_a_matcher_on_present_values(matcher: Any, value: Any) -> None:
    inner = _check(match_value(matcher, True, value))
    negated = _check(match_value({"not": matcher}, True, value))
    assert negated.ok is (not inner.ok)


@FUZZ
@given(matcher=matchers, value=json_values)
def test_optional_accepts_absence_and_otherwise_defers(matcher: Any, value: Any) -> None:
    assert _check(match_value({"optional": matcher}, False, None)).ok
    assert match_value({"optional": True}, True, value).ok
    assume(matcher is not True)  # {optional: true} is the flag form: "optional, any value"
    inner = _check(match_value(matcher, True, value))
    assert _check(match_value({"optional": matcher}, True, value)).ok is inner.ok


@FUZZ
@given(value=json_values)
def test_absent_and_anything(value: Any) -> None:
    assert match_value({"absent": True}, False, None).ok
    assert not match_value({"absent": True}, True, value).ok
    assert match_value({"anything": True}, True, value).ok
    assert not match_value({"anything": True}, False, None).ok


@FUZZ
@given(matcher=matchers)
def test_a_missing_argument_fails_unless_optional_or_absent(matcher: Any) -> None:
    outcome = _check(match_value(matcher, False, None))
    allows_absence = (
        isinstance(matcher, dict) and is_matcher(matcher) and ("optional" in matcher or "absent" in matcher)
    )
    assert outcome.ok is allows_absence
    if not allows_absence:
        assert outcome.reason == "missing_argument"
