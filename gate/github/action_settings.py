"""What the action was asked to do, read once: its inputs (``INPUT_<NAME>``), the triggering event and
the runner's paths. Pure: everything comes from the mapping and the event payload given; a bad input
is recorded as an ``input_problems`` entry naming the input (the plan refuses with it), never raised,
so that even that exit path writes every output and hands the workspace back.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gate import CACHE_DIRECTORY
from gate.commands.arguments import (
    error_rate,
    fail_on,
    fix_budget,
    fix_candidates,
    model_choice,
    positive_float,
    positive_int,
    rate,
    trial_count,
)
from gate.suite.model import KEY_VARIABLES
from gate.trust.facts import EventFacts, event_facts
from gate.verdict.curtailment import TRIALS_POLICIES

TRUE = ("true", "yes", "1", "on")
FALSE = ("false", "no", "0", "off")


@dataclass(frozen=True)
class ActionInputs:
    github_token: str = ""
    suites: tuple[str, ...] = ()
    threshold: str = ""
    changed_only: bool = True
    comment: bool = True
    review_comments: bool = True
    fail_on: str = ""  # empty: the CLI's default (regression_or_threshold with a baseline, else threshold)
    errors: str = "count"
    max_error_rate: str = ""  # empty: the CLI's default error budget
    concurrency: str = ""
    trials: str = ""
    trials_policy: str = "curtailed"
    model: str = ""  # [PROVIDER:]NAME instead of each suite's own model
    judge_model: str = ""
    shard: str = ""
    baseline: str = "auto"  # auto (compare with the merge base on pull requests), off, or a results file
    cache: str = ""
    replay: bool = False
    openai_api_key: str = ""
    anthropic_api_key: str = ""
    openai_base_url: str = ""
    anthropic_base_url: str = ""
    output_dir: str = "tool-eval-gate-results"
    marker: str = "default"
    results: tuple[str, ...] = ()
    pr_number: str = ""
    max_cost: str = ""
    prices: str = ""
    max_requests: str = ""
    timeout: str = ""
    comment_author: str = "github-actions[bot]"
    fork_approval_label: str = ""
    cases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    rerun_failed: str = ""
    # "allow": the suites may make the gate run their commands (``run --allow-commands``); "refuse".
    commands: str = "refuse"
    suggest_fixes: bool = False  # run --suggest-fixes
    fix_model: str = ""
    fix_candidates: str = ""
    fix_budget: str = ""


@dataclass(frozen=True)
class EventContext:
    event_name: str
    repository: str
    pr_number: int | None = None
    base_sha: str = ""
    head_sha: str = ""
    # What the event says for the trust decision (gate.trust): whose commits, the approved head.
    facts: EventFacts = EventFacts()
    # For push events: the commit before the push (change detection base), "" when unknown; for
    # merge_group events: the base of the queued group.
    before_sha: str = ""
    # For workflow_run events: the head SHA of the run that produced the results, and the repository
    # its head branch is in (a fork's, for a fork's pull request).
    workflow_run_head_sha: str = ""
    workflow_run_head_repo: str = ""
    # The event's activity type (``labeled``, ``synchronize``...) and, for ``labeled``, the label.
    action: str = ""
    label: str = ""

    @property
    def is_fork(self) -> bool:
        return self.facts.origin == "fork"

    @property
    def is_dependabot(self) -> bool:
        return self.facts.origin == "dependabot"


@dataclass(frozen=True)
class ActionSettings:
    """Everything the plan decides from."""

    inputs: ActionInputs
    event: EventContext
    workspace: Path
    # "input NAME: what is wrong" for every bad input (the run is refused with all of them).
    input_problems: tuple[str, ...] = ()
    # Whether a provider key reached the job (an input or an OPENAI_/ANTHROPIC_API_KEY variable).
    has_key: bool = False
    run_url: str = ""
    api_url: str = "https://api.github.com"
    summary_path: str = ""
    output_path: str = ""

    @property
    def output_dir(self) -> Path:
        return self.workspace / self.inputs.output_dir

    @property
    def cache_dir(self) -> Path:
        return cache_directory(self.inputs, self.workspace)


def cache_directory(inputs: ActionInputs, workspace: Path) -> Path:
    """The response cache of every run: the ``cache`` input, else the gate's own directory. Always
    on, so that runs on the base branch warm it for pull requests (the workflows persist it). Pure."""
    return workspace / (inputs.cache or CACHE_DIRECTORY)


def _flag(value: str, name: str, default: bool, problems: list[str]) -> bool:
    text = value.strip().lower()
    if not text:
        return default
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    problems.append(f"input {name}: expected true or false, got {value!r}")
    return default


def _list(value: str) -> tuple[str, ...]:
    return tuple(part for part in value.replace(",", "\n").split() if part)


_CHECKS: tuple[tuple[str, Callable[[str], Any]], ...] = (
    ("threshold", rate),
    ("fail_on", fail_on),
    ("max_error_rate", error_rate),
    ("trials", trial_count),
    ("concurrency", positive_int),
    ("max_requests", positive_int),
    ("max_cost", positive_float),
    ("timeout", positive_float),
    ("pr_number", positive_int),
    ("fix_candidates", fix_candidates),
    ("fix_budget", fix_budget),
    ("model", model_choice),
    ("judge_model", model_choice),
    ("fix_model", model_choice),
)


def read_inputs(env: Mapping[str, str]) -> tuple[ActionInputs, tuple[str, ...]]:
    """The action's inputs from ``INPUT_<NAME>`` variables (GitHub upper-cases the names), and a
    message naming the input for each bad one. Pure."""

    def get(name: str, default: str = "") -> str:
        value = env.get(f"INPUT_{name.upper()}")
        return value.strip() if value is not None and value.strip() else default

    defaults = ActionInputs()
    problems: list[str] = []
    inputs = ActionInputs(
        github_token=get("github_token"),
        suites=_list(get("suites")),
        threshold=get("threshold"),
        changed_only=_flag(get("changed_only"), "changed_only", defaults.changed_only, problems),
        comment=_flag(get("comment"), "comment", defaults.comment, problems),
        review_comments=_flag(get("review_comments"), "review_comments", defaults.review_comments, problems),
        fail_on=get("fail_on", defaults.fail_on).replace("-", "_"),
        errors=get("errors", defaults.errors),
        max_error_rate=get("max_error_rate"),
        concurrency=get("concurrency"),
        trials=get("trials"),
        trials_policy=get("trials_policy", defaults.trials_policy),
        model=get("model"),
        judge_model=get("judge_model"),
        shard=get("shard"),
        baseline=get("baseline", defaults.baseline),
        cache=get("cache"),
        replay=_flag(get("replay"), "replay", defaults.replay, problems),
        openai_api_key=get("openai_api_key"),
        anthropic_api_key=get("anthropic_api_key"),
        openai_base_url=get("openai_base_url"),
        anthropic_base_url=get("anthropic_base_url"),
        output_dir=get("output_dir", defaults.output_dir),
        marker=get("marker", defaults.marker),
        results=_list(get("results")),
        pr_number=get("pr_number"),
        max_cost=get("max_cost"),
        prices=get("prices"),
        max_requests=get("max_requests"),
        timeout=get("timeout"),
        comment_author=get("comment_author", defaults.comment_author),
        fork_approval_label=get("fork_approval_label"),
        cases=_list(get("cases")),
        tags=_list(get("tags")),
        rerun_failed=get("rerun_failed"),
        commands=get("commands", defaults.commands).lower(),
        suggest_fixes=_flag(get("suggest_fixes"), "suggest_fixes", defaults.suggest_fixes, problems),
        fix_model=get("fix_model"),
        fix_candidates=get("fix_candidates"),
        fix_budget=get("fix_budget"),
    )
    for name, check in _CHECKS:
        value = getattr(inputs, name)
        if value:
            try:
                check(value)
            except argparse.ArgumentTypeError as exc:
                problems.append(f"input {name}: {exc}")
    if inputs.errors not in ("count", "ignore"):
        problems.append(f"input errors: choose from count, ignore (got {inputs.errors!r})")
    if inputs.commands not in ("allow", "refuse"):
        problems.append(f"input commands: choose from allow, refuse (got {inputs.commands!r})")
    if inputs.trials_policy not in TRIALS_POLICIES:
        choices = ", ".join(TRIALS_POLICIES)
        problems.append(f"input trials_policy: choose from {choices} (got {inputs.trials_policy!r})")
    if Path(inputs.output_dir).is_absolute() or ".." in Path(inputs.output_dir).parts:
        problems.append(f"input output_dir: a directory inside the repository, got {inputs.output_dir!r}")
        inputs = replace(inputs, output_dir=defaults.output_dir)
    if Path(inputs.cache).is_absolute() or ".." in Path(inputs.cache).parts:
        problems.append(f"input cache: a directory inside the repository, got {inputs.cache!r}")
        inputs = replace(inputs, cache=defaults.cache)
    return inputs, tuple(problems)


def read_event(
    event_name: str,
    payload: Mapping[str, Any] | None,
    actor: str = "",
    repository: str = "",
    approval_label: str = "",
) -> EventContext:
    """The pull request (if any) of the triggering event, and what it says for the trust decision
    (``approval_label``: the ``fork_approval_label`` input; a ``payload`` of None is an event file that
    could not be read). Pure."""
    facts = event_facts(
        event_name, payload, actor=actor, repository=repository, approval_label=approval_label
    )
    payload = payload or {}
    pull = payload.get("pull_request")
    repo_name = repository or str((payload.get("repository") or {}).get("full_name", ""))
    action = str(payload.get("action") or "")
    if isinstance(pull, Mapping):
        base = pull.get("base") or {}
        head = pull.get("head") or {}
        base_repo = (base.get("repo") or {}).get("full_name", "")
        label = payload.get("label")
        return EventContext(
            event_name=event_name,
            repository=repo_name or base_repo,
            pr_number=int(pull["number"]) if pull.get("number") is not None else None,
            base_sha=str(base.get("sha") or ""),
            head_sha=str(head.get("sha") or ""),
            facts=facts,
            action=action,
            label=str(label.get("name") or "") if isinstance(label, Mapping) else "",
        )
    run = payload.get("workflow_run")
    if isinstance(run, Mapping):
        pulls = run.get("pull_requests") or []
        number = pulls[0].get("number") if pulls and isinstance(pulls[0], Mapping) else None
        return EventContext(
            event_name=event_name,
            repository=repo_name,
            pr_number=int(number) if number is not None else None,
            head_sha=str(run.get("head_sha") or ""),
            workflow_run_head_sha=str(run.get("head_sha") or ""),
            workflow_run_head_repo=str((run.get("head_repository") or {}).get("full_name") or ""),
            facts=facts,
            action=action,
        )
    queued = payload.get("merge_group")
    if isinstance(queued, Mapping):  # a merge queue's group: its changes are those since the queue's base
        return EventContext(
            event_name=event_name,
            repository=repo_name,
            head_sha=str(queued.get("head_sha") or ""),
            before_sha=str(queued.get("base_sha") or ""),
            facts=facts,
            action=action,
        )
    before = str(payload.get("before") or "")
    if set(before) <= {"0"}:  # a new branch: no previous commit
        before = ""
    return EventContext(
        event_name=event_name,
        repository=repo_name,
        head_sha=str(payload.get("after") or ""),
        before_sha=before,
        facts=facts,
        action=action,
    )


def read_settings(env: Mapping[str, str], payload: Mapping[str, Any] | None, cwd: Path) -> ActionSettings:
    """The settings of one action run from the runner's variables and the event payload. Pure."""
    inputs, problems = read_inputs(env)
    event = read_event(
        env.get("GITHUB_EVENT_NAME", ""),
        payload,
        env.get("GITHUB_ACTOR", ""),
        env.get("GITHUB_REPOSITORY", ""),
        inputs.fork_approval_label,
    )
    if inputs.pr_number and not any(p.startswith("input pr_number:") for p in problems):
        event = replace(event, pr_number=int(inputs.pr_number))
    server, repo, run_id = (
        env.get("GITHUB_SERVER_URL"),
        env.get("GITHUB_REPOSITORY"),
        env.get("GITHUB_RUN_ID"),
    )
    return ActionSettings(
        inputs=inputs,
        event=event,
        workspace=Path(env.get("GITHUB_WORKSPACE") or cwd),
        input_problems=problems,
        has_key=bool(
            inputs.openai_api_key
            or inputs.anthropic_api_key
            or any(env.get(name) for name in KEY_VARIABLES.values())
        ),
        run_url=f"{server}/{repo}/actions/runs/{run_id}" if server and repo and run_id else "",
        api_url=env.get("GITHUB_API_URL") or "https://api.github.com",
        summary_path=env.get("GITHUB_STEP_SUMMARY", ""),
        output_path=env.get("GITHUB_OUTPUT", ""),
    )
