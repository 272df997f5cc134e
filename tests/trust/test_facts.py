"""What the CI environment and a GitHub event say, for the trust decision: pure, from mappings."""

from __future__ import annotations

from typing import Any

import pytest

from gate.trust.facts import CheckoutFacts, ci_variable, event_facts

HEAD, BASE, OTHER = "h" * 40, "b" * 40, "o" * 40


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, ""),
        ({"CI": "true"}, "CI"),
        ({"CI": "false", "GITHUB_ACTIONS": "true"}, "GITHUB_ACTIONS"),
        ({"CI": "0"}, ""),
        ({"TF_BUILD": "True"}, "TF_BUILD"),
        ({"JENKINS_URL": "https://ci.example/"}, "JENKINS_URL"),
    ],
)
def test_ci_is_recognised_by_its_variables(environ: dict[str, str], expected: str) -> None:
    assert ci_variable(environ) == expected


def pull(head_repo: str | None = "acme/agents", user: str = "someone", **extra: Any) -> dict[str, Any]:
    return {
        "pull_request": {
            "number": 7,
            "user": {"login": user},
            "base": {"sha": BASE, "repo": {"full_name": "acme/agents"}},
            "head": {"sha": HEAD, "repo": {"full_name": head_repo} if head_repo else None},
        },
        **extra,
    }


def test_whose_commits_a_pull_requests_event_is_about() -> None:
    own = event_facts("pull_request", pull())
    assert (own.origin, own.head, own.base, own.pull_request, own.approved) == ("own", HEAD, BASE, True, "")
    assert event_facts("pull_request", pull("someone/agents")).origin == "fork"
    assert event_facts("pull_request", pull(None)).origin == "fork"  # the fork was deleted
    assert event_facts("pull_request", pull(user="dependabot[bot]")).origin == "dependabot"
    assert event_facts("pull_request", pull(), actor="dependabot[bot]").origin == "dependabot"


def test_an_approval_is_the_labeled_event_of_the_approval_label_on_pull_request_target() -> None:
    labeled = pull("someone/agents", action="labeled", label={"name": "eval-approved"})
    approved = event_facts("pull_request_target", labeled, approval_label="eval-approved")
    assert approved.approved == HEAD
    assert event_facts("pull_request_target", labeled).approved == ""  # no approval label configured
    assert event_facts("pull_request_target", labeled, approval_label="other").approved == ""
    pushed = pull("someone/agents", action="synchronize", label={"name": "eval-approved"})
    assert event_facts("pull_request_target", pushed, approval_label="eval-approved").approved == ""
    assert event_facts("pull_request", labeled, approval_label="eval-approved").approved == ""


def test_a_workflow_run_is_about_the_head_the_run_it_follows_ran_on() -> None:
    def run(head_repo: Any, **extra: Any) -> dict[str, Any]:
        return {"workflow_run": {"head_sha": HEAD, "head_repository": head_repo, **extra}}

    fork = event_facts("workflow_run", run({"full_name": "someone/agents"}), repository="acme/agents")
    assert (fork.origin, fork.head, fork.pull_request) == ("fork", HEAD, False)
    assert (
        event_facts("workflow_run", run({"full_name": "acme/agents"}), repository="acme/agents").origin
        == "own"
    )
    assert event_facts("workflow_run", run(None), repository="acme/agents").origin == "fork"
    assert event_facts("workflow_run", run({"full_name": "acme/agents"})).origin == "unknown"
    bot = run({"full_name": "acme/agents"}, actor={"login": "dependabot[bot]"})
    assert event_facts("workflow_run", bot, repository="acme/agents").origin == "dependabot"


def test_events_that_say_nothing_of_a_pull_requests_head() -> None:
    comment = {"issue": {"number": 7, "pull_request": {"url": "https://api/pulls/7"}}, "action": "created"}
    assert event_facts("issue_comment", comment).origin == "unknown"
    assert event_facts("issue_comment", {"issue": {"number": 8}}).origin == "own"  # not a pull request
    assert event_facts("pull_request", None).origin == "unknown"  # the event file could not be read
    push = event_facts("push", {"before": BASE, "after": HEAD})
    assert (push.origin, push.head, push.pull_request) == ("own", HEAD, False)
    assert event_facts("push", {"after": HEAD}, actor="dependabot[bot]").origin == "dependabot"
    queued = event_facts("merge_group", {"merge_group": {"head_sha": HEAD, "base_sha": BASE}})
    assert (queued.origin, queued.head) == ("own", HEAD)


def test_a_checkout_is_exactly_a_commit_or_its_merge_into_the_base() -> None:
    assert CheckoutFacts(HEAD, (BASE,)).is_exactly(HEAD, BASE)
    assert CheckoutFacts("m" * 40, (BASE, HEAD)).is_exactly(HEAD, BASE)  # refs/pull/N/merge
    assert not CheckoutFacts("d" * 40, (HEAD,)).is_exactly(HEAD, BASE)  # a commit pushed after it
    assert not CheckoutFacts("m" * 40, (OTHER, HEAD)).is_exactly(HEAD, BASE)  # merged into another base
    assert not CheckoutFacts("m" * 40, (BASE, HEAD)).is_exactly(HEAD, "")
    assert not CheckoutFacts("", ()).is_exactly("", "")
