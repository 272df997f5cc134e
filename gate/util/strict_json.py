"""JSON read with the numbers a document of the gate may hold: no NaN or Infinity (JSON has neither,
Python's reader takes both), no number that overflows to an infinity (``-1e400``), no integer of more
digits than Python reads by default. YAML files are held to the same (they refuse NaN and infinity),
so a value means the same written in a suite, a data file of cases or a results file. Pure.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_INTEGER_DIGITS", "RefusedNumber", "loads", "refused_at", "structure_problem"]

# Digits an integer may have: as many as Python reads by default (4,300), so every value the gate
# wrote (a model's arguments included) reads back.
MAX_INTEGER_DIGITS = 4300

PairsHook = Callable[[list[tuple[str, Any]]], Any]


class RefusedNumber(ValueError):
    """A number the document may not hold: NaN, an infinity, an integer of too many digits."""


def _constant(token: str) -> float:
    raise RefusedNumber(f"{token} is not a number (JSON has no NaN or Infinity)")


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise RefusedNumber(f"{token[:40]} is too large for a number")
    return value


def _int(token: str) -> int:
    digits = len(token) - token.startswith("-")
    if digits > MAX_INTEGER_DIGITS:
        raise RefusedNumber(f"an integer of {digits:,} digits (at most {MAX_INTEGER_DIGITS:,})")
    return int(token)


def loads(text: str | bytes, *, object_pairs_hook: PairsHook | None = None) -> Any:
    """``json.loads`` that raises :class:`RefusedNumber` (a ``ValueError``) on a number the module doc
    refuses; :func:`refused_at` says where it stands."""
    return json.loads(
        text,
        parse_constant=_constant,
        parse_float=_float,
        parse_int=_int,
        object_pairs_hook=object_pairs_hook,
    )


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity)|(-?[0-9]+)((?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)')


def refused_at(text: str) -> tuple[int, int]:
    """Line and column of the first number :func:`loads` refuses in ``text`` (strings skipped whole);
    (0, 0) when there is none."""
    for match in _TOKEN.finditer(text):
        constant, whole, fraction = match.groups()
        refused = constant is not None or (
            whole is not None
            and (
                len(whole) - whole.startswith("-") > MAX_INTEGER_DIGITS
                if not fraction
                else not math.isfinite(float(whole + fraction))
            )
        )
        if refused:
            line = text.count("\n", 0, match.start()) + 1
            return line, match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    return 0, 0


# Every byte but the brackets and the quote: what is left of a JSON text once its structure is read.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'{}[]"')
_INNERMOST = re.compile(rb"\{\}|\[\]")


def _brackets(raw: bytes) -> bytes:
    """The brackets of the JSON text ``raw`` outside its strings, in C-speed passes that build no
    object per value. Escaped backslashes and quotes go first (neither can end a string), so every
    quote left opens or closes one; then everything but brackets and quotes; then pairs of adjacent
    quotes (an empty string, or a string's end and the next one's start: either way, whether a
    bracket is inside a string, an odd number of quotes before it, does not change). What is left
    has two quotes per string that holds a bracket."""
    plain = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    plain = plain.replace(b'""', b"")
    outside = bytearray()
    at = 0
    while (opening := plain.find(b'"', at)) >= 0:
        outside += plain[at:opening]
        closing = plain.find(b'"', opening + 1)
        at = len(plain) if closing < 0 else closing + 1
    outside += plain[at:]
    return bytes(outside)


def structure_problem(raw: bytes, *, containers: int, depth: int) -> str | None:
    """Why the JSON text ``raw`` holds more objects and lists than ``containers`` or nests deeper than
    ``depth`` (None: it does not), found before decoding it, in time and memory linear in its size
    (a bracket inside a string is text). A decoded object costs hundreds of bytes whatever its text's
    size (``{}`` is two bytes, about 550 once decoded and read as a request), so a body's memory is
    bounded by its size only once its objects are counted."""
    if raw.count(b"{") + raw.count(b"[") <= min(containers, depth):
        return None  # strings included, too few to matter
    brackets = _brackets(raw)
    count = brackets.count(b"{") + brackets.count(b"[")
    if count > containers:
        return f"{count:,} objects and lists (at most {containers:,})"
    for _ in range(depth):
        if not brackets:
            return None
        brackets = _INNERMOST.sub(b"", brackets)
    if brackets and _INNERMOST.search(brackets):  # a pair left inside depth levels (else: not JSON)
        return f"nested deeper than {depth} levels"
    return None
