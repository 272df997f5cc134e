"""Scoring, analysis and every report for many case results, in one process (``bench/run.py`` runs it
as a child and measures its peak RSS with ``os.wait4``).

    python bench/score_bench.py --cases 10000 --out DIR

Synthetic run records (no model) for generated suites, with a realistic mix of outcomes: correct
calls, wrong argument values, hallucinated tools, missing calls and provider errors. Timed: scoring
every trial (``gate.scoring.trial.score_trial``), reducing trials to case results
(``gate.scoring.reducers.case_result``), and the conclusion (``gate.verdict.conclusion.conclude``, which
runs the analysis) written by ``gate.files.outputs.write_outputs`` to JSON, JUnit XML and Markdown.
Building the inputs is timed separately and not counted. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

from workload import MOCK_RESULT, Workload, write_suites  # noqa: E402


def record_for(n: int, suite_model: str):
    from gate.results.messages import AssistantMessage, ToolCall, ToolResult, UserMessage
    from gate.results.run_record import RecordedCall, RunRecord, Usage

    user = f"Please look up case {n}."
    name, arguments, output, error = "lookup", {"key": f"k{n}"}, "The value is 42.", None
    if n % 10 == 3:
        arguments = {"key": "k0"}  # wrong value
    elif n % 17 == 5:
        name = "lookup_value"  # hallucinated tool
    elif n % 29 == 7:
        name = ""  # no call at all
        output = "I do not know."
    elif n % 97 == 11:
        error = "rate limited (429) after 6 attempts"
    calls = ()
    if name and error is None:
        raw = json.dumps(arguments)
        calls = (RecordedCall(f"call_{n}", name, raw, arguments, None, 1, MOCK_RESULT, "fallback"),)
    messages: list = [UserMessage(user)]
    if calls:
        messages += [
            AssistantMessage("", (ToolCall(calls[0].id, name, calls[0].raw_arguments),)),
            ToolResult(calls[0].id, name, json.dumps(MOCK_RESULT)),
        ]
    if error is None:
        messages.append(AssistantMessage(output))
    return RunRecord(
        input=user,
        messages=tuple(messages),
        calls=calls,
        output=output if error is None else "",
        turns=2 if calls else 1,
        latency_ms=600.0 + n % 50,
        usage=Usage(120, 30),
        cost_usd=0.0001,
        error=error,
        stop_reason="provider_error" if error else "final_answer",
        model=suite_model,
    )


def suite_result(suite, cases):
    from gate.results.outcomes import SourceRef, SuiteResult, ToolInfo

    prompt = suite.agent.system_prompt
    return SuiteResult(
        name=suite.name,
        path=suite.path,
        threshold=suite.threshold,
        cases=tuple(cases),
        tools=tuple(
            ToolInfo(
                t.name,
                t.description,
                t.source.path,
                t.source.line,
                t.description_line,
                dict(t.parameter_lines),
            )
            for t in suite.agent.tools
        ),
        prompt=SourceRef(prompt.source.path, prompt.source.line) if prompt is not None else None,
        provider=suite.agent.provider,
        model=suite.agent.model,
    )


def load_workload(out: Path, cases: int, suites: int):
    """The generated suites (``cases`` cases in ``suites`` suites), loaded."""
    from gate.files.suite_loader import load_suites

    workload = Workload(suites, cases // suites, 1)
    write_suites(out / "suites", workload)
    loaded = load_suites([out / "suites"], root=out)
    if loaded.problems:
        raise SystemExit("\n".join(p.render() for p in loaded.problems))
    return loaded.suites


def records(suites, record_of=None):
    """(suite, case, record) for every case: ``record_of(n, model)`` (default ``record_for``) of the
    case's number."""
    record_of = record_of or record_for
    return [(s, c, record_of(int(c.id[1:]), s.agent.model)) for s in suites for c in s.cases]


def score_all(suites, inputs):
    """The run's results: every (suite, case, record) of ``inputs`` scored and reduced."""
    from gate.results.outcomes import RunResults
    from gate.scoring.reducers import case_result
    from gate.scoring.trial import score_trial

    by_suite: dict[str, list] = {}
    for suite, case, record in inputs:
        trial = score_trial(suite, case, record, 0, {})
        by_suite.setdefault(suite.name, []).append(case_result(suite, case, (trial,)))
    return RunResults(
        suites=tuple(suite_result(s, by_suite[s.name]) for s in suites),
        started_at="2025-01-01T00:00:00Z",
        finished_at="2025-01-01T00:10:00Z",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--suites", type=int, default=20)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    out = Path(args.out)
    started = time.perf_counter()

    from gate.files.outputs import write_outputs
    from gate.verdict.conclusion import conclude
    from gate.verdict.policy import GatePolicy

    suites = load_workload(out, args.cases, args.suites)
    inputs = records(suites)
    setup = time.perf_counter() - started

    started = time.perf_counter()
    results = score_all(suites, inputs)
    scored = time.perf_counter() - started

    started = time.perf_counter()
    conclusion = conclude(results, None, GatePolicy())
    write_outputs(
        conclusion,
        json_path=out / "results.json",
        junit_path=out / "junit.xml",
        markdown_path=out / "report.md",
    )
    verdict = conclusion.verdict
    written = time.perf_counter() - started

    statuses: dict[str, int] = {}
    for suite in results.suites:
        for case in suite.cases:
            statuses[case.status] = statuses.get(case.status, 0) + 1
    sizes = {name: (out / name).stat().st_size for name in ("results.json", "junit.xml", "report.md")}
    print(
        json.dumps(
            {
                "cases": sum(statuses.values()),
                "statuses": statuses,
                "passed": bool(getattr(verdict, "passed", False)),
                "setup_seconds": setup,
                "score_seconds": scored,
                "outputs_seconds": written,
                "total_seconds": scored + written,
                "output_bytes": sizes,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
