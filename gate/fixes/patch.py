"""A verified edit as the reviewer meets it: a patch ``git apply`` takes, a GitHub suggested change,
a diff block. Pure: the files' texts come in.

The suggestion holds exactly the lines that replace the commented ones, literally (GitHub shows and
commits them as they are, so nothing is escaped), inside a fence longer than any run of backticks
they hold, so no text can close it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from gate.results.fixes import Edit

CONTEXT = 3  # lines of context around a change, as ``git diff`` gives
_BACKTICKS = re.compile(r"`+")


def edit_of(file: str, before: str, after: str) -> Edit:
    """The whole lines that differ between ``before`` and ``after`` (a file's text), with context."""
    old, new = before.splitlines(), after.splitlines()
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return Edit(
        file=file,
        line=head + 1,
        end_line=max(head + 1, len(old) - tail),
        before=tuple(old[head : len(old) - tail]),
        after=tuple(new[head : len(new) - tail]),
        above=tuple(old[max(0, head - CONTEXT) : head]),
        below=tuple(old[len(old) - tail : len(old) - tail + CONTEXT]),
    )


def git_patch(changes: Sequence[tuple[str, str, str]]) -> str:
    """The patch of ``(path, before, after)`` changes, each file once, that ``git apply`` takes."""
    out: list[str] = []
    for path, before, after in changes:
        if before == after:
            continue
        out += [f"diff --git a/{path} b/{path}\n"]
        lines = difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
            n=CONTEXT,
        )
        for line in lines:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text`` (at least three)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def suggestion(edit: Edit) -> str:
    """A GitHub suggested change replacing the commented lines (``line``..``end_line``) with the edit's."""
    body = "\n".join(edit.after)
    marks = fence(body)
    return f"{marks}suggestion\n{body}\n{marks}" if edit.after else f"{marks}suggestion\n{marks}"


def diff_lines(edit: Edit) -> list[str]:
    """The edit as the lines of a unified diff hunk (no header): context, removed, added, context."""
    return [
        *(" " + line for line in edit.above),
        *("-" + line for line in edit.before),
        *("+" + line for line in edit.after),
        *(" " + line for line in edit.below),
    ]


__all__ = ["CONTEXT", "diff_lines", "edit_of", "fence", "git_patch", "suggestion"]
