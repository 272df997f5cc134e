"""The argument matcher language (docs/architecture.md, "Argument matchers"): what it means for a value
to match a matcher tree (``gate.suite.matcher_tree``, parsed once when the suite is assembled).

Every comparison gives a ``MatchOutcome`` whose ``reason`` distinguishes a wrong JSON type
(``type_error``) from a wrong value of the right type (``value_error``), a missing value, an
unexpected one, and a judge that could not decide (``judge_failed``). Pure: ``judge`` matchers read
verdicts the evaluator obtained beforehand (see ``judge_requests_for_arguments``).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gate.suite import matcher_tree as mt
from gate.suite.judging import JudgeRequest, JudgeVerdict, unique_requests
from gate.suite.matcher_tree import Matcher
from gate.util import bounded_regex
from gate.util.assignment import optimal_assignment
from gate.util.escape import show
from gate.util.text_normalization import NOTHING_IGNORED, normalize_text
from gate.util.wording import plural

MatchReason = Literal["missing_argument", "unexpected_argument", "type_error", "value_error", "judge_failed"]


@dataclass(frozen=True)
class MatchOutcome:
    """The result of matching one expected value. ``path`` names the argument (``city``,
    ``filter.city``, ``stops[1]``); ``expected`` is the matcher (None for a value no matcher expects;
    ``expected.json()`` is its YAML form)."""

    ok: bool
    reason: MatchReason | None
    detail: str
    expected: Matcher | None
    actual: Any
    path: str


_JSON_TYPES = {
    type(None): "null",
    bool: "boolean",
    int: "number",
    float: "number",
    str: "string",
    list: "array",
    tuple: "array",
    dict: "object",
}


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (booleans are not numbers)."""
    known = _JSON_TYPES.get(type(value))
    if known is not None:
        return known
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def typed_equal(expected: Any, actual: Any) -> bool:
    """JSON equality: same JSON type and equal value, recursively (``5 == 5.0``, ``True != 1``)."""
    kind = json_type(expected)
    if kind != json_type(actual):
        return False
    if kind == "array":
        return len(expected) == len(actual) and all(
            typed_equal(e, a) for e, a in zip(expected, actual, strict=True)
        )
    if kind == "object":
        return set(expected) == set(actual) and all(typed_equal(expected[k], actual[k]) for k in expected)
    return bool(expected == actual)


def value_text(value: Any) -> str:
    """A value as the text a judge reads: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else show(value, limit=10_000)


@dataclass
class _Context:
    verdicts: Mapping[str, JudgeVerdict] | None
    requests: list[JudgeRequest] | None = None


def _ok(expected: Matcher, actual: Any, path: str, detail: str = "") -> MatchOutcome:
    return MatchOutcome(True, None, detail, expected, actual, path)


def _fail(reason: MatchReason, detail: str, expected: Matcher | None, actual: Any, path: str) -> MatchOutcome:
    return MatchOutcome(False, reason, detail, expected, actual, path)


def _key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else str(key)


def _index_path(path: str, index: int) -> str:
    return f"{path}[{index}]"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _type_fail(wanted: str, matcher: Matcher, value: Any, path: str) -> MatchOutcome:
    return _fail(
        "type_error", f"expected {wanted}, got {json_type(value)} {show(value)}", matcher, value, path
    )


@functools.lru_cache(maxsize=256)
def schema_validator(schema_json: str) -> Any:
    """A compiled, cached JSON Schema validator for a schema given as canonical JSON text (sorted
    keys). Raises ``jsonschema.SchemaError`` for an invalid schema."""
    import jsonschema  # lazy: heavy, and only needed by schema checks
    from jsonschema_specifications import REGISTRY  # the JSON Schema meta-schemas, nothing else

    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    cls = bounded_regex.bounded_validator(cls)  # user patterns run in bounded time
    # An explicit registry without a retriever: a remote "$ref" in a suite or tool file is never
    # fetched (jsonschema's default would make an HTTP request to any URL a pull request names).
    return cls(schema, registry=REGISTRY)


def _literal(expected: Any, value: Any, path: str, matcher: Matcher) -> MatchOutcome:
    if typed_equal(expected, value):
        return _ok(matcher, value, path)
    if json_type(expected) != json_type(value):
        return _fail(
            "type_error",
            f"expected {json_type(expected)} {show(expected)}, got {json_type(value)} {show(value)}",
            matcher,
            value,
            path,
        )
    return _fail("value_error", f"expected {show(expected)}, got {show(value)}", matcher, value, path)


def _first_failure(outcomes: list[MatchOutcome], matcher: Matcher, value: Any, path: str) -> MatchOutcome:
    """The first failure that is the agent's, else the first a judge left undecided, else a pass: a
    wrong value next to a judge that gave no verdict is a failure, not an error (``judge_failed``)."""
    failures = sorted((o for o in outcomes if not o.ok), key=lambda o: o.reason == "judge_failed")
    return failures[0] if failures else _ok(matcher, value, path)


def _match_object(
    fields: tuple[tuple[str, Matcher], ...],
    extra_keys: bool,
    matcher: Matcher,
    value: Any,
    ctx: _Context,
    path: str,
) -> MatchOutcome:
    if not isinstance(value, Mapping):
        return _type_fail("object", matcher, value, path)
    outcomes = [_match(sub, key in value, value.get(key), ctx, _key_path(path, key)) for key, sub in fields]
    if not extra_keys:
        named = {key for key, _ in fields}
        for key in value:
            if key not in named:
                outcomes.append(
                    _fail(
                        "unexpected_argument",
                        f"unexpected key {key!r}",
                        None,
                        value[key],
                        _key_path(path, key),
                    )
                )
    return _first_failure(outcomes, matcher, value, path)


def _match_list(pattern: mt.ListPattern, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    if not isinstance(value, (list, tuple)):
        return _type_fail("array", pattern, value, path)
    items = pattern.items
    if len(items) != len(value):
        return _fail(
            "value_error",
            f"expected {plural(len(items), 'element')}, got {len(value)}",
            pattern,
            value,
            path,
        )
    outcomes = [
        _match(p, True, v, ctx, _index_path(path, i))
        for i, (p, v) in enumerate(zip(items, value, strict=True))
    ]
    return _first_failure(outcomes, pattern, value, path)


def _match_unordered(matcher: mt.Unordered, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    if not isinstance(value, (list, tuple)):
        return _type_fail("array", matcher, value, path)
    items = matcher.items
    grid = [[_match(item, True, v, ctx, _index_path(path, j)) for j, v in enumerate(value)] for item in items]
    if len(items) != len(value):
        return _fail(
            "value_error",
            f"expected {len(items)} elements in any order, got {len(value)}",
            matcher,
            value,
            path,
        )
    if not items:
        return _ok(matcher, value, path)
    # Undecided judge criteria taken as met first: an element no pairing matches even then is the
    # agent's failure whatever the judge says; only otherwise is the judge's missing verdict to blame.
    undecided = any(o.reason == "judge_failed" for row in grid for o in row)
    passes: tuple[tuple[MatchReason, Callable[[MatchOutcome], bool]], ...] = (
        (("value_error", _met_or_undecided), ("judge_failed", _met))
        if undecided
        else (("value_error", _met),)
    )
    for reason, counts in passes:
        pairing = optimal_assignment([[0.0 if counts(o) else 1.0 for o in row] for row in grid])
        for i, j in enumerate(pairing):
            if j is None or not counts(grid[i][j]):
                unmatched = grid[i][j] if j is not None else None
                why = f": {unmatched.detail}" if unmatched is not None and unmatched.detail else ""
                element = show(items[i].json())
                return _fail(reason, f"no one-to-one match for element {element}{why}", matcher, value, path)
    return _ok(matcher, value, path)


def _met(outcome: MatchOutcome) -> bool:
    return outcome.ok


def _met_or_undecided(outcome: MatchOutcome) -> bool:
    return outcome.ok or outcome.reason == "judge_failed"


def _match_contains(matcher: mt.Contains, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    needle = matcher.needle
    literal = needle.value if isinstance(needle, mt.Value) else None
    if isinstance(value, str):
        if not isinstance(literal, str):
            return _type_fail(f"an array containing {show(needle.json())}", matcher, value, path)
        if literal in value:
            return _ok(matcher, value, path)
        return _fail("value_error", f"{show(value)} does not contain {show(literal)}", matcher, value, path)
    if isinstance(value, (list, tuple)):
        undecided = None
        if isinstance(needle, mt.Value):
            found = any(typed_equal(literal, v) for v in value)
        else:
            outcomes = [_match(needle, True, v, ctx, _index_path(path, i)) for i, v in enumerate(value)]
            found = any(o.ok for o in outcomes)
            undecided = next((o for o in outcomes if o.reason == "judge_failed"), None)
        if found:
            return _ok(matcher, value, path)
        if undecided is not None:  # an element the judge did not decide on might have matched
            return _fail("judge_failed", undecided.detail, matcher, value, path)
        return _fail("value_error", f"no element matches {show(needle.json())}", matcher, value, path)
    wanted = "a string" if isinstance(literal, str) else "an array"
    return _type_fail(f"{wanted} containing {show(needle.json())}", matcher, value, path)


def _match_range(matcher: mt.Range, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    if not _is_number(value):
        return _type_fail("a number", matcher, value, path)
    low, high = matcher.min, matcher.max
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else show(low)
        hi = "inf" if high is None else show(high)
        return _fail("value_error", f"{show(value)} is outside [{lo}, {hi}]", matcher, value, path)
    return _ok(matcher, value, path)


def _match_approx(matcher: mt.Approx, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    if not _is_number(value):
        return _type_fail("a number", matcher, value, path)
    target, tolerance, rel = matcher.value, matcher.tolerance or 0.0, matcher.rel_tolerance or 0.0
    allowed = max(tolerance, rel * abs(target))
    if not (tolerance or rel):
        allowed = 1e-9 * max(1.0, abs(target))
    difference = abs(value - target)
    if math.isnan(difference) or difference > allowed + 1e-12:
        return _fail(
            "value_error", f"{show(value)} is not within {allowed:g} of {show(target)}", matcher, value, path
        )
    return _ok(matcher, value, path)


def _match_schema(matcher: mt.Schema, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    import jsonschema

    try:
        validator = schema_validator(json.dumps(matcher.schema, sort_keys=True))
    except (jsonschema.SchemaError, TypeError, ValueError) as exc:
        message = getattr(exc, "message", str(exc))
        return _fail("value_error", f"the schema is invalid: {message}", matcher, value, path)
    from referencing.exceptions import Unresolvable

    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    except Unresolvable as exc:
        why = (
            f"the schema has a reference that cannot be resolved (remote references are never fetched): {exc}"
        )
        return _fail("value_error", why, matcher, value, path)
    if error is None:
        return _ok(matcher, value, path)
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    reason: MatchReason = "type_error" if error.validator == "type" and not where else "value_error"
    return _fail(
        reason, f"schema: {where.lstrip('.') + ': ' if where else ''}{error.message}", matcher, value, path
    )


def _match_judge(matcher: mt.Judge, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    criterion = matcher.criterion
    request = argument_request(criterion, value, path)
    if ctx.requests is not None:
        ctx.requests.append(request)
    verdict = ctx.verdicts.get(request.key) if ctx.verdicts is not None else None
    if verdict is None:
        return _fail(
            "judge_failed", f"no judge verdict for criterion {show(criterion)}", matcher, value, path
        )
    if verdict.passed:
        return _ok(matcher, value, path, verdict.rationale)
    return _fail(
        "value_error", f"judge: does not meet {show(criterion)}: {verdict.rationale}", matcher, value, path
    )


def argument_request(criterion: str, value: Any, path: str) -> JudgeRequest:
    """The judge request of a ``{judge: criterion}`` matcher applied to ``value`` at ``path``."""
    return JudgeRequest(
        kind="argument",
        text=value_text(value),
        criterion=criterion,
        context=f"argument {path}" if path else "",
    )


def _match(matcher: Matcher, present: bool, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    presence = _PRESENCE_MATCHERS.get(type(matcher))
    if presence is not None:
        return presence(matcher, present, value, ctx, path)
    if not present:
        return _fail("missing_argument", f"missing; expected {show(matcher.json())}", matcher, None, path)
    return _VALUE_MATCHERS[type(matcher)](matcher, value, ctx, path)


# --- matchers that decide about presence themselves ---------------------------------------------------


def _match_optional(
    matcher: mt.Optional, present: bool, value: Any, ctx: _Context, path: str
) -> MatchOutcome:
    if not present:
        return _ok(matcher, None, path, "absent (optional)")
    inner = matcher.inner
    if inner is None:  # {optional: true}: any value
        return _ok(matcher, value, path)
    return _match(inner, present, value, ctx, path)


def _match_absent(matcher: mt.Absent, present: bool, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    if present:
        return _fail("unexpected_argument", f"must be absent, got {show(value)}", matcher, value, path)
    return _ok(matcher, None, path)


def _match_any_of(matcher: mt.AnyOf, present: bool, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    """Passes at the first matcher that matches (later ones are not tried, so their judge criteria
    are never asked); a failure names every matcher tried and why each refused the value."""
    tried: list[MatchOutcome] = []
    for item in matcher.items:
        outcome = _match(item, present, value, ctx, path)
        if outcome.ok:
            return _ok(matcher, outcome.actual, path, outcome.detail)
        tried.append(outcome)
    shown = show(value) if present else "the missing value"
    why = "; ".join(f"{show(mt.to_json(o.expected), 60)}: {o.detail}" for o in tried) or "no matchers given"
    return _fail(_any_of_reason(tried), f"{shown} matches none of: {why}", matcher, value, path)


def _any_of_reason(tried: list[MatchOutcome]) -> MatchReason:
    """Why no alternative matched: a judge that could not decide (its alternative might have passed)
    first; else the one reason they all give; else a wrong value (some alternative took its type)."""
    reasons = {o.reason for o in tried}
    if "judge_failed" in reasons:
        return "judge_failed"
    if len(reasons) == 1:
        return tried[0].reason or "value_error"
    return "value_error"


def _match_all_of(matcher: mt.AllOf, present: bool, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    """Every matcher is tried (so every judge criterion among them is collected and asked); the first
    failure is the outcome, with which of the matchers it is."""
    items = matcher.items
    outcomes = [_match(item, present, value, ctx, path) for item in items]
    # The agent's failures first: a judge without a verdict must not hide a wrong value as an error.
    for index, outcome in sorted(enumerate(outcomes), key=lambda io: io[1].reason == "judge_failed"):
        if not outcome.ok:
            which = f"all_of item {index + 1} of {len(items)}: {show(items[index].json(), 60)}"
            return _fail(
                outcome.reason or "value_error",
                f"{outcome.detail} ({which})",
                outcome.expected,
                outcome.actual,
                outcome.path,
            )
    return _ok(matcher, value if present else None, path)


def _match_plain(
    matcher: mt.Value | mt.ObjectPattern | mt.ListPattern, present: bool, value: Any, ctx: _Context, path: str
) -> MatchOutcome:
    """A literal, a plain mapping (matched key by key) or a plain list (element by element)."""
    if not present:
        return _fail("missing_argument", f"missing; expected {show(matcher.json())}", matcher, None, path)
    if isinstance(matcher, mt.ObjectPattern):
        return _match_object(matcher.fields, False, matcher, value, ctx, path)
    if isinstance(matcher, mt.ListPattern):
        return _match_list(matcher, value, ctx, path)
    return _literal(matcher.value, value, path, matcher)


# The matchers that decide about presence themselves, by kind: (matcher, present, value, ctx, path).
_PRESENCE_MATCHERS: dict[type, Callable[..., MatchOutcome]] = {
    mt.Value: _match_plain,
    mt.ObjectPattern: _match_plain,
    mt.ListPattern: _match_plain,
    mt.Optional: _match_optional,
    mt.Absent: _match_absent,
    mt.AnyOf: _match_any_of,
    mt.AllOf: _match_all_of,
}


# --- matchers of a present value -----------------------------------------------------------------------


def _match_anything(matcher: mt.Anything, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    return _ok(matcher, value, path)


def _match_equals(matcher: mt.Equals, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    return _literal(matcher.value, value, path, matcher)


def _match_one_of(matcher: mt.OneOf, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    options = list(matcher.values)
    if any(typed_equal(option, value) for option in options):
        return _ok(matcher, value, path)
    if json_type(value) not in {json_type(option) for option in options}:
        return _type_fail(f"one of {show(options)}", matcher, value, path)
    return _fail("value_error", f"{show(value)} is not one of {show(options)}", matcher, value, path)


def _match_regex(matcher: mt.Regex, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    pattern = matcher.pattern
    if not isinstance(value, str):
        return _type_fail(f"a string matching /{pattern}/", matcher, value, path)
    try:
        found = bounded_regex.search(pattern, value)
    except bounded_regex.RegexError as exc:
        return _fail("value_error", f"invalid regex pattern {show(pattern)}: {exc}", matcher, value, path)
    except bounded_regex.RegexTimeout as exc:
        return _fail("value_error", f"{show(value)}: {exc}", matcher, value, path)
    if found:
        return _ok(matcher, value, path)
    return _fail("value_error", f"{show(value)} does not match /{pattern}/", matcher, value, path)


def _match_normalized(matcher: mt.Normalized, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    if not isinstance(value, str):
        return _type_fail("a string", matcher, value, path)
    expected, ignore = matcher.text, matcher.ignored
    if normalize_text(value, ignore) == normalize_text(expected, ignore):
        return _ok(matcher, value, path)
    loosened = f" ignoring {ignore}" if ignore != NOTHING_IGNORED else ""
    return _fail(
        "value_error",
        f"{show(value)} does not equal {show(expected)} after normalisation{loosened}",
        matcher,
        value,
        path,
    )


def _match_object_matcher(matcher: mt.ObjectMatch, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    return _match_object(matcher.fields, bool(matcher.extra_keys), matcher, value, ctx, path)


def _match_not(matcher: mt.Not, value: Any, ctx: _Context, path: str) -> MatchOutcome:
    inner = _match(matcher.inner, True, value, ctx, path)
    if inner.reason == "judge_failed":
        return _fail("judge_failed", inner.detail, matcher, value, path)
    if inner.ok:
        shown = show(matcher.inner.json())
        return _fail("value_error", f"{show(value)} must not match {shown}", matcher, value, path)
    return _ok(matcher, value, path)


# The matchers of a present value, by kind: (matcher, value, ctx, path).
_VALUE_MATCHERS: dict[type, Callable[..., MatchOutcome]] = {
    mt.Anything: _match_anything,
    mt.Equals: _match_equals,
    mt.OneOf: _match_one_of,
    mt.Regex: _match_regex,
    mt.Contains: _match_contains,
    mt.Range: _match_range,
    mt.Approx: _match_approx,
    mt.Schema: _match_schema,
    mt.Normalized: _match_normalized,
    mt.Unordered: _match_unordered,
    mt.ObjectMatch: _match_object_matcher,
    mt.Not: _match_not,
    mt.Judge: _match_judge,
}


def match_value(
    matcher: Matcher,
    present: bool,
    value: Any,
    verdicts: Mapping[str, JudgeVerdict] | None = None,
    path: str = "",
) -> MatchOutcome:
    """Match one value (``present`` False: the argument was not given) against an expected value."""
    return _match(matcher, present, value, _Context(verdicts), path)


def _match_arguments(
    expected_args: Mapping[str, Matcher], actual: Mapping[str, Any], allow_extra: bool, ctx: _Context
) -> tuple[MatchOutcome, ...]:
    outcomes = []
    for name, m in expected_args.items():
        # The common case first: a scalar literal and a present value of the very same Python type
        # that equals it, which ``_literal`` would pass as typed-equal (for JSON's scalars same-type
        # ``==`` is exactly ``typed_equal``; NaN is unequal to itself in both).
        if name in actual:
            value = actual[name]
            if type(m) is mt.Value and type(value) is type(m.value) and m.value == value:
                outcomes.append(MatchOutcome(True, None, "", m, value, name))
                continue
            outcomes.append(_match(m, True, value, ctx, name))
        else:
            outcomes.append(_match(m, False, None, ctx, name))
    if not allow_extra:
        for name, value in actual.items():
            if name not in expected_args:
                outcomes.append(
                    _fail(
                        "unexpected_argument",
                        f"sent {show(value)}, not in the expectation",
                        None,
                        value,
                        name,
                    )
                )
    return tuple(outcomes)


def match_arguments(
    expected_args: Mapping[str, Matcher],
    actual: Mapping[str, Any],
    allow_extra: bool,
    verdicts: Mapping[str, JudgeVerdict] | None = None,
) -> tuple[MatchOutcome, ...]:
    """One outcome per expected argument, then one per unexpected argument (unless ``allow_extra``)."""
    return _match_arguments(expected_args, actual, allow_extra, _Context(verdicts))


def judge_requests_for_arguments(
    expected_args: Mapping[str, Matcher], actual: Mapping[str, Any] | None
) -> list[JudgeRequest]:
    """The judge requests that matching ``actual`` against ``expected_args`` will look up."""
    if actual is None:
        return []
    ctx = _Context(verdicts=None, requests=[])
    _match_arguments(expected_args, actual, True, ctx)
    return unique_requests(ctx.requests or [])


def judge_requests_for_value(matcher: Matcher, value: Any, path: str = "") -> list[JudgeRequest]:
    """The judge requests that ``match_value(matcher, True, value, verdicts, path)`` will look up."""
    ctx = _Context(verdicts=None, requests=[])
    _match(matcher, True, value, ctx, path)
    return unique_requests(ctx.requests or [])
