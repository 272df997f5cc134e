"""Glob patterns over repository-relative POSIX paths (a command's ``watch``).

A pattern is relative to the repository root and matched against the whole path: ``*`` matches
within one path segment, ``?`` one character of a segment, ``[...]`` a character class, a ``**``
segment any number of segments (none included), and a pattern ending in ``/`` everything below that
directory. ``src/*.py`` matches ``src/agent.py`` but not ``src/tools/a.py``; ``src/**/*.py``
matches both; ``**/*.py`` matches every Python file. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["glob_problem", "matches", "matches_any", "may_match_below"]


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
    return None


def _segment(segment: str) -> str:
    """One path segment of a pattern as a regular expression (never matching '/')."""
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = segment[i + 1 : end]
                negated = body.startswith("!")
                body = body[1:] if negated else body
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                out.append(f"[^/{body}]" if negated else f"(?!/)[{body}]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    text = pattern.removeprefix("./")
    below = text.endswith("/")
    segments = [s for s in text.rstrip("/").split("/") if s not in ("", ".")]
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append("(?:.*)" if last else "(?:[^/]+/)*")
        else:
            parts.append(_segment(segment) + ("" if last else "/"))
    regex = "".join(parts) + ("/.+" if below else "")
    return re.compile(regex, re.DOTALL)


def matches(pattern: str, path: str) -> bool:
    """Whether the repository-relative ``path`` matches ``pattern`` (see the module doc)."""
    return _compiled(pattern).fullmatch(path.removeprefix("./")) is not None


def matches_any(patterns: Iterable[str], path: str) -> bool:
    return any(matches(pattern, path) for pattern in patterns)


def may_match_below(pattern: str, directory: str) -> bool:
    """Whether ``pattern`` can match some path below ``directory`` (``directory/...``): a change to
    what stands at ``directory`` (a submodule, a symlink to a directory) can change files the
    pattern names."""
    text = pattern.removeprefix("./")
    segments = [s for s in text.rstrip("/").split("/") if s not in ("", ".")]
    if text.endswith("/"):
        segments.append("**")
    parts = [p for p in directory.removeprefix("./").split("/") if p not in ("", ".")]
    for index, part in enumerate(parts):
        if index >= len(segments):
            return False
        if segments[index] == "**":
            return True
        if re.fullmatch(_segment(segments[index]), part, re.DOTALL) is None:
            return False
    return len(segments) > len(parts)
