"""What one action run will do, decided before anything is done: run, re-render saved results or
refuse; replay-only or live; which notices to give; whether to post to the pull request. Pure: the
settings and the facts gathered from the workspace in, a ``Plan`` out (``plan``), and after the run
how to treat the sticky comment (``comment_mode``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

from gate.commands.arguments import (
    error_rate,
    fail_on,
    fix_candidates,
    positive_float,
    positive_int,
    rate,
    trial_count,
)
from gate.commands.plans import ReportPlan, RunPlan
from gate.errors import EXIT_INCOMPLETE, EXIT_INVALID_INPUT, EXIT_PASSED
from gate.github.action_settings import ActionInputs, ActionSettings, EventContext, cache_directory

T = TypeVar("T")
Mode = Literal["run", "report", "refuse"]
# What the action says it did (the ``verdict`` output) when it did not evaluate anything: invalid
# input, a set-up that cannot give a true verdict, or a pull request without keys whose only answers
# are ones it can write itself.
RefusalVerdict = Literal["invalid", "refused", "unverified"]
CommentMode = Literal["upsert", "update-only", "none"]

FORK_TARGET_REFUSAL = (
    "Refusing to run: this pull_request_target workflow checked out the fork's commits, so "
    "pull-request-controlled suites would run with the repository's secrets. Use the two-workflow "
    "(workflow_run) pattern of docs/github-action.md, or let a maintainer approve a live evaluation "
    "with the `fork_approval_label` input."
)
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
    "with a key, never answers the pull request can write. A case whose requests are all in the cache "
    "is verified; any other is an error (not evaluated), counted as not passed."
)
NOT_VERIFIED = (
    "Not verified: this is {who}, which gets no secrets, so only cached answers could be replayed, and "
    "the response cache {cache} {reason}: answers the pull request can write never decide its verdict. "
    "Keep the cache where only the gate writes it (actions/cache on an untracked path such as the "
    "default .tool-eval-gate/cache), or have a maintainer approve a live evaluation."
)
# When the run itself stops as not verified (the step log's error says why, with the suite's words).
NOT_VERIFIED_RUN = (
    "Not verified: the run could not rule out answers the pull request wrote (e.g. an affected suite "
    "starts a program of the pull request's checkout, whose code could write into the response cache). "
    "The error in the step log says why."
)
UNTRUSTED_CACHE_NOTICE = (
    "The response cache {cache} {reason}: answers the pull request can write are not trusted, so none "
    "is read from it and this run asks the model. Keep the cache where only the gate writes it "
    "(actions/cache on an untracked path such as the default .tool-eval-gate/cache)."
)
LINK_REFUSAL = (
    "input {name}: {link} is a symlink; the action writes only inside the workspace and never "
    "through a link (remove the link from the repository, or choose another {name})"
)


@dataclass(frozen=True)
class WorkspaceFacts:
    """What only the workspace can tell (gathered with git before planning)."""

    # Whether the commit the event is about (the PR's head) is the workspace's HEAD, one of its
    # parents (a merge ref) or an ancestor; None when the event names no such commit.
    holds_head: bool | None = None
    # The saved results files the ``results`` input's patterns match (in order, globs expanded).
    results_files: tuple[str, ...] = ()
    # (input name, the symlink) for the output and cache directories reached through a symlink.
    links: tuple[tuple[str, str], ...] = ()
    # Why the response cache's answers may be ones the pull request wrote ("" when only the gate's).
    cache_distrust: str = ""


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
    # Whether the cache directory will hold only answers the gate recorded, so that the workflow may
    # save it (the ``cache_trusted`` output; see ``cache_trusted``).
    cache_trusted: bool = False

    @property
    def command_line(self) -> tuple[str, ...]:
        """The CLI arguments that do what the command does (``tool-eval-gate run ...``), for the log."""
        if self.command is None:
            return ()
        return (self.mode, *self.command.argv())


def _who(event: EventContext) -> str:
    return "a Dependabot pull request" if event.is_dependabot else "a pull request from a fork"


def _approved(settings: ActionSettings) -> bool:
    """A maintainer added the approval label: this run (the ``labeled`` event, bound to the head
    commit of that moment) may evaluate the fork's files live, as data."""
    label = settings.inputs.fork_approval_label
    event = settings.event
    return (
        bool(label)
        and event.event_name == "pull_request_target"
        and event.action == "labeled"
        and (event.label == label)
    )


def _refusal(settings: ActionSettings, facts: WorkspaceFacts) -> tuple[str, ...]:
    event, inputs = settings.event, settings.inputs
    if inputs.results:
        return ()  # re-rendering saved results evaluates nothing here
    if event.event_name == "pull_request_target" and event.is_fork and facts.holds_head:
        if not _approved(settings):
            return (FORK_TARGET_REFUSAL,)
        if not inputs.max_cost:
            return (
                "input max_cost: a maintainer-approved evaluation of a fork's pull request needs a cost cap "
                "(a pull request can spend budget); set max_cost.",
            )
    if event.pr_number is not None and event.head_sha and facts.holds_head is False:
        return (
            f"The workspace does not hold the pull request's head commit {event.head_sha[:12]} (on "
            f"{event.event_name or 'this event'} the default checkout is the base branch), so the pull "
            "request's changes cannot be evaluated and no verdict is reported. Check out the pull request "
            "(the pull_request event does), or use the workflows of docs/github-action.md.",
        )
    return ()


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
    refusal = _refusal(settings, facts) or tuple(
        LINK_REFUSAL.format(name=name, link=link) for name, link in facts.links
    )
    if refusal:
        return Plan("refuse", errors=refusal, exit_code=EXIT_INVALID_INPUT, refusal_verdict="refused")
    restricted = (event.is_fork and event.event_name == "pull_request") or event.is_dependabot
    read_only = can_post and restricted and event.event_name == "pull_request"
    publish = can_post and not read_only
    if inputs.results:
        report = report_plan(inputs, settings.workspace, settings.output_dir, facts.results_files)
        return Plan("report", command=report, publish=publish)
    notices: tuple[str, ...] = ()
    replay = inputs.replay
    cache = cache_directory(inputs, settings.workspace).relative_to(settings.workspace).as_posix()
    if restricted and not settings.has_key:
        if facts.cache_distrust:
            text = NOT_VERIFIED.format(who=_who(event), cache=cache, reason=facts.cache_distrust)
            return Plan(
                "refuse",
                errors=(text,),
                exit_code=EXIT_INCOMPLETE,
                refusal_verdict="unverified",
                read_only_notice=read_only,
            )
        replay = True
        notices = (REPLAY_ONLY_NOTICE.format(who=_who(event)),)
    elif facts.cache_distrust and not replay:
        notices = (UNTRUSTED_CACHE_NOTICE.format(cache=cache, reason=facts.cache_distrust),)
    run = run_plan(inputs, event, settings.workspace, settings.output_dir, replay=replay)
    if inputs.shard:
        notices += (SHARD_NOTICE.format(shard=inputs.shard),)
    return Plan(
        "run",
        command=run,
        replay=replay,
        notices=notices,
        publish=publish,
        read_only_notice=read_only,
        gates=not inputs.shard,
        cache_trusted=cache_trusted(settings, facts),
    )


def cache_trusted(settings: ActionSettings, facts: WorkspaceFacts) -> bool:
    """Whether, after a run, the cache directory holds only answers the gate recorded, so that the
    workflow may save it: not when the pull request can have put files there (tracked ones, a
    link), nor when a pull request's run starts programs of its checkout (``commands: allow``),
    whose code could write answers into it. A cache saved from a pull request's run is restored by
    its next run as untracked files, which the gate trusts: committed answers would come back
    after the pull request removed them from git. Pure."""
    pull_request_code = settings.event.pr_number is not None and settings.inputs.commands == "allow"
    return not facts.cache_distrust and not facts.links and not pull_request_code


def comment_mode(plan: Plan, evaluated_cases: int, problems: int) -> CommentMode:
    """How the sticky comment is treated once the run is over. Pure. When nothing was evaluated (no
    suite affected) a new comment would be noise on every unrelated pull request, but an existing one
    would go stale (an earlier failure still showing): it is updated, never created."""
    if not plan.publish:
        return "none"
    return "upsert" if evaluated_cases or problems else "update-only"


def _optional(check: Callable[[str], T], value: str) -> T | None:
    """An input's value as the command takes it (``read_inputs`` checked it), None when empty."""
    return check(value) if value else None


def run_plan(
    inputs: ActionInputs,
    event: EventContext,
    workspace: Path,
    output_dir: Path,
    *,
    replay: bool = False,
) -> RunPlan:
    """What ``tool-eval-gate run`` does for these inputs and this event. Pure."""
    base = event.base_sha or event.before_sha
    auto = base_side(inputs, event)
    baseline = inputs.baseline not in ("auto", "off")
    return RunPlan(
        paths=tuple(str(workspace / path) for path in inputs.suites),
        root=str(workspace),
        changed_since=base if inputs.changed_only and base else None,
        cases=inputs.cases,
        tags=inputs.tags,
        rerun_failed=str(workspace / inputs.rerun_failed) if inputs.rerun_failed else None,
        threshold=_optional(rate, inputs.threshold),
        trials=_optional(trial_count, inputs.trials),
        trials_policy="full" if inputs.trials_policy == "full" else "curtailed",
        concurrency=_optional(positive_int, inputs.concurrency) or RunPlan.concurrency,
        timeout=_optional(positive_float, inputs.timeout) or RunPlan.timeout,
        model=inputs.model or None,
        judge_model=inputs.judge_model or None,
        shard=inputs.shard or None,
        max_requests=_optional(positive_int, inputs.max_requests),
        max_cost=_optional(positive_float, inputs.max_cost),
        prices=str(workspace / inputs.prices) if inputs.prices else None,
        baseline="auto" if auto else str(workspace / inputs.baseline) if baseline else None,
        baseline_json=str(output_dir / BASE_RESULTS) if auto else None,
        cache=str(cache_directory(inputs, workspace)),
        replay=replay or inputs.replay,
        allow_commands=inputs.commands == "allow",
        event_name=event.event_name,
        errors="ignore" if inputs.errors == "ignore" else "count",
        max_error_rate=(  # "0" is a budget (no error allowed), not "empty"
            error_rate(inputs.max_error_rate) if inputs.max_error_rate else RunPlan.max_error_rate
        ),
        fail_on=_optional(fail_on, inputs.fail_on),
        junit=str(output_dir / JUNIT_FILE),
        json=str(output_dir / RESULTS_FILE),
        markdown=str(output_dir / REPORT_FILE),
        html=str(output_dir / HTML_FILE),
        suggest_fixes=inputs.suggest_fixes,
        fix_model=inputs.fix_model or None,
        fix_candidates=_optional(fix_candidates, inputs.fix_candidates) or RunPlan.fix_candidates,
        fix_budget=inputs.fix_budget or None,
        fix_patch=str(output_dir / FIX_PATCH) if inputs.suggest_fixes else None,
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
    """What ``tool-eval-gate report`` does to merge and re-render saved results. Pure."""
    return ReportPlan(
        results=files,
        baseline=str(workspace / inputs.baseline) if inputs.baseline not in ("auto", "off") else None,
        threshold=_optional(rate, inputs.threshold),
        errors="ignore" if inputs.errors == "ignore" else "count",
        max_error_rate=_optional(error_rate, inputs.max_error_rate),
        fail_on=_optional(fail_on, inputs.fail_on),
        marker=inputs.marker,
        junit=str(output_dir / JUNIT_FILE),
        json=str(output_dir / RESULTS_FILE),
        markdown=str(output_dir / REPORT_FILE),
        html=str(output_dir / HTML_FILE),
    )
