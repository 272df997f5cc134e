"""Failure-pattern analysis: what went wrong across all failed cases, and what to change.

``analyse`` composes the tables of ``gate.analysis.failure_patterns`` (counts by reason, the confusion table
of expected vs called tool, the arguments that fail most per tool, hallucinated tool names) with the
recommendations of ``gate.analysis.recommendations`` (for each pattern, advice true of the definition it
points at, most severe first). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.analysis.failure_patterns import (
    ArgumentFailure,
    Confusion,
    Hallucination,
    ReasonCount,
    argument_table,
    calls_per_tool,
    confusion_table,
    failed_cases,
    hallucinations,
    reason_counts,
)
from gate.analysis.recommendations import Recommendation, recommend
from gate.results.outcomes import RunResults

__all__ = [
    "Analysis",
    "ArgumentFailure",
    "Confusion",
    "Hallucination",
    "ReasonCount",
    "Recommendation",
    "analyse",
]


@dataclass(frozen=True)
class Analysis:
    reasons: tuple[ReasonCount, ...]
    confusion: tuple[Confusion, ...]
    arguments: tuple[ArgumentFailure, ...]
    hallucinated: tuple[Hallucination, ...]
    recommendations: tuple[Recommendation, ...]
    failed_cases: int = 0


def analyse(results: RunResults) -> Analysis:
    failed = failed_cases(results)
    confusion = confusion_table(failed)
    arguments = argument_table(failed, calls_per_tool(results))
    defined = {suite.name: suite.tools for suite in results.suites}
    hallucinated = hallucinations(failed, defined)
    recommendations = recommend(results, failed, confusion, arguments, hallucinated)
    return Analysis(reason_counts(failed), confusion, arguments, hallucinated, recommendations, len(failed))
