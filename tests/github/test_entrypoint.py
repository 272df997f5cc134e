"""The Docker action's entrypoint under a simulated GitHub Actions environment: a git workspace with
a suite, an event file, $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY files, the fake GitHub API and the
scripted model server, all on loopback."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gate.github.entrypoint import main as entrypoint
from gate.util.escape import md_text
from tests.reports.test_markdown_hostile_fields import HOSTILE_NAME, assert_inert, hostile_names
from tests.support.fake_github import FakeGitHub

SECRET = "sk-test-very-secret-key-123"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_forecast",
            "description": "Forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city", "days"],
            },
        },
    },
]

SUITE = """\
version: 1
name: weather
agent:
  provider: openai
  model: gpt-4o-mini
  system_prompt: {file: prompts/weather.md}
  tools:
    - {file: tools/weather.json}
mocks:
  tools:
    get_weather: [{returns: {temp_c: 18}}]
    get_forecast: [{returns: {days: [1, 2]}}]
threshold: 0.9
cases:
  - id: now
    input: What is the weather in Paris?
    expect:
      calls: [{tool: get_weather, args: {city: Paris}}]
  - id: tomorrow
    input: And the weather in Paris tomorrow?
    expect:
      calls: [{tool: get_forecast, args: {city: Paris, days: 1}}]
  - id: weekend
    input: Weather in Rome at the weekend?
    expect:
      calls: [{tool: get_forecast, args: {city: Rome, days: 2}}]
"""

# The model always calls get_weather: "tomorrow" and "weekend" pick the wrong tool.
SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Z][a-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is 18 degrees."},
    ],
    "default": {"text": "I cannot help."},
}


@pytest.fixture(autouse=True)
def _restore_git_config_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entrypoint trusts the workspace through GIT_CONFIG_* variables of its own process."""
    import os

    for name in [n for n in os.environ if n.startswith("GIT_CONFIG_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "0")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def write_tools(root: Path, description: str) -> None:
    tools = json.loads(json.dumps(TOOLS))
    tools[1]["function"]["description"] = description
    (root / "tools").mkdir(exist_ok=True)
    (root / "tools/weather.json").write_text(json.dumps(tools, indent=2) + "\n")


@pytest.fixture()
def workspace(tmp_path: Path) -> dict[str, Any]:
    root = tmp_path / "workspace"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "evals").mkdir()
    (root / "evals/weather.suite.yaml").write_text(
        SUITE.replace("{file: prompts", "{file: ../prompts").replace("{file: tools", "{file: ../tools")
    )
    (root / "prompts").mkdir()
    (root / "prompts/weather.md").write_text("You answer weather questions.\n")
    (root / "README.md").write_text("readme\n")
    write_tools(root, "Forecast for a city.")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "feature")
    write_tools(root, "Forecast.")  # the PR makes the description worse
    git(root, "commit", "-q", "-am", "shorter description")
    head = git(root, "rev-parse", "HEAD")
    diff = git(root, "diff", base, head, "--", "tools/weather.json")
    patch = diff[diff.index("@@") :]
    return {"root": root, "base": base, "head": head, "patch": patch, "tmp": tmp_path}


@pytest.fixture()
def github(workspace: dict[str, Any]) -> Iterator[FakeGitHub]:
    with FakeGitHub("acme/agents") as fake:
        fake.add_pull(
            7,
            {"tools/weather.json": workspace["patch"]},
            head_sha=workspace["head"],
            base_sha=workspace["base"],
        )
        yield fake


def actions_env(
    workspace: dict[str, Any],
    github: FakeGitHub,
    server: Any,
    *,
    fork: bool = False,
    actor: str = "octocat",
    **inputs: str,
) -> dict[str, str]:
    tmp: Path = workspace["tmp"]
    head_repo = "someone/agents" if fork else "acme/agents"
    event = {
        "number": 7,
        "pull_request": {
            "number": 7,
            "user": {"login": actor},
            "base": {"sha": workspace["base"], "repo": {"full_name": "acme/agents"}},
            "head": {"sha": workspace["head"], "repo": {"full_name": head_repo}},
        },
        "repository": {"full_name": "acme/agents"},
    }
    (tmp / "event.json").write_text(json.dumps(event))
    (tmp / "home").mkdir(exist_ok=True)
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace["root"]),
        "GITHUB_EVENT_PATH": str(tmp / "event.json"),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_REPOSITORY": "acme/agents",
        "GITHUB_ACTOR": actor,
        "GITHUB_API_URL": github.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "99",
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "HOME": str(tmp / "home"),
        "INPUT_GITHUB_TOKEN": "ghs_fake_token",
        "INPUT_OPENAI_API_KEY": "" if fork else SECRET,
        "INPUT_OPENAI_BASE_URL": server.openai_base_url if server else "",
        "INPUT_THRESHOLD": "",
        "INPUT_CHANGED_ONLY": "true",
        "INPUT_COMMENT": "true",
        "INPUT_REVIEW_COMMENTS": "true",
        "INPUT_CONCURRENCY": "4",
        "INPUT_OUTPUT_DIR": "gate-out",
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def made_here(results: str, workspace: dict[str, Any]) -> str:
    """Results text said to be made for the pull request's head in the run ``actions_env`` names: what
    the action's ``results`` input renders."""
    document = json.loads(results)
    document.setdefault("settings", {})["made_for"] = {"commit": workspace["head"], "run": "99"}
    return json.dumps(document)


def read_outputs(path: Path) -> dict[str, str]:
    values: dict[str, str] = {}
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        if "<<" in lines[i]:
            name, delimiter = lines[i].split("<<", 1)
            j = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1 : j])
            i = j
        i += 1
    return values


def test_pull_request_run_writes_outputs_summary_comment_and_review(
    workspace, github, model_server, capsys
) -> None:
    import os

    server = model_server(SCRIPT)
    env = actions_env(workspace, github, server)
    before, env_before = dict(os.environ), dict(env)

    code = entrypoint([], env)

    out = capsys.readouterr()
    assert code == 1  # 1 of 3 cases passed: below the 0.9 threshold
    # The environment is read, never written (the run's provider and git variables are restored)...
    assert dict(os.environ) == before and env == env_before
    # ...and later steps trust the workspace through the job's global git config.
    assert str(workspace["root"]) in (workspace["tmp"] / "home/.gitconfig").read_text()
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    assert outputs["passed"] == "1" and outputs["failed"] == "2" and outputs["errors"] == "0"
    assert float(outputs["pass_rate"]) == pytest.approx(1 / 3, abs=1e-3)
    assert outputs["verdict"] == "failed"
    assert outputs["junit_path"] == "gate-out/junit.xml"
    assert outputs["results_path"] == "gate-out/results.json"
    assert outputs["report_path"] == "gate-out/report.md"
    for name in ("junit.xml", "results.json", "report.md"):
        assert (workspace["root"] / "gate-out" / name).is_file()
    assert server.request_count >= 5  # 3 cases, a tool turn each

    summary = (workspace["tmp"] / "summary.md").read_text()
    assert "weather" in summary and "tomorrow" in summary

    comments = github.comments_on(7)
    assert len(comments) == 1 and comments[0]["body"].startswith("<!-- tool-eval-gate:default -->")
    assert (
        "https://github.example/acme/agents/actions/runs/99" in comments[0]["body"]
        or len(comments[0]["body"]) < 60000
    )
    assert outputs["comment_url"].endswith(f"issuecomment-{comments[0]['id']}")

    # Review comments only on lines of the PR diff, at most one review.
    # The confusion of get_weather and get_forecast points at get_forecast's description, which the
    # PR changed: one review with a comment on that line of the diff.
    assert len(github.reviews) == 1 and github.reviews[0]["commit_id"] == workspace["head"]
    description_line = next(
        i
        for i, text in enumerate((workspace["root"] / "tools/weather.json").read_text().splitlines(), 1)
        if '"Forecast."' in text
    )
    assert [(c["path"], c["line"]) for c in github.review_comments] == [
        ("tools/weather.json", description_line)
    ]
    assert description_line in _right_lines(workspace["patch"])
    assert "get_forecast" in github.review_comments[0]["body"]

    # Annotations for the failed cases; the key is masked, never printed in the clear.
    assert "::error file=evals/weather.suite.yaml,line=" in out.out
    assert f"::add-mask::{SECRET}" in out.out
    assert SECRET not in out.out.replace(f"::add-mask::{SECRET}", "") and SECRET not in out.err
    assert SECRET not in (workspace["root"] / "gate-out/results.json").read_text()

    # A re-run edits the same comment and posts no duplicate review comments.
    reviews, review_comments = len(github.reviews), len(github.review_comments)
    assert entrypoint([], actions_env(workspace, github, server)) == 1
    assert len(github.comments_on(7)) == 1
    assert len(github.reviews) == reviews and len(github.review_comments) == review_comments


def _right_lines(patch: str) -> set[int]:
    from gate.github.diff_hunks import commentable_lines

    return set(commentable_lines(patch))


def commit_a_docs_only_change(workspace: dict[str, Any]) -> None:
    """Head becomes a branch off main whose only change is README.md: no suite is affected."""
    root = workspace["root"]
    git(root, "checkout", "-q", "main")
    git(root, "checkout", "-q", "-b", "docs-only")
    (root / "README.md").write_text("only docs\n")
    git(root, "commit", "-q", "-am", "docs")
    workspace["head"] = git(root, "rev-parse", "HEAD")


def test_nothing_affected_passes_with_zero_model_calls(workspace, github, model_server, capsys) -> None:
    commit_a_docs_only_change(workspace)
    server = model_server(SCRIPT)
    env = actions_env(workspace, github, server, comment="false", review_comments="false")

    assert entrypoint([], env) == 0
    assert server.request_count == 0
    assert "No suite is affected" in capsys.readouterr().out
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    assert outputs["verdict"] == "passed" and outputs["passed"] == "0"
    assert outputs["pass_rate"] == ""  # no case evaluated: no rate (action.yml)
    assert github.comments_on(7) == []


def fork_run(workspace: dict[str, Any], github: FakeGitHub, server: Any) -> int:
    env = actions_env(workspace, github, server, fork=True)
    env["INPUT_OPENAI_BASE_URL"] = ""
    return entrypoint([], env)


def test_a_fork_without_secrets_replays_only_and_is_never_passed_unverified(
    workspace, github, model_server, capsys
) -> None:
    server = model_server(SCRIPT)
    assert fork_run(workspace, github, server) == 3  # nothing recorded yet: no case could be verified
    out = capsys.readouterr().out
    assert "::notice title=tool-eval-gate::This is a pull request from a fork" in out
    assert "never answers the pull request can write" in out
    assert server.request_count == 0
    assert github.issue_comments == [] and not any(m == "POST" for m, _ in github.requests)
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "unverified"


def test_a_fork_replaying_the_gates_own_answers_gets_the_same_verdict(
    workspace, github, model_server, capsys
) -> None:
    """The answers a run with a key recorded in the gate's own (untracked) cache, as actions/cache
    restores it: the fork's replay is verified, with no request."""
    server = model_server(SCRIPT)
    assert entrypoint([], actions_env(workspace, github, server, comment="false")) == 1
    server.reset_stats()
    assert fork_run(workspace, github, server) == 1
    assert server.request_count == 0
    assert read_outputs(workspace["tmp"] / "output.txt")["failed"] == "2"


# The forger's model calls the right tool for every case, whatever the descriptions say.
FORGED_SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "tomorrow", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        {
            "when": {"last_user": "weekend", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Rome", "days": 2}}],
        },
        *SCRIPT["rules"],
        {"when": {"after_tool": "get_forecast"}, "text": "Sunny."},
    ],
    "default": {"text": "I cannot help."},
}


def test_a_forks_replay_of_a_suite_that_runs_the_checkouts_code_is_unverified(
    workspace, github, model_server, capsys
) -> None:
    """With `commands: allow`, a fork's suite lists its tools from the PR's own MCP server: its code
    would run beside the cache the replay reads, and could write answers there."""

    from tests.end_to_end.test_mcp_tool_servers import SERVER, suite_text

    root = workspace["root"]
    (root / "server.py").write_text(SERVER.read_text())
    mcp = json.dumps({"command": ["python3", "server.py"]})
    (root / "evals/shop.suite.yaml").write_text(suite_text(mcp))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a suite with an MCP server")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    env = actions_env(workspace, github, None, fork=True, commands="allow", suites="evals/shop.suite.yaml")

    assert entrypoint([], env) == 3
    out = capsys.readouterr().out
    assert (
        "::error title=tool-eval-gate::not verified: this is a pull request from a fork, and commands are "
        "allowed" in out
    )
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "unverified"
    summary = (workspace["tmp"] / "summary.md").read_text()
    assert "not verified: this is a pull request from a fork" in summary


def _commit_a_suite_with_an_mcp_server(workspace: dict[str, Any], starts: Path) -> None:
    """The pull request adds a suite whose tools come from its own MCP server (code of the checkout);
    the server writes a line to ``starts`` whenever it starts."""

    from tests.end_to_end.test_mcp_tool_servers import SERVER, suite_text

    root = workspace["root"]
    (root / "server.py").write_text(SERVER.read_text())
    mcp = json.dumps({"command": ["python3", "server.py", "--starts", str(starts)]})
    (root / "evals/shop.suite.yaml").write_text(suite_text(mcp).replace("holds 1 item", "holds 99 item"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a suite with an MCP server")
    workspace["head"] = git(root, "rev-parse", "HEAD")


def _event_payload(event_name: str, workspace: dict[str, Any]) -> dict[str, Any]:
    """The payload of ``event_name`` about pull request 7 (a fork's, whose head the workspace holds)."""
    repository = {"full_name": "acme/agents"}
    if event_name == "workflow_run":  # the second workflow of a pair, after the PR's own run
        run = {
            "event": "pull_request",
            "head_sha": workspace["head"],
            "head_repository": {"full_name": "someone/agents"},
            "pull_requests": [{"number": 7}],
        }
        return {"action": "completed", "workflow_run": run, "repository": repository}
    if event_name == "issue_comment":  # `/eval` ChatOps: anyone can comment on a pull request
        issue = {"number": 7, "pull_request": {"url": "https://api.github.example/pulls/7"}}
        return {"action": "created", "issue": issue, "comment": {"body": "/eval"}, "repository": repository}
    pull = {
        "number": 7,
        "user": {"login": "octocat"},
        "base": {"sha": workspace["base"], "repo": repository},
        "head": {"sha": workspace["head"], "repo": repository},
    }
    return {"action": "synchronize", "number": 7, "pull_request": pull, "repository": repository}


@pytest.mark.parametrize("event_name", ["workflow_run", "issue_comment", "pull_request_target"])
def test_commands_never_run_where_the_repositorys_secrets_meet_a_pull_requests_code(
    event_name, workspace, github, model_server, capsys
) -> None:
    """On these events the workflow holds the repository's secrets (and a write token) while the
    code it checked out can be the pull request's (`/eval` ChatOps, a workflow_run that checks out
    the run's head): with `commands: allow`, the PR's MCP server would run with them. Refused before
    anything starts, at the suite's line, naming the event."""
    from tests.end_to_end.test_mcp_tool_servers import SCRIPT as SHOP_SCRIPT

    starts = workspace["tmp"] / "starts.log"
    _commit_a_suite_with_an_mcp_server(workspace, starts)
    server = model_server(SHOP_SCRIPT)
    env = actions_env(workspace, github, server, commands="allow", suites="evals/shop.suite.yaml")
    env["GITHUB_EVENT_NAME"] = event_name
    (workspace["tmp"] / "event.json").write_text(json.dumps(_event_payload(event_name, workspace)))

    assert entrypoint([], env) == 2
    out = capsys.readouterr().out
    assert (
        "::error file=evals/shop.suite.yaml,line=7,col=12,title=invalid suite file::suite 'shopping'" in out
    )
    assert f"the gate never runs commands on {event_name}" in out
    assert not starts.exists() and server.request_count == 0
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "invalid"


def test_on_the_pull_requests_own_event_allowed_commands_run(workspace, github, model_server, capsys) -> None:
    """The same suite on `pull_request` (a fork's run there gets no secrets): the server starts."""
    from tests.end_to_end.test_mcp_tool_servers import SCRIPT as SHOP_SCRIPT

    starts = workspace["tmp"] / "starts.log"
    _commit_a_suite_with_an_mcp_server(workspace, starts)
    server = model_server(SHOP_SCRIPT)
    env = actions_env(
        workspace, github, server, commands="allow", suites="evals/shop.suite.yaml", baseline="off"
    )
    (workspace["tmp"] / "event.json").write_text(json.dumps(_event_payload("pull_request", workspace)))

    assert entrypoint([], env) == 0, capsys.readouterr().out
    assert starts.exists() and server.request_count == 2


def test_a_fork_whose_only_answers_are_committed_ones_is_not_verified(
    workspace, github, model_server, capsys
) -> None:
    root = workspace["root"]
    server = model_server(SCRIPT)
    assert entrypoint([], actions_env(workspace, github, server, comment="false")) == 1
    git(root, "add", "-f", ".tool-eval-gate/cache")  # the answers, committed by the pull request
    git(root, "commit", "-q", "-m", "answers")
    capsys.readouterr()
    server.reset_stats()

    assert fork_run(workspace, github, server) == 3
    out = capsys.readouterr().out
    assert "::error title=tool-eval-gate::not verified: the response cache" in out
    assert "holds files tracked by git" in out
    assert server.request_count == 0
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "unverified"
    assert "not verified" in (workspace["tmp"] / "summary.md").read_text()


def test_committed_answers_are_not_read_when_the_model_can_be_asked(
    workspace, github, model_server, capsys
) -> None:
    root = workspace["root"]
    forged = model_server({"rules": [], "default": {"text": "I cannot help."}})
    entrypoint([], actions_env(workspace, github, forged, comment="false", baseline="off"))
    git(root, "add", "-f", ".tool-eval-gate/cache")
    git(root, "commit", "-q", "-m", "answers")
    capsys.readouterr()
    server = model_server(SCRIPT)
    assert entrypoint([], actions_env(workspace, github, server, comment="false", baseline="off")) == 1
    assert server.request_count == 6  # every request of the 3 cases went to the real model
    assert "none is read from it; this run asks the model" in capsys.readouterr().out


def test_the_cache_is_said_to_be_worth_saving_only_when_it_holds_the_gates_own_answers(
    workspace, github, model_server, capsys
) -> None:
    """actions/cache saves whatever the directory holds. Saved from a run of a pull request whose
    commit tracks forged answers there, they come back in the pull request's next run (after a
    commit removed them from git) as untracked files, which the gate trusts: the fork's replay of
    them passed. The workflow saves only when `cache_trusted` says so."""
    import shutil

    root, tmp = workspace["root"], workspace["tmp"]
    forged = model_server(FORGED_SCRIPT)
    assert (
        entrypoint([], actions_env(workspace, github, forged, comment="false", review_comments="false")) == 0
    )
    assert read_outputs(tmp / "output.txt")["cache_trusted"] == "true"  # the gate's own answers
    git(root, "add", "-f", ".tool-eval-gate/cache")  # the PR commits them
    git(root, "commit", "-q", "-m", "answers")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    real = model_server(SCRIPT)
    assert entrypoint([], actions_env(workspace, github, real, comment="false", review_comments="false")) == 1
    assert read_outputs(tmp / "output.txt")["cache_trusted"] == "false"  # never save this one
    # What saving it would have done: the next commit untracks the answers, the cache comes back.
    saved = tmp / "saved-cache"
    shutil.copytree(root / ".tool-eval-gate/cache", saved)
    git(root, "rm", "-r", "-q", ".tool-eval-gate/cache")
    git(root, "commit", "-q", "-m", "no answers")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    shutil.copytree(saved, root / ".tool-eval-gate/cache")
    assert fork_run(workspace, github, real) == 0  # the forger's answers pass, untracked
    assert read_outputs(tmp / "output.txt")["cache_trusted"] == "true"
    # A pull request's run that starts programs of its checkout never says so either.
    env = actions_env(workspace, github, real, comment="false", review_comments="false", commands="allow")
    entrypoint([], env)
    assert read_outputs(tmp / "output.txt")["cache_trusted"] == "false"


def test_read_only_token_does_not_change_the_exit_code(workspace, github, model_server, capsys) -> None:
    github.read_only = True
    server = model_server(SCRIPT)
    code = entrypoint([], actions_env(workspace, github, server))
    assert code == 1
    out = capsys.readouterr().out
    assert "::warning title=tool-eval-gate could not post the comment::" in out
    assert read_outputs(workspace["tmp"] / "output.txt")["failed"] == "2"


def test_invalid_suite_gives_exit_2_and_file_annotations(workspace, github, model_server, capsys) -> None:
    root = workspace["root"]
    (root / "evals/broken.suite.yaml").write_text("version: 1\nname: broken\ncases: [\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "broken")
    server = model_server(SCRIPT)
    code = entrypoint([], actions_env(workspace, github, server, comment="false", review_comments="false"))
    assert code == 2
    out = capsys.readouterr().out
    assert "::error file=evals/broken.suite.yaml" in out
    assert server.request_count == 0
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "invalid"
    assert "Invalid input" in (workspace["tmp"] / "summary.md").read_text()


def test_help_is_a_no_op(capsys) -> None:
    assert entrypoint(["--help"], {}) == 0
    assert "entrypoint" in capsys.readouterr().out


def test_shards_then_publish_merged_results_from_a_workflow_run(
    workspace, github, model_server, capsys
) -> None:
    server = model_server(SCRIPT)
    for index in (1, 2):
        env = actions_env(
            workspace,
            github,
            server,
            shard=f"{index}/2",
            comment="false",
            review_comments="false",
            output_dir=f"shard-{index}",
        )
        (workspace["tmp"] / "output.txt").write_text("")
        # A shard under the threshold does not fail its job: the merged verdict gates.
        assert entrypoint([], env) == 0
        assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] in ("passed", "failed")
    assert "its pass rate does not gate" in capsys.readouterr().out
    assert server.request_count >= 5  # every case ran once over the two shards
    assert github.requests == []  # shard jobs post nothing
    shard_cases = [
        json.loads((workspace["root"] / f"shard-{i}/results.json").read_text())["suites"] for i in (1, 2)
    ]
    ids = sorted(c["case_id"] for suites in shard_cases for s in suites for c in s["cases"])
    assert ids == ["now", "tomorrow", "weekend"]

    # The publishing workflow: a workflow_run event, the PR number from the artifact.
    tmp = workspace["tmp"]
    event = {
        "workflow_run": {
            "id": 99,  # the run of the shards, whose artifacts this one downloads
            "head_sha": workspace["head"],
            "head_repository": {"full_name": "acme/agents"},
            "pull_requests": [],
        },
        "repository": {"full_name": "acme/agents"},
    }
    (tmp / "run_event.json").write_text(json.dumps(event))
    env = actions_env(
        workspace, github, None, results="shard-*/results.json", pr_number="7", output_dir="merged"
    )
    env.update(
        {
            "GITHUB_EVENT_NAME": "workflow_run",
            "GITHUB_EVENT_PATH": str(tmp / "run_event.json"),
            "INPUT_OPENAI_API_KEY": "",
        }
    )
    (tmp / "output.txt").write_text("")
    assert entrypoint([], env) == 1
    outputs = read_outputs(tmp / "output.txt")
    assert (outputs["passed"], outputs["failed"]) == ("1", "2")
    assert len(github.comments_on(7)) == 1 and len(github.reviews) == 1
    # The shards compared with the merge base (the pull request's default): the merge keeps it.
    body = github.comments_on(7)[0]["body"]
    assert "What this PR did" in body and "2 still failing" in body
    assert (workspace["root"] / "merged/junit.xml").is_file()

    # Results of another commit, or of another run, are not rendered, let alone published.
    github.issue_comments.clear()
    for other in ({"head_sha": "f" * 40}, {"id": 98}):
        event["workflow_run"].update(other)
        (tmp / "run_event.json").write_text(json.dumps(event))
        assert entrypoint([], env) == 2
        assert read_outputs(tmp / "output.txt")["verdict"] == "invalid"
        assert not (workspace["root"] / "merged/results.json").exists()
        assert all("not rendered" in c["body"] for c in github.comments_on(7))  # said, never a verdict
        assert "not rendered" in capsys.readouterr().out
        event["workflow_run"].update(head_sha=workspace["head"], id=99)
    (tmp / "run_event.json").write_text(json.dumps(event))
    github.issue_comments.clear()
    # Nor a PR whose head is another commit than the one the results were made for.
    github.pulls[7].head_sha = "f" * 40
    assert entrypoint([], env) == 1
    assert github.issue_comments == []
    assert "not at the commit the results are for" in capsys.readouterr().out
    github.pulls[7].head_sha = workspace["head"]

    # Nor does one made by a run in another repository: anyone can push PR 7's public head commit to
    # a fork of their own and open a PR from it, whose artifact names PR 7.
    event["workflow_run"].update(head_sha=workspace["head"], head_repository={"full_name": "mallory/agents"})
    (tmp / "run_event.json").write_text(json.dumps(event))
    assert entrypoint([], env) == 1
    assert github.issue_comments == [] and len(github.reviews) == 1
    out = capsys.readouterr().out
    assert "comes from acme/agents, but the results were made by a run in mallory/agents" in out


def test_baseline_changes_are_in_the_pr_comment(workspace, github, model_server, capsys) -> None:
    server = model_server(SCRIPT)
    assert entrypoint([], actions_env(workspace, github, server)) == 1
    head = json.loads((workspace["root"] / "gate-out/results.json").read_text())
    # The base branch: every case passed, so the cases failing now are regressions.
    base = json.loads(json.dumps(head))
    for suite in base["suites"]:
        for case in suite["cases"]:
            case["status"] = "passed"
            for trial in case["trials"]:
                trial["status"], trial["failures"] = "passed", []
    (workspace["root"] / "base-results.json").write_text(json.dumps(base))

    code = entrypoint([], actions_env(workspace, github, server, baseline="base-results.json"))

    assert code == 1
    body = github.comments_on(7)[0]["body"]
    assert "### Changes against the baseline" in body
    failed = [c["case_id"] for s in head["suites"] for c in s["cases"] if c["status"] == "failed"]
    changes = body[body.index("### Changes against the baseline") :]
    assert failed and all(case_id in changes for case_id in failed)
    assert "regressed" in changes


def test_pull_request_target_with_the_fork_checked_out_refuses_to_run(
    workspace, github, model_server, capsys
) -> None:
    server = model_server(SCRIPT)
    # The workspace HEAD is the PR head (what `actions/checkout` with the PR's ref does).
    env = actions_env(workspace, github, server, fork=True, openai_api_key=SECRET)
    env["GITHUB_EVENT_NAME"] = "pull_request_target"

    code = entrypoint([], env)

    out = capsys.readouterr().out
    assert code == 2
    assert "::error" in out and "pull_request_target" in out and "workflow_run" in out
    assert server.request_count == 0
    assert github.comments_on(7) == []


def test_pull_request_target_on_the_base_checkout_never_reports_a_pass(
    workspace, github, model_server, capsys
) -> None:
    server = model_server(SCRIPT)
    git(workspace["root"], "checkout", "-q", workspace["base"])  # the default checkout: the base branch
    for changed_only in ("true", "false"):
        env = actions_env(
            workspace, github, server, fork=True, openai_api_key=SECRET, changed_only=changed_only
        )
        env["GITHUB_EVENT_NAME"] = "pull_request_target"
        (workspace["tmp"] / "output.txt").write_text("")

        code = entrypoint([], env)

        out = capsys.readouterr().out
        assert code == 2
        assert "does not hold the pull request's head commit" in out and "passed" not in out
        outputs = read_outputs(workspace["tmp"] / "output.txt")
        assert outputs["verdict"] == "refused" and outputs["pass_rate"] == "" and outputs["exit_code"] == "2"
    assert server.request_count == 0
    assert github.comments_on(7) == []


def _approval_event(workspace: dict[str, Any], label: str = "eval-approved") -> dict[str, Any]:
    """pull_request_target `labeled` for fork PR 7 at the head the label was added on."""
    repository = {"full_name": "acme/agents"}
    pull = {
        "number": 7,
        "user": {"login": "someone"},
        "base": {"sha": workspace["base"], "repo": repository},
        "head": {"sha": workspace["head"], "repo": {"full_name": "someone/agents"}},
    }
    return {
        "action": "labeled",
        "label": {"name": label},
        "number": 7,
        "pull_request": pull,
        "repository": repository,
    }


def _approved_run(workspace: dict[str, Any], github: FakeGitHub, server: Any) -> int:
    env = actions_env(
        workspace,
        github,
        server,
        fork=True,
        openai_api_key=SECRET,
        fork_approval_label="eval-approved",
        max_cost="2",
        comment="false",
        review_comments="false",
    )
    env["GITHUB_EVENT_NAME"] = "pull_request_target"
    (workspace["tmp"] / "event.json").write_text(json.dumps(_approval_event(workspace)))
    return entrypoint([], env)


def test_an_approval_is_for_that_exact_commit_never_a_descendant(
    workspace, github, model_server, capsys
) -> None:
    """A maintainer labels the fork's head; the fork pushes another commit before the job checks out
    (refs/pull/7/head, or the merge ref): that commit was never approved, and nothing is evaluated with
    the key. The approved commit itself, and its merge into the base, are evaluated."""
    root, server = workspace["root"], model_server(SCRIPT)
    approved = workspace["head"]
    (root / "prompts/weather.md").write_text("You answer weather questions. Ignore the tools.\n")
    git(root, "commit", "-q", "-am", "pushed after the approval")
    capsys.readouterr()

    assert _approved_run(workspace, github, server) == 2
    out = capsys.readouterr().out
    assert f"the maintainer's approval is for the head commit {approved[:12]}" in out
    assert "never a commit pushed after it" in out
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "refused"
    assert server.request_count == 0

    git(root, "checkout", "-q", approved)  # the approved head itself (what the shipped workflow does)
    assert _approved_run(workspace, github, server) == 1  # evaluated: the PR's regression is real
    assert server.request_count > 0
    git(root, "checkout", "-q", workspace["base"])  # its merge into the base (refs/pull/7/merge)
    git(root, "merge", "-q", "--no-ff", "-m", "Merge approved into base", approved)
    assert _approved_run(workspace, github, server) == 1  # evaluated (its answers are in the cache now)
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "failed"


@pytest.mark.parametrize("event_name", ["workflow_run", "issue_comment"])
def test_no_suite_of_a_fork_is_evaluated_with_the_key_where_the_job_holds_the_secrets(
    event_name, workspace, github, model_server, capsys
) -> None:
    """A `workflow_run` job (or `/eval` on `issue_comment`) that checks out the fork's head and runs the
    action with the key evaluated the fork's suites: requests sent with the key, no approval, no
    max_cost. Refused before anything is sent, as on pull_request_target."""
    server = model_server(SCRIPT)
    env = actions_env(
        workspace, github, server, openai_api_key=SECRET, comment="false", review_comments="false"
    )
    env["GITHUB_EVENT_NAME"] = event_name
    payload = _event_payload(event_name, workspace)
    if event_name == "workflow_run":
        payload["workflow_run"]["pull_requests"] = []  # GitHub names no pull request of a fork's run
    (workspace["tmp"] / "event.json").write_text(json.dumps(payload))

    assert entrypoint([], env) == 2
    out = capsys.readouterr().out
    assert f"this {event_name} job holds the repository's secrets" in out
    assert server.request_count == 0
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "refused"


def test_a_forks_run_with_a_key_that_is_no_secret_is_not_verified_when_its_code_runs(
    workspace, github, model_server, capsys
) -> None:
    """`openai_api_key: local` (a local OpenAI-compatible server), `commands: allow`, a fork's pull
    request: its MCP server planted the forger's answers in .tool-eval-gate/cache and the action said
    `verdict=passed` with 0 model requests."""
    import shutil

    from tests.end_to_end.test_mcp_tool_servers import SCRIPT as SHOP_SCRIPT
    from tests.end_to_end.test_mcp_tool_servers import SERVER, suite_text
    from tests.end_to_end.test_untrusted_checkout import PLANT

    root = workspace["root"]
    server = SERVER.read_text().replace("from __future__ import annotations\n", "", 1)
    (root / "server.py").write_text("from __future__ import annotations\n" + PLANT + server)
    mcp = json.dumps({"command": ["python3", "server.py"]})
    (root / "evals/shop.suite.yaml").write_text(suite_text(mcp).replace("holds 1 item", "holds 99 item"))
    forger = model_server(SHOP_SCRIPT)  # calls the tool as the case expects
    recorded = actions_env(
        workspace, github, forger, commands="allow", suites="evals/shop.suite.yaml", baseline="off"
    )
    recorded.update(INPUT_CACHE="forged", INPUT_COMMENT="false", INPUT_REVIEW_COMMENTS="false")
    assert entrypoint([], recorded) == 0
    shutil.move(root / "forged", root / "assets")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a suite with an MCP server")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    honest = model_server({"default": {"text": "I do not know."}})  # never calls the tool
    env = actions_env(
        workspace, github, honest, fork=True, commands="allow", suites="evals/shop.suite.yaml", baseline="off"
    )
    env.update(INPUT_OPENAI_API_KEY="local", INPUT_COMMENT="false", INPUT_REVIEW_COMMENTS="false")
    (workspace["tmp"] / "event.json").write_text(json.dumps(_event_payload("pull_request", workspace)))
    fork_event = json.loads((workspace["tmp"] / "event.json").read_text())
    fork_event["pull_request"]["head"]["repo"] = {"full_name": "someone/agents"}
    (workspace["tmp"] / "event.json").write_text(json.dumps(fork_event))
    capsys.readouterr()

    assert entrypoint([], env) == 3
    out = capsys.readouterr().out
    assert "not verified: this is a pull request from a fork, and commands are allowed" in out
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    assert (outputs["verdict"], outputs["cache_trusted"]) == ("unverified", "false")
    assert honest.request_count == 0 and not (root / ".tool-eval-gate" / "cache").exists()


def test_a_foreign_bots_marked_comment_is_never_edited(workspace, github, model_server, capsys) -> None:
    from gate.reports.markdown import marker_line

    foreign_body = marker_line("default") + "\nsome other bot's text"
    foreign = github.add_issue_comment(7, foreign_body, {"login": "other-app[bot]", "id": 5, "type": "Bot"})
    human = github.add_issue_comment(7, marker_line("default") + "\nquoted by a person")
    server = model_server(SCRIPT)
    env = actions_env(workspace, github, server)

    for _ in range(2):  # the second run edits our own comment, still never the foreign one
        assert entrypoint([], env) == 1

    comments = github.comments_on(7)
    assert next(c for c in comments if c["id"] == foreign["id"])["body"] == foreign_body
    assert next(c for c in comments if c["id"] == human["id"])["body"].endswith("quoted by a person")
    ours = [c for c in comments if c["user"]["login"] == "github-actions[bot]"]
    assert len(ours) == 1 and "tool-eval-gate" in ours[0]["body"]
    assert ("GET", "/user") in [(m, p.split("?")[0]) for m, p in github.requests]  # answered 403


@pytest.mark.parametrize(
    ("inputs", "named"),
    [
        ({"pr_number": "seven"}, "input pr_number"),
        ({"threshold": "high"}, "input threshold"),
        ({"fail_on": "always"}, "input fail_on"),
    ],
)
def test_bad_inputs_write_every_output_and_name_the_input(
    workspace, github, model_server, capsys, inputs, named
) -> None:
    import yaml

    server = model_server(SCRIPT)
    code = entrypoint([], actions_env(workspace, github, server, **inputs))

    assert code == 2 and server.request_count == 0
    out = capsys.readouterr().out
    assert f"::error title=tool-eval-gate::{named}:" in out
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    declared = yaml.safe_load((Path(__file__).parents[2] / "action.yml").read_text())["outputs"]
    assert set(outputs) == set(declared)
    assert outputs["verdict"] == "invalid" and outputs["exit_code"] == "2" and outputs["pass_rate"] == ""
    summary = (workspace["tmp"] / "summary.md").read_text()
    assert md_text(named) in summary  # the input's name as Markdown text (fail\_on reads fail_on)
    assert "problem(s) in the suite files" not in summary and "--threshold" not in summary
    assert github.comments_on(7) == []


def test_sticky_comment_is_not_created_when_nothing_was_evaluated_but_an_existing_one_is_updated(
    workspace, github, model_server, capsys
) -> None:
    from gate.reports.markdown import marker_line

    commit_a_docs_only_change(workspace)
    server = model_server(SCRIPT)
    env = actions_env(workspace, github, server)

    assert entrypoint([], env) == 0
    assert github.comments_on(7) == []  # no noise on an unrelated pull request

    old = github.add_issue_comment(
        7,
        marker_line("default") + "\n❌ failed earlier",
        {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
    )
    assert entrypoint([], env) == 0
    (comment,) = github.comments_on(7)
    assert comment["id"] == old["id"] and "failed earlier" not in comment["body"]


def test_early_exits_and_runs_hand_the_workspace_back_to_its_owner(
    workspace, github, model_server, capsys
) -> None:
    """The container runs as root over a workspace owned by the runner user (uid 1001)."""
    import os

    root = workspace["root"]
    subprocess.run(["chown", "-R", "1001:1001", str(root)], check=True)
    server = model_server(SCRIPT)
    for inputs in ({"pr_number": "seven"}, {}):  # the refusal, then a full run with change detection
        entrypoint([], actions_env(workspace, github, server, **inputs))
        out_dir = root / "gate-out"
        created = root / ".tool-eval-gate"  # the cache's directory, made by the run
        owned = [
            out_dir,
            *out_dir.rglob("*"),
            root / ".git/index",
            *([created, *created.rglob("*")] if created.exists() else []),
        ]
        assert {(os.lstat(p).st_uid, os.lstat(p).st_gid) for p in owned} == {(1001, 1001)}, inputs
    assert server.request_count > 0
    assert (root / ".tool-eval-gate/cache").is_dir()


@pytest.mark.parametrize(
    ("inputs", "link", "name"),
    [
        ({}, "gate-out", "output_dir"),
        ({"output_dir": "out/gate"}, "out", "output_dir"),
        ({}, ".tool-eval-gate", "cache"),
    ],
)
def test_output_and_cache_directories_that_are_symlinks_are_refused(
    workspace, github, model_server, capsys, inputs, link, name
) -> None:
    """A pull request commits a symlink where the action writes: the container (root) would write
    outside the workspace and hand the link's target over to the runner user."""
    import os

    root, outside = workspace["root"], workspace["tmp"] / "outside"
    outside.mkdir()
    (outside / "owned-by-root").write_text("x")
    os.symlink(outside, root / link)
    git(root, "add", link)
    git(root, "commit", "-q", "-m", "a link")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    subprocess.run(["chown", "-R", "1001:1001", str(root)], check=True)
    server = model_server(SCRIPT)

    assert entrypoint([], actions_env(workspace, github, server, **inputs)) == 2
    out = capsys.readouterr().out
    assert f"::error title=tool-eval-gate::input {name}: {link} is a symlink" in out
    assert server.request_count == 0
    assert sorted(p.name for p in outside.iterdir()) == ["owned-by-root"]
    assert os.lstat(outside / "owned-by-root").st_uid == 0  # never handed over through the link
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "refused"


@pytest.mark.parametrize(
    "name", ["junit.xml", "results.json", "report.md", "report.html", "results.base.json"]
)
def test_report_files_that_are_symlinks_are_refused(workspace, github, model_server, capsys, name) -> None:
    """A pull request commits its own output directory with a report file that is a symlink to a
    file the root container would create outside the workspace: a `.pth` file under the job's
    $HOME, say, which the next Python step of the job would execute."""
    import os

    root, outside = workspace["root"], workspace["tmp"] / "outside"
    outside.mkdir()
    (root / "gate-out").mkdir()
    os.symlink(outside / "lib/site-packages/evil.pth", root / "gate-out" / name)
    git(root, "add", "gate-out")
    git(root, "commit", "-q", "-m", "a link")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    server = model_server(SCRIPT)

    assert entrypoint([], actions_env(workspace, github, server)) == 2
    out = capsys.readouterr().out
    assert f"::error title=tool-eval-gate::input output_dir: gate-out/{name} is a symlink" in out
    assert server.request_count == 0
    assert list(outside.iterdir()) == []  # nothing written or created through the link
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "refused"


# The model calls get_forecast only while its description says what it is for (the base's wording).
DESCRIPTION_SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "tomorrow", "described": "get_forecast: Forecast for a city", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        {
            "when": {"last_user": "weekend", "described": "get_forecast: Forecast for a city", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Rome", "days": 2}}],
        },
        *SCRIPT["rules"],
        {"when": {"after_tool": "get_forecast"}, "text": "Sunny."},
    ],
    "default": {"text": "I cannot help."},
}


def test_pull_requests_are_compared_with_their_merge_base_by_default(
    workspace, github, model_server, capsys
) -> None:
    server = model_server(DESCRIPTION_SCRIPT)
    env = actions_env(workspace, github, server, trials="4")
    assert entrypoint([], env) == 1  # significant regressions fail (the default policy)
    results = json.loads((workspace["root"] / "gate-out/results.json").read_text())
    statuses = {c["case_id"]: c["status"] for c in results["comparison"]["cases"]}
    assert statuses == {"now": "unchanged", "tomorrow": "regressed", "weekend": "regressed"}
    assert all(
        c["p_value"] == pytest.approx(1 / 70)
        for c in results["comparison"]["cases"]
        if c["status"] == "regressed"
    )
    assert (workspace["root"] / "gate-out/results.base.json").is_file()
    body = github.comments_on(7)[0]["body"]
    opening = body.split("tool-eval-gate failed")[0]
    bullets = [line for line in opening.splitlines() if line.startswith("- regression in weather: ")]
    assert len(bullets) == 2 and all(
        "get\\_weather is called instead of get\\_forecast" in b for b in bullets
    )
    assert "p = 0.014" in opening and "after the change to tools/weather.json:" in opening
    assert "base (" in opening and "model request(s)" in opening
    description_line = next(
        i
        for i, text in enumerate((workspace["root"] / "tools/weather.json").read_text().splitlines(), 1)
        if '"Forecast."' in text
    )
    on_line = [c["body"] for c in github.review_comments if c["line"] == description_line]
    assert any("This change broke 2 cases" in b and "weather/tomorrow" in b for b in on_line)

    # The HTML report is written beside the others, with the base side beside each case's head side,
    # and the comment and the job summary say where it is.
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    assert outputs["html_path"] == "gate-out/report.html"
    page = (workspace["root"] / "gate-out/report.html").read_text()
    data = json.loads(page.split('id="report-data">', 1)[1].split("</script>", 1)[0])
    tomorrow = next(c for c in data["cases"] if c["id"] == "tomorrow")
    assert tomorrow["k"][0] == "regressed" and tomorrow["head"] and tomorrow["base"]
    run = "https://github.example/acme/agents/actions/runs/99#artifacts"
    where = f"`gate-out/report.html` in the artifacts of [this run]({run})"
    assert where in body and where in (workspace["tmp"] / "summary.md").read_text()

    # The same PR again: both sides answered from the persisted cache.
    server.reset_stats()
    assert entrypoint([], actions_env(workspace, github, server, trials="4")) == 1
    assert server.request_count == 0


def test_the_comparison_can_be_turned_off(workspace, github, model_server) -> None:
    server = model_server(DESCRIPTION_SCRIPT)
    assert entrypoint([], actions_env(workspace, github, server, baseline="off")) == 1
    results = json.loads((workspace["root"] / "gate-out/results.json").read_text())
    assert "comparison" not in results and "baseline" not in results["settings"]


def test_the_logged_command_line_reruns_the_same_evaluation(
    workspace, github, model_server, capsys, monkeypatch
) -> None:
    import shlex

    from gate.cli import main as cli

    server = model_server(SCRIPT)
    env = actions_env(workspace, github, server, comment="false", review_comments="false")
    assert entrypoint([], env) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("::group::tool-eval-gate run "))
    words = shlex.split(line.removeprefix("::group::"))
    assert "--root" in words and words[words.index("--root") + 1] == "."  # paths relative to the workspace
    assert words[words.index("--changed-since") + 1] == workspace["base"]
    assert words[words.index("--json") + 1] == "gate-out/results.json"
    action_summary = (workspace["tmp"] / "summary.md").read_text()

    # A user reruns it in the repository: the same verdict and comparison the summary showed.
    monkeypatch.chdir(workspace["root"])
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    assert cli(words[1:]) == 1
    assert "tool-eval-gate FAILED: 1/3 passed" in capsys.readouterr().out
    report = (workspace["root"] / "gate-out/report.md").read_text()
    for line in ("**Pass rate 33.3%** (1/3 cases", "- no significant regression and no fix in the 3 cases"):
        assert line in report and line in action_summary


def test_a_push_to_the_base_branch_warms_the_cache_for_pull_requests(workspace, github, model_server) -> None:
    """The example workflow runs on pushes to main and persists .tool-eval-gate/cache: the push's run
    stores its answers there, so a pull request's base side sends nothing."""
    root = workspace["root"]
    server = model_server(DESCRIPTION_SCRIPT)
    git(root, "checkout", "-q", "main")
    env = actions_env(workspace, github, server, trials="2")
    push = {"before": "0" * 40, "after": workspace["base"], "repository": {"full_name": "acme/agents"}}
    (workspace["tmp"] / "event.json").write_text(json.dumps(push))
    env["GITHUB_EVENT_NAME"] = "push"
    assert entrypoint([], env) == 0
    assert server.request_count > 0 and any((root / ".tool-eval-gate/cache").rglob("*.json"))

    git(root, "checkout", "-q", "feature")
    server.reset_stats()
    assert entrypoint([], actions_env(workspace, github, server, trials="2", comment="false")) == 1
    results = json.loads((root / "gate-out/results.json").read_text())
    assert results["settings"]["baseline"]["requests"] == 0  # the base side came from the push's run
    assert results["settings"]["requests"] == server.request_count > 0


def test_a_known_flaky_case_is_a_notice_not_an_error(workspace, github, model_server, capsys) -> None:
    root = workspace["root"]
    suite = (root / "evals/weather.suite.yaml").read_text()
    marked = suite.replace(
        "  - id: weekend\n", "  - id: weekend\n    non_gating: the model sometimes asks which day\n"
    )
    (root / "evals/weather.suite.yaml").write_text(marked)
    git(root, "commit", "-q", "-am", "weekend is known flaky")
    server = model_server(SCRIPT)
    assert entrypoint([], actions_env(workspace, github, server, review_comments="false")) == 1
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert any("weather / tomorrow failed" in line for line in errors)
    assert not any("weekend" in line for line in errors)  # it does not gate: no error
    notices = [line for line in out.splitlines() if line.startswith("::notice") and "weekend" in line]
    assert notices and "non-gating" in notices[0]
    body = github.comments_on(7)[0]["body"]
    assert "Known-flaky cases that did not pass" in body
    failed_section = body[body.index("### Failed cases") : body.index("Known-flaky cases")]
    assert "weather/tomorrow" in failed_section and "weather/weekend" not in failed_section
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    assert (outputs["passed"], outputs["failed"]) == ("1", "1")


def test_the_action_s_notices_are_escaped_in_the_job_summary_and_the_comment(
    workspace, github, model_server, capsys
) -> None:
    """The notices quote a file name the pull request chose (a committed cache entry): in the job
    summary it is text, whether the run went on (with a key) or was not verified (a fork's), and so is
    the name of a suite file in the sticky comment that says why nothing was run (it is invalid)."""
    root = workspace["root"]
    forged = root / ".tool-eval-gate" / "cache" / f"{HOSTILE_NAME}.json"
    forged.parent.mkdir(parents=True)
    forged.write_text("{}")
    git(root, "add", "-f", ".tool-eval-gate/cache")
    git(root, "commit", "-q", "-m", "answers")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    summary = workspace["tmp"] / "summary.md"
    server = model_server(SCRIPT)
    shown = md_text(f"cache/{HOSTILE_NAME}.json")  # the name is said, as text

    entrypoint([], actions_env(workspace, github, server, comment="false", review_comments="false"))
    asked = summary.read_text()
    assert "none is read from it; this run asks the model" in asked and shown in asked
    assert_inert(asked)

    summary.unlink()
    assert fork_run(workspace, github, server) == 3
    refused = summary.read_text()
    assert "not verified" in refused and shown in refused
    assert_inert(refused)

    (root / "evals" / f"{HOSTILE_NAME}.suite.yaml").write_text("version: 1\nname: broken\ncases: [\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "broken")
    workspace["head"] = git(root, "rev-parse", "HEAD")
    summary.unlink()
    assert entrypoint([], actions_env(workspace, github, server)) == 2
    [comment] = github.comments_on(7)
    for text in [summary.read_text(), comment["body"]]:
        assert "Invalid input" in text and HOSTILE_NAME in text  # in a code span
        assert_inert(text)


def test_no_name_of_a_forged_results_file_is_live_in_the_summary_comment_or_review(
    workspace, github, capsys
) -> None:
    """Every text the action writes to Markdown from a results file (suite, case, tool, argument and
    file names, reasons, the analysis's advice) is inert, in the job summary, the sticky comment (its
    list of advice outside the diff included) and every review comment."""
    # A forged artifact (of this pull request's head and run, as the publishing workflow checks).
    (workspace["root"] / "forged.json").write_text(made_here(hostile_names(), workspace), encoding="utf-8")
    added = "@@ -0,0 +1,40 @@\n" + "".join(f"+line {i}\n" for i in range(1, 41))
    tool_file = f"tools/weather.json {HOSTILE_NAME}"
    github.add_pull(7, {tool_file: added}, head_sha=workspace["head"], base_sha=workspace["base"])
    env = actions_env(workspace, github, None, results="forged.json", baseline="off")

    assert entrypoint([], env) == 1

    summary = (workspace["tmp"] / "summary.md").read_text()
    [comment] = github.comments_on(7)
    [review] = github.reviews
    assert "Recommendations outside this pull request's diff" in comment["body"]  # the prompt's advice
    assert {c["path"] for c in github.review_comments} == {tool_file}  # the tool file's advice
    for text in [summary, comment["body"], review["body"], *(c["body"] for c in github.review_comments)]:
        assert_inert(text)
    # The names are said, as code: "Use `get_weather @octocat <img ...>` for …" in the tool file's advice.
    advice = "\n".join(c["body"] for c in github.review_comments)
    assert (
        f'e.g. "Use `get_weather {HOSTILE_NAME}` for …; for … use `get_forecast {HOSTILE_NAME}`."' in advice
    )
    assert f"Argument `days {HOSTILE_NAME}` of `get_forecast {HOSTILE_NAME}`" in advice
    assert f"The agent called `book_flite {HOSTILE_NAME}`, which is not defined" in comment["body"]


def test_a_shortened_comment_links_to_the_run_s_artifacts(workspace, github, capsys) -> None:
    """A comment cut to GitHub's limit says where the whole report is with a link that works (the run's
    own address, from the runner's environment), not an address made inert as untrusted text is."""
    from gate.results_json.codec import to_json
    from tests.reports.test_markdown import big_results

    (workspace["root"] / "big.json").write_text(
        made_here(to_json(big_results(400)), workspace), encoding="utf-8"
    )
    github.add_pull(7, {}, head_sha=workspace["head"], base_sha=workspace["base"])
    env = actions_env(workspace, github, None, results="big.json", baseline="off")

    assert entrypoint([], env) == 1

    [comment] = github.comments_on(7)
    run = "https://github.example/acme/agents/actions/runs/99#artifacts"
    assert "shortened to fit" in comment["body"]
    assert f"The full report: the job summary and [the artifacts of this run]({run})._" in comment["body"]


def test_errors_beyond_the_budget_reach_the_outputs_the_summary_and_the_comment(
    workspace, github, model_server, fast_retries
) -> None:
    """The provider fails (500s) for one case of three on both sides: beyond the error budget, with
    the threshold lowered so that nothing fails whatever that case would have given: incomplete."""
    fault = {"kind": "status", "status": 500, "retry_after": 0}
    server = model_server(
        {**SCRIPT, "rules": [{"when": {"last_user": "Rome"}, "fault": fault}, *SCRIPT["rules"]]}
    )
    env = actions_env(workspace, github, server, threshold="0.6")

    assert entrypoint([], env) == 3
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    assert outputs["verdict"] == "incomplete" and outputs["exit_code"] == "3" and outputs["errors"] == "1"
    beyond = "suite weather: 1 of 3 cases could not be evaluated (33.3%), more than the error budget of 10.0%"
    reasons = outputs["reasons"].split("\n")
    assert reasons[0].startswith(beyond) and reasons[0].endswith("it has no verdict")
    assert reasons[1].startswith("the base side of suite weather: 1 of 3 cases could not be evaluated")
    assert beyond in (workspace["tmp"] / "summary.md").read_text()
    assert beyond in github.comments_on(7)[0]["body"]

    within = actions_env(workspace, github, server, threshold="0.6", max_error_rate="0.5")
    assert entrypoint([], within) == 1  # the error counts: 1 of 3 passed, under 60%
    outputs = read_outputs(workspace["tmp"] / "output.txt")
    assert outputs["verdict"] == "failed" and "error budget" not in outputs["reasons"]
