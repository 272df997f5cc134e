"""Words the messages share: a count with its noun (``plural``), the "did you mean" hint for a
misspelt name (``closest``, ``did_you_mean``), and whether a text names a name (``mentions``). Pure."""

from __future__ import annotations

import difflib
import re
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


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` as a whole word (``get_weather`` in a description or a message,
    not inside ``get_weather_now``)."""
    return bool(name) and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None
