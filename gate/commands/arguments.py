"""What the commands share: the argument parser that reports usage errors as invalid input (exit 2),
the option types, and the verdict lines printed at the end of ``run`` and ``report``."""

from __future__ import annotations

import argparse
from typing import Any

from gate import limits
from gate.errors import InputError
from gate.verdict.policy import FAIL_ON_VALUES


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors raise ``InputError`` (exit 2, no traceback)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{message}\n{self.format_usage().strip()}")


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
    return value


def fail_on(text: str) -> str:
    """``threshold`` | ``regression`` | ``regression-or-threshold`` | ``any-failure`` (underscores
    accepted too)."""
    value = text.replace("-", "_")
    if value not in FAIL_ON_VALUES:
        raise argparse.ArgumentTypeError(
            f"choose from threshold, regression, regression-or-threshold, any-failure (got {text!r})"
        )
    return value


def suite_lines(verdict: Any) -> list[str]:
    """One line per suite of the verdict: mark, pass rate, threshold and counts."""
    lines = []
    for suite in verdict.suites:
        mark = "ok  " if suite.passed else "FAIL"
        shown = f"{suite.pass_rate * 100:.1f}%" if suite.counted else "-"
        lines.append(
            f"{mark} {suite.name}: {shown} ({suite.passed_count}/{suite.counted}), threshold "
            f"{suite.threshold * 100:.1f}%; {suite.failed_count} failed, {suite.error_count} errors, "
            f"{suite.skipped_count} skipped, {suite.flaky_count} flaky"
        )
    return lines
