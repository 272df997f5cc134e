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
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gate.commands.arguments import Parser, error_rate, fail_on, markdown_limit, nonempty, rate
from gate.commands.plans import Outcome, ReportPlan
from gate.util.escape import md_text
from gate.verdict.policy import GatePolicy

if TYPE_CHECKING:
    from gate.files.outputs import OutputPlan


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tool-eval-gate report",
        description="Re-render the reports from saved JSON results; several files are shards of one run "
        "and are merged.",
    )
    parser.add_argument(
        "results", nargs="+", metavar="RESULTS.json", help="results file(s) written by run --json"
    )
    parser.add_argument("--json", metavar="FILE", help="write the (merged) JSON results here")
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML here")
    parser.add_argument("--markdown", metavar="FILE", help="write the Markdown report here")
    parser.add_argument(
        "--html",
        metavar="FILE",
        help="write the HTML report here (with --baseline: the base side beside each case's transcripts)",
    )
    parser.add_argument(
        "--markdown-limit",
        type=markdown_limit,
        default=ReportPlan.markdown_limit,
        metavar="CHARS",
        help="maximum length of the Markdown report (default 1 MiB; 65536 for a PR comment)",
    )
    parser.add_argument(
        "--baseline",
        type=nonempty,
        metavar="RESULTS.json",
        help="the base branch's results, to compare against",
    )
    parser.add_argument("--threshold", type=rate, metavar="RATE", help="minimum pass rate for every suite")
    parser.add_argument(
        "--errors",
        choices=("count", "ignore"),
        help="whether cases that could not be evaluated count against the gate",
    )
    parser.add_argument(
        "--max-error-rate",
        type=error_rate,
        metavar="RATE",
        help="the error budget: the share (0 to 1) of a suite's cases that may end as errors "
        "(default: the one the results were run with)",
    )
    parser.add_argument(
        "--fail-on",
        type=fail_on,
        metavar="{threshold,regression,regression-or-threshold,any-failure}",
        help="what fails the gate (default: the policy the results were run with)",
    )
    parser.add_argument(
        "--marker", default=ReportPlan.marker, help="id of the hidden marker of the Markdown report"
    )
    parser.add_argument(
        "--full-report-hint", default="", help="where the full report is, said when truncated"
    )
    return parser


def main(argv: Sequence[str]) -> int:
    return execute(ReportPlan.from_args(build_parser().parse_args(list(argv)))).code


def execute(plan: ReportPlan) -> Outcome:
    """Re-render (and merge) as ``plan`` says: conclude once, write the outputs, print the verdict.
    Raises ``InputError`` (and the other ``GateError``s) for the CLI to report."""
    import os

    from gate.files.discovery import default_root
    from gate.files.outputs import check_outputs
    from gate.trust.facts import ci_variable

    # In CI no output is written through a symlink of the repository (a pull request can commit one).
    outputs = check_outputs(plan, no_links_below=default_root() if ci_variable(os.environ) else None)
    try:
        return _render(plan, outputs)
    finally:
        outputs.close()


def _render(plan: ReportPlan, outputs: OutputPlan) -> Outcome:
    from gate.files.outputs import write_outputs
    from gate.files.results_file import load_results
    from gate.reports.console import suite_lines, verdict_lines
    from gate.results_json.codec import gc_paused
    from gate.results_json.shard_merge import merge
    from gate.verdict.conclusion import conclude

    parts = [load_results(path) for path in plan.results]
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
        marker=plan.marker,
        markdown_limit=plan.markdown_limit,
        full_report_hint=md_text(plan.full_report_hint),
    )
    for line in [*suite_lines(conclusion), *verdict_lines(conclusion)]:
        print(line)
    sys.stdout.flush()
    return Outcome(conclusion.verdict.exit_code, conclusion)
