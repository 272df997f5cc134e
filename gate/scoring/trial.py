"""Scoring one trial of one case (DESIGN.md section 3): failures, checks, metrics, status and score.

The calls are scored against each acceptable call expectation by ``gate.scoring.calls`` (pairing, counting,
prohibitions, order, metrics, automatic checks), the final answer by ``gate.scoring.output_checks``; this
module adds the path assertions, the trajectory, the final state and the budgets, picks the best
alternative expectation and decides the trial's status and score.

Pure: judged checks read verdicts obtained beforehand, by the requests ``gate.scoring.judge_requests`` builds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gate.results.outcomes import (
    ARGUMENT_REASONS,
    MAX_QUOTED_CHARS,
    CaseStatus,
    CheckKind,
    CheckScore,
    Failure,
    Metrics,
    Reason,
    TrialResult,
)
from gate.results.run_record import RecordedCall, RunRecord
from gate.scoring.calls import prohibitions
from gate.scoring.calls.automatic import automatic_failures
from gate.scoring.calls.evaluation import CallEval, evaluate_calls
from gate.scoring.final_state import final_state_check, final_state_failures
from gate.scoring.judge_requests import answer_requests
from gate.scoring.output_checks import CheckLog, judged, output_checks, shared_check
from gate.suite import path_assertions
from gate.suite.judging import JudgeRequest, JudgeVerdict
from gate.suite.matcher_tree import matchers_json
from gate.suite.model import CallExpectation, Case, Suite
from gate.util.escape import show, truncate
from gate.util.json_types import JsonObject
from gate.util.wording import plural

# DESIGN section 3's hard conditions: a trial that broke one fails and scores 0 in every scoring mode
# (an expected call missing is ``CallEval.missing``; "over_call_budget" covers ``max_calls`` and the
# case's ``max_tool_calls``; a final state other than expected is one too).
HARD_REASONS: frozenset[Reason] = frozenset(
    {
        "forbidden_call",
        "extra_call",
        "over_call_budget",
        "hallucinated_tool",
        "invalid_arguments",
        "schema_violation",
        "agent_crashed",
    }
)
# The checks whose mean is the output-check score: the final answer's, the path assertions and the
# trajectory judgement (not a hard condition: in weighted mode it weighs as an output check).
OUTPUT_KINDS: frozenset[CheckKind] = frozenset(
    {"output", "criteria", "semantic_contains", "ranking", "choice", "clarification", "path", "trajectory"}
)


def score_trial(
    suite: Suite, case: Case, record: RunRecord, index: int, verdicts: Mapping[str, JudgeVerdict]
) -> TrialResult:
    """Score one trial: every failure, every check, the metrics, the status and the weighted score."""
    if record.error is not None:
        return _ended_early(record, index, _broken_before_the_end(suite, case, record))
    if record.stop_reason == "agent_crashed":
        return _agent_crashed(suite, record, index)
    log, state_broken = _expectation_checks(suite, case, record, index, verdicts)
    output_score = _output_score(log.checks)
    budget_failures, latency_checks = _budgets(suite, case, record)
    automatic = automatic_failures(suite, record.calls, record.offered)
    best = _best_expectation(suite, case, record.calls, verdicts, output_score)
    chosen = best.calls
    failures = [*automatic, *chosen.failures, *budget_failures, *log.failures]
    hard = (
        any(f.reason in HARD_REASONS for f in automatic)
        or len(record.calls) > case.max_tool_calls
        or _breaks_hard_condition(chosen)
        or state_broken
    )
    if case.scoring.mode == "weighted":
        ceiling = _judge_ceiling(suite, case, record.calls, verdicts, best, failures)
        status, score, below = _weighted_verdict(case.scoring.pass_score, hard, best.value, failures, ceiling)
        failures += below
    else:
        status, score = _all_verdict(failures)
    return TrialResult(
        index=index,
        status=status,
        score=score if score == 1.0 or score == 0.0 else round(score, 6),
        failures=tuple(failures),
        checks=(*_call_checks(chosen), *log.checks, *latency_checks),
        metrics=_metrics(chosen, output_score, record),
        record=record,
        pairing=chosen.pairing,
        alternative=best.alternative if case.expect.alternatives else None,
    )


def _ended_early(record: RunRecord, index: int, broken: Sequence[Failure]) -> TrialResult:
    """A trial that ended on its ``error`` (the provider failed, a reply was cut at its token limit):
    an error (could not evaluate), never a failure of the agent nor a fault of its tool definitions;
    unless the calls made before already broke a hard condition (``broken``): then the agent failed
    whatever came next."""
    metrics = Metrics(
        latency_ms=record.latency_ms,
        input_tokens=record.usage.input_tokens,
        output_tokens=record.usage.output_tokens,
        cost_usd=record.cost_usd or 0.0,
    )
    if broken:
        return TrialResult(index, "failed", 0.0, tuple(broken), (), metrics, record)
    quoted = truncate(record.error or "", MAX_QUOTED_CHARS, brief=True)
    if record.stop_reason == "max_tokens":
        failure = Failure("reply_cut", quoted, actual=quoted)
    else:
        failure = Failure("provider_error", quoted, actual=quoted)
    return TrialResult(index, "error", 0.0, (failure,), (), metrics, record)


def _agent_crashed(suite: Suite, record: RunRecord, index: int) -> TrialResult:
    """A trial whose agent program failed (exited, timed out, broke the protocol): the agent's failure,
    with the automatic checks of the calls it made first (a hallucinated tool often is the cause)."""
    why = str(record.extra.get("agent_crashed") or "the agent program failed")
    failures = (
        *automatic_failures(suite, record.calls, record.offered),
        Failure("agent_crashed", why, actual=why),
    )
    metrics = Metrics(
        latency_ms=record.latency_ms,
        input_tokens=record.usage.input_tokens,
        output_tokens=record.usage.output_tokens,
        cost_usd=record.cost_usd or 0.0,
    )
    return TrialResult(index, "failed", 0.0, failures, (), metrics, record)


def _broken_before_the_end(suite: Suite, case: Case, record: RunRecord) -> list[Failure]:
    """The hard conditions the calls of an episode that ended early (the provider failed, a reply was
    cut) had already broken for good, whatever the rest would have done: a hallucinated tool, invalid
    arguments or a schema violation, and the prohibitions every acceptable expectation has broken (a
    forbidden tool, ``no_calls``, an extra call under ``extra_calls: forbid``, more than ``max_calls``).
    A missing call is not among them (it might have come). The calls of a cut reply are unfinished and
    never held against the agent. Empty: nothing was decided."""
    cut = record.stop_reason == "max_tokens"
    calls = [c for c in record.calls if not (cut and c.turn >= record.turns)]
    broken = [f for f in automatic_failures(suite, calls, record.offered) if f.reason in HARD_REASONS]
    prohibited = [_prohibitions_broken(suite, expectation, calls) for _, expectation in _candidates(case)]
    if all(prohibited):  # the fewest: those of the expectation the calls came closest to
        broken += sorted(prohibited, key=len)[0]
    return broken


def _prohibitions_broken(
    suite: Suite, expectation: CallExpectation, calls: Sequence[RecordedCall]
) -> list[Failure]:
    """The prohibitions of ``expectation`` that ``calls`` broke (no later call can mend them)."""
    defined = [
        j
        for j, c in enumerate(calls)
        if suite.tool(c.name) is not None and not prohibitions.is_prohibited(expectation, c.name)
    ]
    return [
        *prohibitions.forbidden_calls(expectation, calls),
        *prohibitions.extra_calls(expectation, calls, defined),
        *prohibitions.over_max_calls(expectation, len(calls)),
    ]


# --- the expectations beyond the calls --------------------------------------------------------------


def _expectation_checks(
    suite: Suite, case: Case, record: RunRecord, index: int, verdicts: Mapping[str, JudgeVerdict]
) -> tuple[CheckLog, bool]:
    """The checks of the final answer, the path assertions, the trajectory and the final state, in that
    order; and whether the final state broke (a hard condition, as an expected call missing is)."""
    asked = answer_requests(suite, case, record, index)
    log = output_checks(case, record, asked, verdicts)
    _path_assertions(case, record, verdicts, log)
    if asked.trajectory is not None:
        _trajectory_check(case, asked.trajectory, verdicts, log)
    if not case.expect.final_state:
        return log, False
    state_failures = final_state_failures(case.expect.final_state, record.state)
    log.checks.append(final_state_check(case.expect.final_state, state_failures))
    log.failures.extend(state_failures)
    return log, bool(state_failures)


def _path_assertions(
    case: Case, record: RunRecord, verdicts: Mapping[str, JudgeVerdict], log: CheckLog
) -> None:
    for assertion in case.expect.asserts:
        evaluation = path_assertions.evaluate(assertion, record, verdicts)
        log.checks.append(evaluation.check)
        if evaluation.judge_error:
            log.failures.append(
                Failure(
                    "judge_failed", f"path assertion {evaluation.check.detail}", expected=assertion.written
                )
            )
        elif not evaluation.check.passed:
            log.failures.append(
                Failure(
                    "output_check_failed",
                    f"path assertion {evaluation.check.detail}",
                    expected=assertion.written,
                    argument=assertion.path,
                )
            )


def _trajectory_check(
    case: Case, request: JudgeRequest, verdicts: Mapping[str, JudgeVerdict], log: CheckLog
) -> None:
    """``expect.trajectory``: the judge's verdict on the whole episode, its rationale kept."""
    criteria = case.expect.trajectory
    assert criteria is not None
    verdict = judged(log, "trajectory", "trajectory", request, verdicts)
    if verdict is None:
        return
    label = f"trajectory: {criteria}"
    log.checks.append(CheckScore("trajectory", verdict.score, verdict.passed, label, verdict.rationale))
    if not verdict.passed:
        why = (
            f" (judge: {truncate(verdict.rationale, MAX_QUOTED_CHARS, brief=True)})"
            if verdict.rationale
            else ""
        )
        log.failures.append(
            Failure(
                "trajectory_failed",
                f"the episode does not meet {show(criteria)}{why}",
                expected=criteria,
                actual=verdict.rationale or None,
            )
        )


def _output_score(checks: Sequence[CheckScore]) -> float:
    """The mean score of the output checks (``OUTPUT_KINDS``); 1 when there is none."""
    scores = [c.score for c in checks if c.kind in OUTPUT_KINDS]
    return sum(scores) / len(scores) if scores else 1.0


def _budgets(suite: Suite, case: Case, record: RunRecord) -> tuple[list[Failure], list[CheckScore]]:
    """The case's budgets: more calls than ``max_tool_calls``, no final answer within ``max_turns``, the
    latency over its budget (the case's, else the suite's default). Failures, and the latency check."""
    failures: list[Failure] = []
    n_calls = len(record.calls)
    if n_calls > case.max_tool_calls:
        failures.append(
            Failure(
                "over_call_budget",
                f"{plural(n_calls, 'call')} made; the case allows at most {case.max_tool_calls}",
                expected=case.max_tool_calls,
                actual=n_calls,
            )
        )
    if record.stop_reason == "max_turns":
        failures.append(
            Failure(
                "over_call_budget",
                f"no final answer within {case.max_turns} turns",
                expected=case.max_turns,
                actual=record.turns,
            )
        )
    budget = case.expect.latency_ms if case.expect.latency_ms is not None else suite.defaults.latency_ms
    if budget is None:
        return failures, []
    fast = record.latency_ms <= budget
    check = CheckScore("latency", float(fast), fast, f"{record.latency_ms:.0f} ms vs budget {budget} ms")
    if not fast:
        failures.append(
            Failure(
                "latency_exceeded",
                f"took {record.latency_ms:.0f} ms, budget {budget} ms",
                expected=budget,
                actual=round(record.latency_ms, 1),
            )
        )
    return failures, [check]


# --- the calls: the best acceptable expectation --------------------------------------------------------


@dataclass(frozen=True)
class _Scored:
    """The calls scored against one acceptable expectation: ``alternative`` its index among the
    alternatives (None: the main one); ``value`` its weighted score (pass or not when there are no
    weights), 0 when it broke a hard condition."""

    alternative: int | None
    calls: CallEval
    value: float


def _candidates(case: Case) -> list[tuple[int | None, CallExpectation]]:
    """The acceptable call expectations, each with its index among the alternatives (None: the main one).
    With alternatives, the main expectation competes only with calls of its own (or ``no_calls``): its
    other rules are no acceptable expectation by themselves. Its prohibitions (``forbidden_tools``,
    ``max_calls``, ``extra_calls: forbid``) hold for every alternative."""
    expect = case.expect
    main = expect.calls
    if not expect.alternatives:
        return [(None, main)]
    options: list[tuple[int | None, CallExpectation]] = []
    if main.calls or main.no_calls:
        options.append((None, main))
    options += [
        (i, _with_prohibitions(alternative, main)) for i, alternative in enumerate(expect.alternatives)
    ]
    return options


def _with_prohibitions(alternative: CallExpectation, main: CallExpectation) -> CallExpectation:
    """The alternative with the main expectation's prohibitions added (the stricter limit wins)."""
    if not main.forbidden_tools and main.max_calls is None and main.extra_calls != "forbid":
        return alternative
    forbidden = alternative.forbidden_tools + tuple(
        tool for tool in main.forbidden_tools if tool not in alternative.forbidden_tools
    )
    limits = [limit for limit in (alternative.max_calls, main.max_calls) if limit is not None]
    return replace(
        alternative,
        forbidden_tools=forbidden,
        max_calls=min(limits) if limits else None,
        extra_calls="forbid" if main.extra_calls == "forbid" else alternative.extra_calls,
    )


def _weighted(
    weights: Mapping[str, float], precision: float, recall: float, arguments: float, output: float
) -> float | None:
    """The weighted score; None when no weight is positive."""
    wp = max(0.0, float(weights.get("precision", 0.0)))
    wr = max(0.0, float(weights.get("recall", 0.0)))
    wa = max(0.0, float(weights.get("arguments", 0.0)))
    wo = max(0.0, float(weights.get("output", 0.0)))
    total = wp + wr + wa + wo
    if total <= 0:
        return None
    return (wp * precision + wr * recall + wa * arguments + wo * output) / total


def _best_expectation(
    suite: Suite,
    case: Case,
    calls: Sequence[RecordedCall],
    verdicts: Mapping[str, JudgeVerdict],
    output_score: float,
) -> _Scored:
    """In ``all`` mode the first acceptable expectation the calls pass; otherwise (and in weighted
    mode always) the one with the best value, one the calls pass first on a tie, then the fewest
    failures, then the first. In weighted mode the calls can pass several expectations with different
    scores (an extra call one of them accounts for): any acceptable expectation passes, so the best."""
    first_passing = case.scoring.mode != "weighted"
    best: _Scored | None = None
    for alternative, expectation in _candidates(case):
        call_eval = evaluate_calls(suite, expectation, calls, verdicts)
        weighted = _weighted(
            case.scoring.weights,
            call_eval.precision,
            call_eval.recall,
            call_eval.argument_accuracy,
            output_score,
        )
        value = weighted if weighted is not None else float(call_eval.passed)
        scored = _Scored(alternative, call_eval, 0.0 if _breaks_hard_condition(call_eval) else value)
        if call_eval.passed and (first_passing or scored.value >= 1.0):
            return scored
        if best is None or _rank(scored) > _rank(best):
            best = scored
    assert best is not None  # there is always at least one candidate
    return best


def _rank(scored: _Scored) -> tuple[float, bool, int]:
    """How good an acceptable expectation's fit is: its value, whether the calls pass it, the fewest
    failures."""
    return (scored.value, scored.calls.passed, -len(scored.calls.failures))


def _breaks_hard_condition(evaluation: CallEval) -> bool:
    """Whether a call evaluation broke a hard condition (DESIGN.md section 3)."""
    return (
        evaluation.missing
        or evaluation.surplus_forbidden
        or any(f.reason in HARD_REASONS for f in evaluation.failures)
    )


def _call_checks(chosen: CallEval) -> list[CheckScore]:
    """The "calls" check (when the expectation constrains the calls) and the "arguments" check (when
    there were arguments to check), each passed unless a failure of its own kind."""
    reasons = {f.reason for f in chosen.failures}
    checks: list[CheckScore] = []
    if chosen.constrained:
        detail = f"precision {chosen.precision:.2f}, recall {chosen.recall:.2f}"
        calls_ok = not reasons - ARGUMENT_REASONS - {"judge_failed"}
        checks.append(shared_check("calls", chosen.f1, calls_ok, detail))
    if chosen.argument_checks:
        detail = f"{chosen.argument_checks} argument check(s)"
        checks.append(
            shared_check("arguments", chosen.argument_accuracy, not reasons & ARGUMENT_REASONS, detail)
        )
    return checks


def _metrics(chosen: CallEval, output_score: float, record: RunRecord) -> Metrics:
    return Metrics(
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


# --- the trial's status and score ---------------------------------------------------------------------


def _judge_ceiling(
    suite: Suite,
    case: Case,
    calls: Sequence[RecordedCall],
    verdicts: Mapping[str, JudgeVerdict],
    best: _Scored,
    failures: Sequence[Failure],
) -> float:
    """The most the weighted score could be had the judge said yes to every check it left undecided:
    every output check at full score (1.0, no bound, when the case has judged arguments, whose
    verdicts may change the pairing)."""
    if not any(f.reason == "judge_failed" for f in failures):
        return best.value
    expectations = (case.expect.calls, *case.expect.alternatives)
    if any(expected.judged for expectation in expectations for expected in expectation.calls):
        return 1.0
    return _best_expectation(suite, case, calls, verdicts, 1.0).value


def _weighted_verdict(
    pass_score: float,
    hard: bool,
    weighted_score: float,
    failures: Sequence[Failure],
    ceiling: float = 1.0,
) -> tuple[CaseStatus, float, list[Failure]]:
    """Weighted mode: passed at ``pass_score`` unless a hard condition broke (then failed, score 0); an
    error when a verdict the judge did not give could lift the score to the pass score (``ceiling``:
    the score had it said yes); under the pass score, a failure saying both scores. Returns the
    status, the score and the failures to add."""
    if hard:
        return "failed", 0.0, []
    undecided = any(f.reason == "judge_failed" for f in failures)
    if undecided and ceiling >= pass_score - 1e-12:
        return "error", 0.0, []
    if weighted_score >= pass_score - 1e-12:
        return "passed", weighted_score, []
    whatever = f" (at most {ceiling:.3f} whatever the judge would have said)" if undecided else ""
    below = Failure(
        "below_pass_score",
        f"weighted score {weighted_score:.3f} is under the pass score {pass_score:g}{whatever}",
        expected=pass_score,
        actual=round(weighted_score, 6),
    )
    return "failed", weighted_score, [below]


def _all_verdict(failures: Sequence[Failure]) -> tuple[CaseStatus, float]:
    """``all`` mode: passed (score 1) when every expectation holds; an error when only the judge's
    missing verdicts stand between the trial and a verdict; else failed (score 0)."""
    if not failures:
        return "passed", 1.0
    if all(f.reason == "judge_failed" for f in failures):
        return "error", 0.0
    return "failed", 0.0


# --- a readable expectation ---------------------------------------------------------------------------


def _calls_summary(expectation: CallExpectation) -> JsonObject:
    summary: JsonObject = {
        "calls": [
            {
                "tool": e.tool,
                "args": matchers_json(e.args),
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


def expected_summary(case: Case) -> JsonObject:
    """A JSON-able, readable form of the case's expectation, for "expected vs actual" in reports."""
    expect = case.expect
    summary = _calls_summary(expect.calls)
    if expect.alternatives:
        summary["alternatives"] = [_calls_summary(a) for a in expect.alternatives]
    out = expect.output
    output: JsonObject = {}
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
            {"path": a.path, "check": a.written, "aggregate": a.aggregate, "threshold": a.threshold}
            for a in expect.asserts
        ]
    return summary
