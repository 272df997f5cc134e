"""Where each string value of a JSON or YAML document is written: path, value and the characters of
its literal, read from the text as it is."""

from __future__ import annotations

import pytest

from gate.fixes.documents import NotADocument, json_scalars, yaml_scalars
from gate.limits import MAX_NESTING


def test_json_strings_carry_their_path_and_their_literal_with_its_escapes() -> None:
    text = '{"tools": [{"name": "a", "description": "say \\"hi\\"\\n", "n": 3, "b": true}], "x": null}'
    found = {s.path: s for s in json_scalars(text)}
    assert set(found) == {("tools", 0, "name"), ("tools", 0, "description")}
    description = found["tools", 0, "description"]
    assert description.value == 'say "hi"\n'
    assert text[description.start : description.end] == '"say \\"hi\\"\\n"'


def test_json_that_is_not_json_is_refused() -> None:
    for text in ('{"a": 1,}', '{"a" 1}', '["a"] x', "{'a': 1}"):
        with pytest.raises(NotADocument):
            json_scalars(text)
    with pytest.raises(NotADocument):
        json_scalars("[" * (MAX_NESTING + 2) + "]" * (MAX_NESTING + 2))


def test_yaml_strings_in_every_style_and_only_strings() -> None:
    text = (
        "tools:\n"
        "  - name: a\n"
        "    description: |\n"
        "      Line one.\n"
        "      Line two.\n"
        "\n"
        "    plain: words here\n"
        "    single: 'it''s'\n"
        '    double: "x\\ty"\n'
        "    number: 12\n"
        "    flag: yes\n"
        "    tagged: !!str 12\n"
        "    list: [x, 'y']\n"
    )
    found = {s.path: s for s in yaml_scalars(text)}
    assert found["tools", 0, "description"].value == "Line one.\nLine two.\n"
    assert found["tools", 0, "description"].style == "|"
    assert text[found["tools", 0, "single"].start : found["tools", 0, "single"].end] == "'it''s'"
    assert found["tools", 0, "double"].value == "x\ty"
    assert found["tools", 0, "tagged"].value == "12"
    assert found["tools", 0, "list", 1].value == "y"
    assert ("tools", 0, "number") not in found and ("tools", 0, "flag") not in found


def test_yaml_that_does_not_parse_is_refused() -> None:
    with pytest.raises(NotADocument):
        yaml_scalars("a: [b\n")
