"""Text normalisation shared by the ``normalized`` matcher and multiple-choice answers. Pure.

``normalized`` ignores only what does not change the value (DESIGN §2): Unicode compatibility forms
(NFKC: full-width letters, ligatures), case, and runs of white space (leading and trailing too). It
never drops or rewrites punctuation, signs or digits: "C" is not "C#", "5" is not "-5", "15" is not
"1.5", "john.doeexample.com" is not "john.doe@example.com".

Looser comparisons are explicit options (``ignore``), never the default:

- ``punctuation``: Unicode punctuation (categories P*) does not count; dashes, slashes and
  underscores separate words (``New-York`` is ``New York``), the rest is dropped (``O'Brien`` is
  ``OBrien``, ``C#`` is ``C``). Symbols (``+``, ``$``, ``°``) and digits still count, and so does
  punctuation inside a number: a separator between digits (``1.5`` is not ``15``), a decimal point
  opening one (``.5`` is not ``5``) and a minus sign (``-5`` is not ``5``);
- ``accents``: combining marks are dropped after decomposition (``Zürich`` is ``Zurich``);
- ``whitespace``: all white space is dropped, not only collapsed (``555 1234`` is ``5551234``).
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Literal

LooserComparison = Literal["punctuation", "accents", "whitespace"]
LOOSER_COMPARISONS: tuple[LooserComparison, ...] = ("punctuation", "accents", "whitespace")
IGNORE_PUNCTUATION: frozenset[str] = frozenset({"punctuation"})


@functools.lru_cache(maxsize=4096)
def normalize_text(text: str, ignore: frozenset[str] = frozenset()) -> str:
    """NFKC, case folding and collapsed white space: ``"  ＮＥＷ   york"`` and ``"new york"`` normalise
    alike; ``"New-York"`` and ``"new york"`` do not, unless ``ignore`` holds ``punctuation`` (see the
    module doc for the options)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    if "accents" in ignore:
        decomposed = unicodedata.normalize("NFD", text)
        text = unicodedata.normalize("NFC", "".join(c for c in decomposed if unicodedata.category(c) != "Mn"))
    if "punctuation" in ignore:
        text = _without_punctuation(text)
    if "whitespace" in ignore:
        return "".join(text.split())
    return " ".join(text.split())


def _without_punctuation(text: str) -> str:
    out: list[str] = []
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if not category.startswith("P") or _in_number(text, index):
            out.append(char)
        elif category == "Pd" or char in "/_":
            out.append(" ")
    return "".join(out)


def _in_number(text: str, index: int) -> bool:
    """Whether the punctuation at ``index`` belongs to a number: a separator between two digits
    (``1.5``, ``1,000``, ``10:30``), a decimal point opening one (``.5``) or a minus sign before one
    (``-5``, ``-.5``; not the hyphen of ``covid-19``)."""
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1 : index + 2]
    if after.isdigit() and before.isdigit():
        return True
    if before.isalnum():
        return False
    if text[index] == ".":
        return after.isdigit()
    opens = after.isdigit() or (after == "." and text[index + 2 : index + 3].isdigit())
    return opens and unicodedata.category(text[index]) == "Pd"
