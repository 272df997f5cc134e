"""What one ``run`` or ``report`` will do, as typed values: the one plan type of each command, and the
table of its options.

Every field the command line sets is declared once, with its flag, default, type and help
(``gate.commands.options.option``); the run's fields that the action takes as inputs carry that
input's description too. The command line becomes a plan (``RunPlan.from_args``,
``ReportPlan.from_args``), and so do the GitHub action's inputs (``gate.github.action_inputs``,
``gate.github.action_plan``); the commands execute plans (``gate.commands.run.execute``,
``gate.commands.report.execute``) and return an ``Outcome``: the exit code and the run's
``Conclusion``, which every output renders. ``argv`` is the command line that does what a plan does
(the action logs it, so that a user can rerun it). Pure.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from gate import CACHE_DIRECTORY, limits
from gate.commands.arguments import (
    error_rate,
    fail_on,
    fix_budget,
    fix_candidates,
    hyphenated,
    markdown_limit,
    model_choice,
    nonempty,
    positive_float,
    positive_int,
    rate,
    trial_count,
)
from gate.commands.options import command_line, option, plan_values
from gate.errors import Problem
from gate.reports.markdown import SUMMARY_LIMIT
from gate.trust.facts import EventFacts
from gate.verdict.curtailment import TRIALS_POLICIES, TrialsPolicy
from gate.verdict.policy import DEFAULT_MAX_ERROR_RATE, FailOn

if TYPE_CHECKING:
    from gate.trust.decision import Trust
    from gate.verdict.conclusion import Conclusion

ErrorsPolicy = Literal["count", "ignore"]
ERRORS_POLICIES: tuple[ErrorsPolicy, ...] = ("count", "ignore")
FAIL_ON_METAVAR = "{threshold,regression,regression-or-threshold,any-failure}"
MODEL_METAVAR = "[PROVIDER:]NAME"


@dataclass(frozen=True)
class RunPlan:
    """What ``tool-eval-gate run`` will do, as asked: each field one option of ``run --help``, and
    (with an action text) the action's input of the same name."""

    # What to run: the suites (paths, root, changed files) and the cases (ids, tags, failures).
    paths: tuple[str, ...] = option(
        "",
        "suite files or directories searched for *.suite.yaml (default: the repository root)",
        kind="positional",
        metavar="PATH",
        default=(),
    )
    root: str | None = option(
        "--root",
        "repository root (default: nearest directory with .git)",
        parse=nonempty,
        metavar="DIR",
        default=None,
    )
    changed_since: str | None = option(
        "--changed-since",
        "run only the suites affected by files changed since the merge base with REF",
        parse=nonempty,
        metavar="REF",
        default=None,
    )
    cases: tuple[str, ...] = option(
        "--case",
        "run only this case (ID, or SUITE/ID; repeatable)",
        kind="many",
        metavar="ID",
        default=(),
        action="Run only these cases (ids or SUITE/ID, separated by commas or white space); with `tags` and "
        "`rerun_failed`, only the cases all of them select.",
    )
    tags: tuple[str, ...] = option(
        "--tag",
        "run only cases with this tag (repeatable)",
        kind="many",
        metavar="TAG",
        default=(),
        action="Run only cases with one of these tags (case or suite tags; commas or white space).",
    )
    rerun_failed: str | None = option(
        "--rerun-failed",
        "run only the cases that failed or errored in these results",
        parse=nonempty,
        metavar="RESULTS.json",
        default=None,
        action="A results file (path in the workspace) whose failed and errored cases are the only ones run.",
    )
    # How to run: threshold, trials, concurrency, the request time limit, the models, commands.
    threshold: float | None = option(
        "--threshold",
        "minimum pass rate for every suite",
        parse=rate,
        metavar="RATE",
        default=None,
        action="Minimum pass rate for every suite (0-1, or a percentage such as 90). Empty keeps each "
        "suite's own threshold.",
    )
    trials: int | None = option(
        "--trials",
        "trials per case (overrides the suites)",
        parse=trial_count,
        metavar="N",
        default=None,
        action="Trials per case, overriding the suites (empty keeps the suites' settings).",
    )
    trials_policy: TrialsPolicy = option(
        "--trials-policy",
        "curtailed (default): a case stops starting trials once its verdict (and, with a baseline, its "
        "comparison) is decided, exactly as the full run would decide it; full: run every trial",
        choices=TRIALS_POLICIES,
        default="curtailed",
        action="curtailed: a case stops starting trials once its verdict (and its comparison with the base) "
        "is decided, exactly as the full run would decide it; full: run every trial.",
    )
    concurrency: int = option(
        "--concurrency",
        "model requests in flight at most (default {default}; reduced automatically on 429s)",
        parse=positive_int,
        metavar="N",
        default=limits.CONCURRENCY,
        action="Model requests in flight at most (empty means {default}; reduced automatically on rate "
        "limits).",
    )
    timeout: float = option(
        "--timeout",
        "time limit of one model request (default {default})",
        parse=positive_float,
        metavar="SECONDS",
        default=limits.REQUEST_TIMEOUT_SECONDS,
        action="Time limit of one model request, in seconds (empty means {default}).",
    )
    model: str | None = option(  # [PROVIDER:]NAME instead of each suite's own model
        "--model",
        "run every suite with this model instead of its own (its provider, or openai: / anthropic: to "
        "switch); compare with the suites' own model's results through --baseline FILE",
        parse=model_choice,
        metavar=MODEL_METAVAR,
        default=None,
        action="Run every suite with this model instead of its own, [PROVIDER:]NAME (e.g. gpt-4.1-mini, or "
        'anthropic:claude-sonnet-4-5 to switch providers): "would switching models break us?". The report '
        "says which model ran.",
    )
    judge_model: str | None = option(
        "--judge-model",
        "grade the judged checks with this model instead of each suite's judge",
        parse=model_choice,
        metavar=MODEL_METAVAR,
        default=None,
        action="Grade the judged checks with this model instead of each suite's judge, [PROVIDER:]NAME.",
    )
    allow_commands: bool = option(
        "--allow-commands",
        "run the programs the suites name (an agent program, an MCP server); without it such a suite is "
        "refused (exit 2). Never on pull_request_target, workflow_run, issue_comment or another event "
        "where the repository's secrets meet a pull request's code",
        kind="switch",
        default=False,
    )
    # The reports, and the base side to compare against.
    junit: str | None = option("--junit", "write JUnit XML here", metavar="FILE", default=None)
    json: str | None = option("--json", "write the JSON results here", metavar="FILE", default=None)
    markdown: str | None = option(
        "--markdown", "write the Markdown report here", metavar="FILE", default=None
    )
    html: str | None = option(
        "--html",
        "write the HTML report here: one self-contained file (no network) with every case, filterable, "
        "and its transcripts",
        metavar="FILE",
        default=None,
    )
    baseline: str | None = option(  # a results file, or "auto"
        "--baseline",
        "the base branch's results to compare against, or 'auto': evaluate the affected suites as they "
        "were at the merge base with --changed-since REF too, in this run (unchanged requests come from "
        "the cache)",
        parse=nonempty,
        metavar="RESULTS.json|auto",
        default=None,
    )
    baseline_json: str | None = option(
        "--baseline-json",
        "with --baseline auto: write the base side's results here too (re-render later with: report "
        "RESULTS.json --baseline FILE)",
        parse=nonempty,
        metavar="FILE",
        default=None,
    )
    # The response cache and its modes.
    cache: str | None = option(
        "--cache",
        "response cache directory: answers are reused, new ones stored (default with "
        f"--record/--replay/--baseline auto: {CACHE_DIRECTORY} under the root)",
        parse=nonempty,
        metavar="DIR",
        default=None,
    )
    record: bool = option(
        "--record",
        "call the model for every request and (re)store the answers",
        kind="switch",
        exclusive="cache mode",
        default=False,
    )
    replay: bool = option(
        "--replay",
        "answer only from the cache, never call a model (no API key needed); a request not in the cache "
        "makes its case an error and the run not verified (exit 3)",
        kind="switch",
        exclusive="cache mode",
        default=False,
        action="Answer only from `cache`, never call a model (no API key needed); a request the cache does "
        "not hold makes the run unverified (exit code 3), never an error the error budget absorbs.",
    )
    # Sharding, and the request and cost budgets.
    shard: str | None = option(
        "--shard",
        "run only this deterministic share of the cases (1-based)",
        parse=nonempty,
        metavar="INDEX/COUNT",
        default=None,
        action="Run only this deterministic share of the cases, INDEX/COUNT (1-based), e.g. 2/4 (use a "
        "matrix to run all of them).",
    )
    max_requests: int | None = option(
        "--max-requests",
        "send at most N model requests (cache hits are free) and finish the cases started: cases start "
        "in order, all their trials together, when what is neither sent nor reserved covers the most they "
        "can need (max_turns per trial, the simulated user's turns, one per judged check; with --baseline "
        "auto both sides), or alone when nothing else runs and what is left covers what a trial has needed "
        "so far; the cases left are errors saying the request budget ran out (exit 3)",
        parse=positive_int,
        metavar="N",
        default=None,
        action="Stop starting model requests after this many (exit 3).",
    )
    max_cost: float | None = option(
        "--max-cost",
        "stop starting model requests once the estimated cost reaches USD (exit 3)",
        parse=positive_float,
        metavar="USD",
        default=None,
        action="Stop starting model requests once the estimated cost reaches this many US dollars (exit 3).",
    )
    prices: str | None = option(
        "--prices",
        "model prices in USD per million tokens (YAML/JSON: 'MODEL: {input, output, cached_input}'), "
        "extending and overriding the built-in table; with --max-cost every model needs a price",
        parse=nonempty,
        metavar="FILE",
        default=None,
        action="A prices file in the repository (MODEL -> {input, output, cached_input} in USD per million "
        "tokens) extending the built-in table; with max_cost every model needs a price.",
    )
    # What counts against the gate; the console; pre-commit's file lists.
    errors: ErrorsPolicy = option(
        "--errors",
        "whether cases that could not be evaluated count against the gate (default {default})",
        choices=ERRORS_POLICIES,
        default="count",
        action="Whether cases that could not be evaluated (provider errors) count against the gate: count "
        "or ignore.",
    )
    max_error_rate: float = option(
        "--max-error-rate",
        "the error budget: the share (0 to 1) of a suite's cases that may end as errors; beyond it, or with "
        "no case evaluated, the suite has no verdict and the run exits 3 unless the gate fails anyway "
        "(default {default})",
        parse=error_rate,
        metavar="RATE",
        default=DEFAULT_MAX_ERROR_RATE,
        action="The error budget, as the CLI's --max-error-rate: the share (0 to 1) of a suite's cases that "
        "may end as errors (could not be evaluated). Beyond it, or when none of a suite's cases could be "
        "evaluated, the suite has no verdict and the check ends incomplete (exit code 3), unless the gate "
        "fails whatever those cases would have given. Empty means {default} (publishing saved `results`: "
        "the budget they were run with).",
    )
    fail_on: FailOn | None = option(
        "--fail-on",
        "what fails the gate (default: regression-or-threshold with a baseline, else threshold)",
        parse=fail_on,
        spell=hyphenated,
        metavar=FAIL_ON_METAVAR,
        default=None,
        action="What fails the check, as the CLI's --fail-on says it: regression-or-threshold (a significant "
        "regression or a suite under its threshold; the default when there is a baseline, so on pull "
        "requests), threshold (a suite under its threshold; the default otherwise), regression (a case "
        "regressed against the baseline) or any-failure. Underscores in place of the hyphens work too.",
    )
    quiet: bool = option("--quiet", "no progress line", kind="switch", short="-q", default=False)
    skip_unreferenced: bool = option(
        "--skip-unreferenced",
        "pass over PATHs that are neither suites nor used by one; nothing left to run is a pass (the "
        "manual pre-commit hook hands over every staged file)",
        kind="switch",
        default=False,
    )
    # Fixes the gate has verified (DESIGN.md section 11).
    suggest_fixes: bool = option(
        "--suggest-fixes",
        "when cases fail, ask a model to reword the definition the analysis implicates (a tool's or "
        "parameter's description, a prompt paragraph) and suggest a rewording only once a re-run shows it "
        "fixes the failing cases and breaks no passing one; the verdict never changes",
        kind="switch",
        default=False,
        action="true: when cases fail, ask a model to reword the definition the analysis implicates (a "
        "tool's or a parameter's description, a prompt paragraph) and suggest the rewording only once the "
        "gate re-ran the cases on it and it fixed the failing ones and broke none: a review comment with a "
        "suggested change on a line of the diff, a diff block in the sticky comment otherwise, and "
        "fixes.patch in the output directory. Never changes the verdict; a fork's pull request without a "
        "key gets no search.",
    )
    fix_model: str | None = option(  # None: each suite's judge's model
        "--fix-model",
        "the model that proposes rewordings (default: each suite's judge's model, else its agent's)",
        parse=model_choice,
        goes_with="suggest_fixes",
        metavar=MODEL_METAVAR,
        default=None,
        action="With suggest_fixes: the model that proposes rewordings ([PROVIDER:]NAME; default each "
        "suite's judge's).",
    )
    fix_candidates: int = option(
        "--fix-candidates",
        "rewordings asked for per definition (default {default}; the first verified one wins)",
        parse=fix_candidates,
        goes_with="suggest_fixes",
        metavar="N",
        default=3,
        action="With suggest_fixes: rewordings asked for per definition (empty means {default}; the first "
        "verified one wins).",
    )
    fix_budget: str | None = option(  # requests ("200") or US dollars ("$0.50"); None: no cap
        "--fix-budget",
        "what the search may spend, counted apart from the run: requests (200) or US dollars ($0.50); "
        "without it every passing gating case is re-run for each candidate verified",
        parse=fix_budget,
        goes_with="suggest_fixes",
        metavar="N|$USD",
        default=None,
        action="With suggest_fixes: what the search may spend, counted apart from the run's requests: a "
        "number of requests (200) or US dollars ($0.50). Empty: every passing gating case is re-run for "
        "each candidate verified.",
    )
    fix_patch: str | None = option(  # where the verified edits are written as a patch
        "--fix-patch",
        "write the verified edits here as a patch that git apply takes",
        goes_with="suggest_fixes",
        metavar="FILE",
        default=None,
    )
    # What the GitHub Actions event the run happens on says (none outside Actions): whose commits the
    # checkout holds, the head a maintainer approved; the trust decision reads it (gate.trust). Not a
    # flag: ``run`` reads the job's event file, the action its own event and inputs.
    event: EventFacts = EventFacts()

    @classmethod
    def from_args(cls, args: argparse.Namespace, event: EventFacts | None = None) -> RunPlan:
        """The plan of a parsed command line (``event``: what the job's event says, if any)."""
        plan = cls(**plan_values(cls, args))
        return plan if event is None else replace(plan, event=event)

    @property
    def report_paths(self) -> tuple[str, ...]:
        return tuple(p for p in (self.json, self.junit, self.markdown, self.html) if p)

    def argv(self) -> tuple[str, ...]:
        """The ``tool-eval-gate run`` arguments that do what this plan does."""
        return command_line(self)


@dataclass(frozen=True)
class ReportPlan:
    """What ``tool-eval-gate report`` will do (see ``tool-eval-gate report --help``)."""

    results: tuple[str, ...] = option(
        "", "results file(s) written by run --json", kind="positional", nargs="+", metavar="RESULTS.json"
    )
    json: str | None = option("--json", "write the (merged) JSON results here", metavar="FILE", default=None)
    junit: str | None = option("--junit", "write JUnit XML here", metavar="FILE", default=None)
    markdown: str | None = option(
        "--markdown", "write the Markdown report here", metavar="FILE", default=None
    )
    html: str | None = option(
        "--html",
        "write the HTML report here (with --baseline: the base side beside each case's transcripts)",
        metavar="FILE",
        default=None,
    )
    fix_patch: str | None = option(
        "--fix-patch",
        "write the verified edits the results carry (run --suggest-fixes) here as a patch that git apply "
        "takes (empty when none was verified)",
        metavar="FILE",
        default=None,
    )
    markdown_limit: int = option(  # the job summary's form; a PR comment's is 64 KiB
        "--markdown-limit",
        "maximum length of the Markdown report (default 1 MiB; 65536 for a PR comment)",
        parse=markdown_limit,
        metavar="CHARS",
        default=SUMMARY_LIMIT,
    )
    baseline: str | None = option(
        "--baseline",
        "the base branch's results, to compare against",
        parse=nonempty,
        metavar="RESULTS.json",
        default=None,
    )
    threshold: float | None = option(
        "--threshold", "minimum pass rate for every suite", parse=rate, metavar="RATE", default=None
    )
    errors: ErrorsPolicy | None = option(  # None: as the results record it
        "--errors",
        "whether cases that could not be evaluated count against the gate",
        choices=ERRORS_POLICIES,
        default=None,
    )
    max_error_rate: float | None = option(  # None: as the results record it
        "--max-error-rate",
        "the error budget: the share (0 to 1) of a suite's cases that may end as errors (default: the one "
        "the results were run with)",
        parse=error_rate,
        metavar="RATE",
        default=None,
    )
    fail_on: FailOn | None = option(
        "--fail-on",
        "what fails the gate (default: the policy the results were run with)",
        parse=fail_on,
        spell=hyphenated,
        metavar=FAIL_ON_METAVAR,
        default=None,
    )
    marker: str = option("--marker", "id of the hidden marker of the Markdown report", default="default")
    full_report_hint: str = option(
        "--full-report-hint", "where the full report is, said when truncated", default=""
    )
    # Render only results made for this commit in this CI run (``gate.trust.made_for``; None: any).
    made_for_commit: str | None = option(
        "--made-for-commit",
        "render only results made for this commit (a pull request's head): a job that merges or publishes "
        "results never renders a file a pull request committed",
        metavar="SHA",
        default=None,
    )
    made_for_run: str | None = option(
        "--made-for-run",
        "render only results made in this CI run (GITHUB_RUN_ID)",
        metavar="ID",
        default=None,
    )

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ReportPlan:
        return cls(**plan_values(cls, args))

    def argv(self) -> tuple[str, ...]:
        """The ``tool-eval-gate report`` arguments that do what this plan does."""
        return command_line(self)


@dataclass(frozen=True)
class Outcome:
    """What executing a plan came to: the exit code, the run's conclusion (None when nothing was
    concluded: invalid input, or nothing to run), the suite files' problems behind an exit 2, and the
    run's trust (``cache_trusted`` renders it)."""

    code: int
    conclusion: Conclusion | None = None
    problems: tuple[Problem, ...] = ()
    trust: Trust | None = None  # what the run was allowed (None: it stopped before deciding it)
