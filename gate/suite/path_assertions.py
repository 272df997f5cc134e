"""Path assertions over the run record (``calls[0].name``, ``calls[*].args.city``, ``output``,
``messages[-1].content``, ``usage.output_tokens``).

A path is an identifier followed by ``.key``, ``[index]`` (negative counts from the end) or ``[*]``
(every element). Selecting walks ``RunRecord.as_path_root()``; a step that does not apply (missing
key, index out of range, a list step on a non-list) selects nothing rather than failing, so that
``exists`` / ``not_exists`` can be asserted. Values that are null count as not existing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.results.outcomes import CheckScore
from gate.results.run_record import PATH_ROOT_SHAPE, RunRecord
from gate.suite.judging import JudgeRequest, JudgeVerdict, criteria_request, semantic_request
from gate.suite.matcher_tree import has_judge
from gate.suite.matchers import judge_requests_for_value, match_value, typed_equal, value_text
from gate.suite.model import PathAssertion
from gate.util import bounded_regex
from gate.util.escape import show
from gate.util.wording import closest

Segment = tuple[str, Any]  # ("key", name) | ("index", int) | ("each", None)

JUDGED_CHECKS = ("criteria", "semantic_contains")

_HEAD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(-?\d+|\*)\s*\]")


class PathError(ValueError):
    """A path that is not of the form ``name(.key | [index] | [*])*``."""


def parse(path: str) -> tuple[Segment, ...]:
    """The segments of ``path``; raises ``PathError`` with the offending position."""
    if not isinstance(path, str) or not path.strip():
        raise PathError("empty path")
    head = _HEAD.match(path)
    if head is None:
        raise PathError(f"path {path!r} must start with a name such as calls, output or messages")
    segments: list[Segment] = [("key", head.group(0))]
    position = head.end()
    while position < len(path):
        step = _STEP.match(path, position)
        if step is None:
            raise PathError(
                f"path {path!r}: unexpected {path[position:]!r} at character {position + 1}"
                " (use .name, [index] or [*])"
            )
        if step.group(1) is not None:
            segments.append(("key", step.group(1)))
        elif step.group(2) == "*":
            segments.append(("each", None))
        else:
            segments.append(("index", int(step.group(2))))
        position = step.end()
    return tuple(segments)


def unreachable(path: str) -> str | None:
    """Why ``path`` (which parses) selects nothing in every run record (a key the record never has,
    a key step into a list, an index into a mapping, anything below a text or a number); None when
    some record can have it."""
    shape: Any = PATH_ROOT_SHAPE
    walked = ""
    for kind, arg in parse(path):
        step = f".{arg}" if kind == "key" else "[*]" if kind == "each" else f"[{arg}]"
        if shape == "any":
            return None
        if shape == "value":
            return f"path {path!r}: {walked} is a single value in the run record, nothing is below it"
        if isinstance(shape, list):
            if kind == "key":
                return f"path {path!r}: {walked} is a list; write {walked}[0]{step} or {walked}[*]{step}"
            shape = shape[0]
        elif kind == "index":
            return f"path {path!r}: {walked or 'the run record'} is a mapping, it has no [{arg}]"
        elif kind == "each":
            return None
        elif arg not in shape:
            keys = ", ".join(sorted(shape))
            meant = _SYNONYMS.get(arg) or closest(arg, sorted(shape))
            hint = f"; did you mean {meant!r}?" if meant in shape else ""
            where = f"the run record's {walked}" if walked else "the run record"
            return f"path {path!r}: {where} has no key {arg!r} (keys: {keys}){hint}"
        else:
            shape = shape[arg]
        walked = (walked + step).lstrip(".")
    return None


# Names other tools give to what the run record calls otherwise.
_SYNONYMS = {
    "arguments": "args",
    "tool": "name",
    "function": "name",
    "tool_calls": "calls",
    "answer": "output",
}


def select(root: Any, path: str) -> list[Any]:
    """Every value ``path`` selects in ``root`` (possibly none)."""
    values = [root]
    for kind, arg in parse(path):
        selected: list[Any] = []
        for value in values:
            if kind == "key":
                if isinstance(value, Mapping) and arg in value:
                    selected.append(value[arg])
            elif kind == "index":
                if isinstance(value, (list, tuple)) and -len(value) <= arg < len(value):
                    selected.append(value[arg])
            elif isinstance(value, (list, tuple)):
                selected.extend(value)
            elif isinstance(value, Mapping):
                selected.extend(value.values())
        values = selected
    return values


def _requests_for(name: str, argument: Any, values: list[Any], record: RunRecord) -> list[JudgeRequest]:
    texts = [str(argument)] if isinstance(argument, str) else [str(a) for a in argument]
    build = criteria_request if name == "criteria" else semantic_request
    return [build(text, value_text(value), record.input) for value in values for text in texts]


def is_judged(assertion: PathAssertion) -> bool:
    """Whether the check asks the judge: a judged check, or a ``match`` holding judge criteria."""
    return assertion.check in JUDGED_CHECKS or (
        assertion.matcher is not None and has_judge(assertion.matcher)
    )


def judge_requests(assertion: PathAssertion, record: RunRecord) -> list[JudgeRequest]:
    """The judge requests a judged path check needs, for every value it selects: a judged check's,
    or those of the judge criteria inside a ``match`` matcher (none for the other checks)."""
    if not is_judged(assertion):
        return []
    values = [v for v in select(record.as_path_root(), assertion.path) if v is not None]
    if assertion.matcher is not None:
        return [r for value in values for r in judge_requests_for_value(assertion.matcher, value)]
    return _requests_for(assertion.check, assertion.operand, values, record)


@dataclass(frozen=True)
class PathEvaluation:
    """The check's score, and ``judge_error`` when a needed verdict was missing."""

    check: CheckScore
    judge_error: str | None = None


def _value_score(
    assertion: PathAssertion, value: Any, record: RunRecord, verdicts: Mapping[str, JudgeVerdict]
) -> tuple[float, str | None]:
    """The score (0..1) of one selected value, and a judge error if a verdict is missing."""
    name, argument = assertion.check, assertion.operand
    if assertion.matcher is not None:
        outcome = match_value(assertion.matcher, True, value, verdicts)
        return float(outcome.ok), outcome.detail if outcome.reason == "judge_failed" else None
    if name == "equals":
        return float(typed_equal(argument, value)), None
    if name == "one_of":
        options = argument if isinstance(argument, (list, tuple)) else [argument]
        return float(any(typed_equal(option, value) for option in options)), None
    if name == "matches":  # text only (evaluate fails other values with the reason)
        return float(isinstance(value, str) and bounded_regex.search(str(argument), value)), None
    # criteria / semantic_contains: every criterion must hold for the value.
    scores: list[float] = []
    for request in _requests_for(name, argument, [value], record):
        verdict = verdicts.get(request.key)
        if verdict is None:
            return 0.0, f"no judge verdict for {name} {show(request.criterion)}"
        scores.append(verdict.score if verdict.passed else 0.0)
    return (min(scores) if scores else 1.0), None


def evaluate(
    assertion: PathAssertion, record: RunRecord, verdicts: Mapping[str, JudgeVerdict]
) -> PathEvaluation:
    """The score of a path assertion (kind "path"). A path that selects nothing: ``exists`` fails,
    ``not_exists`` passes, every other check fails saying so. Aggregates: ``all`` / ``any`` (every /
    some value passes), ``mean`` / ``min`` / ``max`` of the values' scores against ``threshold``."""
    name, argument = assertion.check, assertion.operand
    label = f"{assertion.path} {name}"
    if name not in ("exists", "not_exists"):
        label += f" {show(assertion.written[name], 60)}"
    try:
        values = [v for v in select(record.as_path_root(), assertion.path) if v is not None]
    except PathError as exc:
        return PathEvaluation(CheckScore("path", 0.0, False, f"{label}: {exc}"))
    if name in ("exists", "not_exists"):
        want = (name == "exists") == (argument is not False)
        passed = bool(values) == want
        shown = f"selected {show(values, 80)}" if values else "selected nothing"
        return PathEvaluation(CheckScore("path", float(passed), passed, f"{label}: {shown}"))
    if not values:
        return PathEvaluation(CheckScore("path", 0.0, False, f"{label}: the path selects nothing"))
    if name == "matches":
        try:
            bounded_regex.compile_regex(str(argument))
        except bounded_regex.RegexError as exc:
            return PathEvaluation(CheckScore("path", 0.0, False, f"{label}: invalid regex pattern: {exc}"))
    scores: list[float] = []
    judge_error: str | None = None
    undecided: list[int] = []  # the values the judge gave no verdict on (scored 0 until decided)
    timed_out = ""
    for value in values:
        try:
            score, error = _value_score(assertion, value, record, verdicts)
        except bounded_regex.RegexTimeout as exc:  # the suite's pattern, not the answer, is at fault
            score, error, timed_out = 0.0, None, str(exc)
        if error is not None:
            undecided.append(len(scores))
        judge_error = judge_error or error
        scores.append(score)
    aggregate = assertion.aggregate
    score, passed = _aggregate(assertion, scores)
    # The missing verdicts matter only when they could change the outcome (``all`` with another value
    # failing fails, ``any`` with another value passing passes, whatever the judge would have said).
    if (
        judge_error
        and passed == _aggregate(assertion, [1.0 if i in undecided else s for i, s in enumerate(scores)])[1]
    ):
        judge_error = None
    if aggregate in ("all", "any"):
        summary = f"{sum(1 for s in scores if s >= 1.0)} of {len(scores)} values pass ({aggregate})"
    else:
        summary = f"{aggregate} {score:.2f} vs threshold {assertion.threshold:g}"
    detail = f"{label}: {summary}; selected {show(values, 80)}" + (f"; {timed_out}" if timed_out else "")
    if name == "matches":
        not_text = [v for v in values if not isinstance(v, str)]
        if not_text:
            detail += f"; matches applies to text, not {show(not_text[0], 40)} ({type(not_text[0]).__name__})"
    if judge_error:
        passed = False
        detail += f"; {judge_error}"
    return PathEvaluation(CheckScore("path", score, passed, detail), judge_error)


def _aggregate(assertion: PathAssertion, scores: list[float]) -> tuple[float, bool]:
    """The aggregate score of the selected values' scores, and whether it passes."""
    aggregate = assertion.aggregate
    if aggregate == "all":
        return min(scores), all(s >= 1.0 for s in scores)
    if aggregate == "any":
        return max(scores), any(s >= 1.0 for s in scores)
    score = {"mean": sum(scores) / len(scores), "min": min(scores), "max": max(scores)}[aggregate]
    return score, score >= assertion.threshold
