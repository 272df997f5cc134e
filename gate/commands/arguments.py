"""What the commands share: the argument parser that reports usage errors as invalid input (exit 2),
and the option types."""

from __future__ import annotations

import argparse
import math
import re
from typing import TYPE_CHECKING

from gate import limits
from gate.errors import InputError, Problem
from gate.fixes.verification import parse_budget

if TYPE_CHECKING:
    from gate.verdict.policy import FailOn

_ARGUMENT = re.compile(r"argument (?P<name>[^:]+): (?P<message>.*)", re.S)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors raise ``InputError`` (exit 2, no traceback)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """A usage error located at its option, as every located error is (``--trials: must be at
        least 1, got '0'``), then the usage."""
        usage = Problem("", 0, 0, self.format_usage().strip())
        option = _ARGUMENT.match(message)
        if option is None:
            raise InputError([Problem("", 0, 0, message), usage])
        raise InputError([Problem(option["name"].split("/")[0], 0, 0, option["message"]), usage])


def nonempty(text: str) -> str:
    """A value that must say something: an option given an empty value (``--shard "$SHARD"`` with the
    variable unset) is refused, never read as the option left out (every case run in every matrix
    job, no baseline compared, no cache)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value: give one, or leave the option out")
    return text


def rate(text: str) -> float:
    """A pass rate: 0-1, or a percentage ("90" means 90%)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if 1 < value <= 100:
        value /= 100
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a rate is between 0 and 1 (or 0 and 100%), got {text!r}")
    return value


def error_rate(text: str) -> float:
    """``--max-error-rate``: a share of a suite's cases from 0 to 1 (0.1 is 10%)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(
            f"a share of the cases from 0 to 1 (0.1 is 10%, 0 allows no error), got {text!r}"
        )
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


def trial_count(text: str) -> int:
    """Trials per case: 1 to ``limits.MAX_TRIALS`` (the suite schema's bound too)."""
    value = positive_int(text)
    if value > limits.MAX_TRIALS:
        raise argparse.ArgumentTypeError(f"at most {limits.MAX_TRIALS} trials per case, got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text!r}")
    if value == math.inf:  # 'inf', '1e400': a time limit or a cap that never holds
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def fail_on(text: str) -> FailOn:
    """``threshold`` | ``regression`` | ``regression-or-threshold`` | ``any-failure`` (underscores
    accepted too)."""
    value = text.replace("-", "_")
    from gate.verdict.policy import FAIL_ON_VALUES  # imported when asked: validate never needs it

    for rule in FAIL_ON_VALUES:
        if value == rule:
            return rule
    raise argparse.ArgumentTypeError(
        f"choose from threshold, regression, regression-or-threshold, any-failure (got {text!r})"
    )


MAX_FIX_CANDIDATES = 10  # --fix-candidates: replacement texts asked for per definition


def fix_candidates(text: str) -> int:
    """``--fix-candidates``: 1 to ``MAX_FIX_CANDIDATES`` replacement texts per definition."""
    value = positive_int(text)
    if value > MAX_FIX_CANDIDATES:
        raise argparse.ArgumentTypeError(f"at most {MAX_FIX_CANDIDATES} candidates, got {text!r}")
    return value


def fix_budget(text: str) -> str:
    """``--fix-budget``: requests (``200``) or US dollars (``$0.50``), kept as written."""
    try:
        parse_budget(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text.strip()


# The shortest Markdown report: the verdict and the note that the report was shortened must fit.
MIN_MARKDOWN_LIMIT = 1024


def markdown_limit(text: str) -> int:
    """``--markdown-limit``: the most characters the Markdown report may have (at least 1,024)."""
    value = positive_int(text)
    if value < MIN_MARKDOWN_LIMIT:
        raise argparse.ArgumentTypeError(
            f"at least {MIN_MARKDOWN_LIMIT:,} characters (the verdict must fit), got {text!r}"
        )
    return value


def model_choice(text: str) -> str:
    """``--model`` / ``--judge-model``: ``[PROVIDER:]NAME`` naming a model (not empty, not a provider
    alone, no white space around it or control character in it)."""
    from gate.suite.model_choice import ModelChoice, ModelChoiceError

    try:
        ModelChoice.parse(text)
    except ModelChoiceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def hyphenated(value: str) -> str:
    """A value as the command line spells it (``regression_or_threshold`` -> ``regression-or-threshold``)."""
    return value.replace("_", "-")
