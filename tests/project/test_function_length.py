"""The function-length check CI runs (.ci/function_length.py): a function over the limit fails unless
a '# long: <reason>' comment directly above it (or its decorators) says why it stays whole."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("function_length", ROOT / ".ci" / "function_length.py")
assert _spec is not None and _spec.loader is not None
function_length = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(function_length)


def _function(name: str, body_lines: int, above: str = "") -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines))
    return f"{above}def {name}():\n{body}"


def test_a_long_function_without_a_reason_is_listed_and_one_with_a_reason_is_not(tmp_path):
    limit = function_length.LIMIT
    (tmp_path / "a.py").write_text(
        _function("short", limit - 1)
        + _function("too_long", limit)
        + _function("explained", limit, above="# long: one table, read top to bottom\n")
        + _function("empty_reason", limit, above="# long:\n")
        + _function("decorated", limit, above="# long: a dispatch written out\n@staticmethod\n"),
        encoding="utf-8",
    )
    found = function_length.offenders(tmp_path)
    assert [line.split(": ")[1].split(" ")[0] for line in found] == ["too_long", "empty_reason"]
    assert f"is {limit + 1} lines" in found[0]


def test_the_package_itself_passes():
    assert function_length.offenders(ROOT / "gate") == []
