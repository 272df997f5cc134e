"""What results were made for, and what a job that renders them expects (pure)."""

from __future__ import annotations

from gate.results.settings import MadeFor
from gate.trust.facts import CheckoutFacts, EventFacts, event_facts
from gate.trust.made_for import expected, made_for, refusal

HEAD, BASE, MERGE, OTHER = "h" * 40, "b" * 40, "m" * 40, "o" * 40
PULL = EventFacts("pull_request", head=HEAD, base=BASE, pull_request=True)


def test_a_pull_request_s_results_are_for_its_head_also_under_the_merge_ref() -> None:
    assert made_for(PULL, CheckoutFacts(HEAD, (BASE,)), "7") == MadeFor(HEAD, "7")
    assert made_for(PULL, CheckoutFacts(MERGE, (BASE, HEAD)), "7") == MadeFor(HEAD, "7")
    # A checkout that is neither (a later commit, the base): its own HEAD, which no job expects.
    assert made_for(PULL, CheckoutFacts(OTHER, (HEAD,)), "7") == MadeFor(OTHER, "7")
    assert made_for(PULL, CheckoutFacts(BASE, (HEAD, OTHER)), "7") == MadeFor(BASE, "7")
    assert made_for(EventFacts(), CheckoutFacts(OTHER), "") == MadeFor(OTHER, "")


def test_the_publishing_run_expects_the_run_that_triggered_it() -> None:
    payload = {"workflow_run": {"id": 123, "head_sha": HEAD, "head_repository": {"full_name": "a/b"}}}
    event = event_facts("workflow_run", payload, repository="a/b")
    assert expected(event, MERGE, "999") == MadeFor(HEAD, "123")
    assert expected(PULL, MERGE, "999") == MadeFor(HEAD, "999")  # a merge job of the same run
    assert expected(EventFacts("schedule"), OTHER, "5") == MadeFor(OTHER, "5")
    unnamed = event_facts("workflow_run", {"workflow_run": {"head_sha": HEAD}}, repository="a/b")
    assert expected(unnamed, MERGE, "999") == MadeFor(HEAD, "")  # the action refuses to render then


def test_only_results_made_for_what_is_wanted_are_rendered() -> None:
    wanted = MadeFor(HEAD, "7")
    assert refusal(MadeFor(HEAD, "7"), wanted) == ""
    assert "made for commit oooooooooooo in run 7, not for commit hhhhhhhhhhhh in run 7" in refusal(
        MadeFor(OTHER, "7"), wanted
    )
    assert "in run 6" in refusal(MadeFor(HEAD, "6"), wanted)
    assert "do not say which commit" in refusal(None, wanted)
    assert "do not say which commit" in refusal(MadeFor(), wanted)
    assert refusal(MadeFor(HEAD, "6"), MadeFor(HEAD, "")) == ""  # only the commit was asked


def test_what_a_forged_file_says_is_quoted_inert() -> None:
    said = refusal(
        MadeFor("@octocat\n::error::x", "1\n::set-output name=verdict::passed" + "9" * 99), MadeFor(HEAD, "7")
    )
    assert "\n" not in said and "::" not in said and "@" not in said
    assert "made for commit octocate in run 1setoutputnameverd," in said
