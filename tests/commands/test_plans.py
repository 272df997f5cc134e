"""The plans of run and report: the command line a plan logs runs exactly that plan again."""

from __future__ import annotations

import json
from pathlib import Path

from gate.commands import report, run
from gate.commands.plans import ReportPlan, RunPlan
from gate.github.action_inputs import read_inputs
from gate.github.action_plan import report_plan, run_plan
from gate.github.action_settings import read_event


def test_the_command_line_of_a_run_plan_is_that_plan_again() -> None:
    plans = [
        RunPlan(),
        RunPlan(
            paths=("evals/a.suite.yaml", "evals/b b.suite.yaml"),
            root="/ws",
            changed_since="origin/main",
            cases=("a", "s/b"),
            tags=("x",),
            rerun_failed="old.json",
            threshold=0.123456789,
            trials=3,
            trials_policy="full",
            concurrency=2,
            timeout=12.5,
            junit="j.xml",
            json="r.json",
            markdown="r.md",
            baseline="auto",
            baseline_json="base.json",
            cache="c",
            replay=True,
            allow_commands=True,
            shard="2/3",
            max_requests=40,
            max_cost=1.5,
            prices="p.yaml",
            errors="ignore",
            fail_on="regression_or_threshold",
            quiet=True,
            skip_unreferenced=True,
        ),
        RunPlan(record=True, fail_on="any_failure", threshold=1.0),
    ]
    for plan in plans:
        assert RunPlan.from_args(run.build_parser().parse_args(list(plan.argv()))) == plan


def test_the_action_runs_what_its_logged_command_line_says(tmp_path: Path) -> None:
    inputs, problems = read_inputs(
        {
            "INPUT_SUITES": "evals/a.suite.yaml",
            "INPUT_THRESHOLD": "85",
            "INPUT_TRIALS": "3",
            "INPUT_FAIL_ON": "any-failure",
            "INPUT_CASES": "paris-now",
            "INPUT_CACHE": ".cache",
        }
    )
    assert problems == ()
    payload = {"pull_request": {"number": 1, "base": {"sha": "a" * 40}, "head": {"sha": "b" * 40}}}
    event = read_event("pull_request", payload)
    plan = run_plan(inputs, event, Path("/ws"), Path("/ws/out"))
    assert plan.threshold == 0.85 and plan.baseline == "auto" and plan.fail_on == "any_failure"
    # The trust decision's event: from the job's event file, not a flag.
    assert (plan.event.name, plan.event.head, plan.event.pull_request) == ("pull_request", "b" * 40, True)
    (tmp_path / "event.json").write_text(json.dumps(payload))
    job = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(tmp_path / "event.json")}
    assert run.plan_of(plan.argv(), job) == plan
    merged = report_plan(inputs, Path("/ws"), Path("/ws/out"), ("/ws/s1.json", "/ws/s2.json"))
    again = ReportPlan.from_args(report.build_parser().parse_args(list(merged.argv())))
    assert again == merged and merged.errors == "count" and merged.results == ("/ws/s1.json", "/ws/s2.json")
