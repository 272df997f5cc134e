"""Glob patterns over repository-relative POSIX paths (a command's ``watch``).

A pattern is relative to the repository root and matched against the whole path: ``*`` matches
within one path segment, ``?`` one character of a segment, ``[...]`` a character class (``[!...]``
its complement; a ``]`` first in it is one of its characters; a ``[`` without its ``]`` is itself), a
``**`` segment any number of segments (none included), and a pattern ending in ``/`` everything below
that directory; no ``{a,b}`` alternatives (refused: one pattern each). ``src/*.py`` matches
``src/agent.py`` but not ``src/tools/a.py``; ``src/**/*.py`` matches both; ``**/*.py`` matches every
Python file.

Matching takes time bounded by the pattern's size times the path's, whatever either holds (a pattern
of twelve ``**`` segments against a path 24 levels deep took a regular expression hours of
backtracking): segments are matched by the two-pointer wildcard algorithm (a ``*`` is retried only
from the last one), and ``**`` segments by a table over (pattern segment, path segment). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["glob_problem", "matches", "matches_any", "may_match_below"]

_STAR = "*"
_ALTERNATIVES = re.compile(r"\{[^{}]*,[^{}]*\}")  # {a,b}: a shell's alternatives, no glob's here
_ANY = "?"


@dataclass(frozen=True)
class _Class:
    """``[...]``: its single characters, its ranges, and whether it is negated."""

    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    negated: bool

    def holds(self, char: str) -> bool:
        inside = char in self.chars or any(low <= char <= high for low, high in self.ranges)
        return inside != self.negated


_Token = str | _Class  # a literal character, _STAR, _ANY, or a class
_Segment = tuple[_Token, ...]
# A segment that is "**" (any number of segments) is None.
_Pattern = tuple[_Segment | None, ...]


class _BadGlob(ValueError):
    pass


def _class(body: str) -> _Class:
    negated = body.startswith("!")
    body = body[1:] if negated else body
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            low, high = body[i], body[i + 2]
            if low > high:
                raise _BadGlob(f"the range [{low}-{high}] is reversed (write [{high}-{low}])")
            ranges.append((low, high))
            i += 3
        else:
            chars.add(body[i])
            i += 1
    return _Class(frozenset(chars), tuple(ranges), negated)


def _segment(text: str) -> _Segment:
    tokens: list[_Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "[":
            start = i + 2 if text[i + 1 : i + 2] in ("!", "]") else i + 1
            if text[i + 1 : i + 3] == "!]":
                start = i + 3
            end = text.find("]", start)
            if end != -1:
                tokens.append(_class(text[i + 1 : end]))
                i = end + 1
                continue
        if char == "*" and tokens and tokens[-1] == _STAR:
            i += 1  # "**" inside a segment is one "*"
            continue
        tokens.append(_STAR if char == "*" else _ANY if char == "?" else char)
        i += 1
    return tuple(tokens)


@lru_cache(maxsize=512)
def _parsed(pattern: str) -> tuple[_Pattern, bool]:
    """The pattern's segments (None for a ``**`` segment) and whether it ends in ``/``."""
    text = pattern.removeprefix("./")
    below = text.endswith("/")
    parts = [s for s in text.rstrip("/").split("/") if s not in ("", ".")]
    return tuple(None if part == "**" else _segment(part) for part in parts), below


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a repository glob, or None when it can."""
    if not pattern.strip():
        return "an empty pattern matches nothing"
    if pattern.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", pattern):
        return "a pattern is relative to the repository root, not absolute"
    if "\\" in pattern:
        return "write paths with '/' (a backslash is not a path separator here)"
    if ".." in pattern.rstrip("/").split("/"):
        return "a pattern cannot leave the repository ('..')"
    if "\0" in pattern:
        return "a path never holds NUL, so this pattern matches nothing"
    if _ALTERNATIVES.search(pattern):
        return (
            "{a,b} is no alternative here (it matches those characters as written, so the files meant "
            "would change unseen): write one pattern per alternative"
        )
    try:
        _parsed(pattern)
    except _BadGlob as exc:
        return str(exc)
    return None


def _segment_matches(tokens: _Segment, text: str) -> bool:
    """Whether one path segment matches one pattern segment: the two-pointer wildcard match, a ``*``
    retried only from the last one seen (at most len(tokens) x len(text) steps)."""
    t = s = 0
    star_t, star_s = -1, 0
    while s < len(text):
        if t < len(tokens) and tokens[t] is not _STAR and _one(tokens[t], text[s]):
            t += 1
            s += 1
        elif t < len(tokens) and tokens[t] is _STAR:
            star_t, star_s = t, s
            t += 1
        elif star_t >= 0:
            t = star_t + 1
            star_s += 1
            s = star_s
        else:
            return False
    while t < len(tokens) and tokens[t] is _STAR:
        t += 1
    return t == len(tokens)


def _one(token: _Token, char: str) -> bool:
    if isinstance(token, _Class):
        return token.holds(char)
    return token is _ANY or token == char


def matches(pattern: str, path: str) -> bool:
    """Whether the repository-relative ``path`` matches ``pattern`` (see the module doc); a pattern
    :func:`glob_problem` refuses matches nothing."""
    try:
        segments, below = _parsed(pattern)
    except _BadGlob:
        return False
    parts = path.removeprefix("./").split("/")
    if below:  # everything below the directory: the pattern, then at least one more segment
        segments = (*segments, None)
    # reach[j]: pattern segments 0..i matched the first j path segments (a row per pattern segment)
    reach = [True] + [False] * len(parts)
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment is None:  # "**": zero or more segments, at least one when it ends the pattern
            following = [False] * (len(parts) + 1)
            earlier = False  # some k < j reached
            for j in range(len(parts) + 1):
                following[j] = earlier or (reach[j] and not last)
                earlier = earlier or reach[j]
            reach = following
        else:
            reach = [False] + [reach[j] and _segment_matches(segment, parts[j]) for j in range(len(parts))]
    return reach[len(parts)]


def matches_any(patterns: Iterable[str], path: str) -> bool:
    return any(matches(pattern, path) for pattern in patterns)


def may_match_below(pattern: str, directory: str) -> bool:
    """Whether ``pattern`` can match some path below ``directory`` (``directory/...``): a change to
    what stands at ``directory`` (a submodule, a symlink to a directory) can change files the
    pattern names."""
    try:
        segments, below = _parsed(pattern)
    except _BadGlob:
        return False
    if below:
        segments = (*segments, None)
    parts = [p for p in directory.removeprefix("./").split("/") if p not in ("", ".")]
    for index, part in enumerate(parts):
        if index >= len(segments):
            return False
        segment = segments[index]
        if segment is None:
            return True
        if not _segment_matches(segment, part):
            return False
    return len(segments) > len(parts)
