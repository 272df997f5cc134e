"""What one action run will do, decided before anything is done: run, re-render saved results or
refuse; replay-only or live; which notices to give; whether to post to the pull request. Pure: the
settings and the facts gathered from the workspace in, a ``Plan`` out (``plan``), and after the run
how to treat the sticky comment (``comment_mode``).

What the run may do with the pull request's files (evaluate them with a key, start their commands,
take answers from the cache, call the result verified, save the cache) is not decided here: the run
decides it (``gate.trust.decision``) from the event the plan hands it (``RunPlan.event``), and the
entrypoint renders that decision (``verdict: refused`` / ``unverified``, ``cache_trusted``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from gate.commands.plans import ReportPlan, RunPlan
from gate.errors import EXIT_INVALID_INPUT, EXIT_PASSED
from gate.github.action_inputs import ActionInputs
from gate.github.action_settings import ActionSettings, EventContext, cache_directory

Mode = Literal["run", "report", "refuse"]
# What the action says it did (the ``verdict`` output) when it refused before running: invalid input,
# or a set-up that cannot give a true verdict (the run's own refusals are the trust decision's).
RefusalVerdict = Literal["invalid", "refused"]
CommentMode = Literal["upsert", "update-only", "none"]

READ_ONLY_NOTICE = (
    "The token of this pull request is read-only: no comment or review is posted; the results are in "
    "the job summary and the output directory."
)
SHARD_NOTICE = (
    "This is shard {shard} of a split run: its pass rate does not gate (the job fails only on invalid "
    "input or "
    "an incomplete evaluation); the job that merges the shards' results gives the verdict."
)
NOTHING_AFFECTED = "No suite is affected by the changes in this pull request: nothing to evaluate."
REPLAY_ONLY_NOTICE = (
    "This is {who}: GitHub gives it no secrets and a read-only token, so no model can be called and the "
    "gate runs replay-only from the response cache, which holds answers recorded by runs of the gate "
    "with a key, never answers the pull request can write. The verdict stands only where the cache "
    "answers every request; a request it does not hold (the pull request changed what a case sends) "
    "makes the run not verified."
)
LINK_REFUSAL = (
    "input {name}: {link} is a symlink; the action writes only inside the workspace and never "
    "through a link (remove the link from the repository, or choose another {name})"
)


@dataclass(frozen=True)
class WorkspaceFacts:
    """What only the workspace can tell (gathered before planning)."""

    # The saved results files the ``results`` input's patterns match (in order, globs expanded).
    results_files: tuple[str, ...] = ()
    # (input name, the symlink) for the output and cache directories reached through a symlink.
    links: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Plan:
    mode: Mode
    # What the command does: ``run`` (mode "run") or ``report`` (mode "report"), None otherwise.
    command: RunPlan | ReportPlan | None = None
    replay: bool = False
    notices: tuple[str, ...] = ()
    # For mode "refuse": the error messages, the exit code and the verdict output.
    errors: tuple[str, ...] = ()
    exit_code: int = EXIT_PASSED
    refusal_verdict: RefusalVerdict = "refused"
    # Whether to post the comment/review to the pull request, and the notice when we may not.
    publish: bool = False
    read_only_notice: bool = False
    # Whether a verdict under the threshold fails this step. A shard of a matrix does not gate: its
    # pass rate is a share of the cases, the merge job's verdict over all shards is the gate (exit
    # codes 2 and 3, invalid input or an incomplete evaluation, still fail the shard's job).
    gates: bool = True

    @property
    def command_line(self) -> tuple[str, ...]:
        """The CLI arguments that do what the command does (``tool-eval-gate run ...``), for the log."""
        if self.command is None:
            return ()
        return (self.mode, *self.command.argv())


def plan(settings: ActionSettings, facts: WorkspaceFacts) -> Plan:
    """The run this action performs. Pure."""
    inputs, event = settings.inputs, settings.event
    can_post = (
        event.pr_number is not None
        and bool(inputs.github_token)
        and (inputs.comment or inputs.review_comments)
    )
    if settings.input_problems:
        return Plan(
            "refuse", errors=settings.input_problems, exit_code=EXIT_INVALID_INPUT, refusal_verdict="invalid"
        )
    refusal = tuple(LINK_REFUSAL.format(name=name, link=link) for name, link in facts.links)
    if refusal:
        return Plan("refuse", errors=refusal, exit_code=EXIT_INVALID_INPUT, refusal_verdict="refused")
    restricted = (event.is_fork and event.event_name == "pull_request") or event.is_dependabot
    read_only = can_post and restricted and event.event_name == "pull_request"
    publish = can_post and not read_only
    if inputs.results:
        wanted = settings.made_for
        if not wanted.commit or not wanted.run:
            return Plan("refuse", errors=(UNKNOWN_MADE_FOR,), exit_code=EXIT_INVALID_INPUT)
        report = report_plan(inputs, settings.workspace, settings.output_dir, facts.results_files)
        report = replace(report, made_for_commit=wanted.commit, made_for_run=wanted.run)
        return Plan("report", command=report, publish=publish)
    notices: tuple[str, ...] = ()
    replay = inputs.options.replay
    if restricted and not settings.has_key:
        replay = True
        notices = (REPLAY_ONLY_NOTICE.format(who=event.facts.who),)
    run = run_plan(inputs, event, settings.workspace, settings.output_dir, replay=replay)
    if run.shard:
        notices += (SHARD_NOTICE.format(shard=run.shard),)
    return Plan(
        "run",
        command=run,
        replay=replay,
        notices=notices,
        publish=publish,
        read_only_notice=read_only,
        gates=not run.shard,
    )


def comment_mode(plan: Plan, evaluated_cases: int, problems: int) -> CommentMode:
    """How the sticky comment is treated once the run is over. Pure. When nothing was evaluated (no
    suite affected) a new comment would be noise on every unrelated pull request, but an existing one
    would go stale (an earlier failure still showing): it is updated, never created."""
    if not plan.publish:
        return "none"
    return "upsert" if evaluated_cases or problems else "update-only"


def run_plan(
    inputs: ActionInputs,
    event: EventContext,
    workspace: Path,
    output_dir: Path,
    *,
    replay: bool = False,
) -> RunPlan:
    """What ``tool-eval-gate run`` does for these inputs and this event: the run's options as the inputs
    set them, the paths in the workspace, the output directory's files. Pure."""
    base = event.base_sha or event.before_sha
    auto = base_side(inputs, event)
    baseline = inputs.baseline not in ("auto", "off")
    options = inputs.options
    return replace(
        options,
        paths=tuple(str(workspace / path) for path in inputs.suites),
        root=str(workspace),
        changed_since=base if inputs.changed_only and base else None,
        rerun_failed=str(workspace / options.rerun_failed) if options.rerun_failed else None,
        prices=str(workspace / options.prices) if options.prices else None,
        baseline="auto" if auto else str(workspace / inputs.baseline) if baseline else None,
        baseline_json=str(output_dir / BASE_RESULTS) if auto else None,
        cache=str(cache_directory(inputs, workspace)),
        replay=replay or options.replay,
        allow_commands=inputs.commands == "allow",
        event=event.facts,
        junit=str(output_dir / JUNIT_FILE),
        json=str(output_dir / RESULTS_FILE),
        markdown=str(output_dir / REPORT_FILE),
        html=str(output_dir / HTML_FILE),
        fix_patch=str(output_dir / FIX_PATCH) if options.suggest_fixes else None,
    )


# Saved results are rendered only when they were made for this job's commit and run, which it must know.
UNKNOWN_MADE_FOR = (
    "input results: this job cannot tell which commit and run the results must have been made for (the "
    "runner sets GITHUB_SHA and GITHUB_RUN_ID; on workflow_run, the event names the run and its head): "
    "nothing is rendered"
)

# The files of the output directory: the reports, and the base side's results of ``baseline: auto``.
JUNIT_FILE, RESULTS_FILE, REPORT_FILE, HTML_FILE = "junit.xml", "results.json", "report.md", "report.html"
BASE_RESULTS = "results.base.json"
FIX_PATCH = "fixes.patch"  # suggest_fixes: the verified edits, for git apply
OUTPUT_FILES = (JUNIT_FILE, RESULTS_FILE, REPORT_FILE, HTML_FILE, BASE_RESULTS, FIX_PATCH)


def base_side(inputs: ActionInputs, event: EventContext) -> bool:
    """Whether the run compares with the merge base (``baseline: auto`` on a pull request whose base
    is known, with change detection on). Pure."""
    return inputs.baseline == "auto" and bool(event.base_sha) and inputs.changed_only


def report_plan(
    inputs: ActionInputs, workspace: Path, output_dir: Path, files: tuple[str, ...]
) -> ReportPlan:
    """What ``tool-eval-gate report`` does to merge and re-render saved results (an empty
    ``max_error_rate`` keeps the budget the results were run with). Pure."""
    options = inputs.options
    return ReportPlan(
        results=files,
        baseline=str(workspace / inputs.baseline) if inputs.baseline not in ("auto", "off") else None,
        threshold=options.threshold,
        errors=options.errors,
        max_error_rate=options.max_error_rate if "max_error_rate" in inputs.given else None,
        fail_on=options.fail_on,
        marker=inputs.marker,
        junit=str(output_dir / JUNIT_FILE),
        json=str(output_dir / RESULTS_FILE),
        markdown=str(output_dir / REPORT_FILE),
        html=str(output_dir / HTML_FILE),
    )
