"""``tool-eval-gate report RESULTS.json ...``: re-render the reports from saved results.

Several results files are the shards of one run and are merged (``gate.results_json.shard_merge``: the
same verdict as the whole run, whatever their order; shards that disagree are an error naming both
files). The gate policy is the one recorded in the results (``settings``), with the command's flags
on top; the comparison is drawn again from the base side the results hold (``--baseline auto``), or
from ``--baseline FILE``. Prints the verdict line and returns the verdict's exit code (0 passed, 1
gate failed, 2 invalid input, 3 incomplete). Rendering the same results twice gives byte-identical
files.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gate.commands.arguments import Parser
from gate.commands.options import add_options
from gate.commands.plans import Outcome, ReportPlan
from gate.errors import InputError, Problem
from gate.files.discovery import default_root
from gate.files.outputs import OutputPlan, check_outputs, clear_outputs, write_outputs
from gate.files.results_file import load_results
from gate.git.tracked import is_tracked
from gate.reports.console import suite_lines, verdict_lines
from gate.results.outcomes import RunResults
from gate.results.settings import MadeFor
from gate.results_json.codec import gc_paused
from gate.results_json.shard_merge import merge
from gate.trust.facts import ci_variable
from gate.trust.made_for import refusal
from gate.util.escape import md_text
from gate.verdict.conclusion import conclude
from gate.verdict.policy import GatePolicy


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tool-eval-gate report",
        description="Re-render the reports from saved JSON results; several files are shards of one run "
        "and are merged.",
    )
    add_options(parser, ReportPlan)
    return parser


def main(argv: Sequence[str]) -> int:
    return execute(ReportPlan.from_args(build_parser().parse_args(list(argv)))).code


def execute(plan: ReportPlan) -> Outcome:
    """Re-render (and merge) as ``plan`` says: conclude once, write the outputs (and the verified
    edits the results carry as a patch), print the verdict. Raises ``InputError`` (and the other
    ``GateError``s) for the CLI to report."""
    # In CI no output is written through a symlink of the repository (a pull request can commit one).
    # First of all, a file the checkout brought to an output path (git tracks it) is removed.
    no_links_below = default_root() if ci_variable(os.environ) else None
    written = (plan.json, plan.junit, plan.markdown, plan.html, plan.fix_patch)
    clear_outputs(written, keep=(*plan.results, plan.baseline), brought=is_tracked)
    outputs = check_outputs(plan, no_links_below=no_links_below)
    try:
        return _render(plan, outputs)
    finally:
        outputs.close()


def _check_made_for(plan: ReportPlan, parts: Sequence[RunResults]) -> None:
    """With ``--made-for-commit`` / ``--made-for-run``: every results file was made for that commit in
    that run, else an input error naming each that was not (``gate.trust.made_for``)."""
    if plan.made_for_commit is None and plan.made_for_run is None:
        return
    wanted = MadeFor(plan.made_for_commit or "", plan.made_for_run or "")
    problems = [
        Problem(path, 0, 0, why, hint="render the results the gate wrote in this run for this commit")
        for path, part in zip(plan.results, parts, strict=True)
        if (why := refusal(part.settings.made_for, wanted))
    ]
    if problems:
        raise InputError(problems)


def _render(plan: ReportPlan, outputs: OutputPlan) -> Outcome:
    parts = [load_results(path) for path in plan.results]
    _check_made_for(plan, parts)
    results = parts[0] if len(parts) == 1 and not parts[0].shard else merge(parts, plan.results)
    # The base side a --baseline auto run recorded is compared with again, unless --baseline says.
    baseline = load_results(plan.baseline) if plan.baseline else results.base
    policy = GatePolicy.from_settings(
        results.settings,
        threshold=plan.threshold,
        errors_count=None if plan.errors is None else plan.errors == "count",
        fail_on=plan.fail_on,
        max_error_rate=plan.max_error_rate,
    )
    with gc_paused():
        conclusion = conclude(results, baseline, policy)
    write_outputs(
        conclusion,
        json_path=outputs.json,
        junit_path=outputs.junit,
        markdown_path=outputs.markdown,
        html_path=outputs.html,
        patch_path=outputs.fix_patch,
        marker=plan.marker,
        markdown_limit=plan.markdown_limit,
        full_report_hint=md_text(plan.full_report_hint),
    )
    for line in [*suite_lines(conclusion), *verdict_lines(conclusion)]:
        print(line)
    sys.stdout.flush()
    return Outcome(conclusion.verdict.exit_code, conclusion)
