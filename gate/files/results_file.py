"""The results file on disk: read within its size bound, read back by
:mod:`gate.results_json.read_back` and validated by the JSON codec
(:func:`gate.results_json.codec.parse_results`)."""

from __future__ import annotations

from pathlib import Path

from gate import limits
from gate.errors import InputError, Problem
from gate.files.bounded_read import TooLarge, read_bounded
from gate.results.outcomes import RunResults
from gate.results_json.codec import gc_paused, parse_results
from gate.results_json.read_back import results_document, results_text


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
    text = results_text(raw, name)
    del raw  # the text is what is read from here on, and only until it is decoded
    with gc_paused():
        return parse_results(results_document(text, name), name)
