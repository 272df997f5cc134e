"""Input files read with their guards: binary, not UTF-8 (UTF-16 and UTF-32 named), too large, missing,
not a regular file, a byte order mark; JSON indented with tabs read as JSON."""

from __future__ import annotations

import pytest

from gate.files.text_files import load_file, read_text
from gate.files.yaml_source import YamlError


def test_json_with_tabs_falls_back_to_json(tmp_path):
    file = tmp_path / "t.json"
    file.write_text('{\n\t"a": [1,\n\t\t2]\n}\n')
    assert load_file(file, "t.json").data == {"a": [1, 2]}
    bad = tmp_path / "bad.json"
    bad.write_text('{\n\t"a": [1,\n\t\t2\n}\n')
    with pytest.raises(YamlError) as info:
        load_file(bad, "bad.json")
    assert info.value.problems[0].message.startswith("invalid JSON")
    assert info.value.problems[0].line == 4


def test_file_guards(tmp_path, monkeypatch):
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"a: 1\nb: \x00\x01\n")
    with pytest.raises(YamlError, match="binary file"):
        load_file(binary, "b.yaml")
    latin = tmp_path / "l.yaml"
    latin.write_bytes(b"a: 1\nname: caf\xe9\n")
    with pytest.raises(YamlError) as info:
        load_file(latin, "l.yaml")
    assert (info.value.problems[0].line, info.value.problems[0].column) == (2, 10)
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 2000 + "\n")
    with pytest.raises(YamlError, match="file too large"):
        load_file(big, "big.yaml", max_bytes=1000)
    with pytest.raises(YamlError, match="file not found"):
        load_file(tmp_path / "nope.yaml", "nope.yaml")
    with pytest.raises(YamlError, match="not a regular file"):
        load_file(tmp_path, "dir")
    bom = tmp_path / "bom.yaml"
    bom.write_bytes("\ufeffa: 1\n".encode())
    assert load_file(bom, "bom.yaml").data == {"a": 1}


@pytest.mark.parametrize(
    "data,encoding",
    [
        ("a: 1\n".encode("utf-16"), "UTF-16"),
        ("a: 1\n".encode("utf-16-le"), "UTF-16"),
        ("a: 1\n".encode("utf-16-be"), "UTF-16"),
        ("a: 1\n".encode("utf-32"), "UTF-32"),
    ],
)
def test_utf16_and_utf32_files_are_named_not_called_binary(tmp_path, data, encoding):
    path = tmp_path / "s.yaml"
    path.write_bytes(data)
    with pytest.raises(YamlError) as info:
        read_text(path, "s.yaml")
    assert info.value.problems[0].render() == (
        f"s.yaml:1:1: the file is {encoding} text, expected UTF-8 (fix: save the file as UTF-8)"
    )
