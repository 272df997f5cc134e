"""How a ``run`` ends: the results it ran, made what the verdict reads (not verified when an agent
program showed its model definitions its code does not hold; the base side recorded; every secret
masked), concluded once (``gate.verdict.conclusion.conclude``), then the search for verified fixes
(``--suggest-fixes``, which the verdict never reads), the outputs written and the summary printed.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from gate.commands.plans import Outcome, RunPlan
from gate.commands.run_prepare import Prepared
from gate.commands.run_sides import StopOnSignal, provider_factory
from gate.errors import EXIT_INCOMPLETE
from gate.files.outputs import OutputPlan, OutputsNotWritten, OutputTarget, write_outputs
from gate.fixes.verification import parse_budget
from gate.reports.console import closing_lines
from gate.results.fixes import FixSearch
from gate.results.outcomes import RunResults
from gate.results_json.codec import gc_paused, to_json
from gate.run.base_side import record
from gate.run.fix_search import FixOptions, search_fixes
from gate.run.program_tools import not_shown_reason
from gate.util.redact import Redactor
from gate.verdict.conclusion import Conclusion, conclude

# What the results of a base side that never ran (the head side was stopped) say.
BASE_NOT_RUN = RunResults(
    suites=(), started_at="", finished_at="", complete=False, incomplete_reason="not run"
)


def concluded(
    plan: RunPlan,
    prepared: Prepared,
    ran: tuple[RunResults, RunResults | None],
    signals: StopOnSignal,
    base_output: OutputTarget | None,
) -> Conclusion:
    """The run's conclusion, drawn once from what it ran (the head's results and the base side's),
    then with what the search for verified fixes found (``--suggest-fixes``), secrets masked."""
    results, base_results = ran
    results = _shown_to_the_model(prepared, results, base_results)
    results, baseline = _with_baseline(prepared, results, base_results, base_output)
    with gc_paused():
        conclusion = conclude(results, baseline, prepared.policy)
    if plan.suggest_fixes and not signals.received:
        conclusion = _with_fixes(plan, prepared, conclusion, signals)
    return conclusion


def report(
    plan: RunPlan,
    prepared: Prepared,
    conclusion: Conclusion,
    outputs: OutputPlan,
) -> Outcome:
    """Write the outputs (the verified edits' patch too) and print the summary; the outcome's exit code
    is the verdict's, 3 when the run did not complete, or the outputs' own when they were not written."""
    not_written: OutputsNotWritten | None = None
    try:
        write_outputs(
            conclusion,
            json_path=outputs.json,
            junit_path=outputs.junit,
            markdown_path=outputs.markdown,
            html_path=outputs.html,
            patch_path=outputs.fix_patch,
        )
    except OutputsNotWritten as exc:
        not_written = exc
    _print_summary(conclusion, prepared, plan.report_paths)
    if not_written is not None:
        print(f"tool-eval-gate run: {not_written}", file=sys.stderr)
        return Outcome(not_written.exit_code, conclusion, trust=prepared.trust)
    if not conclusion.results.complete:
        return Outcome(EXIT_INCOMPLETE, conclusion, trust=prepared.trust)
    return Outcome(conclusion.verdict.exit_code, conclusion, trust=prepared.trust)


def _shown_to_the_model(
    prepared: Prepared, results: RunResults, base_results: RunResults | None
) -> RunResults:
    """``results``, not verified (``unverified``: exit 3, never a pass) when an agent program showed its
    model tool definitions its code does not hold, or the same definition on both sides of a change to
    the code's (``gate.run.program_tools.unshown``): the verdict would be about a text the change does
    not ship."""
    if not any(s.agent.program is not None for s in prepared.suites):
        return results
    side = prepared.base_side
    why = not_shown_reason(
        results,
        prepared.suites,
        Path(prepared.options.root or "."),
        base_results,
        side.suites if side is not None else (),
        Path(side.directory.name) if side is not None else None,
    )
    if not why:
        return results
    joined = f"{results.unverified}; {why}" if results.unverified else why
    return dataclasses.replace(results, unverified=joined)


def _with_baseline(
    prepared: Prepared,
    results: RunResults,
    base_results: RunResults | None,
    base_output: OutputTarget | None,
) -> tuple[RunResults, RunResults | None]:
    """The head's results and the baseline to compare with, both with every secret masked (model
    output, tool arguments and provider errors can echo a key); --baseline-json written."""
    baseline = prepared.baseline
    if prepared.base_side is not None:
        base_results = base_results or BASE_NOT_RUN
        results, baseline = record(prepared.base_side, results, base_results), base_results
        prepared.base_side.directory.cleanup()
    redactor = Redactor.from_env(os.environ)
    results = redactor.redact_results(results)
    if prepared.base_side is not None and baseline is not None:
        baseline = redactor.redact_results(baseline)
        if base_output is not None:
            base_output.write(to_json(baseline))
        results = dataclasses.replace(results, base=baseline)  # the results file keeps its base side
    return results, baseline


def _with_fixes(
    plan: RunPlan, prepared: Prepared, conclusion: Conclusion, signals: StopOnSignal
) -> Conclusion:
    """The conclusion with what the search for verified fixes found (gate.run.fix_search) in its
    results, every secret masked; its verdict stays as it was drawn."""
    if not conclusion.verdict.verified:  # DESIGN section 11: never on a run that is not verified
        fixes = FixSearch(skipped="the run is not verified: a replay could not answer every request")
        return dataclasses.replace(conclusion, results=dataclasses.replace(conclusion.results, fixes=fixes))
    fix = FixOptions(
        model=plan.fix_model,
        candidates=plan.fix_candidates,
        budget=parse_budget(plan.fix_budget) if plan.fix_budget else None,
        budget_text=plan.fix_budget or "",
        quiet=plan.quiet,
    )
    root = Path(prepared.options.root or ".")
    providers = provider_factory(plan.timeout)
    try:
        found = signals.run(
            lambda: search_fixes(
                fix, conclusion, prepared.suites, prepared.options, providers, root, os.environ
            )
        )
    except Exception as exc:  # noqa: BLE001 - a fault of the search never loses the run's outputs
        print(
            f"tool-eval-gate run: the search for fixes failed: {type(exc).__name__}: {exc}", file=sys.stderr
        )
        found = FixSearch(skipped=f"the search failed ({type(exc).__name__}: {exc})")
    results = Redactor.from_env(os.environ).redact_results(
        dataclasses.replace(conclusion.results, fixes=found)
    )
    return dataclasses.replace(conclusion, results=results)


def _print_summary(conclusion: Conclusion, prepared: Prepared, report_paths: Sequence[str]) -> None:
    cache = prepared.cache
    cache_lines = []
    if cache is not None and prepared.base_side is None:  # with a base side, the requests line says it
        cache_lines.append(f"cache ({cache.mode}): {cache.hits} hits, {cache.misses} misses")
    if cache is not None and cache.store_errors:
        cache_lines.append(
            f"cache: {len(cache.store_errors)} answer(s) could not be stored, e.g. {cache.store_errors[0]}"
        )
    text = "\n".join(closing_lines(conclusion, report_paths, cache_lines))
    print(Redactor.from_env(os.environ).redact(text))
    sys.stdout.flush()
