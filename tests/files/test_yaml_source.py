"""Safe YAML loading with positions and guards against hostile input."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.files import yaml_source
from gate.files.yaml_source import YamlError, parse

SUITE = """\
version: 1
cases:
  - id: a
    expect:
      calls:
        - tool: get_weather
          args: {city: Paris, days: 3}
"""


def test_positions_of_keys_values_and_items():
    doc = parse(SUITE, "s.suite.yaml")
    assert doc.data["cases"][0]["expect"]["calls"][0]["args"] == {"city": "Paris", "days": 3}
    assert doc.position(("cases", 0, "expect", "calls", 0, "tool")) == (6, 17)
    assert doc.key_position(("cases", 0, "expect", "calls", 0, "tool")) == (6, 11)
    assert doc.position(("cases", 0)) == (3, 5)
    assert doc.position(("cases", 0, "expect", "calls", 0, "args", "days")) == (7, 37)
    # unknown paths fall back to the nearest ancestor that has a position
    assert doc.position(("cases", 0, "expect", "nope", 3)) == (5, 7)
    problem = doc.problem(("version",), "bad")
    assert problem.render() == "s.suite.yaml:1:10: bad"


def test_keys_stay_strings_as_written_and_timestamps_stay_text():
    doc = parse("on: yes\n1: 2024-05-01\nnull: ~\n", "f.yaml")
    assert doc.data == {"on": True, "1": "2024-05-01", "null": None}


def test_duplicate_keys_are_an_error_with_both_positions():
    with pytest.raises(YamlError) as info:
        parse("a: 1\nb:\n  c: 1\n  c: 2\n", "f.yaml")
    (problem,) = info.value.problems
    assert (problem.line, problem.column) == (4, 3)
    assert "duplicate key 'c'" in problem.message and "line 3, column 3" in problem.message


def test_merge_keys_merge_and_explicit_keys_win():
    doc = parse("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n", "f.yaml")
    assert doc.data["use"] == {"x": 1, "y": 3}


def test_aliases_share_values_within_budget():
    doc = parse("a: &a [1, 2]\nb: *a\n", "f.yaml")
    assert doc.data["b"] == [1, 2]


def test_alias_bomb_is_rejected_quickly():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    with pytest.raises(YamlError) as info:
        parse("\n".join(lines) + "\n", "bomb.yaml")
    assert "alias expansion" in info.value.problems[0].message


def test_too_many_aliases_are_rejected():
    text = "a: &a 1\nb: [" + ", ".join(["*a"] * (yaml_source.MAX_ALIASES + 1)) + "]\n"
    with pytest.raises(YamlError, match="too many aliases"):
        parse(text, "f.yaml")


def test_recursive_alias_is_rejected():
    with pytest.raises(YamlError, match="recursive alias"):
        parse("a: &a\n  - *a\n", "f.yaml")


def test_nesting_depth_is_limited_also_through_aliases():
    deep = "[" * (yaml_source.MAX_DEPTH + 1) + "]" * (yaml_source.MAX_DEPTH + 1)
    with pytest.raises(YamlError, match="nesting deeper"):
        parse(f"a: {deep}\n", "f.yaml")
    half = yaml_source.MAX_DEPTH // 2 + 2
    nested = "[" * half + "]" * half
    with pytest.raises(YamlError, match="nesting deeper"):
        parse(f"a: &n {nested}\nb: {'[' * half}*n{']' * half}\n", "f.yaml")
    parse(f"a: {'[' * 10}{']' * 10}\n", "f.yaml")


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty file"),
        ("# only a comment\n\n", "empty file"),
        ("a: 1\n---\nb: 2\n", "more than one YAML document"),
        ("a: !!binary aGk=\n", "unsupported YAML tag"),
        ("a: !custom x\n", "unsupported YAML tag"),
        ("a: [1, 2\n", "invalid YAML"),
        ("? [a, b]\n: 1\n", "mapping key must be a plain value"),
    ],
)
def test_bad_documents_become_problems(text, message):
    with pytest.raises(YamlError) as info:
        parse(text, "f.yaml")
    assert message in info.value.problems[0].message
    assert info.value.problems[0].path == "f.yaml"


def test_tab_indentation_gets_a_hint():
    with pytest.raises(YamlError) as info:
        parse("a:\n\tb: 1\n", "f.yaml")
    assert info.value.problems[0].hint == "indent with spaces, not tabs"
    assert info.value.problems[0].line == 2


# NEL, U+2028 and U+2029 are line breaks to YAML 1.1 but not to YAML 1.2: refused (test_yaml_edge_cases).
_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x85\u2028\u2029"), max_size=20
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | _text | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(_text.map(lambda t: t[:8]), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(json_values, st.sampled_from([False, True, None]))
def test_loads_what_pyyaml_dumps_like_pyyaml(value, flow):
    text = yaml.safe_dump({"v": value, "w": [value, {"k": 1}]}, allow_unicode=True, default_flow_style=flow)
    assert parse(text, "f.yaml").data == yaml.safe_load(text)


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_json_documents_load_as_json(value):
    text = json.dumps({"v": value}, indent=2)
    assert parse(text, "f.json", json_fallback=True).data == json.loads(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_raises_anything_but_yaml_error(text):
    try:
        parse(text, "f.yaml")
    except YamlError as exc:
        assert exc.problems and all(p.path == "f.yaml" for p in exc.problems)


def test_documents_over_the_value_limit_are_refused_saying_why(monkeypatch):
    monkeypatch.setattr(yaml_source, "MAX_NODES", 50)
    text = "a: [" + ", ".join(["1"] * 60) + "]\n"
    with pytest.raises(YamlError, match=r"document too large \(more than 50 values\)") as plain:
        parse(text, "f.yaml")
    assert "alias" not in str(plain.value)  # no alias in the file: the message must not blame aliases
    with pytest.raises(YamlError, match="document too large after alias expansion"):
        parse("x: &a [1, 2, 3, 4, 5, 6, 7, 8]\ny: [*a, *a, *a, *a, *a, *a, *a]\n", "f.yaml")


def test_json_files_read_exponent_numbers_as_numbers_yaml_files_as_yaml_does():
    text = '{"a": 1e-09, "b": "1e5", "c": 1.5E3, "d": [2e2], "e": 1.0e+3}'
    expected = {"a": 1e-09, "b": "1e5", "c": 1500.0, "d": [200.0], "e": 1000.0}
    assert parse(text, "f.json", json_fallback=True).data == expected
    assert parse(text, "f.yaml").data == {"a": "1e-09", "b": "1e5", "c": "1.5E3", "d": ["2e2"], "e": 1000.0}
    assert parse("a: '1e5'\nb: ! 1e5\n", "f.json", json_fallback=True).data == {"a": "1e5", "b": "1e5"}
