"""Builders for synthetic ``RunResults`` (the evaluator's output), for report and gate tests.

Every builder has defaults for everything, so a test names only what it is about::

    results = run(suite("weather", cases=[case("a"), case("b", status="failed",
                                                   failures=[failure("wrong_tool", tool="x")])]))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from gate.results.messages import AssistantMessage, Message, ToolCall, ToolResult, UserMessage, message_json
from gate.results.outcomes import (
    CaseResult,
    CheckScore,
    Failure,
    Metrics,
    RequestStats,
    RunResults,
    SourceRef,
    SuiteResult,
    ToolInfo,
    TrialResult,
)
from gate.results.run_record import RecordedCall, RunRecord, Usage
from gate.results.settings import RunSettings
from gate.scoring.suite_metrics import check_scores, suite_metrics


def call(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    turn: int = 1,
    result: Any = None,
    raw: str | None = None,
    error: str | None = None,
    mock: str = "matched",
    index: int = 0,
) -> RecordedCall:
    import json

    args = {} if arguments is None and error is None else arguments
    return RecordedCall(
        id=f"call_{index}",
        name=name,
        raw_arguments=raw if raw is not None else json.dumps(args, sort_keys=True),
        arguments=args,
        arguments_error=error,
        turn=turn,
        result=result,
        mock=mock,  # type: ignore[arg-type]
        is_error=False,
    )


def record(
    input: str = "question",
    calls: Sequence[RecordedCall] = (),
    output: str = "answer",
    *,
    error: str | None = None,
    latency_ms: float = 100.0,
    input_tokens: int = 50,
    output_tokens: int = 10,
    cost_usd: float | None = 0.0001,
) -> RunRecord:
    calls = tuple(RecordedCall(**{**c.__dict__, "id": f"call_{i}"}) for i, c in enumerate(calls))
    messages: list[Message] = [UserMessage(input)]
    if calls:
        messages.append(
            AssistantMessage("", tool_calls=tuple(ToolCall(c.id, c.name, c.raw_arguments) for c in calls))
        )
        for c in calls:
            messages.append(ToolResult(c.id, c.name, str(c.result)))
    if error is None:
        messages.append(AssistantMessage(output))
    return RunRecord(
        input=input,
        messages=tuple(messages),
        calls=calls,
        output=output if error is None else "",
        turns=2 if calls else 1,
        latency_ms=latency_ms,
        usage=Usage(input_tokens, output_tokens),
        cost_usd=cost_usd,
        error=error,
        stop_reason="provider_error" if error else "final_answer",
        model="test-model",
    )


def failure(reason: str, message: str = "", **kwargs: Any) -> Failure:
    return Failure(reason=reason, message=message or reason.replace("_", " "), **kwargs)  # type: ignore[arg-type]


def trial(
    status: str = "passed",
    *,
    index: int = 0,
    failures: Iterable[Failure] = (),
    rec: RunRecord | None = None,
    score: float | None = None,
    checks: Iterable[CheckScore] = (),
    metrics: Metrics | None = None,
) -> TrialResult:
    rec = rec if rec is not None else record(error="provider failed: 503" if status == "error" else None)
    metrics = metrics or Metrics(
        precision=1.0 if status == "passed" else 0.5,
        recall=1.0 if status == "passed" else 0.5,
        f1=1.0 if status == "passed" else 0.5,
        argument_accuracy=1.0 if status == "passed" else 0.5,
        latency_ms=rec.latency_ms,
        input_tokens=rec.usage.input_tokens,
        output_tokens=rec.usage.output_tokens,
        cost_usd=rec.cost_usd or 0.0,
    )
    return TrialResult(
        index=index,
        status=status,  # type: ignore[arg-type]
        score=score if score is not None else (1.0 if status == "passed" else 0.0),
        failures=tuple(failures),
        checks=tuple(checks),
        metrics=metrics,
        record=rec,
    )


def case(
    case_id: str,
    status: str = "passed",
    *,
    suite: str = "suite",
    file: str = "evals/suite.yaml",
    line: int = 10,
    failures: Iterable[Failure] = (),
    trials: Sequence[TrialResult] | None = None,
    flaky: bool = False,
    rec: RunRecord | None = None,
    expected: dict[str, Any] | None = None,
    skip_reason: str | None = None,
    tags: Sequence[str] = (),
) -> CaseResult:
    if trials is None:
        trials = () if status == "skipped" else (trial(status, failures=failures, rec=rec),)
    counted = [t for t in trials]
    metrics = counted[0].metrics if counted else Metrics()
    return CaseResult(
        suite=suite,
        case_id=case_id,
        file=file,
        line=line,
        status=status,  # type: ignore[arg-type]
        score=sum(t.score for t in trials) / len(trials) if trials else 0.0,
        flaky=flaky,
        trials=tuple(trials),
        metrics=metrics,
        tags=tuple(tags),
        expected=expected if expected is not None else {},
        skip_reason=skip_reason if status != "skipped" or skip_reason else "skipped in the suite",
    )


def trials_case(case_id: str, outcomes: str, *, status: str | None = None, **kwargs: Any) -> CaseResult:
    """A case with one trial per letter of ``outcomes`` (p = passed, f = failed, e = error).
    Its status defaults to "passed" when every trial passed, else "failed"; flaky when mixed."""
    kinds = {"p": "passed", "f": "failed", "e": "error"}
    ts = [
        trial(
            kinds[o], index=i, failures=[failure("value_error", tool="t", argument="a")] if o == "f" else ()
        )
        for i, o in enumerate(outcomes)
    ]
    if status is None:
        status = "passed" if set(outcomes) == {"p"} else "failed"
    flaky = len(set(outcomes) - {"e"}) > 1
    return case(case_id, status, trials=ts, flaky=kwargs.pop("flaky", flaky), **kwargs)


def tool(
    name: str,
    description: str = "",
    *,
    file: str = "tools/tools.json",
    line: int = 1,
    description_line: int | None = None,
    parameter_lines: dict[str, int] | None = None,
    parameters: dict[str, Any] | None = None,
) -> ToolInfo:
    return ToolInfo(
        name=name,
        description=description or f"The {name} tool.",
        file=file,
        line=line,
        description_line=description_line if description_line is not None else line + 1,
        parameter_lines=dict(parameter_lines or {}),
        parameters=parameters,
    )


def suite(
    name: str = "suite",
    cases: Sequence[CaseResult] = (),
    *,
    path: str | None = None,
    threshold: float = 0.9,
    tools: Sequence[ToolInfo] = (),
    prompt: SourceRef | None = None,
    provider: str = "openai",
    model: str = "gpt-4o-mini",
    requests: RequestStats | None = None,
) -> SuiteResult:
    path = path or f"evals/{name}.yaml"
    fixed = tuple(CaseResult(**{**c.__dict__, "suite": name, "file": path}) for c in cases)
    return SuiteResult(
        name=name,
        path=path,
        threshold=threshold,
        cases=fixed,
        tools=tuple(tools),
        prompt=prompt,
        provider=provider,
        model=model,
        requests=requests or RequestStats(),
    )


def run(
    *suites: SuiteResult,
    complete: bool = True,
    incomplete_reason: str = "",
    unverified: str = "",
    shard: str = "",
    settings: dict[str, Any] | None = None,
) -> RunResults:
    return RunResults(
        suites=tuple(suites),
        started_at="2026-01-02T03:04:05Z",
        finished_at="2026-01-02T03:05:06Z",
        complete=complete,
        incomplete_reason=incomplete_reason,
        unverified=unverified,
        shard=shard,
        settings=RunSettings.from_dict(settings or {}),
    )


def simple(
    passed: int = 0,
    failed: int = 0,
    errors: int = 0,
    skipped: int = 0,
    *,
    name: str = "suite",
    threshold: float = 0.9,
) -> SuiteResult:
    """A suite with the given numbers of passed, failed, error and skipped cases."""
    cases: list[CaseResult] = []
    line = 10
    for status, count in (("passed", passed), ("failed", failed), ("error", errors), ("skipped", skipped)):
        for i in range(count):
            fails = [failure("missing_call", tool="t")] if status == "failed" else []
            cases.append(case(f"{status}-{i}", status, failures=fails, line=line))
            line += 5
    return suite(name, cases, threshold=threshold)


def _without_null_state(data: dict[str, Any]) -> dict[str, Any]:
    """Stateless mocks store no ``state`` (records and calls of stateful ones do)."""
    if data.get("state") is None:
        data.pop("state", None)
    return data


def _plain_record(rec: RunRecord) -> dict[str, Any]:
    data = _without_null_state(asdict(rec))
    data["messages"] = [message_json(m) for m in rec.messages]  # the messages' JSON form
    if not rec.log:  # only an agent program's records store its log
        data.pop("log")
    data["calls"] = [_without_null_state(asdict(c)) for c in rec.calls]
    if not rec.offered:  # only an agent program's records store the tools its requests offered
        data.pop("offered")
    return data


def plain_results(results: RunResults) -> dict[str, Any]:
    """``results`` as ``dataclasses.asdict`` builds them, less the fields the file leaves out when unset
    (``state`` of stateless records and calls, ``offered`` of the model agent's records, ``log`` of
    records without one, ``non_gating`` of gating cases, ``planned_trials`` of cases that ran every
    trial, ``parameters`` of tools whose schema was not recorded, ``unverified`` of a verified run),
    with the messages in their JSON form (``message_json``), each case's
    ``failures`` (why it did not pass) in place of the reducer's ``reason`` they include, and the
    settings in their file form, the base side and the search for fixes only when there is one, and the
    metrics derived from
    the cases (each suite's ``metrics``, each case's ``check_scores``): the reference
    ``gate.results_json.codec.to_json`` is held to."""
    data = asdict(results)
    if not results.unverified:
        data.pop("unverified")
    data["settings"] = results.settings.to_dict()  # the keys the file always had (RunSettings.to_dict)
    data.pop("base")
    if results.base is not None:  # a --baseline auto run's base side: a results document of its own
        data["base"] = plain_results(results.base)
    if results.fixes is None:  # only a run --suggest-fixes stores what its search found
        data.pop("fixes")
    for s_i, s in enumerate(results.suites):
        if s.requests == RequestStats():  # only suites that sent a request store the field
            data["suites"][s_i].pop("requests")
        for tool_i, tool in enumerate(s.tools):
            if tool.parameters is None:
                data["suites"][s_i]["tools"][tool_i].pop("parameters")
        data["suites"][s_i]["metrics"] = asdict(suite_metrics(s.cases))  # derived, written for readers
        for c_i, c in enumerate(s.cases):
            data["suites"][s_i]["cases"][c_i]["check_scores"] = check_scores(c.trials)
            if c.non_gating is None:  # only non-gating cases store the field
                data["suites"][s_i]["cases"][c_i].pop("non_gating")
            data["suites"][s_i]["cases"][c_i].pop("reason")
            reasons = c.failures if c.status in ("failed", "error") else ()
            data["suites"][s_i]["cases"][c_i]["failures"] = [asdict(f) for f in reasons]
            if not c.curtailed:  # only curtailed cases store what they planned
                data["suites"][s_i]["cases"][c_i].pop("planned_trials")
            for t_i, t in enumerate(c.trials):
                data["suites"][s_i]["cases"][c_i]["trials"][t_i]["record"] = _plain_record(t.record)
    return data
