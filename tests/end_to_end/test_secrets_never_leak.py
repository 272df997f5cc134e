"""API keys and tokens never appear in any output, even when the model echoes them.

The scripted model repeats the OpenAI key and the GitHub token in its answers and in its tool-call
arguments, and the server's error message for one case quotes the key. After a run, neither secret
(nor its JSON- or XML-escaped form) is in the JSON results, the JUnit XML, the Markdown and HTML reports,
stdout, stderr, the response cache, the job summary, the step outputs, or the comment and review
bodies the fake GitHub received; the Action's entrypoint prints ``::add-mask::`` for both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

import pytest

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION
from tests.conftest import ROOT
from tests.support.fake_github import FakeGitHub

# A key of no well-known shape (an Azure / vLLM style key): only the environment says it is secret.
API_KEY = "0f3a9c1be7d24a55b0c6e8f1d2a3b4c5"
# A GitHub token of the Actions shape, also given through the environment.
GITHUB_TOKEN = "ghs_Zq8X1mN4bV7cT2kR9wL5pJ3hF6dS0aY2eU8i"
SECRETS = (API_KEY, GITHUB_TOKEN)

TOOLS = [WEATHER_FUNCTION]
SUITE = """\
version: 1
name: leaky
agent:
  provider: openai
  model: test-model
  system_prompt: You are a weather assistant.
  tools: [{file: ../tools/weather.json}]
mocks:
  tools:
    get_weather: [{returns: {temp_c: 18}}]
threshold: 0.9
cases:
  - id: paris
    input: What is the weather in Paris?
    expect:
      calls: [{tool: get_weather, args: {city: Paris}}]
      output: {contains: "18"}
  - id: rome
    input: What is the weather in Rome?
    expect:
      calls: [{tool: get_weather, args: {city: Rome}}]
  - id: oslo
    input: What is the weather in Oslo?
    expect:
      no_calls: true
"""
SCRIPT = {
    "rules": [
        # Paris: the model puts both secrets into its tool-call arguments, then into its answer.
        {
            "when": {"last_user": "Paris", "turn": 1},
            "tool_calls": [
                {
                    "name": "get_weather",
                    "arguments": {"city": "Paris", "api_key": API_KEY, "auth": GITHUB_TOKEN},
                }
            ],
        },
        {
            "when": {"after_tool": "get_weather"},
            "text": f"It is 18 degrees. Your key is {API_KEY}, token {GITHUB_TOKEN}.",
        },
        # Rome: the server refuses, quoting the key in its error message.
        {
            "when": {"last_user": "Rome"},
            "fault": {
                "kind": "status",
                "status": 500,
                "retry_after": 0,
                "message": f"upstream rejected key {API_KEY}",
            },
        },
        # Oslo: a long answer with the secrets far down (past any truncation of the reports).
        {
            "when": {"last_user": "Oslo"},
            "text": "lorem ipsum " * 800 + f"{API_KEY} {GITHUB_TOKEN} " + "dolor " * 200,
        },
    ],
    "default": {"text": "I do not know."},
}


def forms(secret: str) -> list[str]:
    """The secret as it could appear in the outputs: raw, JSON-escaped, XML-escaped, and its halves
    (a report that cut a secret in two must not show most of it either)."""
    half = len(secret) // 2
    return [secret, json.dumps(secret)[1:-1], xml_escape(secret), secret[: half + 4], secret[half - 4 :]]


def assert_clean(where: str, text: str) -> None:
    for secret in SECRETS:
        for form in forms(secret):
            assert form not in text, f"{where} leaks {form!r}"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    (tmp_path / "suites" / "leaky.suite.yaml").write_text(SUITE)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    monkeypatch.setenv("CI", "true")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def output_files(directory: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            yield str(path.relative_to(directory)), path.read_text(encoding="utf-8", errors="replace")


def gate_args(out: Path) -> list[str]:
    return [
        "run",
        "suites",
        "--cache",
        str(out / "cache"),
        "--json",
        str(out / "results.json"),
        "--junit",
        str(out / "junit.xml"),
        "--markdown",
        str(out / "report.md"),
        "--html",
        str(out / "report.html"),
    ]


def test_echoed_secrets_are_in_no_output_of_a_run(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    out = repo / "out"

    code = cli_main(gate_args(out))
    captured = capsys.readouterr()

    assert code == 1  # paris fails (unexpected arguments), rome is an error: 1 of 3 passed
    results = json.loads((out / "results.json").read_text())
    statuses = {c["case_id"]: c["status"] for s in results["suites"] for c in s["cases"]}
    assert statuses == {"paris": "failed", "rome": "error", "oslo": "passed"}
    # The secrets really were echoed (the test would prove nothing otherwise)...
    assert any(API_KEY in json.dumps(r["body"]) for r in server.requests)
    # ...and are masked, not dropped: the reports still show where they were.
    assert "***" in (out / "report.md").read_text()
    assert (out / "cache").is_dir() and any((out / "cache").rglob("*.json"))
    files = dict(output_files(out))
    assert {"results.json", "junit.xml", "report.md", "report.html"} <= set(files)
    for name, text in files.items():
        assert_clean(name, text)
    assert_clean("stdout", captured.out)
    assert_clean("stderr", captured.err)


def test_echoed_secrets_are_in_no_output_of_the_command_line_process(repo: Path, model_server: Any) -> None:
    server = model_server(SCRIPT)
    out = repo / "out"
    env = dict(os.environ, OPENAI_BASE_URL=server.openai_base_url, PYTHONPATH=str(ROOT))
    process = subprocess.run(
        [sys.executable, "-m", "gate", *gate_args(out)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 1, process.stderr
    assert_clean("stdout", process.stdout)
    assert_clean("stderr", process.stderr)
    for name, text in output_files(out):
        assert_clean(name, text)


# ---------------------------------------------------------------------------------------------
# The GitHub Action: masks, job summary, outputs, PR comment and review.


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def action(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    for name in [n for n in os.environ if n.startswith("GIT_CONFIG_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "0")  # the entrypoint sets safe.directory through these
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "workspace"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    (root / "tools").mkdir()
    (root / "suites").mkdir()
    (root / "tools" / "weather.json").write_text(json.dumps(TOOLS, indent=2) + "\n")
    (root / "suites" / "leaky.suite.yaml").write_text(SUITE)
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    base = _git(root, "rev-parse", "HEAD")
    _git(root, "checkout", "-q", "-b", "feature")
    (root / "tools" / "weather.json").write_text(
        json.dumps(TOOLS, indent=2).replace("Current weather", "Weather") + "\n"
    )
    _git(root, "commit", "-q", "-am", "change the description")
    head = _git(root, "rev-parse", "HEAD")
    diff = _git(root, "diff", base, head, "--", "tools/weather.json")
    with FakeGitHub("acme/agents") as github:
        github.add_pull(7, {"tools/weather.json": diff[diff.index("@@") :]}, head_sha=head, base_sha=base)
        yield {"root": root, "tmp": tmp_path, "base": base, "head": head, "github": github}


def test_the_action_masks_the_secrets_and_publishes_none(
    action: dict[str, Any], model_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from gate.github.entrypoint import main as entrypoint

    server = model_server(SCRIPT)
    tmp: Path = action["tmp"]
    github: FakeGitHub = action["github"]
    event = {
        "number": 7,
        "pull_request": {
            "number": 7,
            "user": {"login": "octocat"},
            "base": {"sha": action["base"], "repo": {"full_name": "acme/agents"}},
            "head": {"sha": action["head"], "repo": {"full_name": "acme/agents"}},
        },
        "repository": {"full_name": "acme/agents"},
    }
    (tmp / "event.json").write_text(json.dumps(event))
    (tmp / "home").mkdir()
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(action["root"]),
        "GITHUB_EVENT_PATH": str(tmp / "event.json"),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_REPOSITORY": "acme/agents",
        "GITHUB_ACTOR": "octocat",
        "GITHUB_API_URL": github.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "99",
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "HOME": str(tmp / "home"),
        "INPUT_GITHUB_TOKEN": GITHUB_TOKEN,
        "INPUT_OPENAI_API_KEY": API_KEY,
        "INPUT_OPENAI_BASE_URL": server.openai_base_url,
        "INPUT_CHANGED_ONLY": "false",
        "INPUT_SUITES": "suites",
        "INPUT_COMMENT": "true",
        "INPUT_REVIEW_COMMENTS": "true",
        "INPUT_CACHE": ".gate-cache",
        "INPUT_OUTPUT_DIR": "gate-out",
        # A secret given to the job through `env:` rather than an input is masked too.
        "DEPLOY_SERVICE_TOKEN": "deploy-9f8e7d6c5b4a3210",
    }

    code = entrypoint([], env)
    captured = capsys.readouterr()

    assert code == 1
    assert any(API_KEY in json.dumps(r["body"]) for r in server.requests)  # the model did echo it
    # The runner is told to hide both secrets in the log before anything else is printed.
    for secret in (*SECRETS, "deploy-9f8e7d6c5b4a3210"):
        assert f"::add-mask::{secret}" in captured.out
    lines = captured.out.splitlines()
    first_other = next(i for i, line in enumerate(lines) if line and not line.startswith("::add-mask::"))
    assert all(f"::add-mask::{secret}" in lines[:first_other] for secret in SECRETS), lines[: first_other + 1]
    assert "::add-mask::deploy-9f8e7d6c5b4a3210" in lines[:first_other]
    masks = "\n".join(line for line in captured.out.splitlines() if line.startswith("::add-mask::"))
    assert_clean("stdout", captured.out.replace(masks, ""))
    assert_clean("stderr", captured.err)
    # What was published and written.
    comments = github.comments_on(7)
    assert comments, "a sticky comment was posted"
    for comment in comments:
        assert_clean("PR comment", comment["body"])
    for review in github.reviews:
        assert_clean("PR review", json.dumps(review))
    for comment in github.review_comments:
        assert_clean("review comment", comment["body"])
    assert_clean("job summary", (tmp / "summary.md").read_text())
    assert_clean("step outputs", (tmp / "output.txt").read_text())
    for name, text in output_files(action["root"] / "gate-out"):
        assert_clean(name, text)
    for name, text in output_files(action["root"] / ".gate-cache"):
        assert_clean(f"cache {name}", text)


def test_error_messages_printed_by_the_command_line_are_masked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever a command prints goes through the redactor, also its error messages."""
    code = cli_main(["run", "--root", f"/nonexistent/{API_KEY}", "--json", f"out/{GITHUB_TOKEN}.json"])
    captured = capsys.readouterr()
    assert code == 2
    assert "--root /nonexistent/***: not a directory" in captured.err
    assert_clean("stderr", captured.err)
    assert_clean("stdout", captured.out)
