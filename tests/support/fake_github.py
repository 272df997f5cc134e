"""A fake GitHub REST API on loopback, for driving real PyGithub in tests.

Implements what the publisher uses, with GitHub's behaviour where it matters:

- ``GET /repos/{owner}/{repo}``, ``GET .../pulls/{n}``, ``GET .../commits/{sha}``;
- issue comments: list (paginated with ``Link`` headers), create, edit;
- pull request files with their ``patch`` (paginated);
- review comments: list (paginated); reviews: create with inline comments, answering **422** when a
  comment's line (or a line of its ``start_line``..``line`` range) is not inside the diff (as GitHub
  does), and adding its comments to the list;
- ``GET /user``: the token's user, or 403 like an Actions installation token (``user_forbidden``);
- ``read_only = True`` answers every write with 403 "Resource not accessible by integration", like a
  fork PR's token; ``fail_with = {("POST", "reviews"): 500}`` forces other statuses.

Every request is recorded in ``requests`` as ``(method, path)``.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
HUMAN = {"login": "octocat", "id": 1, "type": "User"}


@dataclass
class FakePull:
    number: int
    head_sha: str = "h" * 40
    base_sha: str = "b" * 40
    # filename -> unified diff patch (None: binary / too large, as GitHub omits it)
    files: dict[str, str | None] = field(default_factory=dict)
    # The repository of the head branch: "" the fake's own, None a fork that was deleted.
    head_repo: str | None = ""


def _right_lines(patch: str | None) -> set[int]:
    """The diff lines GitHub accepts review comments on (RIGHT side), computed independently of
    the code under test."""
    result: set[int] = set()
    line = None
    for text in (patch or "").splitlines():
        if text.startswith("@@"):
            match = re.search(r"\+(\d+)", text)
            line = int(match.group(1)) if match else None
        elif line is None or text.startswith("-") or text.startswith("\\"):
            continue
        else:
            result.add(line)
            line += 1
    return result


class FakeGitHub:
    def __init__(self, repo: str = "acme/agents", *, max_page_size: int = 30) -> None:
        self.repo = repo
        self.max_page_size = max_page_size
        self.pulls: dict[int, FakePull] = {}
        self.issue_comments: list[dict[str, Any]] = []  # each has "issue" (PR number)
        self.review_comments: list[dict[str, Any]] = []
        self.reviews: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str]] = []
        self.read_only = False
        self.user_forbidden = True  # an Actions GITHUB_TOKEN cannot read /user
        self.token_user = BOT
        self.fail_with: dict[tuple[str, str], int] = {}
        self.tokens_seen: set[str] = set()
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeGitHub:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                fake._dispatch(self)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- state helpers -------------------------------------------------------------------
    def add_pull(self, number: int, files: dict[str, str | None], **kwargs: Any) -> FakePull:
        pull = FakePull(number, files=dict(files), **kwargs)
        self.pulls[number] = pull
        return pull

    def add_issue_comment(self, number: int, body: str, user: dict[str, Any] = HUMAN) -> dict[str, Any]:
        with self._lock:
            comment = self._issue_comment(number, body, user)
            self.issue_comments.append(comment)
        return comment

    def comments_on(self, number: int) -> list[dict[str, Any]]:
        return [c for c in self.issue_comments if c["issue"] == number]

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _repo_url(self) -> str:
        return f"{self.url}/repos/{self.repo}"

    def _issue_comment(self, number: int, body: str, user: dict[str, Any]) -> dict[str, Any]:
        cid = self._new_id()
        return {
            "id": cid,
            "issue": number,
            "body": body,
            "user": dict(user),
            "url": f"{self._repo_url()}/issues/comments/{cid}",
            "html_url": f"https://github.example/{self.repo}/pull/{number}#issuecomment-{cid}",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }

    def _pull_json(self, pull: FakePull) -> dict[str, Any]:
        base = self._repo_url()
        repo = {"full_name": self.repo, "name": self.repo.split("/")[1], "url": base}
        head_repo = None if pull.head_repo is None else {**repo, "full_name": pull.head_repo or self.repo}
        return {
            "number": pull.number,
            "url": f"{base}/pulls/{pull.number}",
            "issue_url": f"{base}/issues/{pull.number}",
            "html_url": f"https://github.example/{self.repo}/pull/{pull.number}",
            "state": "open",
            "head": {"sha": pull.head_sha, "ref": "feature", "repo": head_repo},
            "base": {"sha": pull.base_sha, "ref": "main", "repo": repo},
        }

    # -- HTTP ----------------------------------------------------------------------------
    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        payload: Any,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _page(
        self, handler: BaseHTTPRequestHandler, items: list[dict[str, Any]], query: dict[str, list[str]]
    ) -> None:
        per_page = min(int(query.get("per_page", ["30"])[0]), self.max_page_size)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        headers: dict[str, str] = {}
        pages = max(1, -(-len(items) // per_page))
        path = urlsplit(handler.path).path
        links = []
        if page < pages:
            links.append(f'<{self.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{self.url}{path}?per_page={per_page}&page={pages}>; rel="last"')
        if links:
            headers["Link"] = ", ".join(links)
        self._send(handler, 200, chunk, headers)

    def _error(self, handler: BaseHTTPRequestHandler, status: int, message: str) -> None:
        self._send(
            handler,
            status,
            {"message": message, "documentation_url": "https://docs.github.com/rest", "status": str(status)},
        )

    def _dispatch(self, handler: BaseHTTPRequestHandler) -> None:
        method = handler.command
        parts = urlsplit(handler.path)
        path, query = parts.path, parse_qs(parts.query)
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length) or b"null") if length else None
        auth = handler.headers.get("Authorization", "")
        with self._lock:
            self.requests.append((method, path))
            self.tokens_seen.add(auth)
        if not auth.startswith("token ") and not auth.startswith("Bearer "):
            return self._error(handler, 401, "Requires authentication")

        for (m, fragment), status in self.fail_with.items():
            if m == method and fragment in path:
                return self._error(handler, status, f"forced {status}")
        if self.read_only and method in ("POST", "PATCH", "PUT", "DELETE"):
            return self._error(handler, 403, "Resource not accessible by integration")

        if path == "/user" and method == "GET":
            if self.user_forbidden:
                return self._error(handler, 403, "Resource not accessible by integration")
            return self._send(
                handler, 200, {**self.token_user, "url": f"{self.url}/users/{self.token_user['login']}"}
            )

        prefix = f"/repos/{self.repo}"
        if not path.startswith(prefix):
            return self._error(handler, 404, "Not Found")
        rest = path[len(prefix) :]

        if rest == "" and method == "GET":
            return self._send(
                handler,
                200,
                {"full_name": self.repo, "name": self.repo.split("/")[1], "url": self._repo_url()},
            )
        match = re.fullmatch(r"/commits/(\w+)", rest)
        if match and method == "GET":
            return self._send(
                handler, 200, {"sha": match.group(1), "url": f"{self._repo_url()}/commits/{match.group(1)}"}
            )
        match = re.fullmatch(r"/pulls/(\d+)(/.*)?", rest)
        if match:
            pull = self.pulls.get(int(match.group(1)))
            if pull is None:
                return self._error(handler, 404, "Not Found")
            return self._pull_route(handler, method, pull, match.group(2) or "", query, body)
        match = re.fullmatch(r"/issues/(\d+)/comments", rest)
        if match:
            number = int(match.group(1))
            if number not in self.pulls:
                return self._error(handler, 404, "Not Found")
            if method == "GET":
                return self._page(handler, self.comments_on(number), query)
            if method == "POST":
                if not isinstance(body, dict) or not body.get("body"):
                    return self._error(handler, 422, "Validation Failed")
                if len(body["body"]) > 65536:
                    return self._error(handler, 422, "Body is too long (maximum is 65536 characters)")
                comment = self.add_issue_comment(number, body["body"], self.token_user)
                return self._send(handler, 201, comment)
        match = re.fullmatch(r"/issues/comments/(\d+)", rest)
        if match:
            comment = next((c for c in self.issue_comments if c["id"] == int(match.group(1))), None)
            if comment is None:
                return self._error(handler, 404, "Not Found")
            if method == "GET":
                return self._send(handler, 200, comment)
            if method == "PATCH":
                if len(body.get("body", "")) > 65536:
                    return self._error(handler, 422, "Body is too long (maximum is 65536 characters)")
                comment["body"] = body["body"]
                comment["updated_at"] = "2026-01-02T00:00:00Z"
                return self._send(handler, 200, comment)
        return self._error(handler, 404, "Not Found")

    def _pull_route(
        self,
        handler: BaseHTTPRequestHandler,
        method: str,
        pull: FakePull,
        sub: str,
        query: dict[str, list[str]],
        body: Any,
    ) -> None:
        if sub == "" and method == "GET":
            return self._send(handler, 200, self._pull_json(pull))
        if sub == "/files" and method == "GET":
            files = [
                {
                    "filename": name,
                    "status": "modified",
                    "sha": "0" * 40,
                    "additions": 1,
                    "deletions": 0,
                    "changes": 1,
                    **({"patch": patch} if patch is not None else {}),
                }
                for name, patch in pull.files.items()
            ]
            return self._page(handler, files, query)
        if sub == "/comments" and method == "GET":
            mine = [c for c in self.review_comments if c["pull"] == pull.number]
            return self._page(handler, mine, query)
        if sub == "/reviews" and method == "POST":
            return self._create_review(handler, pull, body or {})
        return self._error(handler, 404, "Not Found")

    def _create_review(self, handler: BaseHTTPRequestHandler, pull: FakePull, body: dict[str, Any]) -> None:
        comments = body.get("comments") or []
        if body.get("event") not in (None, "COMMENT", "APPROVE", "REQUEST_CHANGES"):
            return self._error(handler, 422, "Unprocessable Entity")
        for comment in comments:
            path, line = comment.get("path"), comment.get("line")
            start = comment.get("start_line", line)
            if (
                comment.get("side", "RIGHT") != "RIGHT"
                or comment.get("start_side", "RIGHT") != "RIGHT"
                or path not in pull.files
                or not isinstance(start, int)
                or not isinstance(line, int)
                or start > line
                or any(n not in _right_lines(pull.files[path]) for n in range(start, line + 1))
            ):
                return self._error(
                    handler,
                    422,
                    "Unprocessable Entity: pull_request_review_thread.line must be part of the diff",
                )
        with self._lock:
            review_id = self._new_id()
            review = {
                "id": review_id,
                "body": body.get("body", ""),
                "state": "COMMENTED",
                "commit_id": body.get("commit_id") or pull.head_sha,
                "user": dict(self.token_user),
                "html_url": f"https://github.example/{self.repo}/pull/{pull.number}#pullrequestreview-{review_id}",
                "pull_request_url": f"{self._repo_url()}/pulls/{pull.number}",
            }
            self.reviews.append(review)
            for comment in comments:
                cid = self._new_id()
                self.review_comments.append(
                    {
                        "id": cid,
                        "pull": pull.number,
                        "pull_request_review_id": review_id,
                        "path": comment["path"],
                        "line": comment["line"],
                        "start_line": comment.get("start_line"),
                        "side": "RIGHT",
                        "body": comment["body"],
                        "commit_id": review["commit_id"],
                        "user": dict(self.token_user),
                        "url": f"{self._repo_url()}/pulls/comments/{cid}",
                    }
                )
        return self._send(handler, 200, review)
