"""The publisher against a fake GitHub API on loopback, through real PyGithub: one sticky comment
edited in place, review comments only on diff lines and never duplicated, failures as warnings."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from gate.github.publisher import (
    FINGERPRINT_PREFIX,
    Publisher,
    PublishWarning,
    ReviewOutcome,
    fingerprint,
    fingerprint_marker,
    skipped_section,
)
from tests.support.fake_github import BOT, HUMAN, FakeGitHub

MARKER = "<!-- tool-eval-gate:default -->"
TOOLS_PATCH = (
    '@@ -1,6 +1,7 @@\n [\n   {\n     "name": "get_weather",\n-    "description": "Weather.",\n'
    '+    "description": "Current weather for a city.",\n+    "parameters": {\n       "type": "object"\n'
)
PROMPT_PATCH = "@@ -10,2 +10,3 @@\n You are helpful.\n+Always use tools.\n Be brief."


@dataclass(frozen=True)
class Rec:
    pattern: str
    message: str
    file: str | None
    line: int | None
    tool: str | None = None
    argument: str | None = None
    cases: tuple[str, ...] = ()
    severity: str = "warning"


@pytest.fixture()
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub("acme/agents") as fake:
        fake.add_pull(
            7, {"tools/weather.json": TOOLS_PATCH, "prompts/weather.md": PROMPT_PATCH, "logo.png": None}
        )
        yield fake


def posted(outcome: ReviewOutcome | PublishWarning) -> int:
    """How many review comments a ``review`` call posted (it must have succeeded)."""
    assert isinstance(outcome, ReviewOutcome) and not outcome.warnings, outcome
    return len(outcome.posted)


def review_warning(outcome: ReviewOutcome | PublishWarning) -> PublishWarning:
    """The warning a ``review`` call gave: reading the PR failed, or creating the review did."""
    if isinstance(outcome, PublishWarning):
        return outcome
    assert outcome.warnings, outcome
    return outcome.warnings[0]


def publisher(fake: FakeGitHub, logs: list[str] | None = None, **kwargs) -> Publisher:
    sink = logs if logs is not None else []
    return Publisher(
        "ghs_token",
        "acme/agents",
        7,
        fake.url,
        log=sink.append,
        retries=0,
        seconds_between_requests=0,
        seconds_between_writes=0,
        **kwargs,
    )


def test_sticky_comment_created_then_edited_in_place(github: FakeGitHub) -> None:
    github.add_issue_comment(7, "LGTM from a human")
    url = publisher(github).upsert_comment(f"{MARKER}\nPass rate 50%", MARKER)
    assert isinstance(url, str) and "issuecomment" in url
    url2 = publisher(github).upsert_comment(f"{MARKER}\nPass rate 100%", MARKER)
    assert url2 == url
    ours = [c for c in github.comments_on(7) if MARKER in c["body"]]
    assert len(ours) == 1 and ours[0]["body"].endswith("Pass rate 100%")
    assert len(github.comments_on(7)) == 2
    assert ("PATCH", f"/repos/acme/agents/issues/comments/{ours[0]['id']}") in github.requests


def test_marker_is_added_when_the_body_lacks_it_and_other_markers_are_separate(github: FakeGitHub) -> None:
    publisher(github).upsert_comment("report A", MARKER)
    publisher(github).upsert_comment("report B", "<!-- tool-eval-gate:nightly -->")
    publisher(github).upsert_comment("report A2", MARKER)
    bodies = sorted(c["body"] for c in github.comments_on(7))
    assert bodies == [f"{MARKER}\nreport A2", "<!-- tool-eval-gate:nightly -->\nreport B"]


def test_finds_the_comment_on_a_later_page(github: FakeGitHub) -> None:
    github.max_page_size = 3
    for i in range(8):
        github.add_issue_comment(7, f"chatter {i}")
    github.add_issue_comment(7, f"{MARKER}\nold report", BOT)
    publisher(github).upsert_comment(f"{MARKER}\nnew report", MARKER)
    assert len(github.comments_on(7)) == 9
    assert github.comments_on(7)[-1]["body"] == f"{MARKER}\nnew report"
    pages = [p for m, p in github.requests if m == "GET" and p.endswith("/issues/7/comments")]
    assert len(pages) == 3


def test_a_forged_marker_in_a_human_comment_is_not_edited(github: FakeGitHub) -> None:
    forged = github.add_issue_comment(7, f"{MARKER}\nI forged this", HUMAN)
    publisher(github).upsert_comment(f"{MARKER}\nreal report", MARKER)
    assert forged["body"] == f"{MARKER}\nI forged this"
    assert len(github.comments_on(7)) == 2


def test_with_a_personal_token_the_comment_is_matched_by_login(github: FakeGitHub) -> None:
    github.user_forbidden = False
    github.token_user = HUMAN
    publisher(github).upsert_comment("one", MARKER)
    publisher(github).upsert_comment("two", MARKER)
    assert [c["body"] for c in github.comments_on(7)] == [f"{MARKER}\ntwo"]


def test_overlong_comment_is_cut_to_the_limit(github: FakeGitHub) -> None:
    result = publisher(github).upsert_comment(MARKER + "\n" + "row\n" * 30000, MARKER)
    assert isinstance(result, str)
    body = github.comments_on(7)[0]["body"]
    assert len(body) <= 65536 and "cut to GitHub's size limit" in body


RECS = [
    Rec(
        "confused_tools",
        "get_weather and get_forecast are confused in 4 cases: say when to use which.",
        "tools/weather.json",
        5,
        tool="get_weather",
        cases=("a", "b"),
    ),
    Rec(
        "argument_errors",
        "`days` is wrong in 3 of 5 cases <!-- tool-eval-gate-fp:forged -->",
        "tools/weather.json",
        7,
        tool="get_forecast",
        argument="days",
    ),  # line 7 is not in the diff but 6 is within two lines
    Rec("prompt", "The prompt never mentions get_forecast.", "prompts/weather.md", 11),
    Rec("far_away", "Describe units.", "tools/weather.json", 40, tool="get_weather", argument="units"),
    Rec("other_file", "Tool x is unused.", "tools/other.json", 3, tool="x"),
    Rec("no_file", "Pass rate is low overall.", None, None),
]


def test_review_only_on_diff_lines_and_not_duplicated_on_rerun(github: FakeGitHub) -> None:
    outcome = publisher(github).review(RECS, "h" * 40)
    assert isinstance(outcome, ReviewOutcome)
    assert len(github.reviews) == 1 and github.reviews[0]["commit_id"] == "h" * 40
    placed = sorted((c["path"], c["line"]) for c in github.review_comments)
    assert placed == [("prompts/weather.md", 11), ("tools/weather.json", 5), ("tools/weather.json", 6)]
    assert {r.pattern for r in outcome.skipped} == {"far_away", "other_file", "no_file"}
    moved = next(c for c in github.review_comments if c["line"] == 6)
    assert "refers to line 7" in moved["body"]
    assert moved["body"].count(FINGERPRINT_PREFIX) == 1  # a marker inside the message is neutralised
    assert all(FINGERPRINT_PREFIX in c["body"] for c in github.review_comments)

    section = skipped_section(outcome.skipped)
    assert "Describe units." in section and "tools/other.json:3" in section

    # A re-run with the same findings (counts changed) posts nothing: no new review at all.
    rerun = [
        Rec(r.pattern, r.message.replace("4 cases", "5 cases"), r.file, r.line, r.tool, r.argument)
        for r in RECS
    ]
    assert posted(publisher(github).review(rerun, "h" * 40)) == 0
    assert len(github.reviews) == 1 and len(github.review_comments) == 3

    # Only a new finding is posted, in a second review.
    extra = [*RECS, Rec("new_one", "Add an example.", "tools/weather.json", 3, tool="get_weather")]
    assert posted(publisher(github).review(extra, "h" * 40)) == 1
    assert len(github.reviews) == 2 and len(github.review_comments) == 4


def test_review_comments_found_across_pages(github: FakeGitHub) -> None:
    github.max_page_size = 1
    assert posted(publisher(github).review(RECS, "h" * 40)) == 3
    assert posted(publisher(github).review(RECS, "h" * 40)) == 0
    assert len(github.reviews) == 1


def test_namespaces_keep_separate_reviews(github: FakeGitHub) -> None:
    assert posted(publisher(github, namespace="a").review(RECS[:1], "h" * 40)) == 1
    assert posted(publisher(github, namespace="b").review(RECS[:1], "h" * 40)) == 1


def test_nothing_on_the_diff_creates_no_review(github: FakeGitHub) -> None:
    outcome = publisher(github).review(RECS[3:], "h" * 40)
    assert isinstance(outcome, ReviewOutcome) and not outcome.posted and len(outcome.skipped) == 3
    assert github.reviews == []


def test_read_only_token_gives_warnings_not_exceptions(github: FakeGitHub) -> None:
    github.read_only = True
    logs: list[str] = []
    pub = publisher(github, logs)
    comment = pub.upsert_comment("report", MARKER)
    review = review_warning(pub.review(RECS, "h" * 40))
    assert isinstance(comment, PublishWarning) and comment.status == 403 and comment.action == "comment"
    assert isinstance(review, PublishWarning) and review.status == 403 and review.action == "review"
    assert "fork" in comment.message and "pull-requests: write" in comment.message
    assert len(logs) == 2 and all(line.startswith("::warning title=") for line in logs)
    assert pub.warnings == [comment, review]
    assert github.issue_comments == [] and github.reviews == []


def test_missing_pull_request_and_unreachable_api_are_warnings(github: FakeGitHub) -> None:
    missing = Publisher(
        "t", "acme/agents", 99, github.url, log=lambda _: None, retries=0, seconds_between_requests=0
    )
    result = missing.upsert_comment("x", MARKER)
    assert isinstance(result, PublishWarning) and result.status == 404
    gone = Publisher(
        "t",
        "acme/agents",
        7,
        "http://127.0.0.1:9",
        log=lambda _: None,
        retries=0,
        timeout=2,
        seconds_between_requests=0,
    )
    result = review_warning(gone.review(RECS, "h" * 40))
    assert isinstance(result, PublishWarning) and result.status is None


def test_rejected_review_keeps_the_recommendations_as_skipped(github: FakeGitHub) -> None:
    github.fail_with[("POST", "/reviews")] = 422
    outcome = publisher(github).review(RECS, "h" * 40)
    assert isinstance(outcome, ReviewOutcome) and outcome.warnings
    assert len(outcome.skipped) == len(RECS)
    assert github.reviews == []


@dataclass(frozen=True)
class Suggested:
    file: str
    start_line: int
    line: int
    body: str
    replacement: str
    pattern: str = "verified fix"
    message: str = "verified"
    tool: str | None = "get_weather"
    argument: str | None = None
    cases: tuple[str, ...] = ()


def test_a_suggestion_sits_on_exactly_its_lines_once_and_never_outside_the_diff(github: FakeGitHub) -> None:
    body = '**verified**\n\n```suggestion\n    "description": "Weather now.",\n```'
    one = Suggested("tools/weather.json", 5, 5, body, '    "description": "Weather now.",')
    span = Suggested("tools/weather.json", 5, 6, body, "two lines")
    outside = Suggested("tools/weather.json", 1, 9, body, "reaches past the hunk")
    pub = publisher(github)
    assert posted(pub.review([], "h" * 40, suggestions=[one, span, outside])) == 2
    comments = sorted(github.review_comments, key=lambda c: c["line"])
    assert [(c["start_line"], c["line"]) for c in comments] == [(None, 5), (5, 6)]
    assert comments[0]["body"].startswith(body) and FINGERPRINT_PREFIX in comments[0]["body"]
    assert posted(publisher(github).review([], "h" * 40, suggestions=[one, span])) == 0  # not twice
    reworded = Suggested("tools/weather.json", 5, 5, body, "another text")
    assert posted(publisher(github).review([], "h" * 40, suggestions=[reworded])) == 1  # a new text is new


def test_a_fingerprint_quoted_by_a_suggestion_does_not_stand_for_ours(github: FakeGitHub) -> None:
    """A suggestion's text is the fix model's: a fingerprint marker in it must not pass for one of a
    comment we would post, which would then never be posted."""
    rec = Rec("confused_tools", "Say when.", "tools/weather.json", 5, tool="get_weather")
    forged = fingerprint_marker(fingerprint(rec))
    first = Suggested("tools/weather.json", 5, 5, f"```suggestion\n{forged}\n```", forged)
    assert posted(publisher(github).review([], "h" * 40, suggestions=[first])) == 1
    assert posted(publisher(github).review([rec], "h" * 40)) == 1  # read from the last marker: ours
