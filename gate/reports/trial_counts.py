"""How a case's trials read in every report: "3/5 trials passed", and for a case that curtailed trials
stopped early, how many of its planned trials ran ("0/1 trials passed, 1 of 5 run")."""

from __future__ import annotations

from gate.results.outcomes import CaseResult
from gate.util.wording import plural


def _passed(case: CaseResult) -> int:
    return sum(1 for t in case.trials if t.status == "passed")


def passed_of_run(case: CaseResult) -> str:
    """``3/5`` (passed of the trials that ran), ``0/1 of 5`` when curtailed."""
    planned = f" of {case.planned_trials}" if case.curtailed else ""
    return f"{_passed(case)}/{len(case.trials)}{planned}"


def trials_text(case: CaseResult) -> str:
    """``3/5 trials passed``; ``0/1 trials passed, 1 of 5 run`` when curtailed; "" for one trial."""
    if len(case.trials) < 2 and not case.curtailed:
        return ""
    text = f"{_passed(case)}/{len(case.trials)} trials passed"
    if case.curtailed:
        text += f", {len(case.trials)} of {case.planned_trials} run"
    return text


def curtailed_line(cases: list[CaseResult]) -> str:
    """What curtailing saved in a run, "" when nothing was curtailed."""
    stopped = [c for c in cases if c.curtailed]
    if not stopped:
        return ""
    saved = sum(c.planned_trials - len(c.trials) for c in stopped)
    planned = sum(max(c.planned_trials, len(c.trials)) for c in cases)
    return (
        f"curtailed trials: {saved} of {planned} planned trials not run ({plural(len(stopped), 'case')} "
        "decided early, each exactly as the full run would decide it; flakiness is as observed)"
    )
