"""Escaping untrusted text (model output, arguments, tool results) for Markdown and XML.

Everything a model wrote is untrusted: in the Markdown report it must not become HTML (no
``<img onerror>``, no ``</details>`` that closes our blocks), links or images (no tracking pixels),
@-mentions or team pings, a forged hidden comment marker (``<!-- tool-eval-gate``) or a code fence
that breaks out of our code blocks; in XML it must not contain characters XML 1.0 forbids.

Shortening text is done here too, once for the whole gate: ``truncate`` (saying how much it cut, or
briefly with ``…`` for a value quoted in a message) and ``show`` (a value's JSON text, shortened).
"""

from __future__ import annotations

import functools
import html
import json
import re

ZWSP = "\u200b"

# C0 controls except tab/newline/carriage return, DEL, C1 controls, and bidirectional overrides
# (which can make text read differently from what it is).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Characters XML 1.0 forbids (everything outside Char of the XML 1.0 specification).
XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
# What GitHub turns into links in text: issue references (#42, org/repo#9, GH-7) and autolinks
# (https://..., www.example.com). A zero-width space after the matched prefix breaks each.
_AUTOLINK = re.compile(r"#(?=\d)|\bGH(?=-\d)|:(?=//)|\bwww(?=\.)", re.IGNORECASE)
_MD_INLINE = re.compile(r"([\\`*_\[\]|~])")
_LINE_START = re.compile(r"^(\s*)([#>+=-]|\d+[.)])")
_MARKER = re.compile(r"<!--(\s*)tool-eval-gate", re.IGNORECASE)
_BACKTICKS = re.compile(r"`+")
_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# Fast paths: text without any of these characters comes out of ``md_text`` / ``md_inline_code``
# unchanged (or just wrapped), so the full sequence of substitutions is skipped for it.
_MD_TEXT_SPECIAL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069&<>\\\\`*_\\[\\]|~@]")
_CODE_SPECIAL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069`|<]")


def strip_controls(s: str) -> str:
    """Drop control characters (keeping tab and newline) and bidirectional overrides."""
    return _CONTROL.sub("", s.replace("\r\n", "\n").replace("\r", "\n"))


def neutralise_marker(s: str) -> str:
    """Break the hidden comment marker so that no untrusted text can forge our sticky comment."""
    return _MARKER.sub(lambda m: f"<!--{m.group(1)}tool{ZWSP}-eval-gate", s)


def md_text(s: object) -> str:
    """Untrusted text as literal inline Markdown on one line: HTML escaped, Markdown syntax
    backslash-escaped (no emphasis, links, images, tables, code), @-mentions, issue references and
    autolinks neutralised,
    line breaks turned into spaces."""
    text = s if type(s) is str else str(s)
    if (
        _MD_TEXT_SPECIAL.search(text) is None
        and _LINE_START.match(text) is None
        and _AUTOLINK.search(text) is None
    ):
        return text
    text = strip_controls(text)
    text = " ".join(text.split("\n")) if "\n" in text else text
    text = no_autolinks(text)
    text = text.translate(_HTML)
    text = _MD_INLINE.sub(r"\\\1", text)
    text = _MENTION.sub("@&#8203;", text)
    return _LINE_START.sub(_escaped_line_start, text)


def _escaped_line_start(found: re.Match[str]) -> str:
    """A block marker at the start of a line, escaped as CommonMark reads it: ``\\#``, ``\\-``; an
    ordered list's ``1.`` as ``1\\.`` (a backslash before a digit is no escape: it would show)."""
    indent, marker = found.group(1), found.group(2)
    if marker[0].isdigit():
        return indent + marker[:-1] + "\\" + marker[-1]
    return indent + "\\" + marker


# A workflow command the Actions runner reads from a log line: ``::name ...::`` at the start of a line
# (after white space), ``##[name ...]`` anywhere in it. The runner splits lines at CR and LF.
_COMMAND_AT_LINE_START = re.compile(r"(^|[\r\n])([^\S\r\n]*)(?=::)")
_COMMAND_ANYWHERE = "##["


def neutralise_commands(text: str, *, at_line_start: bool = True) -> str:
    """``text`` as log lines that can never be read as workflow commands: a zero-width space before a
    ``::`` that starts a line and inside every ``##[``, whatever put them there (model text, a suite's
    or a file's name, a forged results file). ``at_line_start``: whether ``text`` starts a line."""
    if "::" in text:
        text = _COMMAND_AT_LINE_START.sub(
            lambda m: m.group(0) + ZWSP if m.group(1) or at_line_start else m.group(0), text
        )
    if _COMMAND_ANYWHERE in text:
        text = text.replace(_COMMAND_ANYWHERE, "##" + ZWSP + "[")
    return text


def no_autolinks(s: str) -> str:
    """Break what GitHub would link in text: ``#42``, ``org/repo#9``, ``GH-7``, ``https://...``,
    ``www.`` (a zero-width space after ``#``, ``GH``, ``:`` and ``www``)."""
    return _AUTOLINK.sub(lambda m: m.group() + ZWSP, s)


def md_cell(s: object) -> str:
    """Untrusted text for a Markdown table cell (``md_text``; pipes are already escaped)."""
    return md_text(s) or " "


def md_inline_code(s: object, *, table: bool = False) -> str:
    """Untrusted text as an inline code span, on one line, with a delimiter longer than any backtick
    run inside. In a table (``table=True``) pipes are escaped as GitHub requires."""
    text = s if type(s) is str else str(s)
    if text.strip() and _CODE_SPECIAL.search(text) is None:
        pad = " " if text[0] == " " and text[-1] == " " else ""
        return f"`{pad}{text}{pad}`"
    text = neutralise_marker(strip_controls(text)).replace("\n", " ")
    if table:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    if not text.strip():
        text = text or " "
        return f"{fence}{text}{fence}"
    pad = " " if text.startswith("`") or text.endswith("`") or (text[0] == " " and text[-1] == " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_INLINE_PART = re.compile(r"(`+)|\\([!-/:-@\[-`{-~])")


def md_inline_html(markdown: str) -> str:
    """Inline Markdown the gate wrote (its prose, ``md_text`` and ``md_inline_code`` parts) as HTML
    text, as GitHub shows it: code spans as ``<code>``, backslash escapes and character references
    read, everything else escaped (no tag of the text is ever live)."""
    out: list[str] = []
    text: list[str] = []  # the text read since the last code span
    at = 0
    while (found := _INLINE_PART.search(markdown, at)) is not None:
        text.append(markdown[at : found.start()])
        at = found.end()
        if found.group(2) is not None:  # a backslash escape: the character itself
            text.append(found.group(2))
            continue
        run = found.group(1)
        close = re.compile(f"(?<!`){run}(?!`)").search(markdown, at)
        if close is None:  # no run of the same length closes it: literal backticks
            text.append(run)
            continue
        code = markdown[at : close.start()].replace("\n", " ")
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        out.append(html.escape(html.unescape("".join(text)), quote=False))
        out.append(f"<code>{html.escape(code, quote=False)}</code>")
        text, at = [], close.end()
    text.append(markdown[at:])
    out.append(html.escape(html.unescape("".join(text)), quote=False))
    return "".join(out)


def md_code_block(s: object, lang: str = "") -> str:
    """Untrusted text as a fenced code block (ending with a newline). The fence is longer than any
    backtick run inside, so the content cannot close it; HTML inside a code block is shown, not
    interpreted (so ``</details>`` cannot close our blocks); the hidden marker is neutralised."""
    text = neutralise_marker(strip_controls(str(s)))
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    lang = re.sub(r"[^A-Za-z0-9_+-]", "", lang)
    if not text.endswith("\n"):
        text += "\n"
    return f"{fence}{lang}\n{text}{fence}\n"


def xml_text(s: object) -> str:
    """Text with every character XML 1.0 forbids removed (the serialiser escapes ``<&>`` itself)."""
    return XML_ILLEGAL.sub("", str(s))


def truncate(s: str, limit: int, *, what: str = "characters", brief: bool = False) -> str:
    """``s`` cut to about ``limit`` characters: the one text-shortening helper of the gate.

    By default (reports, transcripts) the first ``limit`` characters are kept and the cut says how
    much it dropped: ``abc… [3 more characters cut]``. ``brief=True`` is for a value quoted inside a
    one-line message or label: the result is at most ``limit`` characters, its last one ``…``."""
    if limit < 0 or len(s) <= limit:
        return s
    if brief:
        return s[: limit - 1] + "…" if limit > 0 else ""
    cut = len(s) - limit
    return f"{s[:limit]}… [{cut} more {what} cut]"


_JSON = json.JSONEncoder(ensure_ascii=False, sort_keys=True, default=str)  # one encoder, not one per call


def json_text(value: object) -> str:
    """``value`` as one line of JSON (keys sorted, non-ASCII kept, what JSON cannot hold as its ``str``),
    or its ``repr`` when it has no JSON form (a circular structure, keys of mixed types). Shorten it with
    ``truncate``."""
    try:
        return _JSON.encode(value)
    except (TypeError, ValueError):
        return repr(value)


def as_text(value: object) -> str:
    """``value`` as the text a message carries (a tool result, a call's arguments): a string as it is,
    anything else as its JSON text (``json_text``)."""
    return value if isinstance(value, str) else json_text(value)


def show(value: object, limit: int = 120) -> str:
    """``value`` quoted in a one-line message: its JSON text, at most ``limit`` characters."""
    if type(value) is str and len(value) <= 512:
        return _show_text(value, limit)  # labels and messages show the same few strings again and again
    return truncate(json_text(value), limit, brief=True)


@functools.lru_cache(maxsize=4096)
def _show_text(text: str, limit: int) -> str:
    return truncate(json_text(text), limit, brief=True)


def html_text(s: object) -> str:
    """Untrusted text inside an HTML element of the report (e.g. ``<summary>``), on one line:
    ``&<>"`` escaped, @-mentions neutralised. Markdown is not interpreted there, so no backslashes."""
    text = no_autolinks(strip_controls(str(s)).replace("\n", " "))
    text = text.translate(_HTML).replace('"', "&quot;")
    return _MENTION.sub("@&#8203;", text)
