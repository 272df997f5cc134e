"""Matchers no call can satisfy (``gate.build.checks.impossible_matchers``), pure: against the tool's
own parameter schema at every depth, and all_of contradicting itself."""

from __future__ import annotations

import pytest

from gate.build.checks.impossible_matchers import matcher_problems

PARAMS = {
    "type": "object",
    "properties": {
        "days": {"type": "integer", "minimum": 1},
        "units": {"enum": ["metric", "imperial"]},
        "city": {"$ref": "#/$defs/city"},
        "counts": {"type": "array", "items": {"type": "integer"}},
        "filter": {"type": "object", "properties": {"days": {"type": "integer"}, "tag": {"type": "string"}}},
        "either": {"anyOf": [{"type": "string"}, {}]},
    },
    "$defs": {"city": {"type": "string", "minLength": 2}},
}


def paths(args):
    return [path for path, _, _ in matcher_problems("forecast", PARAMS, args, ("args",))]


def messages(args):
    return [message for _, message, _ in matcher_problems("forecast", PARAMS, args, ("args",))]


def test_top_level_literals_the_tool_schema_refuses():
    args = {"days": "3", "units": {"one_of": ["metric", "kelvin"]}, "city": "X", "other": 1}
    assert paths(args) == [("args", "days"), ("args", "units", "one_of", 1), ("args", "city")]
    assert "is not of type 'integer'" in messages(args)[0]
    # Values the schema accepts and matchers of the right kind are left alone.
    assert paths({"days": 3.0, "units": {"regex": "^m"}, "city": "Oslo"}) == []


def test_literal_matchers_inside_any_of_and_all_of_are_checked():
    args = {"days": {"any_of": ["3", {"range": {"min": 1}}]}, "units": {"all_of": [{"not": "x"}, "kelvin"]}}
    assert paths(args) == [("args", "days", "any_of", 0), ("args", "units", "all_of", 1)]


@pytest.mark.parametrize(
    ("args", "where"),
    [
        ({"days": {"equals": "30"}}, ("args", "days", "equals")),
        ({"days": {"optional": "30"}}, ("args", "days", "optional")),
        ({"days": {"optional": {"equals": "30"}}}, ("args", "days", "optional", "equals")),
        ({"counts": ["30"]}, ("args", "counts", 0)),
        ({"counts": {"unordered": [1, "30"]}}, ("args", "counts", "unordered", 1)),
        ({"counts": {"contains": "30"}}, ("args", "counts", "contains")),
        ({"filter": {"days": "30", "tag": "x"}}, ("args", "filter", "days")),
        ({"filter": {"object": {"days": "30"}, "extra_keys": True}}, ("args", "filter", "object", "days")),
        ({"units": {"any_of": [{"equals": "kelvin"}, "metric"]}}, ("args", "units", "any_of", 0, "equals")),
    ],
)
def test_nested_literals_are_checked_like_top_level_ones(args, where):
    assert paths(args) == [where]
    assert "can never match" in messages(args)[0]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"city": ["Paris"]}, 'the list ["Paris"] can never match: it matches only a list'),
        (
            {"city": {"name": "Paris"}},
            'the mapping {"name": "Paris"} can never match: it matches only an obj',
        ),
        ({"city": {"range": {"min": 1}}}, "the matcher {range: ...} can never match: it matches only a num"),
        ({"city": {"unordered": ["a"]}}, "the matcher {unordered: ...} can never match"),
        ({"days": {"regex": "^3$"}}, "only a string, but tool 'forecast' declares 'days' as a number"),
        ({"units": {"approx": {"value": 1}}}, "declares 'units' as a string"),
        ({"filter": {"days": {"normalized": "3"}}}, "declares 'filter.days' as a number"),
        ({"either": {"all_of": [{"range": {"min": 1}}, {"regex": "^1"}]}}, "no common type"),
        ({"days": {"all_of": [{"range": {"min": 1}}, {"regex": "^1"}]}}, "declares 'days' as a number"),
    ],
)
def test_matchers_of_a_kind_the_schema_never_sends(args, says):
    found = messages(args)
    assert len(found) == 1 and says in found[0], found


def test_kinds_the_schema_leaves_open_are_not_refused():
    # A branch without a type lets anything through; contains on text is a substring.
    assert paths({"either": {"range": {"min": 1}}, "city": {"contains": "ar"}}) == []
    assert paths({"counts": {"contains": 3}, "days": {"any_of": [{"absent": True}, 3]}}) == []
    assert paths({"filter": {"object": {"tag": {"regex": "x"}}, "extra_keys": True}}) == []


@pytest.mark.parametrize(
    "matcher",
    [
        {"all_of": [{"absent": True}, {"regex": "^a"}]},
        {"all_of": [{"absent": True}, "Paris"]},
        {"all_of": [{"any_of": [{"absent": True}]}, {"anything": True}]},
        {"all_of": ["Paris", "London"]},
        {"all_of": [{"equals": 1}, {"regex": "1"}]},
    ],
)
def test_all_of_that_contradicts_itself_is_refused_with_or_without_a_schema(matcher):
    for tool, parameters in (("forecast", {"type": "object"}), ("", None)):
        found = matcher_problems(tool, parameters, {"x": matcher}, ("state_when",))
        assert [path for path, _, _ in found] == [("state_when", "x", "all_of")], found
        assert "nothing can satisfy it" in found[0][1]


def test_all_of_that_can_hold_is_left_alone():
    for matcher in (
        {"all_of": [{"optional": {"regex": "^a"}}, {"not": "abc"}]},
        {"all_of": [{"absent": False}, {"anything": True}]},
        {"all_of": ["Paris", {"equals": "Paris"}]},
        {"all_of": [{"any_of": [{"absent": True}, "x"]}, {"optional": "x"}]},
    ):
        assert matcher_problems("", None, {"x": matcher}, ()) == [], matcher
