"""Text normalisation shared by the ``normalized`` matcher and multiple-choice answers. Pure.

``normalized`` ignores only what does not change the value (DESIGN §2): Unicode compatibility forms
(NFKC: full-width letters, ligatures), case, and runs of white space (leading and trailing too). It
never drops or rewrites punctuation, signs or digits: "C" is not "C#", "5" is not "-5", "15" is not
"1.5", "john.doeexample.com" is not "john.doe@example.com".
"""

from __future__ import annotations

import functools
import unicodedata


@functools.lru_cache(maxsize=4096)
def normalize_text(text: str) -> str:
    """NFKC, case folding and collapsed white space: ``"  ＮＥＷ   york"`` and ``"new york"`` normalise
    alike; ``"New-York"`` and ``"new york"`` do not."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@functools.lru_cache(maxsize=4096)
def loose_text(text: str) -> str:
    """Looser than :func:`normalize_text`, for recognising which multiple-choice option an answer
    repeats ("Rome!" is option "Rome"): also dashes, slashes and underscores as spaces and other
    punctuation dropped. Never used for argument matching."""
    out: list[str] = []
    for char in unicodedata.normalize("NFKC", text).casefold():
        category = unicodedata.category(char)
        if category == "Pd" or char in "/_":
            out.append(" ")
        elif not category.startswith("P"):
            out.append(char)
    return " ".join("".join(out).split())
