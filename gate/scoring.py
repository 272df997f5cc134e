"""Scoring one trial of one case (DESIGN.md section 3): pairing, failures, checks, metrics, status.

Expected calls are expanded by ``times`` (the required copies, plus optional copies up to ``max``)
and paired with the actual calls by optimal assignment on argument agreement: the cost of a pair is
the fraction of failing argument outcomes, calls of different tools never pair, an unpaired
required copy costs more than any pair, so pairing maximises the calls accounted for first and
argument agreement second. Among the optimal pairings, an order-preserving one is preferred; for
``in_order`` / ``strict`` expectations, needing a non-order-preserving one is an order violation.

Pure: judged checks read verdicts obtained beforehand (``gate.judging.collect_requests``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gate import bounded_regex, conversation, judging, paths, schema_check
from gate.assignment import optimal_assignment
from gate.final_state import final_state_check, final_state_failures
from gate.judging import Verdict
from gate.matchers import MatchOutcome, match_arguments, schema_validator, show
from gate.results import CaseStatus, CheckScore, Failure, Metrics, TrialResult
from gate.run_record import RecordedCall, RunRecord
from gate.suite_model import CallExpectation, Case, ExpectedCall, OutputChecks, Suite, Times
from gate.trajectory import goal_text, trajectory_text

MISS_REQUIRED = 3.0  # an unpaired required copy: worse than any pair and than leaving optional ones
MISS_OPTIONAL = 1.0
EXTRA = 1.0  # an unpaired actual call
BLOCKED = 1e6  # a pair that is not allowed (different tools)
ARGUMENT_REASONS = frozenset({"missing_argument", "unexpected_argument", "type_error", "value_error"})
# DESIGN section 3's hard conditions: a trial that broke one fails and scores 0 in every scoring mode
# (an expected call missing is ``_CallEval.missing``; "over_call_budget" covers ``max_calls`` and the
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


@dataclass(frozen=True)
class _Slot:
    expected: int  # index into CallExpectation.calls
    required: bool


@dataclass(slots=True)
class _CallEval:
    failures: list[Failure]
    pairing: tuple[int | None, ...]
    missing: bool
    precision: float
    recall: float
    f1: float
    argument_accuracy: float
    argument_checks: int
    constrained: bool

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(slots=True)
class _Common:
    failures: list[Failure] = field(default_factory=list)
    checks: list[CheckScore] = field(default_factory=list)


# --- helpers ---------------------------------------------------------------------------------------


def times_text(times: Times) -> str:
    if times.max == times.min:
        return f"exactly {times.min}"
    if times.max is None:
        return f"at least {times.min}"
    return f"{times.min} to {times.max}"


def _calls_text(count: int) -> str:
    return f"{count} call" + ("" if count == 1 else "s")


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _arguments_outcomes(
    expected: ExpectedCall, call: RecordedCall, verdicts: Mapping[str, Verdict]
) -> tuple[MatchOutcome, ...] | None:
    if call.arguments is None:
        return None
    allow_extra = expected.allow_extra_args or not expected.args
    return match_arguments(expected.args, call.arguments, allow_extra, verdicts)


def _pair_cost(outcomes: tuple[MatchOutcome, ...] | None) -> float:
    if outcomes is None:
        return 1.0
    if not outcomes:
        return 0.0
    return sum(1 for o in outcomes if not o.ok) / len(outcomes)


def _monotone_alignment(
    slots: Sequence[_Slot], costs: Sequence[Sequence[float | None]]
) -> tuple[float, list[int | None]]:
    """The cheapest order-preserving alignment of slots to actual calls (edit-distance style)."""
    if not slots:
        return 0.0, []
    n, m = len(slots), len(costs[0])
    inf = float("inf")
    best = [[inf] * (m + 1) for _ in range(n + 1)]
    step: list[list[str]] = [[""] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            here = best[i][j]
            if here == inf:
                continue
            if i < n:
                miss = here + (MISS_REQUIRED if slots[i].required else MISS_OPTIONAL)
                if miss < best[i + 1][j] - 1e-12:
                    best[i + 1][j], step[i + 1][j] = miss, "miss"
            if j < m:
                extra = here + EXTRA
                if extra < best[i][j + 1] - 1e-12:
                    best[i][j + 1], step[i][j + 1] = extra, "extra"
            if i < n and j < m and costs[i][j] is not None:
                pair = here + costs[i][j]  # type: ignore[operator]
                if pair < best[i + 1][j + 1] - 1e-12:
                    best[i + 1][j + 1], step[i + 1][j + 1] = pair, "pair"
    alignment: list[int | None] = [None] * n
    i, j = n, m
    while i or j:
        move = step[i][j]
        if move == "pair":
            alignment[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif move == "miss":
            i -= 1
        else:
            j -= 1
    return best[n][m], alignment


def _miss(slot: _Slot) -> float:
    return MISS_REQUIRED if slot.required else MISS_OPTIONAL


def _optimal_pairing(
    slots: Sequence[_Slot],
    slot_tools: Sequence[str],
    costs: Sequence[Sequence[float | None]],
    call_names: Sequence[str],
) -> tuple[float, list[int | None]]:
    """Optimal (not necessarily order-preserving) pairing and its total cost. Calls of different tools
    never pair, so each tool is solved on its own: one slot takes its cheapest call (pairing always
    beats leaving both unpaired); several slots go through assignment on a square matrix whose extra
    rows/columns stand for "left unpaired"."""
    pairing: list[int | None] = [None] * len(slots)
    total = 0.0
    paired = 0
    groups: dict[str, list[int]] = {}
    for i, tool in enumerate(slot_tools):
        groups.setdefault(tool, []).append(i)
    for tool, rows in groups.items():
        cols = [j for j, name in enumerate(call_names) if name == tool]
        if not cols:
            total += sum(_miss(slots[i]) for i in rows)
            continue
        if len(rows) == 1:
            i = rows[0]
            cheapest = min(cols, key=lambda c: (costs[i][c] or 0.0, c))
            pairing[i] = cheapest
            cost = costs[i][cheapest]
            assert cost is not None  # calls of the slot's own tool always have a cost
            total += cost
            paired += 1
            continue
        n, m = len(rows), len(cols)
        size = n + m
        matrix = [[BLOCKED] * size for _ in range(size)]
        for r, i in enumerate(rows):
            for c, j in enumerate(cols):
                matrix[r][c] = costs[i][j]  # type: ignore[assignment]
            matrix[r][m + r] = _miss(slots[i])
        for c in range(m):
            matrix[n + c][c] = EXTRA
            for k in range(n):
                matrix[n + c][m + k] = 0.0
        assignment = optimal_assignment(matrix)
        for r, i in enumerate(rows):
            column = assignment[r]
            assert column is not None  # square matrix: every row is assigned
            total += matrix[r][column]
            if column < m:
                pairing[i] = cols[column]
                paired += 1
    total += EXTRA * (len(call_names) - paired)
    return total, pairing


# --- automatic checks ---------------------------------------------------------------------------------


def _automatic_failures(suite: Suite, calls: Sequence[RecordedCall]) -> list[Failure]:
    failures: list[Failure] = []
    for index, call in enumerate(calls):
        tool = suite.tool(call.name)
        where = f"call {index + 1}"
        if tool is None:
            defined = ", ".join(t.name for t in suite.agent.tools) or "none"
            failures.append(
                Failure(
                    "hallucinated_tool",
                    f"{where}: {call.name} is not a defined tool (defined: {defined})",
                    tool=call.name,
                    actual=call.name,
                )
            )
            continue
        if call.arguments is None:
            failures.append(
                Failure(
                    "invalid_arguments",
                    f"{where}: {call.name} arguments are not a JSON object "
                    f"({call.arguments_error or 'unparseable'}): {_clip(call.raw_arguments, 120)}",
                    tool=call.name,
                    actual=_clip(call.raw_arguments),
                )
            )
            continue
        failures += _schema_failures(tool.name, tool.parameters, call, where)
    return failures


def _schema_check(schema: dict[str, Any]) -> Any:
    """The compiled yes/no validator of a tool's parameter schema (``gate.schema_check``, cached per
    schema object), or None when the schema is outside its subset (then jsonschema decides)."""
    try:
        return schema_check.checker(schema)
    except Exception:  # a malformed tool schema: jsonschema reports it (and it is not the agent's fault)
        return None


def _schema_failures(tool: str, schema: dict[str, Any], call: RecordedCall, where: str) -> list[Failure]:
    arguments = call.arguments
    check = _schema_check(schema)
    if check is not None and check(arguments):
        return []
    schema_json = json.dumps(schema, sort_keys=True)
    import jsonschema

    try:
        validator = schema_validator(schema_json)
    except (jsonschema.SchemaError, TypeError, ValueError):
        return []  # an invalid tool schema is reported by validate, not blamed on the agent
    from referencing.exceptions import Unresolvable

    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
    except Unresolvable:
        return []  # an unresolvable "$ref" (never fetched): the tool file is at fault, not the agent
    failures = []
    for error in errors:
        location = list(error.absolute_path)
        argument = str(location[0]) if location else None
        if argument is None and error.validator in ("required", "additionalProperties"):
            # Name the argument the error is about ("'days' is a required property").
            found = re.findall(r"'([^']+)'", error.message)
            argument = found[0] if found else None
        pointer = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in location).lstrip(".")
        failures.append(
            Failure(
                "schema_violation",
                f"{where}: {tool} arguments violate the tool's schema"
                f"{' at ' + pointer if pointer else ''}: {error.message}",
                tool=tool,
                argument=argument,
                expected=f"{error.validator}: {show(error.validator_value, 80)}",
                actual=error.instance if location else None,
            )
        )
    return failures


# --- call expectations --------------------------------------------------------------------------------


def _count_names(calls: Sequence[RecordedCall]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for call in calls:
        counts[call.name] = counts.get(call.name, 0) + 1
    return counts


def _expand(expectation: CallExpectation, named: Mapping[str, int]) -> list[_Slot]:
    slots: list[_Slot] = []
    for index, expected in enumerate(expectation.calls):
        low = max(0, expected.times.min)
        high = expected.times.max if expected.times.max is not None else max(low, named.get(expected.tool, 0))
        slots += [_Slot(index, True)] * low
        slots += [_Slot(index, False)] * max(0, high - low)
    return slots


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def _argument_failures(
    expected: ExpectedCall, j: int, result: tuple[MatchOutcome, ...] | None, failures: list[Failure]
) -> tuple[int, int]:
    """Append a failure for every failing argument outcome of the pair (expected call, actual call
    ``j``); returns how many argument checks there were and how many failed. ``result`` None: the
    call's arguments were unparseable (already an invalid_arguments failure), so every one fails."""
    if result is None:
        count = max(1, len(expected.args))
        return count, count
    failing = 0
    for outcome in result:
        if outcome.ok:
            continue
        failing += 1
        failures.append(
            Failure(
                outcome.reason or "value_error",
                f"{expected.tool} (call {j + 1}): argument {outcome.path!r}: {outcome.detail}",
                tool=expected.tool,
                argument=outcome.path,
                expected=outcome.expected,
                actual=outcome.actual,
            )
        )
    return len(result), failing


def _literals_agree(expected: ExpectedCall, arguments: Mapping[str, Any] | None) -> bool:
    """True when every expected argument is a scalar literal that the call's argument of the very
    same Python type equals, and the call has no argument the expectation does not allow: then
    ``match_arguments`` gives one passing outcome per expected argument and nothing else."""
    args = expected.args
    if arguments is None or not args:
        return False
    if not expected.allow_extra_args and len(arguments) != len(args):
        return False
    for name, literal in args.items():
        if type(literal) not in _PLAIN_SCALARS:
            return False
        value = arguments.get(name, _MISSING)
        if type(value) is not type(literal) or value != literal:
            return False
    return True


_MISSING = object()


def _evaluate_one_to_one(
    expectation: CallExpectation, calls: Sequence[RecordedCall], verdicts: Mapping[str, Verdict]
) -> _CallEval | None:
    """The common case, scored without the assignment: the agent made exactly the expected calls,
    one to each expected tool (every ``times`` exactly 1, no tool expected twice), in the expected
    order, none of them forbidden. The only possible pairing is then call i with expected call i;
    the result is exactly what ``_evaluate_calls`` finds for it. None: not this case."""
    expected_calls = expectation.calls
    n = len(expected_calls)
    if not n or len(calls) != n or expectation.no_calls:
        return None
    forbidden = expectation.forbidden_tools
    for expected, call in zip(expected_calls, calls, strict=True):
        times = expected.times
        if (
            call.name != expected.tool
            or times.min != 1
            or times.max != 1
            or (forbidden and call.name in forbidden)
        ):
            return None
    if n > 1 and len({e.tool for e in expected_calls}) != n:
        return None
    failures: list[Failure] = []
    checked = failing = 0
    for j, (expected, call) in enumerate(zip(expected_calls, calls, strict=True)):
        if _literals_agree(expected, call.arguments):
            checked += len(expected.args)
            continue
        result = _arguments_outcomes(expected, call, verdicts)
        n_checked, n_failing = _argument_failures(expected, j, result, failures)
        checked += n_checked
        failing += n_failing
    if expectation.max_calls is not None and n > expectation.max_calls:
        failures.append(
            Failure(
                "over_call_budget",
                f"{_calls_text(n)} made, the expectation allows at most {expectation.max_calls}",
                expected=expectation.max_calls,
                actual=n,
            )
        )
    return _CallEval(
        failures=failures,
        pairing=tuple(range(n)),
        missing=False,
        precision=1.0,
        recall=1.0,
        f1=1.0,
        argument_accuracy=(checked - failing) / checked if checked else 1.0,
        argument_checks=checked,
        constrained=True,
    )


def _evaluate_calls(
    suite: Suite, expectation: CallExpectation, calls: Sequence[RecordedCall], verdicts: Mapping[str, Verdict]
) -> _CallEval:
    simple = _evaluate_one_to_one(expectation, calls, verdicts)
    if simple is not None:
        return simple
    return _evaluate_by_assignment(suite, expectation, calls, verdicts)


def _evaluate_by_assignment(
    suite: Suite, expectation: CallExpectation, calls: Sequence[RecordedCall], verdicts: Mapping[str, Verdict]
) -> _CallEval:
    expected_calls = expectation.calls
    named = _count_names(calls)
    slots = _expand(expectation, named)
    outcomes: dict[tuple[int, int], tuple[MatchOutcome, ...] | None] = {}
    costs: list[list[float | None]] = []
    for slot in slots:
        row: list[float | None] = []
        for j, call in enumerate(calls):
            expected = expected_calls[slot.expected]
            if call.name != expected.tool:
                row.append(None)
                continue
            key = (slot.expected, j)
            if key not in outcomes:
                outcomes[key] = _arguments_outcomes(expected, call, verdicts)
            row.append(_pair_cost(outcomes[key]))
        costs.append(row)

    slot_tools = [expected_calls[slot.expected].tool for slot in slots]
    optimal_cost, pairing = _optimal_pairing(slots, slot_tools, costs, [call.name for call in calls])
    # Prefer an order-preserving pairing among the optimal ones; needing a non-order-preserving one
    # is what an order violation is.
    paired_in_order = [j for j in pairing if j is not None]
    order_ok = all(a < b for a, b in zip(paired_in_order, paired_in_order[1:], strict=False))
    if not order_ok:
        ordered_cost, ordered = _monotone_alignment(slots, costs)
        if ordered_cost <= optimal_cost + 1e-9:
            pairing, order_ok = ordered, True
    failures: list[Failure] = []

    # Argument outcomes of every pair.
    checked = failing = 0
    for slot, pair in zip(slots, pairing, strict=True):
        if pair is None:
            continue
        expected = expected_calls[slot.expected]
        n_checked, n_failing = _argument_failures(expected, pair, outcomes[(slot.expected, pair)], failures)
        checked += n_checked
        failing += n_failing

    # Counts per expected call; missing calls; wrong tools.
    paired_per_expected = [0] * len(expected_calls)
    for slot, pair in zip(slots, pairing, strict=True):
        if pair is not None:
            paired_per_expected[slot.expected] += 1
    paired_calls = set(pairing)
    unpaired = [j for j in range(len(calls)) if j not in paired_calls]
    expected_names = {e.tool for e in expected_calls}
    used_for_wrong_tool: set[int] = set()
    missing = False
    for index, expected in enumerate(expected_calls):
        paired = paired_per_expected[index]
        if paired >= expected.times.min:
            continue
        missing = True
        if paired > 0:
            failures.append(
                Failure(
                    "wrong_count",
                    f"{expected.tool}: expected {times_text(expected.times)} matching call(s), got {paired} "
                    f"({_calls_text(named[expected.tool])} to {expected.tool} in total)",
                    tool=expected.tool,
                    expected=times_text(expected.times),
                    actual=paired,
                )
            )
            continue
        candidates = [
            j
            for j in unpaired
            if j not in used_for_wrong_tool
            and calls[j].name != expected.tool
            and suite.tool(calls[j].name) is not None
        ]
        preferred = [j for j in candidates if calls[j].name not in expected_names] or candidates
        if preferred:
            j = preferred[0]
            used_for_wrong_tool.add(j)
            failures.append(
                Failure(
                    "wrong_tool",
                    f"expected a call to {expected.tool}, but the agent called {calls[j].name} "
                    f"(call {j + 1})",
                    tool=calls[j].name,
                    expected=expected.tool,
                    actual=calls[j].name,
                    expected_tool=expected.tool,
                )
            )
        elif named.get(expected.tool, 0):
            failures.append(
                Failure(
                    "wrong_count",
                    f"{expected.tool}: expected {times_text(expected.times)} call(s) "
                    "matching this expectation; "
                    f"the {_calls_text(named.get(expected.tool, 0))} made matched other expectations better",
                    tool=expected.tool,
                    expected=times_text(expected.times),
                    actual=0,
                )
            )
        else:
            failures.append(
                Failure(
                    "missing_call",
                    f"expected {times_text(expected.times)} call(s) to {expected.tool}, none was made",
                    tool=expected.tool,
                    expected=expected.tool,
                    actual=None,
                )
            )

    # Calls that were forbidden, over the expected count, or extra.
    forbidden = set(expectation.forbidden_tools)
    for j, call in enumerate(calls):
        if expectation.no_calls:
            failures.append(
                Failure(
                    "forbidden_call",
                    f"the case expects no tool calls, but the agent called {call.name} (call {j + 1})",
                    tool=call.name,
                    expected="no calls",
                    actual=call.name,
                )
            )
        elif call.name in forbidden:
            failures.append(
                Failure(
                    "forbidden_call",
                    f"{call.name} is forbidden in this case, but was called (call {j + 1})",
                    tool=call.name,
                    actual=call.name,
                )
            )
    over_count: dict[str, int] = {}
    for j in unpaired:
        name = calls[j].name
        if j in used_for_wrong_tool or expectation.no_calls or name in forbidden or suite.tool(name) is None:
            continue
        if name in expected_names:
            over_count[name] = over_count.get(name, 0) + 1
        elif expectation.extra_calls == "forbid":
            failures.append(
                Failure(
                    "extra_call",
                    f"unexpected call to {name} (call {j + 1}); extra calls are forbidden",
                    tool=name,
                    actual=calls[j].arguments,
                )
            )
    for name in over_count:
        allowed = [e.times for e in expected_calls if e.tool == name]
        high = sum(t.max for t in allowed if t.max is not None)
        failures.append(
            Failure(
                "wrong_count",
                f"{name}: called {named[name]} times, expected at most {high}",
                tool=name,
                expected=f"at most {high}",
                actual=named[name],
            )
        )

    # Order.
    if expectation.order in ("in_order", "strict") and not order_ok:
        shown = [calls[j].name if j is not None else "-" for j in pairing]
        failures.append(
            Failure(
                "order_violation",
                f"calls were not made in the expected order ({expectation.order}): expected "
                f"{[expected_calls[s.expected].tool for s in slots]}, paired calls in order {shown}",
                expected=[expected_calls[s.expected].tool for s in slots],
                actual=[c.name for c in calls],
            )
        )
    if expectation.order == "strict" and unpaired and order_ok:
        extras = [f"{calls[j].name} (call {j + 1})" for j in unpaired]
        failures.append(
            Failure(
                "order_violation",
                f"strict order forbids calls outside the expected sequence: {', '.join(extras)}",
                expected=[expected_calls[s.expected].tool for s in slots if s.required],
                actual=[c.name for c in calls],
            )
        )
    if expectation.max_calls is not None and len(calls) > expectation.max_calls:
        failures.append(
            Failure(
                "over_call_budget",
                f"{_calls_text(len(calls))} made, the expectation allows at most {expectation.max_calls}",
                expected=expectation.max_calls,
                actual=len(calls),
            )
        )

    # Metrics: tool-name precision / recall / F1 over multisets.
    constrained = bool(expected_calls) or expectation.no_calls or expectation.extra_calls == "forbid"
    expected_multiset: dict[str, int] = {}
    for index, expected in enumerate(expected_calls):
        copies = max(expected.times.min, paired_per_expected[index])
        expected_multiset[expected.tool] = expected_multiset.get(expected.tool, 0) + copies
    true_positives = sum(min(count, named.get(name, 0)) for name, count in expected_multiset.items())
    n_expected, n_actual = sum(expected_multiset.values()), len(calls)
    if not constrained or (n_expected == 0 and n_actual == 0):
        precision = recall = f1 = 1.0
    else:
        precision = true_positives / n_actual if n_actual else 0.0
        recall = true_positives / n_expected if n_expected else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    first_pair: list[int | None] = [None] * len(expected_calls)
    for slot, pair in zip(slots, pairing, strict=True):
        if pair is not None and first_pair[slot.expected] is None:
            first_pair[slot.expected] = pair
    return _CallEval(
        failures=failures,
        pairing=tuple(first_pair),
        missing=missing,
        precision=precision,
        recall=recall,
        f1=f1,
        argument_accuracy=(checked - failing) / checked if checked else 1.0,
        argument_checks=checked,
        constrained=constrained,
    )


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
        why = f"; judge: {_clip(verdict.rationale, 300)}" if verdict.rationale else ""
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
                    f"final answer: {label} failed; answer: {_clip(answer, 160)!r}",
                    expected=expected,
                    actual=_clip(answer),
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
                    actual=_clip(answer),
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
            "provider_error", f"the provider failed: {_clip(record.error)}", actual=_clip(record.error)
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
                f"{_calls_text(len(calls))} made; the case allows at most {case.max_tool_calls}",
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
    automatic = _automatic_failures(suite, calls)
    automatic_hard = any(f.reason in HARD_REASONS for f in automatic)
    over_budget = len(calls) > case.max_tool_calls
    best: tuple[int | None, _CallEval, float] | None = None
    for alternative, expectation in _candidates(case):
        call_eval = _evaluate_calls(suite, expectation, calls, verdicts)
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

    failures = automatic + chosen.failures + budget_failures + common.failures
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


def _breaks_hard_condition(evaluation: _CallEval) -> bool:
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
