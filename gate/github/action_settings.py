"""What the action was asked to do, read once: its inputs (``gate.github.action_inputs``), the
triggering event and the runner's paths. Pure: everything comes from the mapping and the event payload
given; a bad input is recorded as an ``input_problems`` entry naming the input (the plan refuses with
it), never raised, so that even that exit path writes every output and hands the workspace back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from gate import CACHE_DIRECTORY
from gate.github.action_inputs import ActionInputs, read_inputs
from gate.results.settings import MadeFor
from gate.suite.model import KEY_VARIABLES
from gate.trust.facts import EventFacts, event_facts
from gate.trust.made_for import expected


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
    # What saved results (``results``) must have been made for: this commit in this run, or on
    # workflow_run the commit and run that triggered it (gate.trust.made_for).
    made_for: MadeFor = MadeFor()
    run_id: str = ""  # GITHUB_RUN_ID: the run this job belongs to (its results say it)

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
        made_for=expected(event.facts, env.get("GITHUB_SHA", ""), run_id or ""),
        run_id=run_id or "",
    )
