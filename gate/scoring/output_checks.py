"""The checks of a case's final answer (``expect.output``, DESIGN.md section 2): the string checks
(contains, not_contains, regex, equals) and the judged ones (criteria, semantic contains, ranking,
multiple choice, asks for clarification), each a check score and, when it did not pass, a failure.

Judged checks read verdicts obtained beforehand by the requests' keys; a missing verdict is a
``judge_failed`` failure (the trial could not be evaluated), never the agent's. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from gate.results.outcomes import MAX_QUOTED_CHARS, CheckKind, CheckScore, Failure
from gate.results.run_record import RunRecord
from gate.scoring.judge_requests import AnswerRequests
from gate.suite import judging
from gate.suite.judging import JudgeVerdict
from gate.suite.model import Case, OutputChecks
from gate.util import bounded_regex
from gate.util.escape import show, truncate

# The kinds of check a judge decides.
JudgedKind = Literal["criteria", "semantic_contains", "ranking", "choice", "clarification", "trajectory"]


@dataclass(slots=True)
class CheckLog:
    """The check scores and failures of a trial's expectations beyond its calls, in the order made."""

    checks: list[CheckScore] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


# Checks that come out the same in many trials ("calls" with precision and recall 1, the same output
# check passed): frozen and equal, so one shared instance each.
_CHECKS: dict[tuple[CheckKind, float, type, bool, type, str], CheckScore] = {}


def shared_check(kind: CheckKind, score: float, passed: bool, detail: str) -> CheckScore:
    """``CheckScore(kind, score, passed, detail)``, one instance for equal ones."""
    key = (kind, score, type(score), passed, type(passed), detail)  # 1, 1.0 and True are equal keys
    check = _CHECKS.get(key)
    if check is None:
        if len(_CHECKS) > 4096:
            _CHECKS.clear()
        check = _CHECKS[key] = CheckScore(kind, score, passed, detail)
    return check


def judged(
    log: CheckLog,
    kind: JudgedKind,
    label: str,
    request: judging.JudgeRequest,
    verdicts: Mapping[str, JudgeVerdict],
) -> JudgeVerdict | None:
    """The judge's verdict on ``request``; when there is none, a failed check and a ``judge_failed``
    failure are logged and None is returned."""
    verdict = verdicts.get(request.key)
    if verdict is None:
        log.failures.append(Failure("judge_failed", f"{label}: no verdict", expected=label))
        log.checks.append(CheckScore(kind, 0.0, False, f"{label}: no judge verdict"))
    return verdict


def output_checks(
    case: Case, record: RunRecord, asked: AnswerRequests, verdicts: Mapping[str, JudgeVerdict]
) -> CheckLog:
    """Every check of ``expect.output`` on a trial's final answer, string checks first; the judged
    ones read the verdicts of the requests in ``asked`` (``judge_requests.answer_requests``)."""
    log = CheckLog()
    out = case.expect.output
    if not record.answered:
        _unanswered(out, record, log)
        return log
    _text_checks(out, record.output, log)
    _judged_checks(out, record.output, asked, verdicts, log)
    if out.choice is not None:
        _choice_check(out.choice.correct, asked, record.output, verdicts, log)
    if out.asks_clarification is not None:
        _clarification_check(out.asks_clarification, asked, record.output, verdicts, log)
    return log


_NO_ANSWER = {
    "max_tool_calls": "the trial stopped beyond max_tool_calls",
    "max_turns": "the trial stopped at max_turns",
}


def _unanswered(out: OutputChecks, record: RunRecord, log: CheckLog) -> None:
    """Every check of ``out`` failed, none judged: the episode ended without a final answer (text the
    agent wrote beside its calls is not one)."""
    checks: list[tuple[CheckKind, str]] = [
        *(("output", f"contains {show(t)}") for t in out.contains),
        *(("output", f"not_contains {show(t)}") for t in out.not_contains),
        *(("output", f"regex /{p}/") for p in out.regex),
        *(("criteria", f"criteria {show(c)}") for c in out.criteria),
        *(("semantic_contains", f"semantic_contains {show(p)}") for p in out.semantic_contains),
    ]
    if out.equals is not None:
        checks.append(("output", f"equals {show(out.equals)}"))
    if out.ranking is not None:
        checks.append(("ranking", "ranking"))
    if out.choice is not None:
        checks.append(("choice", "choice"))
    if out.asks_clarification is not None:
        checks.append(("clarification", "asks_clarification"))
    if not checks:
        return
    why = _NO_ANSWER.get(record.stop_reason, f"the trial ended at {record.stop_reason}")
    for kind, label in checks:
        log.checks.append(shared_check(kind, 0.0, False, f"{label}: no final answer"))
    labels = ", ".join(label for _, label in checks)
    log.failures.append(
        Failure(
            "output_check_failed",
            f"final answer: none ({why}), so {labels} cannot hold; no judge was asked",
            expected=labels,
        )
    )


def _text_checks(out: OutputChecks, answer: str, log: CheckLog) -> None:
    """contains, not_contains, regex and equals (``ignore_case`` for all but regex)."""

    def fold(text: str) -> str:
        return text.casefold() if out.ignore_case else text

    def add(passed: bool, label: str, expected: str, wrong: str) -> None:
        """A check (``label``) and, when it failed, a failure saying what is ``wrong``."""
        log.checks.append(shared_check("output", float(passed), passed, label))
        if not passed:
            log.failures.append(
                Failure(
                    "output_check_failed",
                    f"{wrong}; the answer: {show(answer, 160)}",
                    expected=expected,
                    actual=truncate(answer, MAX_QUOTED_CHARS, brief=True),
                )
            )

    for text in out.contains:
        label = f"contains {show(text)}"
        add(fold(text) in fold(answer), label, text, f"the final answer does not contain {show(text)}")
    for text in out.not_contains:
        label = f"not_contains {show(text)}"
        add(fold(text) not in fold(answer), label, text, f"the final answer contains {show(text)}")
    for pattern in out.regex:
        label = f"regex /{pattern}/"
        try:
            add(
                bounded_regex.search(pattern, answer),
                label,
                pattern,
                f"the final answer does not match {label[6:]}",
            )
        except bounded_regex.RegexError as exc:
            add(False, f"{label} (invalid pattern: {exc})", pattern, f"{label} is an invalid pattern: {exc}")
        except bounded_regex.RegexTimeout as exc:
            add(False, f"{label} ({exc})", pattern, f"{label}: {exc}")
    if out.equals is not None:
        same = fold(answer.strip()) == fold(out.equals.strip())
        add(
            same,
            f"equals {show(out.equals)}",
            out.equals,
            f"the final answer does not equal {show(out.equals)}",
        )


def _judged_result(
    log: CheckLog,
    kind: JudgedKind,
    label: str,
    verdict: JudgeVerdict,
    passed: bool,
    score: float,
    expected: Any,
    answer: str,
) -> None:
    log.checks.append(CheckScore(kind, score, passed, label, verdict.rationale))
    if not passed:
        log.failures.append(
            Failure(
                "output_check_failed",
                f"final answer, {label}; judge: {verdict.rationale or 'no'}",
                expected=expected,
                actual=truncate(answer, MAX_QUOTED_CHARS, brief=True),
            )
        )


def _judged_checks(
    out: OutputChecks,
    answer: str,
    asked: AnswerRequests,
    verdicts: Mapping[str, JudgeVerdict],
    log: CheckLog,
) -> None:
    """criteria, semantic_contains and ranking: the judge's verdict is the check's."""
    listed: tuple[tuple[JudgedKind, tuple[str, ...], tuple[judging.JudgeRequest, ...]], ...] = (
        ("criteria", out.criteria, asked.criteria),
        ("semantic_contains", out.semantic_contains, asked.semantic),
    )
    for kind, texts, requests in listed:
        for text, request in zip(texts, requests, strict=True):
            label = f"{kind} {show(text)}"
            verdict = judged(log, kind, label, request, verdicts)
            if verdict is not None:
                score = verdict.score if verdict.passed else 0.0
                _judged_result(log, kind, label, verdict, verdict.passed, score, text, answer)
    if out.ranking is not None and asked.ranking is not None:
        r = out.ranking
        verdict = judged(log, "ranking", "ranking", asked.ranking, verdicts)
        if verdict is not None:
            order = ", ".join(verdict.detail.get("order", ()))
            label = f"ranking {verdict.score:.2f} (judge's order: {order}) vs threshold {r.threshold:g}"
            passed = verdict.score >= r.threshold
            _judged_result(log, "ranking", label, verdict, passed, verdict.score, r.reference, answer)


def _choice_check(
    correct: str,
    asked: AnswerRequests,
    answer: str,
    verdicts: Mapping[str, JudgeVerdict],
    log: CheckLog,
) -> None:
    """Multiple choice: decided without the judge when the answer picks one option unambiguously."""
    picked = asked.picked
    if picked is not None:
        passed = picked == correct
        label = f"choice: answered {show(picked)}, correct {show(correct)}"
        log.checks.append(CheckScore("choice", float(passed), passed, label))
        if not passed:
            log.failures.append(
                Failure("output_check_failed", f"final answer: {label}", expected=correct, actual=picked)
            )
        return
    assert asked.choice is not None  # built whenever no option was picked unambiguously
    verdict = judged(log, "choice", "choice", asked.choice, verdicts)
    if verdict is not None:
        label = f"choice: answered {show(verdict.detail.get('option'))}, correct {show(correct)}"
        _judged_result(log, "choice", label, verdict, verdict.passed, float(verdict.passed), correct, answer)


def _clarification_check(
    want: bool, asked: AnswerRequests, answer: str, verdicts: Mapping[str, JudgeVerdict], log: CheckLog
) -> None:
    """asks_clarification: the judge says whether the agent asked; ``want`` says whether it should."""
    assert asked.clarification is not None  # built whenever the case asks about clarification
    verdict = judged(log, "clarification", "asks_clarification", asked.clarification, verdicts)
    if verdict is not None:
        said = "yes" if verdict.passed else "no"
        label = f"asks for clarification: expected {'yes' if want else 'no'}, judge: {said}"
        passed = verdict.passed == want
        _judged_result(log, "clarification", label, verdict, passed, float(passed), want, answer)
