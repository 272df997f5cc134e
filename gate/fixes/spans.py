"""The span of a file a fix may edit, found from the definition the model was shown, and a new text
written into it.

A span is exactly one of: a tool's description or a parameter's description, as the string value it
is in a JSON or YAML file (a tool file, or a suite's inline tools), or as one string literal in
source code (an MCP server's docstring, a string of an agent program: DESIGN.md section 10), or one
paragraph (lines between blank lines) of a system prompt file. Nothing else of the file is ever
touched: a new text is written as that literal alone, in the literal's own style where the text
allows it, and for JSON and YAML the edited file is read back and must be the same document with that
one value changed (``write`` returns None otherwise). In source code the new text goes in verbatim:
a text the literal could not hold without an escape (its quote, a backslash, a line break in a
one-line string, ``${`` in a template) is refused. Pure: the file's text is handed in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gate.fixes.documents import NotADocument, PathPart, Scalar, json_scalars, parse, yaml_scalars
from gate.results.fixes import SpanKind
from gate.util.source_text import line_of

Encoding = Literal["json", "yaml", "code", "paragraph"]
# The keys of a tool's parameter schema in the formats a tool file may hold (OpenAI, Anthropic, MCP).
SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema")
_CODE_QUOTES = ('"""', "'''", '"', "'", "`")
_YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Span:
    """Where a definition's ``text`` is written in ``file``: the characters ``start``..``end`` of the
    file's text (a literal, or a paragraph), how they are written (``encoding``, and ``style``: the
    YAML style or the code literal's quote), the value's ``path`` in a JSON or YAML document, and the
    indentation a line break continues with (code)."""

    kind: SpanKind
    file: str
    text: str
    start: int
    end: int
    encoding: Encoding
    style: str = ""
    path: tuple[PathPart, ...] = ()
    indent: str = ""
    tool: str | None = None
    argument: str | None = None

    def line(self, source: str) -> int:
        return line_of(source, self.start)

    def end_line(self, source: str) -> int:
        return line_of(source, max(self.start, self.end - 1))


class NotEditable(ValueError):
    """The definition cannot be edited in place; the message says why (a product of the file)."""


def document_kind(file: str) -> Literal["json", "yaml"] | None:
    if file.endswith(".json"):
        return "json"
    if file.endswith(_YAML_SUFFIXES):
        return "yaml"
    return None


# --- finding the span ------------------------------------------------------------------------------


def definition_span(source: str, file: str, tool: str, argument: str | None, text: str, line: int) -> Span:
    """The span of ``tool``'s description (or its parameter ``argument``'s) whose value is ``text``,
    written near ``line`` of ``file`` (whose content is ``source``)."""
    kind: SpanKind = "parameter_description" if argument else "tool_description"
    if not text.strip():
        raise NotEditable("it has no description to reword (adding one is not a rewording)")
    doc_kind = document_kind(file)
    if doc_kind is None:
        return _code_span(source, file, kind, tool, argument, text, line)
    try:
        scalars = json_scalars(source) if doc_kind == "json" else yaml_scalars(source)
    except NotADocument as exc:
        raise NotEditable(f"{file} is not read as {doc_kind.upper()} here: {exc}") from None
    names = {s.path: s.value for s in scalars}
    found = [s for s in scalars if s.value == text and _is_definition(s.path, names, tool, argument)]
    if not found:
        raise NotEditable(f"its text is not one {doc_kind.upper()} string of {file}")
    best = min(found, key=lambda s: abs(line_of(source, s.start) - line))
    return Span(kind, file, text, best.start, best.end, doc_kind, best.style, best.path, "", tool, argument)


def _is_definition(
    path: tuple[PathPart, ...], names: dict[tuple[PathPart, ...], str], tool: str, argument: str | None
) -> bool:
    """Whether ``path`` is where ``tool``'s description (or its ``argument``'s) is written."""
    if not path or path[-1] != "description":
        return False
    if argument is None:
        return names.get((*path[:-1], "name")) == tool
    for i in range(len(path) - 3):
        if path[i] in SCHEMA_KEYS and path[i + 1 :] == ("properties", argument, "description"):
            return names.get((*path[:i], "name")) == tool
    return False


def _code_span(
    source: str, file: str, kind: SpanKind, tool: str, argument: str | None, text: str, line: int
) -> Span:
    """A description written verbatim as one string literal of source code."""
    starts = [m.start() for m in re.finditer(re.escape(text), source)]
    whole = [(s, q) for s in starts if (q := _quoted(source, s, s + len(text))) is not None]
    if not whole:
        why = "as one string literal" if starts else "as written (it is built from pieces or escapes)"
        raise NotEditable(f"its text is not written {why} in {file}")
    start, quote = min(whole, key=lambda sq: abs(line_of(source, sq[0]) - line))
    line_start = source.rfind("\n", 0, start) + 1
    first_indent = re.match(r"[ \t]*", source[line_start:]).group()  # type: ignore[union-attr]
    later = re.search(r"\n([ \t]+)\S", text)
    indent = later.group(1) if later else first_indent
    return Span(kind, file, text, start, start + len(text), "code", quote, (), indent, tool, argument)


def _quoted(source: str, start: int, end: int) -> str | None:
    """The quote of the string literal that is exactly ``source[start:end]``, else None."""
    for quote in _CODE_QUOTES:
        if source.endswith(quote, 0, start) and source.startswith(quote, end):
            before = source[: start - len(quote)]
            if not before.endswith("\\") and not re.search(r"[rRbBfF]$", before):  # no raw, bytes, f-string
                return quote
    return None


def paragraph_span(source: str, file: str, line: int) -> Span:
    """The paragraph of a system prompt file (``source``) that holds ``line`` (the nearest one after
    it when ``line`` is blank): its lines without the final line break."""
    lines = source.splitlines(keepends=True)
    if not any(text.strip() for text in lines):
        raise NotEditable(f"{file} holds no paragraph")
    index = max(0, min(line, len(lines)) - 1)
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index == len(lines):
        index = max(i for i, text in enumerate(lines) if text.strip())
    first = index
    while first > 0 and lines[first - 1].strip():
        first -= 1
    last = index
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1
    start = sum(len(text) for text in lines[:first])
    end = sum(len(text) for text in lines[: last + 1])
    end -= len(lines[last]) - len(lines[last].rstrip("\r\n"))
    return Span("prompt_paragraph", file, source[start:end], start, end, "paragraph")


# --- the new text ------------------------------------------------------------------------------------


def value_of(span: Span, candidate: str) -> str:
    """The text the model will be shown for ``candidate``: without the white space around it, with the
    line break the span's own text ends with, and in source code with each line break continuing at
    the literal's indentation (as the file will hold it)."""
    text = candidate.strip().replace("\r\n", "\n")
    if span.encoding == "code" and "\n" in text:
        text = "\n".join([text.splitlines()[0], *(span.indent + x.strip() for x in text.splitlines()[1:])])
    if span.encoding == "paragraph" and "\r\n" in span.text:
        text = text.replace("\n", "\r\n")
    if span.text.endswith("\n") and span.encoding != "paragraph":
        text += "\n"
    return text


def write(span: Span, source: str, value: str) -> str | None:
    """``source`` with ``value`` written in the span, or None when it cannot be written there without
    touching anything else (JSON and YAML: the file must read back as the same document with that
    one value changed)."""
    if span.encoding in ("code", "paragraph"):
        literal = value if span.encoding == "paragraph" else _code_literal(span, value)
        return None if literal is None else source[: span.start] + literal + source[span.end :]
    kind = "json" if span.encoding == "json" else "yaml"
    try:
        expected = _with_value(parse(source, kind), span.path, value)
    except NotADocument:
        return None
    for literal in _literals(span, source, value):
        edited = source[: span.start] + literal + source[span.end :]
        try:
            if parse(edited, kind) == expected:
                return edited
        except NotADocument:
            continue
    return None


def _code_literal(span: Span, value: str) -> str | None:
    quote = span.style
    refused = ["\\", quote[0]] + (["${"] if quote == "`" else [])
    if any(part in value for part in refused) or ("\n" in value and len(quote) == 1 and quote != "`"):
        return None
    return value


def _literals(span: Span, source: str, value: str) -> list[str]:
    """The ways to write ``value`` in the span, the literal's own style first."""
    if span.encoding == "json":
        return [json.dumps(value, ensure_ascii=False)]
    double = json.dumps(value, ensure_ascii=False)
    found = []
    if span.style in ("|", ">"):
        found.append(_block(span, source, value))
    elif span.style == "" and "\n" not in value:
        found.append(value)
    if span.style in ("", "'") and "\n" not in value:
        found.append("'" + value.replace("'", "''") + "'")
    return [x for x in found if x] + [double]


def _block(span: Span, source: str, value: str) -> str:
    """``value`` as a literal block scalar at the original block's indentation ("" when it needs
    more than a block can say: leading white space, several final line breaks)."""
    old = source[span.start : span.end]
    indent = re.search(r"\n([ \t]*)\S", old)
    if indent is None or value[:1].isspace() or value.endswith("\n\n") or not value.strip():
        return ""
    pad = indent.group(1)
    chomp = "" if value.endswith("\n") else "-"
    body = "".join(pad + row if row.strip() else "\n" for row in value.rstrip("\n").splitlines(keepends=True))
    trailing = old[len(old.rstrip("\n")) :] or "\n"
    return f"|{chomp}\n{body.rstrip(chr(10))}{trailing}"


def _with_value(document: Any, path: Sequence[PathPart], value: str) -> Any:
    """A copy of ``document`` with ``value`` at ``path``."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(document, dict):
        return {k: (_with_value(v, rest, value) if k == head else v) for k, v in document.items()}
    if isinstance(document, list):
        return [_with_value(v, rest, value) if i == head else v for i, v in enumerate(document)]
    raise NotADocument("the path leaves the document")


__all__ = [
    "NotEditable",
    "Scalar",
    "Span",
    "definition_span",
    "document_kind",
    "paragraph_span",
    "value_of",
    "write",
]
