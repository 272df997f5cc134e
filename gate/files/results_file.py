"""The results file on disk: read within its size bound, decoded and validated by the JSON codec
(:func:`gate.reports.json_codec.parse_results`)."""

from __future__ import annotations

import json
from pathlib import Path

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
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError([Problem(name, 0, 0, "not a results file: it is not UTF-8 text")]) from None
    if not text.strip():
        raise InputError([Problem(name, 0, 0, "results file is empty")])
    with gc_paused():
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError([Problem(name, exc.lineno, exc.colno, f"not valid JSON: {exc.msg}")]) from None
        except RecursionError:
            raise InputError([Problem(name, 0, 0, "not a results file: JSON nested too deeply")]) from None
        return parse_results(data, name)
