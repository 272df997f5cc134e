"""Where a program's own code defines a tool, and what description it gives it (DESIGN section 10,
"Where a definition lives"): what the model should be shown when the program offers that tool.

A definition is a place that names the tool and gives it a description, as the frameworks write them:

- Python (read with ``ast``, never run): a function named as the tool (or whose decorator names it:
  ``@tool("track_shipment")``, ``@function_tool(name_override=...)``) with a docstring; a call that
  names it (``name=`` / ``name_override=``, or its first argument) with a ``description=`` (or, for a
  callee whose name says tool, ``server.tool("x", "...")``, a second string argument); a dict literal
  with ``"name"`` and ``"description"`` (the OpenAI, Anthropic and MCP formats written in code);
- any other language (JavaScript, TypeScript, JSON, ...): the name as a string under a ``name`` key
  with a ``description`` key of the same ``{...}``; or the name as the first argument of a callee
  whose name says tool, with a second string argument or an object of options holding a
  ``description``.

The description is the text the code writes: a docstring cleaned as ``inspect.cleandoc`` does (what
the SDKs read), string literals joined (implicit or ``+`` concatenation), or a name assigned one such
string once in the file (``DESCRIPTION = "..."``, ``const DESCRIPTION = "..."``; the description is
then placed where that string is written). A description built at run time otherwise (an f-string, a
template with ``${...}``, a function's result) is not known: such a definition is not listed. Pure:
the files come in as texts.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

# A docstring's sections that SDKs read as parameters, returns or examples, not as the tool's text.
_SECTIONS = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Returns?|Yields|Raises|Examples?|Notes?)\s*:?\s*$"
    r"|^\s*-{3,}\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_PYTHON = (".py", ".pyi")


@dataclass(frozen=True)
class CodeDefinition:
    """A definition of ``name`` in ``path``: the line that names it, its description ``text`` and the
    lines its description literal spans (``start``..``end``)."""

    name: str
    path: str
    line: int
    text: str
    start: int
    end: int

    @property
    def main_text(self) -> str:
        """The description without the sections SDKs read as parameters, returns or examples."""
        found = _SECTIONS.search(self.text)
        return (self.text[: found.start()] if found else self.text).strip()


def code_definitions(
    name: str, sources: Mapping[str, str], files: Sequence[str]
) -> tuple[CodeDefinition, ...]:
    """Every definition of the tool ``name`` in ``files`` (paths of ``sources``), in file order."""
    found: list[CodeDefinition] = []
    for path in dict.fromkeys(files):
        text = sources.get(path)
        if text is None or name not in text:
            continue
        reader = _python if path.endswith(_PYTHON) else _other
        found += reader(path, text).get(name, ())
    return tuple(found)


def _by_name(definitions: Iterator[CodeDefinition]) -> dict[str, tuple[CodeDefinition, ...]]:
    found: dict[str, list[CodeDefinition]] = {}
    for definition in definitions:
        found.setdefault(definition.name, []).append(definition)
    return {name: tuple(sorted(d, key=lambda d: (d.line, d.start))) for name, d in found.items()}


# --- Python --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _python(path: str, text: str) -> dict[str, tuple[CodeDefinition, ...]]:
    """Every definition of a Python file, by tool name (read once for every tool looked up)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return _by_name(_python_definitions(path, tree, _Strings(tree)))


def _python_definitions(path: str, tree: ast.AST, strings: _Strings) -> Iterator[CodeDefinition]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = _docstring(node)
            if docstring is None:
                continue
            literal = node.body[0]
            named = {node.name, *(n for n in map(strings.call_name, node.decorator_list) if n)}
            for tool in named:
                yield CodeDefinition(tool, path, node.lineno, docstring, literal.lineno, _end(literal))
            continue
        name: str | None = None
        description: ast.expr | None = None
        if isinstance(node, ast.Call):
            name, description = strings.call_name(node), _call_description(node)
        elif isinstance(node, ast.Dict):
            entries = {
                strings.value(k): v for k, v in zip(node.keys, node.values, strict=True) if k is not None
            }
            name, description = strings.value(entries.get("name")), entries.get("description")
        described = strings.described(description) if name else None
        if name and described is not None:
            yield CodeDefinition(name, path, getattr(node, "lineno", 0), *described)


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    first = node.body[0] if node.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return inspect.cleandoc(first.value.value)
    return None


def _end(node: ast.AST) -> int:
    end: int | None = getattr(node, "end_lineno", None)
    return end or int(getattr(node, "lineno", 0))


class _Strings:
    """The string values of a Python file's expressions: literals, ``+`` of them, and the names
    assigned one string once (``DESCRIPTION = "..."``, then ``description=DESCRIPTION``)."""

    def __init__(self, tree: ast.AST) -> None:
        assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                assigned.setdefault(node.targets[0].id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                assigned.setdefault(node.target.id, []).append(node.value)
        self.constants = {name: values[0] for name, values in assigned.items() if len(values) == 1}

    def written(self, node: ast.AST | None, depth: int = 0) -> ast.AST | None:
        """The expression ``node`` stands for: a name's one assigned value, followed (a few times)."""
        while isinstance(node, ast.Name) and node.id in self.constants and depth < 8:
            node, depth = self.constants[node.id], depth + 1
        return node

    def value(self, node: ast.AST | None) -> str | None:
        """The string ``node`` is (None: not one known without running the code)."""
        node = self.written(node)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left), self.value(node.right)
            return left + right if left is not None and right is not None else None
        return None

    def described(self, node: ast.AST | None) -> tuple[str, int, int] | None:
        """A description's text and the lines where it is written."""
        text = self.value(node)
        where = self.written(node)
        if text is None or where is None:
            return None
        return inspect.cleandoc(text), int(getattr(where, "lineno", 0)), _end(where)

    def call_name(self, node: ast.AST) -> str | None:
        """The tool a call names (a decorator call included): its ``name=`` / ``name_override=``, or
        its first argument when the callee says tool or the call gives a ``description=``."""
        if not isinstance(node, ast.Call):
            return None
        named = self.value(_keyword(node, "name", "name_override"))
        if named:
            return named
        first = self.value(node.args[0]) if node.args else None
        if first and ("tool" in _callee(node).lower() or _keyword(node, "description") is not None):
            return first
        return None


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _keyword(node: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg in names), None)


def _call_description(node: ast.Call) -> ast.expr | None:
    value = _keyword(node, "description", "description_override")
    if value is None and len(node.args) > 1 and "tool" in _callee(node).lower():
        value = node.args[1]
    return value


# --- other languages ------------------------------------------------------------------------------

_QUOTES = "\"'`"
_DESCRIPTION_KEY = re.compile(r"""(?<![\w$])["']?description["']?\s*[:=]\s*""")


_QUOTED_NAME = r"""(["'`])([^"'`\\\n]+)\1"""
_KEYED = re.compile(r"""(?<![\w$])["']?name["']?\s*[:=]\s*""" + _QUOTED_NAME)
_CALLED = re.compile(r"""[\w$]*tool[\w$]*\s*\(\s*""" + _QUOTED_NAME + r"\s*,\s*", re.IGNORECASE)


@functools.lru_cache(maxsize=32)
def _other(path: str, text: str) -> dict[str, tuple[CodeDefinition, ...]]:
    """Every definition of a file in another language, by tool name (read once)."""
    return _by_name(_other_definitions(path, text))


def _other_definitions(path: str, text: str) -> Iterator[CodeDefinition]:
    objects = _objects(text)
    for match in _KEYED.finditer(text):  # {name: "x", description: "..."}: the same object's key
        described = _description_in(text, objects, _innermost(objects, match.start()))
        if described is not None:
            yield CodeDefinition(match.group(2), path, _line(text, match.start()), *described)
    for match in _CALLED.finditer(text):  # tool("x", "..."), or tool("x", {description: "..."})
        value = _value_at(text, match.end())
        if value is None:
            opened = re.compile(r"\s*\{").match(text, match.end())
            value = _description_in(text, objects, _innermost(objects, opened.end() - 1) if opened else None)
        if value is not None:
            yield CodeDefinition(match.group(2), path, _line(text, match.start()), *value)


def _value_at(text: str, at: int) -> tuple[str, int, int] | None:
    """The string at ``at`` (a literal, or a name bound once to one: ``const DESCRIPTION = "..."``)
    and the lines where it is written."""
    literal = _literal(text, at)
    if literal is not None:
        return literal[0], _line(text, at), _line(text, literal[1])
    named = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*(?=[,}\n)])").match(text, at)
    if named is None:
        return None
    bound = re.compile(r"(?<![\w$.])const\s+" + re.escape(named.group(1)) + r"\s*(?::\s*string\s*)?=\s*")
    found = list(bound.finditer(text))
    if len(found) != 1:
        return None
    literal = _literal(text, found[0].end())
    return None if literal is None else (literal[0], _line(text, found[0].end()), _line(text, literal[1]))


def _objects(text: str) -> tuple[tuple[int, int], ...]:
    """The spans of the ``{...}`` of ``text`` (outside strings and comments), sorted by start."""
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    at = 0
    while at < len(text):
        char = text[at]
        if char in _QUOTES:
            at = _string_end(text, at)
        elif text.startswith("//", at):
            end = text.find("\n", at)
            at = len(text) if end < 0 else end
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            at = len(text) if close < 0 else close + 1
        elif char == "{":
            opened.append(at)
        elif char == "}" and opened:
            spans.append((opened.pop(), at))
        at += 1
    return tuple(sorted(spans))


def _string_end(text: str, at: int) -> int:
    quote, at = text[at], at + 1
    while at < len(text) and text[at] != quote:
        if text[at] == "\\":
            at += 1
        elif text[at] == "\n" and quote != "`":
            return at
        at += 1
    return at


def _innermost(objects: Sequence[tuple[int, int]], at: int) -> tuple[int, int] | None:
    """The smallest ``{...}`` holding offset ``at``."""
    holding = [span for span in objects if span[0] <= at <= span[1]]
    return max(holding, key=lambda span: span[0]) if holding else None


def _description_in(
    text: str, objects: Sequence[tuple[int, int]], span: tuple[int, int] | None
) -> tuple[str, int, int] | None:
    """The ``description`` key's string of the object ``span`` itself (not of an object inside it)."""
    if span is None:
        return None
    for key in _DESCRIPTION_KEY.finditer(text, span[0], span[1]):
        if _innermost(objects, key.start()) != span:
            continue
        value = _value_at(text, key.end())
        if value is not None:
            return value
    return None


def _literal(text: str, at: int) -> tuple[str, int] | None:
    """The string literal (or ``+``-joined literals) starting at ``at``: its value and where it ends
    (None: not a literal, or one whose value is built at run time)."""
    parts: list[str] = []
    while True:
        match = re.compile(r"\s*").match(text, at)
        at = match.end() if match else at
        if at >= len(text) or text[at] not in _QUOTES:
            return None
        quote, end = text[at], at + 1
        while end < len(text) and text[end] != quote:
            if text[end] == "\\":
                end += 1
            elif text[end] == "\n" and quote != "`":
                return None
            end += 1
        raw = text[at + 1 : end]
        if end >= len(text) or (quote == "`" and "${" in raw):
            return None
        parts.append(_unescape(raw))
        follows = re.compile(r"\s*\+\s*").match(text, end + 1)
        if follows is None or follows.end() >= len(text) or text[follows.end()] not in _QUOTES:
            return "".join(parts), end
        at = follows.end()


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\n|.)", re.DOTALL)


def _unescape(raw: str) -> str:
    """A JavaScript (or JSON) string literal's escapes read: ``\\n``, ``\\u00e9``, ``\\'``..."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "ux" and len(code) > 1:
            return chr(int(code.strip("ux{}"), 16))
        if code == "\n":
            return ""  # a line continuation
        return _ESCAPES.get(code, code)

    return _ESCAPE.sub(one, raw)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
