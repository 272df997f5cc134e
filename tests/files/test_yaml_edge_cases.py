"""YAML as users expect: what YAML 1.1 (which PyYAML reads) and YAML 1.2 (which editors and the
yaml-test-suite follow) read differently is refused, or read as both read it, never differently from
both; odd characters and encodings are reported where they are."""

from __future__ import annotations

import pytest

from gate.files.yaml_source import YamlError, parse


def problem(text: str, *, json_fallback: bool = False) -> str:
    with pytest.raises(YamlError) as info:
        parse(text, "f.yaml", json_fallback=json_fallback)
    (found,) = info.value.problems
    return found.render()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("a: !!bool maybe\n", "f.yaml:1:4: invalid !!bool value 'maybe'"),
        ("a: !!int\n", "f.yaml:1:4: invalid !!int value ''"),
        ("a: !!float\n", "f.yaml:1:4: invalid !!float value ''"),
        ("a: !!bool\n", "f.yaml:1:4: invalid !!bool value ''"),
        ("a: !!timestamp x\n", "f.yaml:1:4: unsupported YAML tag 'tag:yaml.org,2002:timestamp'"),
        ("a: !!timestamp 2024-01-01\n", "f.yaml:1:4: unsupported YAML tag 'tag:yaml.org,2002:timestamp'"),
        ("a: !!map [1, 2]\n", "f.yaml:1:4: the tag !!map on a sequence"),
        ("a: !!seq {b: 1}\n", "f.yaml:1:4: the tag !!seq on a mapping"),
        ("x: &k key\n*k : 1\n", "f.yaml:2:1: an alias (*k) cannot be a mapping key"),
        ("a:\n  <<: {x: 1}\n  <<: {y: 2}\n", "f.yaml:3:3: a second merge key '<<' in one mapping"),
        ("a: .nan\n", "f.yaml:1:4: '.nan' is not a finite number"),
        ("a: [1, -.inf]\n", "f.yaml:1:8: '-.inf' is not a finite number"),
        ("a: 1\nb: x\x01y\n", "f.yaml:2:5: the control character U+0001 is not allowed in YAML"),
        ("# one\x85two\na: 1\n", "f.yaml:1:6: the character U+0085 is a line break to YAML 1.1"),
        ("a: 'x\u2028y'\n", "f.yaml:1:6: the character U+2028 is a line break to YAML 1.1"),
    ],
)
def test_refused_at_the_right_place(text, expected):
    assert problem(text).startswith(expected)


def test_a_line_break_editors_do_not_see_does_not_hide_what_follows_it():
    with pytest.raises(YamlError) as info:
        parse("# one\x85two\na: '\u2028'\nb: [\n", "f.yaml")
    assert [p.render()[:40] for p in info.value.problems] == [
        "f.yaml:1:6: the character U+0085 is a li",
        "f.yaml:2:5: the character U+2028 is a li",
        "f.yaml:4:1: invalid YAML: while parsing ",
    ]
    assert info.value.document is None
    with pytest.raises(YamlError) as info:
        parse("a: '\u2028'\nb: 1\n", "f.yaml")
    assert info.value.document is not None and info.value.document.data == {"a": " ", "b": 1}


def test_a_json_string_may_hold_them_escaped():
    assert parse('{"a": "x\\u0085y"}', "t.json", json_fallback=True).data == {"a": "x\x85y"}


def test_what_both_versions_read_alike_is_read():
    assert parse("a:\n  <<: [{x: 1}, {y: 2}]\n  z: 3\n", "f.yaml").data == {"a": {"x": 1, "y": 2, "z": 3}}
    assert parse("a: !!map {b: 1}\nc: !!seq [1]\n", "f.yaml").data == {"a": {"b": 1}, "c": [1]}
    assert parse("d: 2024-01-01\n", "f.yaml").data == {"d": "2024-01-01"}  # a date stays its text
    # A block scalar whose first line starts with a tab (YAML 1.2: content after the indentation,
    # or no indentation at all): refused with the line, never read as something else.
    for text in ("a: |\n  \ttext\n", "a: |\n\ttext\n", "a: >\n  \ttext\n  more\n"):
        assert "f.yaml:2:" in problem(text) and "tab" in problem(text)


def test_yaml_1_1_surprises_are_recorded_for_a_quote_it_hint():
    doc = parse("input: yes\nid: 010\ntime: 1:20\nok: true\nn: 10\nname: 'yes'\n", "f.yaml")
    assert doc.data == {"input": True, "id": 8, "time": 80, "ok": True, "n": 10, "name": "yes"}
    assert doc.quote_hint(("input",)) == 'quote it: YAML reads yes as a boolean; write "yes" for the text'
    assert doc.quote_hint(("id",)) == 'quote it: YAML reads 010 as a number; write "010" for the text'
    assert doc.quote_hint(("time",)).startswith("quote it: YAML reads 1:20 as a number")
    for path in (("ok",), ("n",), ("name",)):
        assert doc.quote_hint(path) == ""
    # The same through the full composer (a document with an anchor takes that path).
    doc = parse("x: &a 1\ninput: on\n", "f.yaml")
    assert doc.quote_hint(("input",)).startswith("quote it: YAML reads on as a boolean")


def test_numbers_only_yaml_1_2_reads_get_a_hint():
    doc = parse("t: 1e3\nu: 1.0e+3\nv: '1e3'\n", "f.yaml")
    assert doc.data == {"t": "1e3", "u": 1000.0, "v": "1e3"}
    assert doc.quote_hint(("t",)).startswith("YAML 1.1 reads 1e3 as text, not a number")
    assert doc.quote_hint(("u",)) == doc.quote_hint(("v",)) == ""


def test_escaped_surrogate_pairs_in_json_keep_every_position():
    text = '[\n  {"name": "t", "description": "sun \\ud83c\\udf24",\n   "x": 1}\n]\n'
    doc = parse(text, "t.json", json_fallback=True)
    assert doc.data == [{"name": "t", "description": "sun \U0001f324", "x": 1}]
    assert doc.position((0, "x")) == (3, 9)
    assert parse('{"a":\n "x \\ud800"}\n', "t.json", json_fallback=True).data == {"a": "x \ud800"}  # as JSON
