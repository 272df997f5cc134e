"""The facts trust is decided from, gathered at the edges: what the CI environment and the GitHub
event say (whose commits the run holds, the head a maintainer approved), what git says of the
checkout, whether a key is set, what the run was asked, and who could have written the response
cache. Pure: mappings and payloads in, frozen values out; the edges (``gate.commands.run``,
``gate.git.checkout``, ``gate.run.cache``) do the reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

# Whose commits a GitHub event is about: the repository's own (a branch of it, a push, the schedule, a
# maintainer's dispatch), a fork's pull request, Dependabot's (its runs get no secrets either, and its
# changes are a third party's code), or one the event does not say (a comment on a pull request).
Origin = Literal["own", "fork", "dependabot", "unknown"]
DEPENDABOT = "dependabot[bot]"

# The variables by which CI systems say a run is theirs: GitHub Actions, GitLab, CircleCI, Travis,
# Buildkite and most others set CI; Azure Pipelines sets TF_BUILD and Jenkins JENKINS_URL.
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "TF_BUILD", "JENKINS_URL")
_NOT_SET = ("", "0", "false", "no", "off")


def ci_variable(environ: Mapping[str, str]) -> str:
    """The variable that says this run is in CI; "" outside CI."""
    return next((n for n in CI_VARIABLES if environ.get(n, "").strip().lower() not in _NOT_SET), "")


@dataclass(frozen=True)
class EventFacts:
    """What the GitHub Actions event of a run says about the commits it holds."""

    name: str = ""  # GITHUB_EVENT_NAME; "" outside GitHub Actions (or without an event)
    origin: Origin = "own"
    head: str = ""  # the commit the event is about: a pull request's head, a workflow_run's head
    base: str = ""  # a pull request's base commit
    pull_request: bool = False  # the event is a pull request's (its checkout should hold its head)
    # The head commit a maintainer approved on this event ("" none): on pull_request_target, the head of
    # the moment the approval label (the action's ``fork_approval_label``) was added.
    approved: str = ""
    run: str = ""  # on workflow_run: the id of the run that triggered this one (whose artifacts it reads)

    @property
    def who(self) -> str:
        """Whose commits, as messages say it."""
        return {
            "own": "the repository's own commits",
            "fork": "a pull request from a fork",
            "dependabot": "a Dependabot pull request",
            "unknown": "an event that does not say whose commits it is about",
        }[self.origin]


def _get(data: Any, *keys: str) -> Any:
    """``data[k1][k2]...``, or None where a level is missing or not a mapping."""
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def event_facts(
    name: str,
    payload: Mapping[str, Any] | None,
    *,
    actor: str = "",
    repository: str = "",
    approval_label: str = "",
) -> EventFacts:
    """The facts of event ``name`` with ``payload`` (the event file; None when it could not be read:
    whose commits the run holds is then unknown), triggered by ``actor`` in ``repository``;
    ``approval_label`` is the label by which a maintainer approves one evaluation of a fork's head on
    ``pull_request_target`` ("" none). Pure."""
    if payload is None:
        return EventFacts(name, origin="unknown")
    repository = repository or _text(_get(payload, "repository", "full_name"))
    dependabot = actor == DEPENDABOT
    pull = payload.get("pull_request")
    if isinstance(pull, Mapping):
        base_repo = _text(_get(pull, "base", "repo", "full_name"))
        head_repo = _text(_get(pull, "head", "repo", "full_name"))  # None when the fork was deleted
        origin: Origin = "fork" if base_repo and head_repo != base_repo else "own"
        if origin == "own" and (dependabot or _get(pull, "user", "login") == DEPENDABOT):
            origin = "dependabot"
        head = _text(_get(pull, "head", "sha"))
        label = _text(_get(payload, "label", "name"))
        labeled = name == "pull_request_target" and payload.get("action") == "labeled"
        return EventFacts(
            name=name,
            origin=origin,
            head=head,
            base=_text(_get(pull, "base", "sha")),
            pull_request=True,
            approved=head if labeled and approval_label and label == approval_label else "",
        )
    run = payload.get("workflow_run")
    if isinstance(run, Mapping):  # whose head the run that triggered this one ran on
        head_repo = _text(_get(run, "head_repository", "full_name"))
        origin = "unknown" if not repository else "own" if head_repo == repository else "fork"
        if origin == "own" and (dependabot or _get(run, "actor", "login") == DEPENDABOT):
            origin = "dependabot"
        ran = run.get("id")
        ran_id = str(ran) if isinstance(ran, int) and not isinstance(ran, bool) else _text(ran)
        return EventFacts(name=name, origin=origin, head=_text(run.get("head_sha")), run=ran_id)
    if isinstance(_get(payload, "issue", "pull_request"), Mapping):  # a comment on a pull request
        return EventFacts(name=name, origin="unknown")
    queued = payload.get("merge_group")
    head = _text(queued.get("head_sha")) if isinstance(queued, Mapping) else _text(payload.get("after"))
    return EventFacts(name=name, origin="dependabot" if dependabot else "own", head=head)


@dataclass(frozen=True)
class CheckoutFacts:
    """What git says of the checkout under evaluation."""

    head: str = ""  # HEAD's commit ("" when git could not tell)
    parents: tuple[str, ...] = ()  # HEAD's parents (a pull request's merge ref: base, then head)
    # Whether the event's head is HEAD, one of its parents or an ancestor of it: the checkout holds
    # the event's commits (None: the event names no head, or git could not tell).
    holds_event_head: bool | None = None

    def is_exactly(self, commit: str, base: str) -> bool:
        """Whether the checkout is ``commit`` itself, or the merge of it into ``base`` (the merge ref
        GitHub makes for a pull request: ``base`` its first parent, ``commit`` its second)."""
        if not commit:
            return False
        return self.head == commit or (bool(base) and self.parents == (base, commit))


@dataclass(frozen=True)
class CacheFacts:
    """The response cache directory of a run, and who could have written it."""

    directory: str
    # Why its answers may not all be the gate's own ("" when only the gate can have written them):
    # files git tracks, a symlink on the way to it, or git could not tell.
    distrust: str = ""
    committed: bool = False  # the distrust is files git tracks (committed cassettes)


@dataclass(frozen=True)
class TrustFacts:
    """Everything a run's trust is decided from (``gate.trust.decision.decide``), but its suites."""

    event: EventFacts = field(default_factory=EventFacts)
    checkout: CheckoutFacts = field(default_factory=CheckoutFacts)
    ci: str = ""  # the variable that says the run is CI's ("" outside CI)
    key: bool = False  # a provider key is set: the run can ask a model
    replay: bool = False  # --replay: answers from the cache only
    allow_commands: bool = False  # --allow-commands (the action: commands: allow)
    capped: bool = False  # --max-cost is set
    cache: CacheFacts | None = None  # None: the run uses no response cache
