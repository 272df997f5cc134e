"""Where a text is written in source code: a tool's description in a Python docstring, a TypeScript
string, a JSON value. Domain-free and pure: the files are handed in as texts.

A text is found as written (its exact characters), else as the same run of words with anything
between them that is not a word: quotes, string concatenation, escaped line breaks (``\\n``), line
continuations, comment markers. So ``"Current weather " + "for a city."`` and a docstring re-indented
by the SDK that read it both match ``Current weather for a city.``. Among several places the one
nearest to a given line wins (the parameter near its tool), else the first in the files' order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Escapes that stand for white space or a quote inside a string literal: read as a separator.
_ESCAPE = re.compile(r"\\[nrt\"'`]")
MIN_WORDS = 2  # a one-word text (``City``) says too little to be placed by its words alone


@dataclass(frozen=True)
class Place:
    """Where a text starts: repository-relative path and 1-based line."""

    path: str
    line: int


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1


def _words(text: str) -> list[tuple[str, int]]:
    """The words of ``text`` (case-folded) with their offsets; escapes read as separators."""
    cleaned = _ESCAPE.sub(lambda m: " " * len(m.group()), text)
    return [(m.group().casefold(), m.start()) for m in _WORD.finditer(cleaned)]


def _exact(needle: str, text: str) -> list[int]:
    found: list[int] = []
    start = text.find(needle)
    while start >= 0:
        found.append(start)
        start = text.find(needle, start + 1)
    return found


def _word_runs(needle: Sequence[str], words: Sequence[tuple[str, int]]) -> list[int]:
    """Offsets where ``needle``'s words occur in a row in ``words``."""
    first, size = needle[0], len(needle)
    return [
        offset
        for i, (word, offset) in enumerate(words)
        if word == first and [w for w, _ in words[i : i + size]] == list(needle)
    ]


def occurrences(text: str, source: str) -> list[int]:
    """Offsets in ``source`` where ``text`` is written: exactly, else as the same run of words."""
    needle = text.strip()
    if not needle:
        return []
    exact = _exact(needle, source)
    if exact:
        return exact
    wanted = [w for w, _ in _words(needle)]
    if len(wanted) < MIN_WORDS:
        return []
    return _word_runs(wanted, _words(source))


def find_text(
    text: str, sources: Mapping[str, str], order: Sequence[str] = (), near: Place | None = None
) -> Place | None:
    """Where ``text`` is written among ``sources`` (path -> text): in the file of ``near`` the place
    nearest its line, else the first place in the first file of ``order`` (then the rest, sorted) that
    holds it; None when no file does."""
    if near is not None and near.path in sources:
        lines = [line_of(sources[near.path], o) for o in occurrences(text, sources[near.path])]
        if lines:
            return Place(near.path, min(lines, key=lambda n: (abs(n - near.line), n)))
    for path in _ordered(sources, order):
        found = occurrences(text, sources[path])
        if found:
            return Place(path, line_of(sources[path], found[0]))
    return None


def _ordered(sources: Mapping[str, str], order: Sequence[str]) -> list[str]:
    first = [p for p in dict.fromkeys(order) if p in sources]
    return first + sorted(p for p in sources if p not in set(first))


def word_line(
    word: str, source: str, line: int, window: int, *, before: bool = False, declared: bool = False
) -> int | None:
    """The line nearest ``line`` (at most ``window`` lines away; only lines up to it with ``before``)
    where ``word`` stands as a whole identifier (``get_weather``, not ``get_weather_now``); with
    ``declared``, only where it is declared: followed by ``:`` or ``=`` (``city: str``, ``date:
    z.string()``, ``"days": {...}``), not where a sentence mentions it."""
    end = r"[\"']?\s*[:=]" if declared else r"(?![\w$])"
    pattern = re.compile(r"(?<![\w$])" + re.escape(word) + end)
    best: int | None = None
    for match in pattern.finditer(source):
        at = line_of(source, match.start())
        if abs(at - line) > window or (before and at > line):
            continue
        if best is None or abs(at - line) < abs(best - line):
            best = at
    return best
