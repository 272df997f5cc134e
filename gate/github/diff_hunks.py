"""Which lines of a pull request can carry a review comment. Pure.

GitHub accepts a review comment on the RIGHT side (the new file) only on lines that appear in the
pull request's diff: added lines and the context lines around them inside a hunk. The ``patch``
field of the "list pull request files" API holds those hunks as unified-diff text.
"""

from __future__ import annotations

import re
from collections.abc import Collection

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def commentable_lines(patch: str | None) -> frozenset[int]:
    """The RIGHT-side line numbers (1-based) inside the hunks of ``patch``: added and context lines.

    ``None`` or an empty patch (binary files, very large diffs) gives an empty set."""
    lines: set[int] = set()
    if not patch:
        return frozenset()
    right = 0
    remaining = 0  # RIGHT-side lines still expected in the current hunk
    # A trailing line break would read as one more (empty) context line: drop it.
    for raw in patch.rstrip("\r\n").split("\n"):
        raw = raw.rstrip("\r")
        header = _HUNK.match(raw)
        if header:
            right = int(header.group(1))
            remaining = int(header.group(2)) if header.group(2) is not None else 1
            continue
        if remaining <= 0 and not raw.startswith("-"):
            continue  # outside any hunk (or trailing text)
        if raw.startswith("+"):
            lines.add(right)
            right += 1
            remaining -= 1
        elif raw.startswith("-") or raw.startswith("\\"):
            continue  # a removed line, or "\ No newline at end of file"
        else:  # a context line (" text"; some tools strip the space of empty context lines)
            lines.add(right)
            right += 1
            remaining -= 1
    return frozenset(lines)


def nearest_commentable(lines: Collection[int], target: int, window: int = 0) -> int | None:
    """``target`` if it is commentable, else the nearest commentable line at most ``window`` lines
    away (the earlier one on a tie), else None."""
    if target in lines:
        return target
    for distance in range(1, max(window, 0) + 1):
        for candidate in (target - distance, target + distance):
            if candidate >= 1 and candidate in lines:
                return candidate
    return None
