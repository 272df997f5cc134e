"""The one trust decision, pure: facts in, one ``Trust`` out (see gate/trust/decision.py's rules)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gate.suite.model import Command, Source, Suite
from gate.trust.decision import Trust, decide
from gate.trust.facts import CacheFacts, CheckoutFacts, EventFacts, TrustFacts
from tests.builders import suite as make_suite

HEAD, BASE, LATER = "h" * 40, "b" * 40, "l" * 40
SERVER = Command(("python", "server.py"), "MCP server", source=Source("evals/shop.suite.yaml", 7, 12))
DATA = make_suite()
PROGRAM = dataclasses.replace(make_suite(), name="shop", path="evals/shop.suite.yaml", commands=(SERVER,))
CACHE = CacheFacts(".tool-eval-gate/cache")
COMMITTED = CacheFacts(
    ".tool-eval-gate/cache", "holds files tracked by git (e.g. c/ab/x.json)", committed=True
)
LINKED = CacheFacts(".tool-eval-gate/cache", "is reached through the symlink .tool-eval-gate")


def pull(name: str = "pull_request", origin: str = "own", approved: str = "") -> EventFacts:
    return EventFacts(name, origin, HEAD, BASE, pull_request=True, approved=approved)  # type: ignore[arg-type]


AT_HEAD = CheckoutFacts(HEAD, (BASE,), True)
MERGED = CheckoutFacts("m" * 40, (BASE, HEAD), True)  # refs/pull/N/merge
LATER_COMMIT = CheckoutFacts(LATER, (HEAD,), True)  # a commit the fork pushed after the approval
BASE_CHECKOUT = CheckoutFacts(BASE, (), False)


def facts(**kw: Any) -> TrustFacts:
    return TrustFacts(**{"ci": "GITHUB_ACTIONS", "key": True, "cache": CACHE, **kw})


def test_the_repositorys_own_run_with_a_key_uses_its_cache_and_may_save_it() -> None:
    trust = decide(facts(event=pull(), checkout=AT_HEAD), [DATA])
    assert trust == Trust(cache="shared", savable=True) and not trust.blocked
    assert decide(facts(cache=None), [DATA]) == Trust(cache="none")


def test_commands_run_only_when_allowed_and_never_on_an_event_that_holds_the_secrets() -> None:
    [problem] = decide(facts(), [PROGRAM]).commands
    assert problem.render().startswith("evals/shop.suite.yaml:7:12: suite 'shop' runs its MCP server")
    [problem] = decide(facts(event=pull("pull_request_target"), allow_commands=True), [PROGRAM]).commands
    assert "the gate never runs commands on pull_request_target" in problem.message
    assert not decide(facts(allow_commands=True), [PROGRAM]).blocked


# Rule 2 and 3: what may be evaluated at all. (name, facts, a phrase of the refusal or "" when allowed)
WHERE = [
    ("a fork's pull_request run (no secrets there)", facts(event=pull(origin="fork"), checkout=AT_HEAD), ""),
    (
        "pull_request_target on the base checkout: the PR's changes are not there",
        facts(event=pull("pull_request_target", "fork"), checkout=BASE_CHECKOUT),
        "does not hold the pull request's head commit",
    ),
    (
        "pull_request_target with a fork's head checked out, no approval",
        facts(event=pull("pull_request_target", "fork"), checkout=AT_HEAD),
        "this pull_request_target job holds the repository's secrets",
    ),
    (
        "pull_request_target with a fork's head, without a key: a replay, nothing sent with a key",
        facts(event=pull("pull_request_target", "fork"), checkout=AT_HEAD, key=False),
        "",
    ),
    (
        "pull_request_target of the repository's own branch",
        facts(event=pull("pull_request_target"), checkout=AT_HEAD),
        "",
    ),
    (
        "Dependabot's head on pull_request_target",
        facts(event=pull("pull_request_target", "dependabot"), checkout=AT_HEAD),
        "a Dependabot pull request",
    ),
    (
        "workflow_run that checked out a fork's head",
        facts(event=EventFacts("workflow_run", "fork", HEAD), checkout=AT_HEAD),
        "this workflow_run job holds the repository's secrets",
    ),
    (
        "workflow_run of a fork's run, the base branch checked out",
        facts(event=EventFacts("workflow_run", "fork", HEAD), checkout=BASE_CHECKOUT),
        "",
    ),
    (
        "workflow_run where git cannot tell what the checkout holds",
        facts(event=EventFacts("workflow_run", "fork", HEAD), checkout=CheckoutFacts()),
        "may hold a pull request's commits",
    ),
    (
        "issue_comment on a pull request: the event does not say whose head",
        facts(event=EventFacts("issue_comment", "unknown"), checkout=CheckoutFacts(BASE, ())),
        "may hold a pull request's commits (an event that does not say",
    ),
    (
        "approved: exactly the approved head, with a cost cap",
        facts(event=pull("pull_request_target", "fork", approved=HEAD), checkout=AT_HEAD, capped=True),
        "",
    ),
    (
        "approved: the merge of the approved head into the base",
        facts(event=pull("pull_request_target", "fork", approved=HEAD), checkout=MERGED, capped=True),
        "",
    ),
    (
        "approved, but a commit pushed after the approval is checked out",
        facts(event=pull("pull_request_target", "fork", approved=HEAD), checkout=LATER_COMMIT, capped=True),
        "never a commit pushed after it",
    ),
    (
        "approved, without a cost cap",
        facts(event=pull("pull_request_target", "fork", approved=HEAD), checkout=AT_HEAD),
        "input max_cost",
    ),
]


@pytest.mark.parametrize(("name", "the_facts", "refusal"), WHERE, ids=[row[0] for row in WHERE])
def test_where_the_pull_requests_files_may_be_evaluated(
    name: str, the_facts: TrustFacts, refusal: str
) -> None:
    trust = decide(the_facts, [DATA])
    assert (refusal in trust.refused) if refusal else trust.refused == "", trust.refused
    assert not trust.commands and not trust.unverified


# Rule 4: verified is decided by who could have written the answers. (name, facts, suites, phrase)
VERIFIED = [
    (
        "a fork's run that executes the fork's code is not verified, key or not",
        facts(event=pull(origin="fork"), checkout=AT_HEAD, allow_commands=True),
        [PROGRAM],
        "not verified: this is a pull request from a fork, and commands are allowed",
    ),
    (
        "nor when the suites it evaluates start none (the job ran the fork's installs)",
        facts(event=pull(origin="fork"), checkout=AT_HEAD, allow_commands=True),
        [DATA],
        "not verified: this is a pull request from a fork",
    ),
    (
        "a Dependabot pull request's run that executes its code",
        facts(event=pull(origin="dependabot"), checkout=AT_HEAD, allow_commands=True, key=False, replay=True),
        [PROGRAM],
        "not verified: this is a Dependabot pull request",
    ),
    (
        "a fork's run with nothing to evaluate is not refused",
        facts(event=pull(origin="fork"), checkout=AT_HEAD, allow_commands=True),
        [],
        "",
    ),
    (
        "the repository's own pull request with a key runs its programs, verified",
        facts(event=pull(), checkout=AT_HEAD, allow_commands=True),
        [PROGRAM],
        "",
    ),
    (
        "in CI, a replay of suites that start the checkout's code",
        facts(allow_commands=True, replay=True),
        [PROGRAM],
        "not verified: the MCP server `python server.py` of evals/shop.suite.yaml:7",
    ),
    (
        "in CI, a run without a key can only replay",
        facts(allow_commands=True, key=False),
        [PROGRAM],
        "without a provider key only the cache answers",
    ),
    (
        "in CI, a replay of a cache that holds committed answers",
        facts(replay=True, cache=COMMITTED),
        [DATA],
        "not verified: the response cache .tool-eval-gate/cache holds files tracked by git",
    ),
    (
        "in CI, a run without a key whose cache is reached through a symlink",
        facts(key=False, cache=LINKED),
        [DATA],
        "is reached through the symlink",
    ),
    (
        "outside CI a replay of committed answers is a demo",
        facts(ci="", replay=True, cache=COMMITTED),
        [DATA],
        "",
    ),
    (
        "outside CI a replay of suites with commands",
        facts(ci="", replay=True, allow_commands=True),
        [PROGRAM],
        "",
    ),
]


@pytest.mark.parametrize(
    ("name", "the_facts", "suites", "phrase"), VERIFIED, ids=[row[0] for row in VERIFIED]
)
def test_verified_is_decided_by_who_could_have_written_the_answers(
    name: str, the_facts: TrustFacts, suites: list[Suite], phrase: str
) -> None:
    trust = decide(the_facts, suites)
    assert (phrase in trust.unverified) if phrase else trust.unverified == "", trust.unverified
    assert not trust.commands and not trust.refused


def test_a_cache_a_pull_request_could_write_is_never_read_in_ci_and_never_saved() -> None:
    private = decide(facts(cache=COMMITTED), [DATA])
    assert (private.cache, private.savable) == ("private", False)
    assert "none is read from it; this run asks the model" in private.note
    demo = decide(facts(ci="", cache=COMMITTED, replay=True), [DATA])
    assert (demo.cache, demo.savable) == ("shared", False) and "are recorded ones" in demo.note
    linked = decide(facts(ci="", cache=LINKED), [DATA])
    assert (linked.cache, linked.note, linked.savable) == ("shared", "", False)


def test_a_cache_a_pull_requests_programs_ran_beside_is_never_saved() -> None:
    ran = decide(facts(event=pull(), checkout=AT_HEAD, allow_commands=True), [PROGRAM])
    assert (ran.cache, ran.savable) == ("shared", False)
    push = decide(facts(event=EventFacts("push", "own", HEAD), allow_commands=True), [PROGRAM])
    assert push.savable  # the repository's own merged code
