"""Text is shortened in one place, ``gate.util.escape.truncate`` (and ``escape.show`` for a value's JSON):
no module of the gate cuts a string and appends its own ellipsis."""

from __future__ import annotations

import re
from pathlib import Path

GATE = Path(__file__).resolve().parents[2] / "gate"
# A slice followed by an ellipsis of its own: ``text[:77] + "..."``, ``s[: limit - 1] + "…"``.
OWN_ELLIPSIS = re.compile(r"\[[^\]\n]*:[^\]\n]*\]\s*\+\s*f?[\"'](?:\.\.\.|…)")


def test_no_module_but_escape_appends_its_own_ellipsis_to_a_cut() -> None:
    copies = [
        f"{path.relative_to(GATE.parent)}:{number}: {line.strip()}"
        for path in sorted(GATE.rglob("*.py"))
        if path.name != "escape.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OWN_ELLIPSIS.search(line)
    ]
    assert copies == [], (
        "use gate.util.escape.truncate (brief=True for a quoted value) or escape.show:\n" + "\n".join(copies)
    )


def test_the_pattern_finds_the_copies_it_is_meant_to_find() -> None:
    for copy in ('text[:77] + "..."', 'text[: limit - 1] + "…"', "s[:n] + '...'"):
        assert OWN_ELLIPSIS.search(copy), copy
    for fine in ("truncate(text, 80, brief=True)", 'names[:5] + ["x"]', 'f"{s[:limit]}… [3 more cut]"'):
        assert not OWN_ELLIPSIS.search(fine), fine
