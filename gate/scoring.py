"""Scoring one trial of one case (DESIGN.md section 3): failures, checks, metrics, status and score.

The calls are scored against each acceptable call expectation by ``gate.calls`` (pairing, counting,
prohibitions, order, metrics, automatic checks), the final answer by ``gate.output_checks``; this
module adds the path assertions, the trajectory, the final state and the budgets, picks the best
alternative expectation and decides the trial's status and score.

Pure: judged checks read verdicts obtained beforehand (``gate.judging.collect_requests``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gate import bounded_regex, conversation, judging, paths
from gate.calls.automatic import automatic_failures
from gate.calls.counting import calls_text
from gate.calls.evaluation import CallEval, evaluate_calls
from gate.escape import show, truncate
from gate.final_state import final_state_check, final_state_failures
from gate.judging import Verdict
from gate.results import MAX_QUOTED_CHARS, CaseStatus, CheckScore, Failure, Metrics, TrialResult
from gate.run_record import RunRecord
from gate.suite_model import CallExpectation, Case, OutputChecks, Suite
from gate.trajectory import goal_text, trajectory_text

ARGUMENT_REASONS = frozenset({"missing_argument", "unexpected_argument", "type_error", "value_error"})
# DESIGN section 3's hard conditions: a trial that broke one fails and scores 0 in every scoring mode
# (an expected call missing is ``CallEval.missing``; "over_call_budget" covers ``max_calls`` and the
# case's ``max_tool_calls``).
HARD_REASONS = frozenset(
    {
        "forbidden_call",
        "extra_call",
        "over_call_budget",
        "hallucinated_tool",
        "invalid_arguments",
        "schema_violation",
    }
)
OUTPUT_KINDS = ("output", "criteria", "semantic_contains", "ranking", "choice", "clarification", "path")


# Checks that come out the same in many trials ("calls" with precision and recall 1, the same output
# check passed): frozen and equal, so one shared instance each.
_CHECKS: dict[tuple[str, float, type, bool, type, str], CheckScore] = {}


def _check(kind: str, score: float, passed: bool, detail: str) -> CheckScore:
    key = (kind, score, type(score), passed, type(passed), detail)  # 1, 1.0 and True are equal keys
    check = _CHECKS.get(key)
    if check is None:
        if len(_CHECKS) > 4096:
            _CHECKS.clear()
        check = _CHECKS[key] = CheckScore(kind, score, passed, detail)
    return check


@dataclass(slots=True)
class _Common:
    failures: list[Failure] = field(default_factory=list)
    checks: list[CheckScore] = field(default_factory=list)


# --- output checks ----------------------------------------------------------------------------------


def _judged(
    common: _Common, kind: str, label: str, request: judging.JudgeRequest, verdicts: Mapping[str, Verdict]
) -> Verdict | None:
    verdict = verdicts.get(request.key)
    if verdict is None:
        common.failures.append(
            Failure(
                "judge_failed", f"{label}: no judge verdict (the judge failed or was not run)", expected=label
            )
        )
        common.checks.append(CheckScore(kind, 0.0, False, f"{label}: no judge verdict"))
    return verdict


def _trajectory_check(
    suite: Suite, case: Case, record: RunRecord, verdicts: Mapping[str, Verdict], common: _Common
) -> None:
    """``expect.trajectory``: the judge's verdict on the whole episode, its rationale kept."""
    assert case.expect.trajectory is not None
    episode = trajectory_text(suite, record)
    goal = goal_text(record, case.user.goal if case.user is not None else "")
    request = judging.trajectory_request(episode, case.expect.trajectory, goal)
    verdict = _judged(common, "trajectory", "trajectory", request, verdicts)
    if verdict is None:
        return
    label = f"trajectory: {case.expect.trajectory}"
    common.checks.append(CheckScore("trajectory", verdict.score, verdict.passed, label, verdict.rationale))
    if not verdict.passed:
        why = (
            f"; judge: {truncate(verdict.rationale, MAX_QUOTED_CHARS, brief=True)}"
            if verdict.rationale
            else ""
        )
        common.failures.append(
            Failure(
                "trajectory_failed",
                f"trajectory judged not to meet: {case.expect.trajectory}{why}",
                expected=case.expect.trajectory,
                actual=verdict.rationale or None,
            )
        )


def _output_checks(
    suite: Suite, case: Case, record: RunRecord, index: int, verdicts: Mapping[str, Verdict], common: _Common
) -> None:
    out: OutputChecks = case.expect.output
    answer, question = record.output, record.input

    def fold(text: str) -> str:
        return text.casefold() if out.ignore_case else text

    def add(passed: bool, label: str, expected: Any) -> None:
        common.checks.append(_check("output", float(passed), passed, label))
        if not passed:
            common.failures.append(
                Failure(
                    "output_check_failed",
                    f"final answer: {label} failed; answer: {truncate(answer, 160, brief=True)!r}",
                    expected=expected,
                    actual=truncate(answer, MAX_QUOTED_CHARS, brief=True),
                )
            )

    for text in out.contains:
        add(fold(text) in fold(answer), f"contains {show(text)}", text)
    for text in out.not_contains:
        add(fold(text) not in fold(answer), f"not_contains {show(text)}", text)
    for pattern in out.regex:
        try:
            add(bounded_regex.search(pattern, answer), f"regex /{pattern}/", pattern)
        except bounded_regex.RegexError as exc:
            add(False, f"regex /{pattern}/ (invalid pattern: {exc})", pattern)
        except bounded_regex.RegexTimeout as exc:
            add(False, f"regex /{pattern}/ ({exc})", pattern)
    if out.equals is not None:
        add(fold(answer.strip()) == fold(out.equals.strip()), f"equals {show(out.equals)}", out.equals)

    def judged_result(
        kind: str, label: str, verdict: Verdict, passed: bool, score: float, expected: Any
    ) -> None:
        common.checks.append(CheckScore(kind, score, passed, label, verdict.rationale))
        if not passed:
            common.failures.append(
                Failure(
                    "output_check_failed",
                    f"final answer: {label} failed: {verdict.rationale or 'judge said no'}",
                    expected=expected,
                    actual=truncate(answer, MAX_QUOTED_CHARS, brief=True),
                )
            )

    for criterion in out.criteria:
        label = f"criteria {show(criterion)}"
        verdict = _judged(
            common, "criteria", label, judging.criteria_request(criterion, answer, question), verdicts
        )
        if verdict is not None:
            judged_result(
                "criteria",
                label,
                verdict,
                verdict.passed,
                verdict.score if verdict.passed else 0.0,
                criterion,
            )
    for phrase in out.semantic_contains:
        label = f"semantic_contains {show(phrase)}"
        verdict = _judged(
            common, "semantic_contains", label, judging.semantic_request(phrase, answer, question), verdicts
        )
        if verdict is not None:
            judged_result(
                "semantic_contains",
                label,
                verdict,
                verdict.passed,
                verdict.score if verdict.passed else 0.0,
                phrase,
            )
    if out.ranking is not None:
        r = out.ranking
        request = judging.ranking_request(
            f"{suite.name}/{case.id}", r.reference, answer, r.wrong, r.irrelevant, question
        )
        verdict = _judged(common, "ranking", "ranking", request, verdicts)
        if verdict is not None:
            order = ", ".join(verdict.detail.get("order", ()))
            label = f"ranking {verdict.score:.2f} (judge's order: {order}) vs threshold {r.threshold:g}"
            judged_result("ranking", label, verdict, verdict.score >= r.threshold, verdict.score, r.reference)
    if out.choice is not None:
        letters = dict(record.extra.get("choice_letters") or conversation.choice_letters(suite, case, index))
        picked = judging.unambiguous_choice(answer, letters)
        correct = out.choice.correct
        if picked is not None:
            passed = picked == correct
            label = f"choice: answered {show(picked)}, correct {show(correct)}"
            common.checks.append(CheckScore("choice", float(passed), passed, label))
            if not passed:
                common.failures.append(
                    Failure("output_check_failed", f"final answer: {label}", expected=correct, actual=picked)
                )
        else:
            request = judging.choice_request(letters, correct, answer, question)
            verdict = _judged(common, "choice", "choice", request, verdicts)
            if verdict is not None:
                label = f"choice: answered {show(verdict.detail.get('option'))}, correct {show(correct)}"
                judged_result("choice", label, verdict, verdict.passed, float(verdict.passed), correct)
    if out.asks_clarification is not None:
        want = out.asks_clarification
        verdict = _judged(
            common,
            "clarification",
            "asks_clarification",
            judging.clarification_request(answer, question),
            verdicts,
        )
        if verdict is not None:
            said = "yes" if verdict.passed else "no"
            label = f"asks for clarification: expected {'yes' if want else 'no'}, judge: {said}"
            passed = verdict.passed == want
            judged_result("clarification", label, verdict, passed, float(passed), want)


# --- the trial ----------------------------------------------------------------------------------------


def _weight_values(weights: Mapping[str, float]) -> tuple[float, float, float, float, float]:
    wp = max(0.0, float(weights.get("precision", 0.0)))
    wr = max(0.0, float(weights.get("recall", 0.0)))
    wa = max(0.0, float(weights.get("arguments", 0.0)))
    wo = max(0.0, float(weights.get("output", 0.0)))
    return wp, wr, wa, wo, wp + wr + wa + wo


def _weighted(
    weights: Mapping[str, float], precision: float, recall: float, arguments: float, output: float
) -> float | None:
    wp, wr, wa, wo, total = _weight_values(weights)
    if total <= 0:
        return None
    return (wp * precision + wr * recall + wa * arguments + wo * output) / total


def _base_metrics(record: RunRecord) -> Metrics:
    return Metrics(
        latency_ms=record.latency_ms,
        input_tokens=record.usage.input_tokens,
        output_tokens=record.usage.output_tokens,
        cost_usd=record.cost_usd or 0.0,
    )


_NO_CALLS = CallExpectation()


def _candidates(case: Case) -> list[tuple[int | None, CallExpectation]]:
    expect = case.expect
    options: list[tuple[int | None, CallExpectation]] = []
    # Without written calls of its own, the main expectation does not compete with the alternatives.
    if not expect.alternatives:
        return [(None, expect.calls)]
    if expect.calls != _NO_CALLS:
        options.append((None, expect.calls))
    options += list(enumerate(expect.alternatives))
    return options


def score_trial(
    suite: Suite, case: Case, record: RunRecord, index: int, verdicts: Mapping[str, Verdict]
) -> TrialResult:
    """Score one trial: every failure, every check, the metrics, the status and the weighted score."""
    if record.error is not None:
        failure = Failure(
            "provider_error",
            f"the provider failed: {truncate(record.error, MAX_QUOTED_CHARS, brief=True)}",
            actual=truncate(record.error, MAX_QUOTED_CHARS, brief=True),
        )
        return TrialResult(index, "error", 0.0, (failure,), (), _base_metrics(record), record)

    calls = record.calls
    common = _Common()
    _output_checks(suite, case, record, index, verdicts, common)
    for assertion in case.expect.asserts:
        evaluation = paths.evaluate_assertion(assertion, record, verdicts)
        common.checks.append(evaluation.check)
        if evaluation.judge_error:
            common.failures.append(
                Failure("judge_failed", f"path assertion {evaluation.check.detail}", expected=assertion.check)
            )
        elif not evaluation.check.passed:
            common.failures.append(
                Failure(
                    "output_check_failed",
                    f"path assertion failed: {evaluation.check.detail}",
                    expected=assertion.check,
                    argument=assertion.path,
                )
            )
    if case.expect.trajectory is not None:
        _trajectory_check(suite, case, record, verdicts, common)
    state_failures: list[Failure] = []
    if case.expect.final_state:
        state_failures = final_state_failures(case.expect.final_state, record.state)
        common.checks.append(final_state_check(case.expect.final_state, state_failures))
        common.failures.extend(state_failures)
    output_scores = [c.score for c in common.checks if c.kind in OUTPUT_KINDS]
    output_score = sum(output_scores) / len(output_scores) if output_scores else 1.0

    budget_failures: list[Failure] = []
    if len(calls) > case.max_tool_calls:
        budget_failures.append(
            Failure(
                "over_call_budget",
                f"{calls_text(len(calls))} made; the case allows at most {case.max_tool_calls}",
                expected=case.max_tool_calls,
                actual=len(calls),
            )
        )
    if record.stop_reason == "max_turns":
        budget_failures.append(
            Failure(
                "over_call_budget",
                f"no final answer within {case.max_turns} turns",
                expected=case.max_turns,
                actual=record.turns,
            )
        )
    latency_budget = (
        case.expect.latency_ms if case.expect.latency_ms is not None else suite.defaults.latency_ms
    )
    if latency_budget is not None:
        fast = record.latency_ms <= latency_budget
        common.checks.append(
            CheckScore(
                "latency", float(fast), fast, f"{record.latency_ms:.0f} ms vs budget {latency_budget} ms"
            )
        )
        if not fast:
            budget_failures.append(
                Failure(
                    "latency_exceeded",
                    f"took {record.latency_ms:.0f} ms, budget {latency_budget} ms",
                    expected=latency_budget,
                    actual=round(record.latency_ms, 1),
                )
            )

    weights = case.scoring.weights
    automatic = automatic_failures(suite, calls)
    automatic_hard = any(f.reason in HARD_REASONS for f in automatic)
    over_budget = len(calls) > case.max_tool_calls
    best: tuple[int | None, CallEval, float] | None = None
    for alternative, expectation in _candidates(case):
        call_eval = evaluate_calls(suite, expectation, calls, verdicts)
        weighted = _weighted(
            weights, call_eval.precision, call_eval.recall, call_eval.argument_accuracy, output_score
        )
        value = weighted if weighted is not None else float(call_eval.passed)
        if _breaks_hard_condition(call_eval):
            value = 0.0
        if call_eval.passed:
            best = (alternative, call_eval, value)
            break
        if best is None or (value, -len(call_eval.failures)) > (best[2], -len(best[1].failures)):
            best = (alternative, call_eval, value)
    assert best is not None
    alternative, chosen, weighted_score = best
    if not case.expect.alternatives:
        alternative = None

    failures = [*automatic, *chosen.failures, *budget_failures, *common.failures]
    calls_ok = arguments_ok = True
    if chosen.failures:
        reasons = {f.reason for f in chosen.failures}
        arguments_ok = not reasons & ARGUMENT_REASONS
        calls_ok = not reasons - ARGUMENT_REASONS - {"judge_failed"}
    checks: list[CheckScore] = []
    if chosen.constrained:
        detail = f"precision {chosen.precision:.2f}, recall {chosen.recall:.2f}"
        checks.append(_check("calls", chosen.f1, calls_ok, detail))
    if chosen.argument_checks:
        detail = f"{chosen.argument_checks} argument check(s)"
        checks.append(_check("arguments", chosen.argument_accuracy, arguments_ok, detail))
    checks += common.checks

    # A final state other than expected is a hard condition, as an expected call missing is.
    hard = automatic_hard or over_budget or _breaks_hard_condition(chosen) or bool(state_failures)
    judge_failed = any(f.reason == "judge_failed" for f in failures)
    status: CaseStatus
    if case.scoring.mode == "weighted":
        score = 0.0 if hard else weighted_score
        pass_score = case.scoring.pass_score
        status = "passed" if not hard and score >= pass_score - 1e-12 else "failed"
        if not hard and judge_failed:
            # The score depends on a verdict the judge did not give: the trial could not be evaluated.
            status, score = "error", 0.0
        elif not hard and status == "failed":
            failures.append(
                Failure(
                    "below_pass_score",
                    f"weighted score {score:.3f} is under the pass score {pass_score:g}",
                    expected=pass_score,
                    actual=round(score, 6),
                )
            )
    else:
        status = "failed" if failures else "passed"
        if judge_failed and all(f.reason == "judge_failed" for f in failures):
            status = "error"  # only the judge's missing verdict stands between the trial and a verdict
        score = 1.0 if status == "passed" else 0.0
    metrics = Metrics(
        precision=chosen.precision,
        recall=chosen.recall,
        f1=chosen.f1,
        argument_accuracy=chosen.argument_accuracy,
        output_score=output_score,
        latency_ms=record.latency_ms,
        input_tokens=record.usage.input_tokens,
        output_tokens=record.usage.output_tokens,
        cost_usd=record.cost_usd or 0.0,
    )
    return TrialResult(
        index=index,
        status=status,
        score=score if score == 1.0 or score == 0.0 else round(score, 6),
        failures=tuple(failures),
        checks=tuple(checks),
        metrics=metrics,
        record=record,
        pairing=chosen.pairing,
        alternative=alternative,
    )


def _breaks_hard_condition(evaluation: CallEval) -> bool:
    """Whether a call evaluation broke a hard condition (DESIGN.md section 3)."""
    return evaluation.missing or any(f.reason in HARD_REASONS for f in evaluation.failures)


# --- a readable expectation ---------------------------------------------------------------------------


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _jsonable(value: Any) -> Any:
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is dict:
        return {
            k if type(k) is str else str(k): v if type(v) in _JSON_SCALARS else _jsonable(v)
            for k, v in value.items()
        }
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _calls_summary(expectation: CallExpectation) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "calls": [
            {
                "tool": e.tool,
                "args": _jsonable(e.args),
                "times": {"min": e.times.min, "max": e.times.max},
                "allow_extra_args": e.allow_extra_args,
            }
            for e in expectation.calls
        ],
        "order": expectation.order,
        "extra_calls": expectation.extra_calls,
    }
    if expectation.forbidden_tools:
        summary["forbidden_tools"] = list(expectation.forbidden_tools)
    if expectation.no_calls:
        summary["no_calls"] = True
    if expectation.max_calls is not None:
        summary["max_calls"] = expectation.max_calls
    return summary


def expected_summary(case: Case) -> dict[str, Any]:
    """A JSON-able, readable form of the case's expectation, for "expected vs actual" in reports."""
    expect = case.expect
    summary = _calls_summary(expect.calls)
    if expect.alternatives:
        summary["alternatives"] = [_calls_summary(a) for a in expect.alternatives]
    out = expect.output
    output: dict[str, Any] = {}
    for name in ("contains", "not_contains", "regex", "criteria", "semantic_contains"):
        values = getattr(out, name)
        if values:
            output[name] = list(values)
    if out.equals is not None:
        output["equals"] = out.equals
    if out.ignore_case:
        output["ignore_case"] = True
    if out.ranking is not None:
        r = out.ranking
        output["ranking"] = {
            "reference": r.reference,
            "wrong": r.wrong,
            "irrelevant": r.irrelevant,
            "threshold": r.threshold,
        }
    if out.choice is not None:
        output["choice"] = {"options": list(out.choice.options), "correct": out.choice.correct}
    if out.asks_clarification is not None:
        output["asks_clarification"] = out.asks_clarification
    if output:
        summary["output"] = output
    if expect.latency_ms is not None:
        summary["latency_ms"] = expect.latency_ms
    if expect.asserts:
        summary["assert"] = [
            {"path": a.path, "check": _jsonable(a.check), "aggregate": a.aggregate, "threshold": a.threshold}
            for a in expect.asserts
        ]
    return summary
