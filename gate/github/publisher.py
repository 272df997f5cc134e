"""Publishing to a pull request: the sticky comment and the review. The only module that imports
PyGithub (lazily, inside ``Publisher``).

Publishing never decides the verdict: a token without write access (fork PRs, Dependabot, missing
``permissions:``), a missing PR or any API failure becomes a ``PublishWarning`` that is returned,
remembered in ``Publisher.warnings`` and logged as a ``::warning::`` workflow command.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from gate.github.actions_env import annotation
from gate.github.diff_hunks import commentable_lines, nearest_commentable
from gate.util.escape import md_inline_code, md_text, neutralise_marker
from gate.util.json_types import JsonObject

# GitHub rejects issue and review comment bodies longer than this many characters.
MAX_COMMENT_CHARS = 65536
DEFAULT_API_URL = "https://api.github.com"
FINGERPRINT_PREFIX = "<!-- tool-eval-gate-fp:"
# The login GitHub gives comments written with an Actions GITHUB_TOKEN.
ACTIONS_BOT_LOGIN = "github-actions[bot]"


class RecommendationLike(Protocol):
    """What the publisher reads of ``gate.analysis.analyse.Recommendation``."""

    @property
    def pattern(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def file(self) -> str | None: ...
    @property
    def line(self) -> int | None: ...
    @property
    def tool(self) -> str | None: ...
    @property
    def argument(self) -> str | None: ...


@dataclass(frozen=True)
class PublishWarning:
    """Publishing failed; the run's verdict is unaffected."""

    action: Literal["comment", "review"]
    message: str
    status: int | None = None

    def render(self) -> str:
        return annotation("warning", self.message, title=f"tool-eval-gate could not post the {self.action}")


class SuggestionLike(Protocol):
    """What the publisher reads of ``gate.fixes.suggestions.Suggestion``: a review comment that
    replaces lines ``start_line``..``line`` of its file with a suggested change (``body``, whole)."""

    @property
    def pattern(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def tool(self) -> str | None: ...
    @property
    def argument(self) -> str | None: ...
    @property
    def start_line(self) -> int: ...
    @property
    def body(self) -> str: ...
    @property
    def replacement(self) -> str: ...


@dataclass(frozen=True)
class Placed:
    """A recommendation placed on a diff line (``line`` may differ from the recommendation's by a
    few lines when its own line is not in the diff), or a suggestion on exactly its lines
    (``start_line``..``line``)."""

    recommendation: Any
    file: str
    line: int
    fingerprint: str
    start_line: int = 0


@dataclass(frozen=True)
class ReviewOutcome:
    posted: tuple[Placed, ...] = ()
    # Recommendations that could not sit on a diff line (to be listed in the sticky comment).
    skipped: tuple[Any, ...] = ()
    warnings: tuple[PublishWarning, ...] = field(default_factory=tuple)


def fingerprint(recommendation: RecommendationLike, namespace: str = "") -> str:
    """A stable identity of a recommendation across runs: the pattern and what it points at (not the
    line, which moves as the file is edited, nor the counts in the message)."""
    key = "\0".join(
        str(getattr(recommendation, name, "") or "") for name in ("pattern", "file", "tool", "argument")
    )
    return hashlib.sha256(f"{namespace}\0{key}".encode()).hexdigest()[:16]


def fingerprint_marker(value: str) -> str:
    return f"{FINGERPRINT_PREFIX}{value} -->"


def review_comment_body(recommendation: RecommendationLike, fp: str, *, moved_from: int | None = None) -> str:
    """The body of one inline review comment. Tool and argument names may come from model output,
    so everything but our own words is escaped."""
    # The analysis writes its messages as Markdown with every name already escaped.
    lines = [f"**tool-eval-gate:** {neutralise_marker(recommendation.message)}"]
    details = []
    if getattr(recommendation, "tool", None):
        details.append(f"tool {md_inline_code(recommendation.tool)}")
    if getattr(recommendation, "argument", None):
        details.append(f"argument {md_inline_code(recommendation.argument)}")
    cases = getattr(recommendation, "cases", ()) or ()
    if cases:
        shown = ", ".join(md_inline_code(c) for c in list(cases)[:5])
        more = f" and {len(cases) - 5} more" if len(cases) > 5 else ""
        details.append(f"cases {shown}{more}")
    if details:
        lines.append("")
        lines.append(f"<sub>{md_text(recommendation.pattern)}: " + "; ".join(details) + "</sub>")
    if moved_from is not None:
        lines.append("")
        lines.append(f"<sub>This refers to line {int(moved_from)}, which is not part of the diff.</sub>")
    lines.append(fingerprint_marker(fp))
    return "\n".join(lines)


def skipped_section(skipped: Sequence[RecommendationLike]) -> str:
    """Markdown for the sticky comment listing recommendations that could not be placed on the diff."""
    if not skipped:
        return ""
    lines = ["", "#### Recommendations outside this pull request's diff", ""]
    for rec in skipped:
        where = ""
        if getattr(rec, "file", None):
            where = (
                md_inline_code(f"{rec.file}:{rec.line}" if getattr(rec, "line", None) else rec.file) + ": "
            )
        lines.append(f"- {where}{neutralise_marker(rec.message)}")
    return "\n".join(lines) + "\n"


def fit_comment(body: str, limit: int = MAX_COMMENT_CHARS) -> str:
    """``body`` cut to GitHub's comment size limit, with a note.

    Not ``gate.util.escape.truncate``: this fits a whole Markdown document, cutting at a line boundary so
    no table row or fence is split, and the note points at the full report."""
    if len(body) <= limit:
        return body
    note = "\n\n> **Note:** this comment was cut to GitHub's size limit; see the job summary and artifacts.\n"
    cut = body[: limit - len(note)]
    newline = cut.rfind("\n")
    if newline > len(cut) // 2:
        cut = cut[:newline]
    return cut + note


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status", None)
    return status if isinstance(status, int) else None


def _explain(action: str, exc: BaseException) -> str:
    status = _status(exc)
    data = getattr(exc, "data", None)
    detail = data.get("message", "") if isinstance(data, dict) else ""
    if status in (401, 403):
        why = (
            "the token may not write to this pull request (fork PRs and Dependabot PRs get a read-only "
            "token; otherwise grant `permissions: pull-requests: write`)"
        )
    elif status == 404:
        why = "the repository or pull request was not found with this token"
    elif status == 422:
        why = "GitHub rejected the request"
    elif status is not None:
        why = "the GitHub API failed"
    else:
        why = f"the GitHub API could not be reached ({type(exc).__name__})"
    code = f"HTTP {status}: " if status is not None else ""
    return f"could not post the {action}: {code}{why}" + (f" ({detail})" if detail else "")


def _comment(placed: Placed) -> JsonObject:
    """The review comment of a placed recommendation, or of a suggestion (its body whole: the suggested
    lines are committed as they are, so nothing in them is altered; a range needs ``start_line``)."""
    rec = placed.recommendation
    comment: JsonObject = {"path": placed.file, "line": placed.line, "side": "RIGHT"}
    if placed.start_line:
        comment["body"] = f"{rec.body}\n{fingerprint_marker(placed.fingerprint)}"
        if placed.start_line < placed.line:
            comment.update(start_line=placed.start_line, start_side="RIGHT")
        return comment
    moved = None if placed.line == rec.line else rec.line
    comment["body"] = fit_comment(review_comment_body(rec, placed.fingerprint, moved_from=moved))
    return comment


class Publisher:
    """Posts to one pull request through PyGithub. ``api_url`` is ``$GITHUB_API_URL`` (GitHub
    Enterprise: ``https://HOST/api/v3``). ``namespace`` separates several gate runs on one PR (it is
    part of the review comment fingerprints; the sticky comment has its own marker)."""

    def __init__(
        self,
        token: str,
        repo_full_name: str,
        pr_number: int,
        api_url: str = DEFAULT_API_URL,
        *,
        namespace: str = "",
        log: Callable[[str], None] | None = None,
        timeout: int = 20,
        retries: int = 2,
        seconds_between_requests: float = 0.25,
        seconds_between_writes: float = 1.0,
        fallback_login: str = ACTIONS_BOT_LOGIN,
    ) -> None:
        self.token = token
        self.repo_full_name = repo_full_name
        self.pr_number = int(pr_number)
        self.api_url = (api_url or DEFAULT_API_URL).rstrip("/")
        self.namespace = namespace
        self.warnings: list[PublishWarning] = []
        self._log = log or (lambda text: print(text, file=sys.stdout, flush=True))
        self._timeout = timeout
        self._retries = retries
        # PyGithub's pacing (GitHub asks integrations not to burst writes); tests set both to 0.
        self._pacing = (seconds_between_requests, seconds_between_writes)
        self._github: Any = None
        self._pull: Any = None
        self._own_login: str | None = None  # looked up once, on the first need
        self._fallback_login = fallback_login

    # -- plumbing ------------------------------------------------------------------------
    def _client(self) -> Any:
        if self._github is None:
            from github import Auth, Github  # lazy: only publishing pays for PyGithub

            self._github = Github(
                auth=Auth.Token(self.token),
                base_url=self.api_url,
                timeout=self._timeout,
                retry=self._retries,
                per_page=100,
                lazy=True,
                seconds_between_requests=self._pacing[0],
                seconds_between_writes=self._pacing[1],
            )
        return self._github

    def _pull_request(self) -> Any:
        if self._pull is None:
            self._pull = self._client().get_repo(self.repo_full_name).get_pull(self.pr_number)
        return self._pull

    def _own_account(self) -> str:
        """The login our comments are written under: the token's user when ``GET /user`` answers (a
        personal token), else ``fallback_login``. An Actions ``GITHUB_TOKEN`` (and a GitHub App's
        installation token) gets 403 there; ``GITHUB_TOKEN`` always writes as
        ``github-actions[bot]``, an App as ``<app-slug>[bot]`` (the ``comment_author`` input)."""
        if self._own_login is None:
            try:
                self._own_login = str(self._client().get_user().login)
            except Exception:  # noqa: BLE001 - 403 for installation tokens: the known bot identity
                self._own_login = self._fallback_login
        return self._own_login

    def _is_own(self, user: Any) -> bool:
        """Only a comment written under our own login is ours: another bot's comment that carries
        our marker (copied, forged or another tool's) is never edited."""
        return user is not None and str(getattr(user, "login", "")) == self._own_account()

    def _warn(self, action: Literal["comment", "review"], exc: BaseException) -> PublishWarning:
        warning = PublishWarning(action, _explain(action, exc), _status(exc))
        self.warnings.append(warning)
        self._log(warning.render())
        return warning

    # -- the sticky comment --------------------------------------------------------------
    def upsert_comment(self, body: str, marker: str, *, create: bool = True) -> str | PublishWarning:
        """Edit the comment carrying ``marker`` (ours, the first found over every page) in place, or
        create it (only when ``create``). Returns the comment's URL ("" when there was none to
        update), or a ``PublishWarning``."""
        if marker not in body:
            body = f"{marker}\n{body}"
        body = fit_comment(body)
        try:
            pull = self._pull_request()
            existing = None
            for comment in pull.get_issue_comments():
                if marker in (comment.body or "") and self._is_own(comment.user):
                    existing = comment
                    break
            if existing is not None:
                if existing.body != body:
                    existing.edit(body)
                return str(existing.html_url)
            if not create:
                return ""
            created = pull.create_issue_comment(body)
            return str(created.html_url)
        except Exception as exc:  # noqa: BLE001 - never let publishing change the verdict
            return self._warn("comment", exc)

    # -- the review ----------------------------------------------------------------------
    def review(
        self,
        recommendations: Sequence[RecommendationLike],
        head_sha: str,
        *,
        window: int = 2,
        body: str = "",
        suggestions: Sequence[SuggestionLike] = (),
    ) -> ReviewOutcome | PublishWarning:
        """Post one review (``event=COMMENT``) with a comment per recommendation on its line of the
        diff (or a line at most ``window`` away), and a suggested change per suggestion whose every
        line is in the diff (a suggestion replaces exactly its lines: it never moves); recommendations
        outside the diff are returned as ``skipped`` (suggestions outside it are not: the sticky
        comment shows every verified edit); ones already posted on an earlier run (same fingerprint)
        are not posted again. No review is created when nothing is new."""
        try:
            pull = self._pull_request()
            lines_by_file = {
                changed.filename: commentable_lines(changed.patch) for changed in pull.get_files()
            }
            existing = self._posted_fingerprints(pull)
        except Exception as exc:  # noqa: BLE001
            return self._warn("review", exc)
        new, skipped = self._place(recommendations, lines_by_file, existing, window)
        new = self._place_suggestions(suggestions, lines_by_file, existing) + new
        if not new:
            return ReviewOutcome(skipped=tuple(skipped))
        summary = body or (
            f"tool-eval-gate found {len(new)} thing(s) to improve in the definitions this pull request "
            "changes."
        )
        try:
            self._create_review(pull, new, summary, head_sha)
        except Exception as exc:  # noqa: BLE001
            warning = self._warn("review", exc)
            return ReviewOutcome(
                skipped=tuple(skipped) + tuple(p.recommendation for p in new), warnings=(warning,)
            )
        return ReviewOutcome(posted=tuple(new), skipped=tuple(skipped))

    def _posted_fingerprints(self, pull: Any) -> set[str]:
        """The fingerprints of the review comments we posted on this pull request before."""
        existing: set[str] = set()
        for comment in pull.get_review_comments():
            text = comment.body or ""
            start = text.rfind(FINGERPRINT_PREFIX)  # ours is the last line: a suggestion quotes text above it
            if start >= 0 and self._is_own(comment.user):
                existing.add(text[start + len(FINGERPRINT_PREFIX) :].split(" ", 1)[0])
        return existing

    def _place(
        self,
        recommendations: Sequence[RecommendationLike],
        lines_by_file: Mapping[str, frozenset[int]],
        existing: set[str],
        window: int,
    ) -> tuple[list[Placed], list[Any]]:
        """Each recommendation (once per fingerprint) placed on a commentable line: the new ones (not
        among the ``existing`` fingerprints), and the ones with no line in the diff (skipped)."""
        new: list[Placed] = []
        skipped: list[Any] = []
        seen: set[str] = set()
        for rec in recommendations:
            file, line = getattr(rec, "file", None), getattr(rec, "line", None)
            fp = fingerprint(rec, self.namespace)
            if fp in seen:
                continue
            seen.add(fp)
            target = (
                nearest_commentable(lines_by_file.get(file or "", frozenset()), int(line or 0), window)
                if line
                else None
            )
            if not file or target is None:
                skipped.append(rec)
                continue
            if fp not in existing:
                new.append(Placed(rec, file, target, fp))
        return new, skipped

    def _place_suggestions(
        self,
        suggestions: Sequence[SuggestionLike],
        lines_by_file: Mapping[str, frozenset[int]],
        existing: set[str],
    ) -> list[Placed]:
        """The suggestions every line of which is in the diff and that were not posted before."""
        placed = []
        for suggestion in suggestions:
            fp = fingerprint(suggestion, f"{self.namespace}\0{suggestion.replacement}")
            lines = lines_by_file.get(suggestion.file, frozenset())
            inside = all(n in lines for n in range(suggestion.start_line, suggestion.line + 1))
            if inside and fp not in existing and len(suggestion.body) < MAX_COMMENT_CHARS - 200:
                placed.append(Placed(suggestion, suggestion.file, suggestion.line, fp, suggestion.start_line))
        return placed

    def _create_review(self, pull: Any, placed: Sequence[Placed], summary: str, head_sha: str) -> None:
        """One ``event=COMMENT`` review holding a comment per placed recommendation or suggestion."""
        comments = [_comment(p) for p in placed]
        kwargs: JsonObject = {
            "body": neutralise_marker(summary),
            "event": "COMMENT",
            "comments": comments,
        }
        if head_sha:
            kwargs["commit"] = self._client().get_repo(self.repo_full_name).get_commit(head_sha)
        pull.create_review(**kwargs)
