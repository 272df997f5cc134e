from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from gate.util.escape import (
    as_text,
    html_text,
    json_text,
    md_code_block,
    md_inline_code,
    md_inline_html,
    md_text,
    show,
    strip_controls,
    truncate,
    xml_text,
)


def test_md_text_neutralises_html_mentions_marker_and_markdown():
    text = md_text(
        "<img src=x onerror=alert(1)></details> @octocat @org/team <!-- tool-eval-gate:default --> "
        "![t](http://evil/p.png) [link](javascript:x) *bold* a|b `code`"
    )
    assert "<" not in text and ">" not in text
    assert "@octocat" not in text and "@org/team" not in text
    assert "@&#8203;octocat" in text
    assert "<!-- tool-eval-gate" not in text
    assert "\\[t\\]" in text and "\\*bold\\*" in text and "a\\|b" in text and "\\`code\\`" in text


def test_md_text_is_one_line_and_block_syntax_is_escaped():
    assert "\n" not in md_text("line one\nline two\r\nthree")
    assert md_text("# heading").startswith("\\#")
    assert md_text("> quote").startswith("&gt;")
    assert md_text("1. item").startswith("1\\.")  # not "\\1.": a backslash before a digit shows
    assert md_text("  12) item").startswith("  12\\)")


def test_control_and_bidi_characters_are_removed():
    assert md_text("a\x00b\x1bc\u202ed") == "abcd"


@given(st.text())
def test_code_block_cannot_be_closed_by_its_content(s):
    block = md_code_block(s)
    fence = re.match(r"`+", block).group(0)
    body = block[len(fence) + 1 : -len(fence) - 1]
    assert len(fence) >= 3
    assert block.endswith(fence + "\n")
    assert all(len(run) < len(fence) for run in re.findall(r"`+", body))


def test_code_block_with_quadruple_fence_and_marker():
    block = md_code_block("````\n</details>\n<!-- tool-eval-gate:default -->\n```")
    assert block.startswith("`````\n") and block.endswith("\n`````\n")
    assert "<!-- tool-eval-gate" not in block


@given(st.text())
def test_inline_code_delimiter_is_longer_than_any_backtick_run(s):
    code = md_inline_code(s)
    delimiter = re.match(r"`+", code).group(0)
    inner = code[len(delimiter) : -len(delimiter)]
    assert code.endswith(delimiter)
    assert all(len(run) != len(delimiter) for run in re.findall(r"`+", inner))
    assert "\n" not in code


def test_inline_code_in_a_table_escapes_pipes():
    assert md_inline_code("a|b", table=True) == "`a\\|b`"
    assert md_inline_code("`x`") == "`` `x` ``"


@given(st.text())
def test_xml_text_is_always_parseable(s):
    element = ET.Element("t", {"a": xml_text(s)})
    element.text = xml_text(s)
    parsed = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert parsed.get("a") == xml_text(s)
    assert (parsed.text or "") == xml_text(s).replace("\r\n", "\n").replace("\r", "\n")


def test_xml_text_keeps_legal_characters_only():
    assert xml_text("ok\x00\x08\x0b\x0c\x1f\ufffe\ud800 ]]> <&> é 😀\t\n") == "ok ]]> <&> é 😀\t\n"


def test_html_text_for_summary_elements():
    assert html_text('</summary><b>"x" @me') == "&lt;/summary&gt;&lt;b&gt;&quot;x&quot; @&#8203;me"


def test_truncation_says_what_was_cut():
    assert truncate("abcdef", 3) == "abc… [3 more characters cut]"
    assert truncate("abc", 3) == "abc"


def test_brief_truncation_fits_the_limit_and_ends_with_an_ellipsis():
    assert truncate("abcdef", 4, brief=True) == "abc…"
    assert truncate("abcd", 4, brief=True) == "abcd"
    assert truncate("abcdef", 0, brief=True) == ""


@given(st.text(), st.integers(min_value=0, max_value=50))
def test_brief_truncation_never_exceeds_the_limit_and_keeps_a_prefix(text: str, limit: int) -> None:
    cut = truncate(text, limit, brief=True)
    assert len(cut) <= limit
    assert cut == text or limit == 0 or (cut.endswith("…") and text.startswith(cut[:-1]))


def test_values_are_shown_as_short_json():
    assert json_text({"b": 1, "a": "Zürich"}) == '{"a": "Zürich", "b": 1}'
    assert json_text({1: "x", "y": 2}) == "{1: 'x', 'y': 2}"  # no JSON form (mixed key types): repr
    assert show("Oslo") == '"Oslo"'
    assert show(list(range(100)), 20) == "[0, 1, 2, 3, 4, 5, …"
    assert show("x" * 1000, 10) == '"xxxxxxxx…'


def test_a_value_as_a_message_carries_it_is_a_string_as_written_else_its_json():
    assert as_text("Sunny, 21 °C") == "Sunny, 21 °C"
    assert as_text({"temp": 21, "city": "Zürich"}) == '{"city": "Zürich", "temp": 21}'
    assert (as_text(None), as_text([1, 2.5])) == ("null", "[1, 2.5]")


_TAG = re.compile(r"<[^>]*>")


def test_the_gates_markdown_reads_as_html_with_code_spans_as_code():
    advice = f"say when to use {md_inline_code('get_weather')} instead of {md_inline_code('a`b <i>')}: x < y"
    assert md_inline_html(advice) == (
        "say when to use <code>get_weather</code> instead of <code>a`b &lt;i&gt;</code>: x &lt; y"
    )
    assert md_inline_html("an ` alone and `` two") == "an ` alone and `` two"  # unclosed: literal
    assert md_inline_html(md_text("*not bold* <b> & @bob")) == "*not bold* &lt;b&gt; &amp; @\u200bbob"


@given(st.text())
def test_a_code_span_of_any_text_shows_that_text_and_no_tag(text: str) -> None:
    shown = md_inline_html(md_inline_code(text))
    assert _TAG.findall(shown) == ["<code>", "</code>"]
    inside = shown.removeprefix("<code>").removesuffix("</code>")
    expected = strip_controls(text).replace("\n", " ")
    if not expected.strip():  # a blank span is one space
        expected = None
    if expected is not None and "tool-eval-gate" not in expected.lower():
        assert html.unescape(inside) == expected


@given(st.text())
def test_text_the_gate_escaped_shows_as_it_was_written_and_no_tag(text: str) -> None:
    shown = md_inline_html(md_text(text))
    assert not _TAG.findall(shown)
    written = " ".join(strip_controls(text).split("\n"))
    assert html.unescape(shown).replace("\u200b", "") == written.replace("\u200b", "")
