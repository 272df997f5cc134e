"""Text normalisation shared by the ``normalized`` matcher and multiple-choice answers. Pure.

``normalized`` ignores only what does not change the value (DESIGN §2): Unicode compatibility forms
(NFKC: full-width letters, ligatures; not the superscript digits and signs, whose folding changes a
number: ``10²`` is not ``102``), case, and runs of white space (leading and trailing too). It
never drops or rewrites punctuation, signs or digits: "C" is not "C#", "5" is not "-5", "15" is not
"1.5", "john.doeexample.com" is not "john.doe@example.com".

Looser comparisons are explicit options (``ignore``), never the default:

- ``punctuation``: Unicode punctuation (categories P*) does not count; dashes, slashes and
  underscores separate words (``New-York`` is ``New York``), the rest is dropped (``O'Brien`` is
  ``OBrien``, ``C#`` is ``C``). Symbols (``+``, ``$``, ``°``) and digits still count, and so does
  punctuation inside a number: a mark whose nearest letter or digit on each side is a digit (``1.5``
  is not ``15``, ``10 : 30`` not ``1030``, ``3 - 1`` not ``31``), and a dash or full stop before a
  digit with no digit before it, a minus sign or a decimal point (``-5`` is not ``5``, ``.5`` not
  ``5``; so ``covid-19`` is not ``covid 19`` either);
- ``accents``: combining marks are dropped after decomposition (``Zürich`` is ``Zurich``);
- ``whitespace``: all white space is dropped, not only collapsed (``555 1234`` is ``5551234``);
- ``chars``: exactly the characters named are dropped, wherever they are (``{chars: " -"}``:
  ``555-1234`` is ``5551234``, ``New-York`` is ``NewYork``, ``C#`` is still not ``C``). A white-space
  character stands for all white space (every run of it already compares alike). Letters and digits
  cannot be named, and ``chars`` does not go with ``punctuation`` (``validate`` says so).

Two promises hold for every combination. **Options only loosen**: texts equal under some options
stay equal when another is added. Each option drops (or turns into a space) characters decided by the
character itself and by the letters and digits around it, never by white space, accents or other
marks, which the other options drop; so adding an option drops more of the same texts alike.
**Punctuation inside a number counts** under ``punctuation``, whatever else is ignored: white space
never decides whether a mark is inside a number (``3 - 1`` keeps its minus with ``whitespace`` too:
``3-1``, not ``31``), which is why ``1, 2`` is not ``1 2`` under ``punctuation``: with ``whitespace``
as well it is ``1,2``, and ``1,2`` must not be ``12``. ``chars`` names its characters exactly, so they
go even inside a number: that is what naming them asks.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import Literal

LooserComparison = Literal["punctuation", "accents", "whitespace"]
LOOSER_COMPARISONS: tuple[LooserComparison, ...] = ("punctuation", "accents", "whitespace")


@dataclass(frozen=True)
class Ignored:
    """What a comparison ignores beyond case, compatibility forms and runs of white space: the named
    looser comparisons (``kinds``) and the exact characters of ``chars``."""

    kinds: frozenset[LooserComparison] = frozenset()
    chars: frozenset[str] = frozenset()

    def __str__(self) -> str:
        """``punctuation, whitespace``; ``the characters " -"``: what a failure message says."""
        parts: list[str] = sorted(self.kinds)
        if self.chars:
            shown = "".join(sorted(self.chars)).replace("\\", "\\\\").replace('"', '\\"')
            parts.append(f'the characters "{shown}"')
        return ", ".join(parts)


NOTHING_IGNORED = Ignored()
IGNORE_PUNCTUATION = Ignored(frozenset({"punctuation"}))


@functools.lru_cache(maxsize=4096)
def normalize_text(text: str, ignore: Ignored = NOTHING_IGNORED) -> str:
    """NFKC, case folding and collapsed white space: ``"  ＮＥＷ   york"`` and ``"new york"`` normalise
    alike; ``"New-York"`` and ``"new york"`` do not, unless ``ignore`` holds ``punctuation`` (see the
    module doc for the options)."""
    text = _compatibility_folded(text).casefold()
    if "accents" in ignore.kinds:
        decomposed = unicodedata.normalize("NFD", text)
        text = unicodedata.normalize("NFC", "".join(c for c in decomposed if unicodedata.category(c) != "Mn"))
    if "punctuation" in ignore.kinds or ignore.chars:
        text = _without_marks(text, "punctuation" in ignore.kinds, ignore_chars(ignore.chars))
    if "whitespace" in ignore.kinds or any(c.isspace() for c in ignore.chars):
        text = "".join(text.split())
    else:
        text = " ".join(text.split())
    # Composed again: a character dropped between a letter and its accent leaves them side by side.
    return text if text.isascii() else unicodedata.normalize("NFC", text)


# The superscript digits and signs: compatibility forms whose folding changes a number's value (``10²``
# is 100, not ``102``; ``2⁵`` is not ``25``), so they are kept as written. Superscript letters,
# subscripts and every other compatibility form fold.
EXPONENTS = frozenset("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾")


def _compatibility_folded(text: str) -> str:
    """``text`` in NFKC, the exponents (``EXPONENTS``) excepted."""
    if text.isascii():
        return text
    if EXPONENTS.isdisjoint(text):
        return unicodedata.normalize("NFKC", text)
    out: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if char in EXPONENTS:
            out += (unicodedata.normalize("NFKC", text[start:index]), char)
            start = index + 1
    out.append(unicodedata.normalize("NFKC", text[start:]))
    return "".join(out)


@functools.lru_cache(maxsize=256)
def ignore_chars(chars: frozenset[str]) -> frozenset[str]:
    """The characters to drop as the normalised text holds them (a full-width ``－`` named is ``-``)."""
    return frozenset(c for named in chars for c in _compatibility_folded(named).casefold())


def _without_marks(text: str, punctuation: bool, chars: frozenset[str]) -> str:
    """``text`` without the characters of ``chars`` and, with ``punctuation``, the punctuation that is
    not inside a number (dashes, slashes and underscores become spaces)."""
    digit_before = _digit_neighbours(text)
    digit_after = _digit_neighbours(text[::-1])[::-1]
    out: list[str] = []
    for index, char in enumerate(text):
        if char in chars:
            continue
        category = unicodedata.category(char)
        if not punctuation or not category.startswith("P"):
            out.append(char)
        elif digit_after[index] and (digit_before[index] or category == "Pd" or char == "."):
            out.append(char)  # inside a number: a separator, a minus sign, a decimal point
        elif category == "Pd" or char in "/_":
            out.append(" ")
    return "".join(out)


def _digit_neighbours(text: str) -> list[bool]:
    """Per index: whether the nearest letter or digit before it is a digit (white space, marks and
    symbols between do not matter)."""
    found: list[bool] = []
    digit = False
    for char in text:
        found.append(digit)
        if char.isalnum():
            digit = char.isdigit()
    return found
