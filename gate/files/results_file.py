"""The results file on disk: read within its size bound, decoded and validated by the JSON codec
(:func:`gate.reports.json_codec.parse_results`)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from gate import limits
from gate.errors import InputError, Problem
from gate.files.bounded_read import TooLarge, read_bounded
from gate.reports.json_codec import gc_paused, parse_results
from gate.results.outcomes import RunResults


def load_results(path: str | Path) -> RunResults:
    """Read and validate a results file; ``InputError`` (path and what is wrong) when it is not one.
    Results files are untrusted input (an artifact of another workflow): the size is bounded before
    reading (``limits.MAX_RESULTS_BYTES``), also for devices, pipes and sparse files."""
    name = str(path)
    try:
        raw = read_bounded(path, limits.MAX_RESULTS_BYTES)
    except FileNotFoundError:
        raise InputError([Problem(name, 0, 0, "results file not found")]) from None
    except TooLarge as exc:
        raise InputError(
            [
                Problem(
                    name, 0, 0, f"not read: results {exc}", "is this the results file written by run --json?"
                )
            ]
        ) from None
    except OSError as exc:
        raise InputError([Problem(name, 0, 0, f"cannot read results file: {exc.strerror or exc}")]) from None
    estimate = _decoded_size(raw)
    if estimate > max(limits.RESULTS_MEMORY_FACTOR * len(raw), _SMALL):
        raise InputError(
            [
                Problem(
                    name,
                    0,
                    0,
                    f"not read: {len(raw):,} bytes this dense in objects, lists and values would take "
                    f"about {estimate // 2**20:,} MiB to read (more than {limits.RESULTS_MEMORY_FACTOR} "
                    "times its size)",
                    "is this the results file written by run --json?",
                )
            ]
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError([Problem(name, 0, 0, "not a results file: it is not UTF-8 text")]) from None
    if not text.strip():
        raise InputError([Problem(name, 0, 0, "results file is empty")])
    del raw  # the text is what is read from here on, and only until it is decoded
    with gc_paused():
        return parse_results(_decoded(text, name), name)


def _decoded(text: str, name: str) -> Any:
    """The JSON document of ``text``: its numbers JSON numbers of a readable size."""
    try:
        return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise InputError([Problem(name, exc.lineno, exc.colno, f"not valid JSON: {exc.msg}")]) from None
    except _Refused as exc:
        line, column = _where_refused(text)
        raise InputError([Problem(name, line, column, f"not a results file: {exc}")]) from None
    except RecursionError:
        raise InputError([Problem(name, 0, 0, "not a results file: JSON nested too deeply")]) from None


# What reading a JSON document costs beyond its text, as CPython builds it: an object or a list about
# 200 bytes (an empty dict is 64, one with a few keys 232), every further value a pointer and, for a
# number or a short text, a small object (with some margin). Counted on the raw bytes (brackets and
# commas inside strings too, so an overestimate): a results file the gate writes is mostly text.
_CONTAINER_BYTES = 300
_SMALL = 64 * 2**20  # below this, any file is read (a small file cannot cost much, however dense)
_VALUE_BYTES = 16


def _decoded_size(raw: bytes) -> int:
    containers = raw.count(b"{") + raw.count(b"[")
    return _CONTAINER_BYTES * containers + _VALUE_BYTES * raw.count(b",")


# Digits an integer of a results file may have: as many as Python reads by default (4,300), so every
# value the gate wrote (a model's arguments included) reads back; the schema bounds every count far
# lower, where the number has a purpose.
MAX_INTEGER_DIGITS = 4300


class _Refused(ValueError):
    """A number the results file may not hold: NaN, an infinity, an integer of too many digits."""


def _constant(token: str) -> float:
    raise _Refused(f"{token} is not a number (JSON has no NaN or Infinity)")


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _Refused(f"{token[:40]} is too large for a number")
    return value


def _int(token: str) -> int:
    digits = len(token) - token.startswith("-")
    if digits > MAX_INTEGER_DIGITS:
        raise _Refused(f"an integer of {digits:,} digits (at most {MAX_INTEGER_DIGITS:,})")
    return int(token)


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity)|(-?[0-9]+)((?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)')


def _where_refused(text: str) -> tuple[int, int]:
    """Line and column of the first number :func:`json.loads` refused (strings skipped whole)."""
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
