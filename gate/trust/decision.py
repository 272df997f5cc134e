"""The one place trust is decided (DESIGN section 6, "Answers the PR can write are never trusted",
"Secrets go only where the repository's own code runs"; section 10, "Trust", "Contained").

``decide`` takes the facts the edges gathered (``gate.trust.facts``) and the suites a run evaluates,
and returns one ``Trust``: the commands the run may not start, whether nothing may be evaluated here
at all (``refused``), whether the run cannot be verified (``unverified``), how it uses the response
cache, what it says of its answers, and whether the cache may be saved afterwards. ``run`` renders
it (exit 2 at each command's line, ``Refused``, ``NotVerified``, the cache it opens, the note it
prints); the action renders it again (``verdict: refused`` / ``unverified``, ``cache_trusted``).

The rules, in the order they are applied:

1. **Commands** run only when allowed, and only on the events of ``COMMAND_EVENTS``
   (``gate.trust.commands``).
2. **No false pass on another commit**: a pull request's run whose checkout does not hold the pull
   request's head (``pull_request_target`` checks out the base) is refused.
3. **Secrets go only where the repository's own code runs**: on an event whose job holds the
   repository's secrets even for a fork (every event but those of ``COMMAND_EVENTS``:
   ``pull_request_target``, ``workflow_run``, ``issue_comment``...), a run with a key over a checkout
   that holds (or may hold) commits that are not the repository's own is refused, unless a maintainer
   approved that exact head commit (``pull_request_target``, the approval label): the checkout is that
   commit, or the merge of it into the base the event names, never a descendant; and the run has a
   cost cap.
4. **Verified is decided by who could have written the answers**, never by whether a key is set:
   - a run of a fork's or Dependabot's commits (or of commits the event does not place) that runs
     their code (commands allowed) is not verified, whatever key it has: that code, and whatever
     installed it in the job before the gate, could have written every answer the run would read;
   - in CI, a run that can only replay (``--replay``, or no key) is not verified when the cache
     directory may hold answers a pull request wrote (files git tracks, a symlink), or when a suite
     starts code of the checkout, which runs beside the cache the answers come from.
5. **The cache**: in CI a directory a pull request could have written is neither read nor written
   (a run that can ask the model keeps its answers in a temporary cache); outside CI it is used and
   the run says its answers are recorded ones. It may be saved for later runs only when it holds the
   gate's answers alone: not when distrusted, nor after a pull request's run started its programs.

A replay that cannot answer a request (it is not in the cache) makes the run not verified too; that
is known only once the run is over (``gate.run.runner``, ``RunResults.unverified``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gate.errors import EXIT_INCOMPLETE, EXIT_INVALID_INPUT, GateError, Problem
from gate.suite.model import Suite
from gate.trust.commands import ACTION_INPUT, ALLOW_FLAG, COMMAND_EVENTS, command_refusals, first_program
from gate.trust.facts import TrustFacts

# How a run uses its response cache: the directory itself (read and write), a temporary one of its own
# (the directory is neither read nor written), or none.
CacheUse = Literal["shared", "private", "none"]

WHERE_ONLY_THE_GATE_WRITES = (
    "keep the cache where only the gate writes it: restored by actions/cache into an untracked path "
    "(the default .tool-eval-gate/cache), or outside the checkout"
)


@dataclass(frozen=True)
class Trust:
    """What a run may do, and why not (see the module doc)."""

    commands: tuple[Problem, ...] = ()  # the commands it may not start (exit 2, at their lines)
    refused: str = ""  # why nothing may be evaluated here (exit 2, the action's verdict ``refused``)
    unverified: str = ""  # why the run cannot be verified (exit 3 before anything starts)
    cache: CacheUse = "none"
    note: str = ""  # what the run says of where its answers come from ("" nothing to say)
    savable: bool = False  # the cache directory holds only the gate's answers afterwards

    @property
    def blocked(self) -> bool:
        """Whether the run stops before anything starts."""
        return bool(self.commands or self.refused or self.unverified)


class Refused(GateError):
    """Nothing may be evaluated here (``Trust.refused``): exit 2, the action's verdict ``refused``."""

    exit_code = EXIT_INVALID_INPUT

    def __init__(self, trust: Trust):
        super().__init__(trust.refused)
        self.trust = trust


class NotVerified(GateError):
    """The run cannot be verified (``Trust.unverified``): exit 3, the action's verdict ``unverified``."""

    exit_code = EXIT_INCOMPLETE

    def __init__(self, trust: Trust):
        super().__init__(trust.unverified)
        self.trust = trust


def decide(facts: TrustFacts, suites: Sequence[Suite]) -> Trust:
    """The trust of a run that evaluates ``suites`` (with ``--baseline auto``, both sides') under
    ``facts``. Pure."""
    refusals = command_refusals(suites, allowed=facts.allow_commands, event_name=facts.event.name)
    if refusals:
        return Trust(commands=tuple(refusals))
    refused = _refusal(facts)
    if refused:
        return Trust(refused=refused)
    unverified = _unverified(facts, suites)
    if unverified:
        return Trust(unverified=unverified)
    cache, note = _cache_use(facts)
    distrusted = facts.cache is not None and bool(facts.cache.distrust)
    pull_requests_code = facts.allow_commands and facts.event.pull_request
    return Trust(
        cache=cache, note=note, savable=cache == "shared" and not distrusted and not pull_requests_code
    )


def _refusal(facts: TrustFacts) -> str:
    """Why nothing may be evaluated here (rules 2 and 3), or ""."""
    event, checkout = facts.event, facts.checkout
    if event.pull_request and event.head and checkout.holds_event_head is False:
        return (
            f"The checkout does not hold the pull request's head commit {event.head[:12]} (on "
            f"{event.name or 'this event'} the default checkout is the base branch), so the pull request's "
            "changes cannot be evaluated and no verdict is reported. Check out the pull request (the "
            "pull_request event does), or use the workflows of docs/github-action.md."
        )
    secrets_event = bool(event.name) and event.name not in COMMAND_EVENTS
    if not (secrets_event and event.origin != "own" and facts.key and checkout.holds_event_head is not False):
        return ""
    if event.approved and checkout.is_exactly(event.approved, event.base):
        if facts.capped:
            return ""
        return (
            "input max_cost: a maintainer-approved evaluation of a fork's pull request needs a cost cap "
            "(a pull request can spend budget); set max_cost (--max-cost)."
        )
    return _unapproved(facts)


def _unapproved(facts: TrustFacts) -> str:
    event, checkout = facts.event, facts.checkout
    if event.approved:
        held = f"the checkout is at {checkout.head[:12] or 'a commit git could not name'}"
        return (
            f"Refusing to evaluate: the maintainer's approval is for the head commit {event.approved[:12]} "
            f"of {event.who}, and {held}: only that exact commit (or its merge into the base "
            f"{event.base[:12]}) is approved, never a commit pushed after it. Check out "
            "github.event.pull_request.head.sha, as docs/github-action.md's approved workflow does."
        )
    holds = (
        f"holds the commit {event.head[:12]} of {event.who}"
        if checkout.holds_event_head
        else f"may hold a pull request's commits ({event.who})"
    )
    return (
        f"Refusing to evaluate: this {event.name} job holds the repository's secrets (a provider key is "
        f"set), and its checkout {holds}, so suites the pull request wrote would be evaluated with "
        "the key. Evaluate pull requests on pull_request (a fork's run there gets no secrets) and publish "
        "the results with workflow_run (docs/github-action.md), or let a maintainer approve one "
        "evaluation of that exact commit (pull_request_target with the fork_approval_label input)."
    )


def _unverified(facts: TrustFacts, suites: Sequence[Suite]) -> str:
    """Why the run cannot be verified before anything starts (rule 4), or ""."""
    event = facts.event
    if event.name and event.origin != "own" and facts.allow_commands and suites:
        return (
            f"not verified: this is {event.who}, and commands are allowed ({ALLOW_FLAG}, the action's "
            f"{ACTION_INPUT}): the job runs the pull request's code (its programs, and whatever installed "
            "them before the gate), which could have written any answer the run would read, the "
            "response cache's and a model server's of the job alike. A run that executes code the "
            "repository's maintainers did not write is never verified, whatever key it has (fix: evaluate "
            "such suites on the repository's own commits: a maintainer pushes the reviewed commits to a "
            "branch of the repository)"
        )
    if not facts.ci or not (facts.replay or not facts.key):
        return ""
    others = "--replay has no others" if facts.replay else "without a provider key only the cache answers"
    cache = facts.cache
    if cache is not None and cache.distrust:
        return (
            f"not verified: the response cache {cache.directory} {cache.distrust}. In CI ({facts.ci} is set) "
            f"the gate never takes answers a pull request can write, and {others}, so nothing can be "
            f"verified (fix: {WHERE_ONLY_THE_GATE_WRITES}; or run with a key)"
        )
    program = first_program(suites)
    if program:
        return (
            f"not verified: {program} runs code of the checkout under evaluation, which could write "
            f"answers of its own into the response cache while the run reads it. In CI ({facts.ci} is set) "
            f"the gate never takes answers a pull request can write, and {others}, so nothing can be "
            "verified (fix: evaluate these suites with a key, where the model answers)"
        )
    return ""


def _cache_use(facts: TrustFacts) -> tuple[CacheUse, str]:
    """How the run uses its cache, and what it says of it (rule 5)."""
    cache = facts.cache
    if cache is None:
        return "none", ""
    if not cache.distrust:
        return "shared", ""
    where = cache.directory
    if not facts.ci:
        recorded = f"note: the answers taken from {where} are recorded ones ({where} {cache.distrust})"
        return "shared", recorded if cache.committed else ""
    return "private", (
        f"warning: the response cache {where} {cache.distrust}: in CI ({facts.ci} is set) answers a pull "
        "request can write are not trusted, so none is read from it; this run asks the model and keeps "
        f"its answers in a temporary cache (fix: {WHERE_ONLY_THE_GATE_WRITES})"
    )
