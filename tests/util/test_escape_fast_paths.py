"""The fast paths of ``md_text`` and ``md_inline_code`` give exactly what the full escaping gives."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.util.escape import md_cell, md_inline_code, md_text, neutralise_marker, no_autolinks, strip_controls

_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_MD_INLINE = re.compile(r"([\\`*_\[\]|~])")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")
_BACKTICKS = re.compile(r"`+")
_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def full_md_text(s: object) -> str:
    text = strip_controls(str(s))
    text = " ".join(text.split("\n")) if "\n" in text else text
    text = no_autolinks(text)
    text = text.translate(_HTML)
    text = _MD_INLINE.sub(r"\\\1", text)
    text = _MENTION.sub("@&#8203;", text)
    return _LINE_START.sub(_escaped_line_start, text)


def _escaped_line_start(found: re.Match[str]) -> str:
    indent, marker = found.group(1), found.group(2)  # "1." as "1\.", "#" as "\#" (CommonMark's escapes)
    return indent + (marker[:-1] + "\\" + marker[-1] if marker[0].isdigit() else "\\" + marker)


def full_md_inline_code(s: object, *, table: bool = False) -> str:
    text = neutralise_marker(strip_controls(str(s))).replace("\n", " ")
    if table:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    if not text.strip():
        text = text or " "
        return f"{fence}{text}{fence}"
    pad = " " if text.startswith("`") or text.endswith("`") or (text[0] == " " and text[-1] == " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


PIECES = list("aZ09 .-#>+=)\t\r\n\x00\x1b\x85\u202e&<>\\`*_[]|~@é😀\u2028") + [
    "<!-- tool-eval-gate",
    "1.",
    "12)",
    "@octocat",
    "  # x",
    "``",
    "</details>",
]
texts = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)


@given(texts)
@settings(max_examples=600, deadline=None)
def test_md_text_fast_path_agrees(text):
    assert md_text(text) == full_md_text(text)
    assert md_cell(text) == (full_md_text(text) or " ")


@given(texts, st.booleans())
@settings(max_examples=600, deadline=None)
def test_md_inline_code_fast_path_agrees(text, table):
    assert md_inline_code(text, table=table) == full_md_inline_code(text, table=table)


def test_plain_values_take_the_fast_path_unchanged():
    assert md_text("get_weather") == "get\\_weather"  # underscore: escaped (not the fast path)
    assert md_text("Paris is sunny, 18 C.") == "Paris is sunny, 18 C."
    assert md_text(42) == "42"
    assert md_inline_code(" padded ") == "`  padded  `"
    assert md_inline_code("evals/weather.yaml:12", table=True) == "`evals/weather.yaml:12`"
