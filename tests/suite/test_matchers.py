from __future__ import annotations

import pytest

from gate.suite import matchers
from gate.suite.judging import JudgeVerdict
from gate.suite.matcher_tree import any_judged, is_matcher, parse_matcher, parse_matchers, to_json
from gate.util.text_normalization import normalize_text

# Matchers as a suite writes them, read as the assembly reads them.


def match_value(written, present, value, verdicts=None, path=""):
    return matchers.match_value(parse_matcher(written), present, value, verdicts, path)


def match_arguments(written, actual, allow_extra, verdicts=None):
    return matchers.match_arguments(parse_matchers(written), actual, allow_extra, verdicts)


def judge_requests_for_arguments(written, actual):
    return matchers.judge_requests_for_arguments(parse_matchers(written), actual)


def ok(matcher, value, present=True):
    return match_value(matcher, present, value).ok


def reason(matcher, value, present=True):
    return match_value(matcher, present, value).reason


# --- literals: typed equality -------------------------------------------------------------------


def test_int_equals_float():
    assert ok(5, 5.0)
    assert ok(5.0, 5)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [(True, 1), (1, True), ("5", 5), (5, "5"), (None, 0), (None, ""), ([1], {"0": 1})],
)
def test_different_json_types_are_a_type_error(expected, actual):
    outcome = match_value(expected, True, actual)
    assert not outcome.ok
    assert outcome.reason == "type_error"


def test_same_type_different_value_is_a_value_error():
    outcome = match_value("Paris", True, "London", path="city")
    assert (outcome.ok, outcome.reason, outcome.path) == (False, "value_error", "city")
    assert to_json(outcome.expected) == "Paris" and outcome.actual == "London"
    assert "Paris" in outcome.detail and "London" in outcome.detail


def test_equals_takes_a_matcher_looking_object_literally():
    assert ok({"equals": {"regex": "x"}}, {"regex": "x"})
    assert not ok({"equals": {"regex": "x"}}, "x")


def test_nested_plain_mapping_and_list():
    expected = {"filter": {"city": "Paris", "days": [1, 2]}}
    assert ok(expected, {"filter": {"city": "Paris", "days": [1, 2.0]}})
    outcome = match_value(expected, True, {"filter": {"city": "Paris", "days": [2, 1]}}, path="q")
    assert outcome.reason == "value_error" and outcome.path == "q.filter.days[0]"


def test_plain_mapping_rejects_extra_keys_and_reports_missing_ones():
    outcome = match_value({"a": 1}, True, {"a": 1, "b": 2})
    assert (outcome.reason, outcome.path) == ("unexpected_argument", "b")
    outcome = match_value({"a": 1, "b": 2}, True, {"a": 1})
    assert (outcome.reason, outcome.path) == ("missing_argument", "b")


def test_object_matcher_with_extra_keys():
    assert ok({"object": {"a": 1}, "extra_keys": True}, {"a": 1, "b": 2})
    assert not ok({"object": {"a": 1}, "extra_keys": False}, {"a": 1, "b": 2})
    assert reason({"object": {"a": 1}}, [1]) == "type_error"


def test_list_length_mismatch():
    assert reason([1, 2], [1]) == "value_error"
    assert reason([1, 2], "12") == "type_error"


# --- matchers --------------------------------------------------------------------------------------


def test_one_of():
    assert ok({"one_of": ["metric", "celsius"]}, "celsius")
    assert reason({"one_of": ["metric", "celsius"]}, "kelvin") == "value_error"
    assert reason({"one_of": ["metric", "celsius"]}, 3) == "type_error"
    assert ok({"one_of": [1, 2]}, 2.0)


def test_regex_uses_search_and_bad_pattern_is_a_value_error():
    assert ok({"regex": "ar"}, "Paris")
    assert not ok({"regex": "^ar"}, "Paris")
    assert reason({"regex": "a"}, 5) == "type_error"
    outcome = match_value({"regex": "(unclosed"}, True, "x")
    assert outcome.reason == "value_error" and "invalid regex" in outcome.detail


def test_contains_string_and_list():
    assert ok({"contains": "York"}, "New York")
    assert reason({"contains": "york"}, "New York") == "value_error"
    assert ok({"contains": 3}, [1, 2, 3.0])
    assert reason({"contains": 4}, [1, 2, 3]) == "value_error"
    assert ok({"contains": {"regex": "^b"}}, ["apple", "banana"])
    assert reason({"contains": "a"}, 12) == "type_error"
    assert reason({"contains": 1}, "1") == "type_error"


def test_range_is_inclusive_and_bounds_optional():
    matcher = {"range": {"min": 1, "max": 7}}
    assert ok(matcher, 1) and ok(matcher, 7) and ok(matcher, 3.5)
    assert reason(matcher, 0) == "value_error"
    assert reason(matcher, 8) == "value_error"
    assert reason(matcher, "3") == "type_error"
    assert reason(matcher, True) == "type_error"
    assert ok({"range": {"min": 10}}, 1e9)
    assert ok({"range": {"max": 0}}, -5)


def test_approx_absolute_and_relative():
    assert ok({"approx": {"value": 10, "tolerance": 0.5}}, 10.5)
    assert reason({"approx": {"value": 10, "tolerance": 0.5}}, 10.6) == "value_error"
    assert ok({"approx": {"value": 200, "rel_tolerance": 0.01}}, 198)
    assert not ok({"approx": {"value": 200, "rel_tolerance": 0.01}}, 197.9)
    assert reason({"approx": {"value": 1, "tolerance": 1}}, "1") == "type_error"


def test_schema_matcher_distinguishes_type_from_value():
    schema = {"type": "integer", "minimum": 1}
    assert ok({"schema": schema}, 3)
    assert reason({"schema": schema}, 0) == "value_error"
    assert reason({"schema": schema}, "3") == "type_error"
    outcome = match_value({"schema": {"type": "object", "required": ["a"]}}, True, {})
    assert outcome.reason == "value_error" and "'a'" in outcome.detail


def test_schema_matcher_with_invalid_schema_does_not_crash():
    outcome = match_value({"schema": {"type": 12}}, True, 3)
    assert outcome.reason == "value_error" and "invalid" in outcome.detail


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("New York", "  new   york "),
        ("New York", "NEW\tYORK"),
        ("ｐａｒｉｓ", "Paris"),  # a compatibility form
        ("Straße", "STRASSE"),  # case folding
    ],
)
def test_normalized_equality(expected, actual):
    assert ok({"normalized": expected}, actual)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        ("C#", "C"),
        ("-5", "5"),
        ("1.5", "15"),
        ("john.doe@example.com", "john.doeexample.com"),
        ("New York", "New-York"),
        ("St. Louis", "St Louis"),
    ],
)
def test_normalized_never_accepts_a_different_value(expected, actual):
    """DESIGN §2: only compatibility forms, case and runs of white space are ignored."""
    assert reason({"normalized": expected}, actual) == "value_error"


def test_normalized_mismatch_and_type():
    assert reason({"normalized": "Paris"}, "Parisx") == "value_error"
    assert reason({"normalized": "Paris"}, None) == "type_error"
    assert normalize_text("Ünïcode\tText.") == "ünïcode text."


def test_optional_absent_anything():
    assert ok({"optional": "metric"}, None, present=False)
    assert ok({"optional": "metric"}, "metric")
    assert reason({"optional": "metric"}, "imperial") == "value_error"
    assert ok({"optional": True}, 123)
    assert ok({"absent": True}, None, present=False)
    assert reason({"absent": True}, "x") == "unexpected_argument"
    assert ok({"anything": True}, None)
    assert reason({"anything": True}, None, present=False) == "missing_argument"


def test_missing_value_for_every_non_optional_matcher():
    for matcher in ["x", {"regex": "x"}, {"one_of": [1]}, {"not": 1}, {"judge": "c"}, {"a": 1}, [1]]:
        assert reason(matcher, None, present=False) == "missing_argument"


def test_unordered_finds_a_one_to_one_matching():
    matcher = {"unordered": [{"regex": "a"}, "banana"]}
    # Greedy would give "banana" to the regex and leave nothing for the literal.
    assert ok(matcher, ["banana", "apple"])
    assert reason(matcher, ["apple", "apple"]) == "value_error"
    assert reason(matcher, ["banana"]) == "value_error"
    assert reason(matcher, "banana") == "type_error"
    assert ok({"unordered": []}, [])


def test_not_matcher():
    assert ok({"not": "Paris"}, "London")
    assert reason({"not": "Paris"}, "Paris") == "value_error"
    assert ok({"not": {"regex": "^\\d+$"}}, "abc")


def test_is_matcher():
    assert is_matcher({"regex": "x"})
    assert is_matcher({"object": {}, "extra_keys": True})
    assert not is_matcher({"city": "x"})
    assert not is_matcher({"regex": "x", "other": 1})
    assert not is_matcher("regex")
    assert not is_matcher({"extra_keys": True})


# --- judge matchers ---------------------------------------------------------------------------------


def test_judge_matcher_reads_verdicts_by_request_key():
    expected = {"note": {"judge": "is polite"}, "city": "Paris"}
    actual = {"note": "Please, thank you", "city": "Paris"}
    requests = judge_requests_for_arguments(expected, actual)
    assert len(requests) == 1
    assert requests[0].kind == "argument" and requests[0].criterion == "is polite"
    assert requests[0].text == "Please, thank you"

    missing = match_arguments(expected, actual, allow_extra=False)
    assert [o.reason for o in missing] == ["judge_failed", None]

    yes = {requests[0].key: JudgeVerdict(True, 1.0, "polite")}
    no = {requests[0].key: JudgeVerdict(False, 0.0, "rude")}
    assert all(o.ok for o in match_arguments(expected, actual, False, yes))
    outcome = match_arguments(expected, actual, False, no)[0]
    assert outcome.reason == "value_error" and "rude" in outcome.detail


def test_judge_requests_inside_nested_and_unordered_values_are_consistent():
    expected = {"items": {"unordered": [{"judge": "a fruit"}, "x"]}}
    actual = {"items": ["apple", "x"]}
    requests = judge_requests_for_arguments(expected, actual)
    verdicts = {
        r.key: JudgeVerdict(r.text == "apple", 1.0 if r.text == "apple" else 0.0, "") for r in requests
    }
    assert {r.text for r in requests} == {"apple", "x"}
    assert match_arguments(expected, actual, False, verdicts)[0].ok


def test_judge_requests_for_unparsed_arguments_is_empty():
    assert judge_requests_for_arguments({"a": {"judge": "c"}}, None) == []


# --- match_arguments: pinned defaults ------------------------------------------------------------


def test_missing_optional_argument_passes_only_when_marked_optional():
    assert all(o.ok for o in match_arguments({"units": {"optional": "metric"}}, {}, False))
    outcome = match_arguments({"units": "metric"}, {}, False)[0]
    assert outcome.reason == "missing_argument" and outcome.path == "units"


def test_unexpected_argument_fails_unless_allowed():
    outcomes = match_arguments({"city": "Paris"}, {"city": "Paris", "units": "metric"}, allow_extra=False)
    assert [o.reason for o in outcomes] == [None, "unexpected_argument"]
    assert outcomes[1].path == "units" and outcomes[1].actual == "metric"
    assert all(
        o.ok for o in match_arguments({"city": "Paris"}, {"city": "Paris", "units": "x"}, allow_extra=True)
    )


def test_one_outcome_per_expected_argument_in_order():
    outcomes = match_arguments(
        {"a": 1, "b": {"range": {"max": 3}}, "c": {"absent": True}}, {"a": 1.0, "b": 9}, False
    )
    assert [(o.path, o.ok, o.reason) for o in outcomes] == [
        ("a", True, None),
        ("b", False, "value_error"),
        ("c", True, None),
    ]


# --- any_of / all_of over matchers ---------------------------------------------------------------

NEW_YORK = {"any_of": [{"normalized": "NYC"}, {"normalized": "New York"}]}


@pytest.mark.parametrize("actual", ["NYC", "nyc", "new york", "  NEW   YORK "])
def test_any_of_passes_when_one_matcher_matches(actual):
    assert ok(NEW_YORK, actual)


def test_any_of_failure_names_every_matcher_tried():
    outcome = match_value(NEW_YORK, True, "Boston", path="city")
    assert (outcome.ok, outcome.reason, outcome.path) == (False, "value_error", "city")
    assert to_json(outcome.expected) == NEW_YORK and outcome.actual == "Boston"
    assert outcome.detail.startswith('"Boston" matches none of: ')
    assert '{"normalized": "NYC"}' in outcome.detail and '{"normalized": "New York"}' in outcome.detail
    assert outcome.detail.count("after normalisation") == 2  # why each one refused


def test_any_of_reason_is_a_type_error_only_when_no_matcher_takes_the_type():
    assert reason(NEW_YORK, 5) == "type_error"
    assert reason({"any_of": [{"regex": "^a"}, {"range": {"min": 1}}]}, "b") == "value_error"
    assert reason({"any_of": [{"regex": "^a"}, {"range": {"min": 1}}]}, 0) == "value_error"
    assert reason({"any_of": [{"regex": "^a"}, {"range": {"min": 1}}]}, None) == "type_error"


def test_any_of_and_all_of_decide_about_absence_through_their_matchers():
    maybe_digits = {"any_of": [{"absent": True}, {"regex": "^\\d+$"}]}
    assert ok(maybe_digits, None, present=False)
    assert ok(maybe_digits, "42")
    assert not ok(maybe_digits, "4x")
    assert reason(NEW_YORK, None, present=False) == "missing_argument"
    assert reason({"all_of": [{"regex": "a"}, {"not": "b"}]}, None, present=False) == "missing_argument"
    assert ok({"all_of": [{"optional": {"regex": "a"}}]}, None, present=False)


def test_all_of_needs_every_matcher_and_says_which_one_refused():
    capital = {"all_of": [{"regex": "^[A-Z]"}, {"not": {"normalized": "paris"}}]}
    assert ok(capital, "London")
    assert reason(capital, "london") == "value_error"
    outcome = match_value(capital, True, "PARIS", path="city")
    assert outcome.reason == "value_error"
    assert "all_of item 2 of 2" in outcome.detail and "must not match" in outcome.detail
    assert reason(capital, 3) == "type_error"


@pytest.mark.parametrize(
    ("expected", "actual", "passes"),
    [
        ({"filter": {"city": NEW_YORK}}, {"filter": {"city": "nyc"}}, True),
        ({"filter": {"city": NEW_YORK}}, {"filter": {"city": "LA"}}, False),
        ({"unordered": [NEW_YORK, "LA"]}, ["LA", "New York"], True),
        ([NEW_YORK, {"any_of": [1, 2]}], ["NYC", 2.0], True),
        ([NEW_YORK, {"any_of": [1, 2]}], ["NYC", 3], False),
        (
            {"any_of": [{"city": "Paris"}, {"object": {"city": NEW_YORK}, "extra_keys": True}]},
            {"city": "NYC", "x": 1},
            True,
        ),
        ({"not": NEW_YORK}, "Boston", True),
        ({"not": NEW_YORK}, "nyc", False),
        ({"optional": {"all_of": [{"regex": "^\\d"}, {"contains": "5"}]}}, "15", True),
        ({"contains": {"all_of": [{"regex": "^a"}, {"regex": "z$"}]}}, ["b", "abcz"], True),
    ],
)
def test_any_of_and_all_of_work_wherever_a_matcher_does(expected, actual, passes):
    assert ok(expected, actual) is passes


def test_judge_criteria_inside_any_of_and_all_of_are_collected_and_read():
    expected = {"city": {"any_of": ["Paris", {"judge": "a city in France"}]}}
    # The first matcher passes: the judge is never asked.
    assert judge_requests_for_arguments(expected, {"city": "Paris"}) == []
    [request] = judge_requests_for_arguments(expected, {"city": "Lyon"})
    assert (request.criterion, request.text, request.context) == ("a city in France", "Lyon", "argument city")
    assert match_arguments(expected, {"city": "Lyon"}, False)[0].reason == "judge_failed"
    yes = {request.key: JudgeVerdict(True, 1.0, "Lyon is in France")}
    no = {request.key: JudgeVerdict(False, 0.0, "not in France")}
    assert match_arguments(expected, {"city": "Lyon"}, False, yes)[0].ok
    outcome = match_arguments(expected, {"city": "Lyon"}, False, no)[0]
    assert outcome.reason == "value_error" and "not in France" in outcome.detail

    both = {"note": {"all_of": [{"judge": "is polite"}, {"judge": "is short"}]}}
    requests = judge_requests_for_arguments(both, {"note": "Thanks!"})
    assert [r.criterion for r in requests] == ["is polite", "is short"]
    verdicts = {r.key: JudgeVerdict(True, 1.0, "") for r in requests}
    assert match_arguments(both, {"note": "Thanks!"}, False, verdicts)[0].ok
    verdicts[requests[1].key] = JudgeVerdict(False, 0.0, "too long")
    assert "too long" in match_arguments(both, {"note": "Thanks!"}, False, verdicts)[0].detail
    assert any_judged(parse_matchers(both)) and any_judged(
        parse_matchers({"x": {"any_of": [1, {"judge": "c"}]}})
    )
    assert not any_judged(parse_matchers({"x": {"any_of": [1, {"equals": {"judge": "c"}}]}}))


def test_a_wrong_value_beside_an_undecided_judge_is_the_agents_failure_not_an_error():
    # No verdicts: every judge criterion is undecided; the other part is wrong whatever the judge says.
    nested = {"traveller": {"note": {"judge": "is polite"}, "seat": "window"}}
    (outcome,) = match_arguments(nested, {"traveller": {"note": "hi", "seat": "aisle"}}, False)
    assert (outcome.reason, outcome.path) == ("value_error", "traveller.seat")
    (outcome,) = match_arguments({"stops": [{"judge": "a city"}, "Rome"]}, {"stops": ["Lyon", "Oslo"]}, False)
    assert (outcome.reason, outcome.path) == ("value_error", "stops[1]")
    both = {"note": {"all_of": [{"judge": "is polite"}, {"regex": "^Dear"}]}}
    (outcome,) = match_arguments(both, {"note": "Hi"}, False)
    assert outcome.reason == "value_error" and "all_of item 2 of 2" in outcome.detail
    # unordered: an element no pairing matches, even with the judge saying yes, is the agent's failure.
    listed = {"items": {"unordered": [{"judge": "a fruit"}, "x"]}}
    (outcome,) = match_arguments(listed, {"items": ["apple", "y"]}, False)
    assert outcome.reason == "value_error" and 'element "x"' in outcome.detail
    assert match_arguments(listed, {"items": ["apple", "x"]}, False)[0].reason == "judge_failed"
    # contains: no element matched, but the judge left one undecided: the judge's failure, not the agent's.
    fruit = {"items": {"contains": {"judge": "a fruit"}}}
    (outcome,) = match_arguments(fruit, {"items": ["apple", "chair"]}, False)
    assert outcome.reason == "judge_failed"
    # Only undecided: still the judge's failure (an error), never the agent's.
    (outcome,) = match_arguments(nested, {"traveller": {"note": "hi", "seat": "window"}}, False)
    assert outcome.reason == "judge_failed"


# --- normalized: pinned, with explicit looser comparisons ----------------------------------------


@pytest.mark.parametrize(
    ("expected", "actual", "ignore"),
    [
        ("C#", "C", ["punctuation"]),
        ("New York", "New-York", ["punctuation"]),
        ("St. Louis", "st louis", ["punctuation"]),
        ("O'Brien", "OBrien", ["punctuation"]),
        ("Covid-19", "covid19", [{"chars": "-"}]),
        ("555-123 4567", "5551234567", {"chars": " -"}),
        ("Zürich", "Zurich", ["accents"]),
        ("São Paulo", "sao-paulo", ["accents", "punctuation"]),
        ("555 1234", "5551234", ["whitespace"]),
    ],
)
def test_normalized_ignores_more_only_when_asked(expected, actual, ignore):
    assert ok({"normalized": {"value": expected, "ignore": ignore}}, actual)
    assert reason({"normalized": expected}, actual) == "value_error"  # never by default


@pytest.mark.parametrize(
    ("expected", "actual", "ignore"),
    [
        ("C++", "C", ["punctuation"]),  # symbols still count
        ("$5", "5", ["punctuation"]),
        ("1.5", "15", ["punctuation"]),  # punctuation inside a number is part of it
        ("-5", "5", ["punctuation"]),
        (".5", "5", ["punctuation"]),  # a decimal point opening a number is part of it too
        ("-.5", ".5", ["punctuation"]),
        ("10:30", "1030", ["punctuation", "whitespace"]),
        ("3 - 1", "31", ["punctuation", "whitespace"]),
        ("Covid-19", "covid 19", ["punctuation"]),  # a hyphen before a number may be a minus sign
        ("Zürich", "Zurich", ["punctuation"]),
        ("C#", "C", ["accents", "whitespace"]),
    ],
)
def test_a_looser_comparison_ignores_only_what_it_names(expected, actual, ignore):
    outcome = match_value({"normalized": {"value": expected, "ignore": ignore}}, True, actual)
    assert outcome.reason == "value_error"
    assert outcome.detail.endswith("after normalisation ignoring " + ", ".join(sorted(ignore)))


def test_a_chars_comparison_failing_names_the_characters():
    outcome = match_value({"normalized": {"value": "C#", "ignore": {"chars": " -"}}}, True, "C")
    assert outcome.reason == "value_error"
    assert outcome.detail.endswith('after normalisation ignoring the characters " -"')
