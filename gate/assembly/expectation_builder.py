"""The builder's expectations part: a case's ``expect`` -> :class:`Expectation`, with its semantic
checks (unknown tools, parameters the tool does not have, literals contradicting the tool's schema,
template placeholders, matchers, judged checks without a judge, regexes, choice answers, path
syntax, final-state paths). Items a schema error damaged (None in the pruned document) are skipped.
Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gate.assembly.checks import cannot_work, matcher_specs
from gate.assembly.checks import state as state_checks
from gate.assembly.context import BuildContext
from gate.suite.matcher_tree import Absent, Matcher
from gate.suite.model import (
    JUDGED_OUTPUT_KEYS,
    PATH_CHECKS,
    CallExpectation,
    Choice,
    Expectation,
    ExpectedCall,
    OutputChecks,
    PathAssertion,
    Ranking,
    Times,
)
from gate.util.json_types import JsonObject, PathKey
from gate.util.wording import did_you_mean


class ExpectationReader:
    """Builds the expectations of the cases of one suite."""

    def __init__(self, context: BuildContext):
        self.context = context

    def expectation(self, raw: JsonObject, at: PathKey, latency_ms: int | None) -> Expectation:
        context = self.context
        alternatives = [
            (i, alt) for i, alt in enumerate(raw.get("alternatives", ())) if isinstance(alt, dict)
        ]
        asserts = [(i, a) for i, a in enumerate(raw.get("assert", ())) if isinstance(a, dict)]
        trajectory = raw["trajectory"]["criteria"] if "trajectory" in raw else None
        if trajectory is not None and not context.has_judge:
            context.need_judge((*at, "trajectory"), "a trajectory judgement")
        final_state = None
        if raw.get("final_state") is not None:
            where = (*at, "final_state")
            final_state = context.read_matchers(
                raw["final_state"], where, context.has_judge, never_judged="the final state"
            )
            if context.state_known:
                context.report(state_checks.final_state_findings(final_state, where, context.state_keys))
        return Expectation(
            calls=self.call_expectation(raw, at),
            alternatives=tuple(
                self.call_expectation(alt, (*at, "alternatives", i)) for i, alt in alternatives
            ),
            output=self.output(raw.get("output", {}), (*at, "output")),
            latency_ms=raw.get("latency_ms", latency_ms),
            asserts=tuple(self.path_assertion(a, (*at, "assert", i)) for i, a in asserts),
            final_state=final_state,
            trajectory=trajectory,
        )

    def call_expectation(self, raw: JsonObject, at: PathKey) -> CallExpectation:
        context = self.context
        calls = [
            self.call(call, (*at, "calls", i))
            for i, call in enumerate(raw.get("calls", ()))
            if isinstance(call, dict)
        ]
        for i, name in enumerate(raw.get("forbidden_tools", ())):
            context.check_tool(name, (*at, "forbidden_tools", i))
        if raw.get("no_calls") and raw.get("calls"):
            context.err(
                (*at, "no_calls"),
                "no_calls: true contradicts the expected calls",
                "remove no_calls or the calls",
            )
        context.report(cannot_work.whole_number_problems(raw, ("max_calls",), at))
        self.check_contradictions(raw, calls, at)
        return CallExpectation(
            calls=tuple(calls),
            order=raw.get("order", CallExpectation.order),
            extra_calls=raw.get("extra_calls", CallExpectation.extra_calls),
            forbidden_tools=tuple(raw.get("forbidden_tools", ())),
            # `calls: []` written out means "expected none" (DESIGN.md section 3), as no_calls does.
            no_calls=bool(raw.get("no_calls", False)) or raw.get("calls", None) == [],
            max_calls=raw.get("max_calls"),
        )

    def check_contradictions(self, raw: JsonObject, calls: list[ExpectedCall], at: PathKey) -> None:
        """A tool both expected and forbidden; ``max_calls`` below the calls expected at least."""
        expected = {c.tool: i for i, c in reversed(list(enumerate(calls))) if c.times.min > 0}
        for i, name in enumerate(raw.get("forbidden_tools", ())):
            if name in expected:
                self.context.err(
                    (*at, "forbidden_tools", i),
                    f"tool {name!r} is both expected (calls[{expected[name]}]) and forbidden",
                    "remove it from forbidden_tools or from the expected calls",
                )
        least = least_calls(calls)
        max_calls = raw.get("max_calls")
        if isinstance(max_calls, int) and least > max_calls:
            self.context.err(
                (*at, "max_calls"),
                f"max_calls is {max_calls}, but the expected calls need at least {least}",
                "raise max_calls or expect fewer calls",
            )

    def call(self, call: JsonObject, at: PathKey) -> ExpectedCall:
        """One expected call (its ``tool`` may be missing when a schema error damaged it)."""
        context = self.context
        name = call.get("tool")
        tool = context.tools.get(name) if isinstance(name, str) else None
        parameters = tool.parameters if tool is not None else None
        args = context.read_matchers(
            call.get("args", {}),
            (*at, "args"),
            context.has_judge,
            parameters=parameters,
            tool=tool.name if tool else "",
        )
        context.report(cannot_work.whole_number_problems(call, ("times",), at))
        context.report(cannot_work.placeholder_problems(args))
        if name is not None:
            context.check_tool(name, (*at, "tool"))
            self.check_arg_names(name, args, (*at, "args"))
        return ExpectedCall(
            tool=name or "",
            args=args,
            times=self.times(call.get("times", ExpectedCall.times.min), (*at, "times")),
            # `args` left out means any arguments; `args: {}` means none (DESIGN.md section 2).
            allow_extra_args=call.get(
                "allow_extra_args", "args" not in call or ExpectedCall.allow_extra_args
            ),
            source=context.source(at),
        )

    def times(self, times: int | dict[str, int], at: PathKey) -> Times:
        if isinstance(times, int):
            return Times(times, times)
        parsed = Times(times.get("min", Times.min), times.get("max"))
        if parsed.max is not None and parsed.min > parsed.max:
            self.context.err(at, f"times.min ({parsed.min}) is greater than times.max ({parsed.max})")
        return parsed

    def check_arg_names(self, tool_name: str, args: dict[str, Matcher], at: PathKey) -> None:
        tool = self.context.tools.get(tool_name)
        properties = tool.parameters.get("properties") if tool else None
        if not isinstance(properties, dict):
            return
        for name, matcher in args.items():
            if name in properties or isinstance(matcher, Absent):
                continue
            self.context.err(
                (*at, name),
                f"tool {tool_name!r} has no parameter {name!r}",
                did_you_mean(name, list(properties)) or "the tool declares no parameters",
                at_key=True,
            )

    def output(self, raw: JsonObject, at: PathKey) -> OutputChecks:
        context = self.context
        if not context.has_judge:
            for key in JUDGED_OUTPUT_KEYS:
                if key in raw:
                    context.need_judge((*at, key), f"the judged check {key!r}")
        for i, pattern in enumerate(strings(raw.get("regex"))):
            context.check_regex(
                pattern, (*at, "regex") if isinstance(raw["regex"], str) else (*at, "regex", i)
            )
        return OutputChecks(
            contains=strings(raw.get("contains")),
            not_contains=strings(raw.get("not_contains")),
            regex=strings(raw.get("regex")),
            equals=raw.get("equals"),
            criteria=strings(raw.get("criteria")),
            semantic_contains=strings(raw.get("semantic_contains")),
            ranking=_ranking(raw["ranking"]) if "ranking" in raw else None,
            choice=self.choice(raw["choice"], (*at, "choice")) if "choice" in raw else None,
            asks_clarification=raw.get("asks_clarification"),
            ignore_case=raw.get("ignore_case", OutputChecks.ignore_case),
        )

    def choice(self, raw: JsonObject, at: PathKey) -> Choice:
        if raw["correct"] not in raw["options"]:
            self.context.err(
                (*at, "correct"),
                f"the correct answer {raw['correct']!r} is not among the options",
                did_you_mean(raw["correct"], raw["options"], "options"),
            )
        return Choice(options=tuple(raw["options"]), correct=raw["correct"])

    def path_assertion(self, raw: JsonObject, at: PathKey) -> PathAssertion:
        context = self.context
        check_key = next(k for k in PATH_CHECKS if k in raw)  # the schema holds exactly one
        operand = raw[check_key]
        from gate.suite.path_assertions import JUDGED_CHECKS, PathError, unreachable

        try:
            never = unreachable(raw["path"])
        except PathError as exc:
            context.err((*at, "path"), str(exc), "e.g. calls[0].name, calls[*].args.city, output")
        else:
            if never is not None:
                context.err((*at, "path"), never, "e.g. calls[0].name, calls[*].args.city, output")
        if check_key in JUDGED_CHECKS and not context.has_judge:
            context.need_judge((*at, check_key), f"the judged path check {check_key!r}")
        elif check_key == "matches":
            context.check_regex(operand, (*at, "matches"))
        elif check_key == "one_of":
            context.report(
                list(matcher_specs.one_of_problems(operand, (*at, "one_of"), "match: {any_of: [...]}"))
            )
        matcher = None
        if check_key == "match":
            matcher = context.read_matchers({"match": operand}, at, context.has_judge).get("match")
        return PathAssertion(
            path=raw["path"],
            check=check_key,
            operand=None if check_key == "match" else operand,
            matcher=matcher,
            aggregate=raw.get("aggregate", PathAssertion.aggregate),
            threshold=float(raw.get("threshold", PathAssertion.threshold)),
            source=context.source(at),
        )


def _ranking(raw: JsonObject) -> Ranking:
    return Ranking(
        reference=raw["reference"],
        wrong=raw["wrong"],
        irrelevant=raw["irrelevant"],
        threshold=float(raw.get("threshold", Ranking.threshold)),
    )


def strings(value: Any) -> tuple[str, ...]:
    """A string or a list of strings, as a tuple."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def least_calls(calls: Sequence[ExpectedCall]) -> int:
    """How many calls the expected calls need at the least (their ``times.min`` added up)."""
    return sum(c.times.min for c in calls)
