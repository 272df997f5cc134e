"""Text normalisation shared by the ``normalized`` matcher and multiple-choice answers. Pure."""

from __future__ import annotations

import functools
import unicodedata


@functools.lru_cache(maxsize=4096)
def normalize_text(text: str) -> str:
    """Unicode NFKC, case folding, dashes/slashes/underscores as spaces, other punctuation dropped,
    white space collapsed: ``"  New-York!"`` and ``"new york"`` normalise alike."""
    out: list[str] = []
    for char in unicodedata.normalize("NFKC", text).casefold():
        category = unicodedata.category(char)
        if category == "Pd" or char in "/_":
            out.append(" ")
        elif category.startswith("P"):
            continue
        else:
            out.append(char)
    return " ".join("".join(out).split())
