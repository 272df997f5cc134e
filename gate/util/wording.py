"""Words the messages share: a count with its noun (``plural``) and the "did you mean" hint for a
misspelt name (``closest``, ``did_you_mean``). Pure."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

CLOSE = 0.6  # how alike a word must be to a choice to be offered as "did you mean"


def plural(count: int, word: str, many: str = "") -> str:
    """``1 case``, ``3 cases``; ``many`` when the plural is not ``word + "s"`` (``2 fixes``)."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def closest(word: str, choices: Sequence[str], cutoff: float = CLOSE) -> str | None:
    """The choice ``word`` most likely misspells; None when none is close enough."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: str, choices: Sequence[str], listed: str = "allowed") -> str:
    """``did you mean 'x'?`` for a close choice, else the choices after ``listed`` ("" for none)."""
    close = closest(word, choices)
    if close is not None:
        return f"did you mean {close!r}?"
    return (f"{listed}: " + ", ".join(choices)) if choices else ""
