"""Which suites and cases a ``run`` evaluates: the suites loaded (every problem printed: exit 2), with
the models of ``--model`` / ``--judge-model``, those the changes since ``--changed-since`` affect, the
cases ``--case`` / ``--tag`` / ``--rerun-failed`` select, this ``--shard``'s share; and, for
``--baseline auto``, the same choice at the merge base. Refusals before any request: ``InputError``.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.commands.plans import Outcome, RunPlan
from gate.errors import EXIT_INVALID_INPUT, EXIT_PASSED, InputError, Problem
from gate.files.results_file import load_results
from gate.files.suite_loader import default_root, load_suites
from gate.git.detection import affected_since
from gate.providers import missing_sdks
from gate.run.base_side import BaseSide, load_base_side
from gate.selection.filters import Selection, base_cases, failed_cases, select
from gate.selection.sharding import parse_shard, shard_suites
from gate.suite.model import Suite
from gate.suite.model_choice import ModelChoice, ModelChoiceError, with_models
from gate.suite.pricing import suite_models


@dataclass(frozen=True)
class Chosen:
    """The cases this run evaluates (``suites``: selected, and this shard's), the suites the change
    affects with all their cases (``affected``), what triggered each under --changed-since, and the
    selection and shard that made the choice (the base side of --baseline auto makes the same one)."""

    suites: list[Suite]
    affected: list[Suite]
    triggered: dict[str, dict[str, str]]
    selection: Selection
    shard: tuple[int, int] | None


def run_root(plan: RunPlan) -> Path:
    """The repository root: ``--root``, else the nearest directory of the paths with ``.git``."""
    if not plan.root:
        return default_root(list(plan.paths))
    root = Path(plan.root)
    if not root.is_dir():
        raise InputError(f"--root {plan.root}: not a directory")
    return root


def suites_to_run(plan: RunPlan, root: Path) -> Chosen | Outcome:
    """The suites (with only the selected cases) this run evaluates, and what triggered each under
    --changed-since; or the outcome when the suites do not load or nothing is left to run."""
    shard = parse_shard(plan.shard) if plan.shard else None
    loaded = load_suites(list(plan.paths) or [root], root=root, skip_unreferenced=plan.skip_unreferenced)
    if loaded.problems:
        problems = sorted(loaded.problems, key=lambda p: (p.path, p.line, p.column, p.message))
        for problem in problems:
            print(problem.render(), file=sys.stderr)
        print(
            f"tool-eval-gate run: {len(problems)} problem(s) in the suites; nothing was run", file=sys.stderr
        )
        return Outcome(EXIT_INVALID_INPUT, problems=tuple(problems))
    suites = chosen_models(plan, loaded.suites)
    if not suites and plan.skip_unreferenced:
        print("tool-eval-gate run: no suite uses these files; nothing to run")
        return Outcome(EXIT_PASSED)
    if not suites:
        where = ", ".join(plan.paths) if plan.paths else str(root)
        raise InputError(f"no suite files (*.suite.yaml) found in {where}; nothing to run")
    _require_sdks(suites)
    triggered: dict[str, dict[str, str]] = {}
    if plan.changed_since:
        triggered = affected_since(plan.changed_since, root, suites)
        suites = [s for s in suites if s.path in triggered]
    selection = _selection(plan)
    if selection is None:
        print(f"tool-eval-gate run: no case failed in {plan.rerun_failed}; nothing to rerun")
        return Outcome(EXIT_PASSED)
    selected = _select_cases(plan, suites, selection)
    if shard is not None:
        selected = list(shard_suites(selected, shard[0], shard[1]))
    _check_trials(plan.trials, selected)
    return Chosen(selected, suites, triggered, selection, shard)


def base_side_of(plan: RunPlan, root: Path, chosen: Chosen) -> BaseSide:
    """The base side: the affected suites as they are at the merge base, with the cases that go with
    the head cases this run evaluates (the same selection; with --shard, this shard's)."""
    if not plan.changed_since:
        raise InputError(
            "--baseline auto compares with the merge base of --changed-since REF: add --changed-since "
            "(e.g. --changed-since origin/main)"
        )
    side = load_base_side(plan.changed_since, root, chosen.affected, chosen.triggered)
    for problem in side.problems:
        print(f"warning: {problem} (this suite has no base side)", file=sys.stderr)
    suites = base_cases(side.suites, chosen.affected, chosen.suites, chosen.selection, chosen.shard)
    return dataclasses.replace(side, suites=tuple(chosen_models(plan, suites)))


def chosen_models(plan: RunPlan, suites: Sequence[Suite]) -> list[Suite]:
    """The suites with the models of ``--model`` / ``--judge-model`` (as loaded without them); the
    parameters a new provider has no place for are refused (exit 2) before any request."""
    if plan.model is None and plan.judge_model is None:
        return list(suites)
    try:  # the command line's are checked as options; the action's inputs come here as they are
        model = ModelChoice.parse(plan.model) if plan.model is not None else None
    except ModelChoiceError as exc:
        raise InputError([Problem("--model", 0, 0, str(exc))]) from None
    try:
        judge = ModelChoice.parse(plan.judge_model) if plan.judge_model is not None else None
    except ModelChoiceError as exc:
        raise InputError([Problem("--judge-model", 0, 0, str(exc))]) from None
    chosen, problems = with_models(suites, model, judge)
    if problems:
        raise InputError("\n".join(problems))
    return chosen


def _selection(plan: RunPlan) -> Selection | None:
    """What --case, --tag and --rerun-failed select (see gate.selection.filters); None when the
    --rerun-failed results hold no failed case (nothing to do is a pass)."""
    rerun = None
    if plan.rerun_failed:
        rerun = failed_cases(load_results(plan.rerun_failed))
        if not rerun:
            return None
    return Selection(plan.cases, plan.tags, rerun)


def _select_cases(plan: RunPlan, suites: list[Suite], selection: Selection) -> list[Suite]:
    """The selected cases of ``suites``; selecting nothing from suites that exist is an input error."""
    chosen = select(suites, selection)
    if not chosen and suites:
        asked = " ".join([*(f"--case {c}" for c in plan.cases), *(f"--tag {t}" for t in plan.tags)])
        if selection.rerun is not None:
            asked += f" --rerun-failed {plan.rerun_failed}"
        raise InputError(f"{asked.strip()}: selects no case of the suites to run")
    return chosen


def _require_sdks(suites: Sequence[Suite]) -> None:
    """Refuse before any request when a suite's provider SDK is not installed (the base package is
    light so that the pre-commit validate hook stays small; the SDKs come with extras)."""
    missing = missing_sdks({provider for suite in suites for _, provider, _ in suite_models(suite)})
    if missing:
        extras = ",".join(missing)
        raise InputError(
            f"the suites need the {' and '.join(missing)} package(s), which are not installed "
            f"(fix: pip install 'tool-eval-gate[{extras}]', or 'tool-eval-gate[all]' for every provider)"
        )


def _check_trials(trials: int | None, suites: Sequence[Suite]) -> None:
    """``--trials N`` below a case's ``at_least`` would fail the case whatever the agent does (validate
    refuses the same written in a file): refused before any request, at each such case."""
    short = [
        Problem(
            case.source.path or suite.path,
            case.source.line,
            case.source.column,
            f"--trials {trials}: case {case.id} needs at_least {case.at_least} passing trials "
            f"(reducer at_least); raise --trials to {case.at_least} or lower at_least",
        )
        for suite in suites
        for case in suite.cases
        if trials is not None and not case.skip and case.reducer == "at_least" and case.at_least > trials
    ]
    if short:
        raise InputError(short)
