"""``run --suggest-fixes`` end to end (DESIGN section 11): a real git repository whose pull request
degrades a tool description, the real OpenAI SDK, and a scripted model whose answers depend on the
tool descriptions it is sent. The degraded description makes the model call get_weather for
"tomorrow"; the fix model proposes three wordings: one that copies the case into the definition
(refused as overfitting), one that fixes "tomorrow" but makes the model call get_forecast for "right
now" too (reported, never suggested), and one that fixes it and breaks nothing (suggested, with its
evidence, as a patch that git applies)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gate.commands.report import main as report_main
from gate.commands.run import main as run_main
from tests.end_to_end.test_baseline_auto import git, tools

TRIALS = 5
GOOD = "Forecast for the next days, starting tomorrow."
DEGRADED = "Forecast data."
OVERFITTING = 'Forecast. Use it for "Do I need sunglasses in Paris tomorrow?"'
BREAKING = "Forecast: use it for any weather question, tomorrow included."
FIXING = "Forecast for the coming days, starting tomorrow: use it for questions about tomorrow or later."

FIX_MODEL_RULE = {
    "when": {"forced_tool": "propose_replacements", "model": "judge-model"},
    "tool_calls": [
        {"arguments": {"candidates": [{"text": OVERFITTING}, {"text": BREAKING}, {"text": FIXING}]}}
    ],
}
SCRIPT = {
    "rules": [
        FIX_MODEL_RULE,
        {  # a description that claims every weather question takes "right now" from get_weather
            "when": {"last_user": "right now", "described": "get_forecast: [^\n]*any weather", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        {  # the model calls get_forecast for "tomorrow" only while its description says tomorrow
            "when": {"last_user": "tomorrow", "described": "get_forecast: [^\n]*tomorrow", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        {
            "when": {"last_user": "(right now|tomorrow)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        },
        {"when": {"after_tool": "get_forecast"}, "text": "Sunny tomorrow."},
        {"when": {"after_tool": "get_weather"}, "text": "It is 18 degrees."},
    ],
    "default": {"text": "Hello! Ask me about the weather."},
}

SUITE = f"""\
version: 1
name: weather-agent
agent:
  provider: openai
  model: test-model
  tools: [{{file: tools/weather.json}}]
judge: {{provider: openai, model: judge-model}}
mocks:
  tools:
    get_weather: [{{returns: {{temp_c: 18}}}}]
    get_forecast: [{{returns: {{sky: sunny}}}}]
defaults: {{trials: {TRIALS}}}
threshold: 0.9
cases:
  - id: tomorrow
    input: Do I need sunglasses in Paris tomorrow?
    expect: {{calls: [{{tool: get_forecast, args: {{city: Paris, days: 1}}}}]}}
  - id: now
    input: What's the weather in Paris right now?
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
  - id: hello
    input: Hello there
    expect: {{no_calls: true}}
"""


def make_repo(tmp_path: Path, suite: str = SUITE) -> Path:
    """A repository whose main has the good description, on a branch "pr" that degrades it."""
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text(".tool-eval-gate/\nout/\n")
    (repo / "tools" / "weather.json").write_text(tools(GOOD))
    (repo / "weather.suite.yaml").write_text(suite)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "tools" / "weather.json").write_text(tools(DEGRADED))
    git(repo, "commit", "-qam", "shorter forecast description")
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def description_line(repo: Path) -> int:
    text = (repo / "tools/weather.json").read_text()
    return next(n for n, line in enumerate(text.splitlines(), 1) if DEGRADED in line)


def run(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch, *extra: str, key: str = "sk-test") -> int:
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    if key:
        monkeypatch.setenv("OPENAI_API_KEY", key)
    else:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = ["--json", "out/r.json", "--markdown", "out/r.md", "--html", "out/r.html"]
    argv = ["--changed-since", "main", "--baseline", "auto", "--quiet", "--concurrency", "4", *out]
    return run_main([*argv, *extra])


def fixes_of(repo: Path) -> dict[str, Any]:
    fixes: dict[str, Any] = json.loads((repo / "out/r.json").read_text())["fixes"]
    return fixes


def proposals(server: Any) -> int:
    """How many times the fix model was asked (its requests offer the tool it answers with)."""
    return sum(
        1
        for request in server.requests
        if any(
            (t.get("function") or {}).get("name") == "propose_replacements" for t in request["body"]["tools"]
        )
    )


def test_the_fixing_wording_is_suggested_the_breaking_one_reported_the_overfitting_one_refused(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = model_server(SCRIPT)
    assert run(repo, server, monkeypatch, "--suggest-fixes", "--fix-patch", "out/fix.patch") == 1
    out = capsys.readouterr().out
    results = json.loads((repo / "out/r.json").read_text())
    fixes = results["fixes"]
    assert fixes["skipped"] == "" and fixes["skipped_cases"] == []
    [definition] = fixes["definitions"]
    line = description_line(repo)
    assert (definition["file"], definition["line"], definition["kind"], definition["tool"]) == (
        "tools/weather.json",
        line,
        "tool_description",
        "get_forecast",
    )
    assert definition["text"] == DEGRADED and definition["targeted"] == ["weather-agent/tomorrow"]
    overfitting, breaking, fixing = definition["candidates"]
    assert (overfitting["status"], overfitting["requests"], overfitting["cases"]) == ("refused", 0, [])
    assert (
        overfitting["reason"]
        == 'it copies "Paris", a value case weather-agent/tomorrow expects, into the definition'
    )
    assert breaking["status"] == "broke" and breaking["reason"] == "it breaks weather-agent/now"
    by_case = {c["case_id"]: (c["outcome"], c["passed"], c["trials"]) for c in breaking["cases"]}
    assert by_case["tomorrow"] == ("fixed", TRIALS, TRIALS)
    assert by_case["now"][:2] == ("broke", 0) and by_case["now"][2] < TRIALS  # decided before its last trial
    assert fixing["status"] == "verified" and fixing["text"] == FIXING
    assert {(c["case_id"], c["role"], c["outcome"]) for c in fixing["cases"]} == {
        ("tomorrow", "targeted", "fixed"),
        ("now", "passing", "kept"),
        ("hello", "passing", "kept"),
    }
    evidence = "fixes 1 of 1 failing case, breaks 0 of 2 passing ("
    assert definition["note"].startswith(f"candidate 3 is verified: {evidence}")
    assert definition["note"].endswith(" trials each, no passing case lost a trial)")
    # a passing case stops once no trial to come can break it: the verified candidate ran fewer
    assert sum(c["trials"] for c in fixing["cases"]) < 3 * TRIALS
    assert definition["scope"] == "every passing gating case of weather-agent (2)"

    # the patch: exactly the description, for git apply; the report and the console say it
    patch = (repo / "out/fix.patch").read_text()
    assert patch == fixes["patch"]
    assert report_main(["out/r.json", "--fix-patch", "out/again.patch"]) == 1  # re-rendered: the same patch
    assert (repo / "out/again.patch").read_text() == patch
    assert f'-      "description": "{DEGRADED}",\n+      "description": "{FIXING}",\n' in patch
    report = (repo / "out/r.md").read_text()
    assert "### 🛠️ Fixes the gate verified" in report and f"`tools/weather.json:{line}`" in report
    assert evidence in report and "❌ breaks a passing case: it breaks weather-agent/now" in report
    assert (
        f"fix for tools/weather.json:{line} (the description of `get_forecast`): candidate 3 verified" in out
    )
    assert "Fixes the gate verified" in (repo / "out/r.html").read_text()

    # one request to the fix model; the search's requests counted apart from the run's
    assert proposals(server) == 1
    assert (
        fixes["requests"]
        == server.request_count
        - results["settings"]["requests"]
        - results["settings"]["baseline"]["requests"]
    )
    assert f"fix search: {fixes['requests']} model requests" in out

    # the files were never written; the verdict is the run's
    assert (repo / "tools/weather.json").read_text() == tools(DEGRADED)
    verdict = results["verdict"]
    assert run(repo, server, monkeypatch) == 1
    assert json.loads((repo / "out/r.json").read_text())["verdict"] == verdict

    # the patch applies, and the run on the patched files passes
    git(repo, "apply", str(repo / "out/fix.patch"))
    assert (repo / "tools/weather.json").read_text() == tools(FIXING)
    assert run(repo, server, monkeypatch) == 0


def test_a_budget_too_small_for_the_cases_gives_no_verified_fix(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = model_server(SCRIPT)
    assert (
        run(repo, server, monkeypatch, "--suggest-fixes", "--fix-budget", "12", "--fix-patch", "out/p") == 1
    )
    fixes = fixes_of(repo)
    [definition] = fixes["definitions"]
    assert definition["note"] == "no verified fix within the budget"
    assert fixes["requests"] <= 12 and fixes["budget"] == "12"
    assert all(c["status"] != "verified" for c in definition["candidates"])
    assert (repo / "out/p").read_text() == ""  # no verified edit: an empty patch
    assert "no verified fix within the budget" in (repo / "out/r.md").read_text()


def test_no_search_without_a_key_and_cases_no_wording_fixes_are_left_alone(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = SUITE + (
        "  - id: broken\n"
        "    input: The server breaks on this one\n"
        "    expect: {calls: [{tool: get_weather}]}\n"
    )
    repo = make_repo(tmp_path, suite)
    script = {
        **SCRIPT,
        "rules": [
            {"when": {"last_user": "breaks"}, "fault": {"kind": "status", "status": 400}},
            *SCRIPT["rules"],
        ],
    }
    server = model_server(script)
    extra = ("--suggest-fixes", "--max-error-rate", "0.5", "--cache", str(tmp_path / "cache"))
    assert run(repo, server, monkeypatch, *extra) == 1
    fixes = fixes_of(repo)
    assert fixes["skipped_cases"] == [
        {
            "suite": "weather-agent",
            "case_id": "broken",
            "reason": fixes["skipped_cases"][0]["reason"],
        }
    ]
    assert fixes["skipped_cases"][0]["reason"].startswith("it could not be evaluated: ")
    assert [c["status"] for c in fixes["definitions"][0]["candidates"]] == ["refused", "broke", "verified"]

    # A fork's run: no key, answers replayed from the cache. The verdict stands; no search is made: not
    # on a run that is not verified (the broken case's requests were never answered: no replay can)...
    server.reset_stats()
    assert run(repo, server, monkeypatch, *extra, "--replay", key="") == 1
    assert server.request_count == 0
    assert fixes_of(repo)["skipped"].startswith("the run is not verified")
    # ... nor without a key, where the replay answers every request.
    assert run(repo, server, monkeypatch, *extra, "--replay", "--case", "tomorrow", key="") == 1
    assert server.request_count == 0
    fixes = fixes_of(repo)
    assert fixes["skipped"].startswith("no key to ask the models with (OPENAI_API_KEY unset")
    assert (
        fixes["definitions"] == [] and "_No fix was searched for: no key" in (repo / "out/r.md").read_text()
    )


def test_the_fix_options_go_with_suggest_fixes(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = model_server(SCRIPT)
    from gate.cli import main as cli

    monkeypatch.chdir(repo)
    for extra, message in (
        (("--fix-budget", "10"), "--fix-budget goes with --suggest-fixes"),
        (("--suggest-fixes", "--shard", "1/2"), "a shard does not hold"),
        (("--suggest-fixes", "--fix-budget", "ten"), "a number of requests (200) or of US dollars"),
        (("--suggest-fixes", "--fix-candidates", "11"), "at most 10 candidates"),
    ):
        assert cli(["run", "--changed-since", "main", *extra]) == 2, extra
        assert message in capsys.readouterr().err
    assert server.request_count == 0


# --- through the action, against the fake GitHub API -------------------------------------------------


@pytest.fixture
def _fresh_git_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entrypoint trusts the workspace through GIT_CONFIG_* variables of its own process."""
    for name in [n for n in os.environ if n.startswith("GIT_CONFIG_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "0")


@pytest.mark.usefixtures("_fresh_git_config")
def test_the_action_suggests_the_verified_wording_on_its_line_of_the_diff(
    tmp_path: Path, model_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from gate.github.entrypoint import main as entrypoint
    from tests.github.test_entrypoint import actions_env, read_outputs
    from tests.support.fake_github import FakeGitHub

    repo = make_repo(tmp_path)
    base, head = git(repo, "rev-parse", "main").strip(), git(repo, "rev-parse", "HEAD").strip()
    diff = git(repo, "diff", base, head, "--", "tools/weather.json")
    workspace = {"root": repo, "base": base, "head": head, "tmp": tmp_path}
    server = model_server(SCRIPT)
    with FakeGitHub("acme/agents") as github:
        github.add_pull(7, {"tools/weather.json": diff[diff.index("@@") :]}, head_sha=head, base_sha=base)
        assert entrypoint([], actions_env(workspace, github, server, suggest_fixes="true")) == 1
        line = description_line(repo)
        [suggested] = [c for c in github.review_comments if "suggestion\n" in c["body"]]
        assert (suggested["path"], suggested["line"], suggested["start_line"]) == (
            "tools/weather.json",
            line,
            None,
        )
        assert f'```suggestion\n      "description": "{FIXING}",\n```' in suggested["body"]
        assert "fixes 1 of 1 failing case, breaks 0 of 2 passing (" in suggested["body"]
        assert "the others: 1 broke a passing case, 1 refused" in suggested["body"]
        assert not any(BREAKING in c["body"] or OVERFITTING in c["body"] for c in github.review_comments)
        [sticky] = github.comments_on(7)
        assert "### 🛠️ Fixes the gate verified" in sticky["body"]
        assert f'+      "description": "{FIXING}",' in sticky["body"]  # the diff block
        assert "❌ breaks a passing case: it breaks weather-agent/now" in sticky["body"]
        outputs = read_outputs(tmp_path / "output.txt")
        assert outputs["fix_patch_path"] == "gate-out/fixes.patch" and outputs["verdict"] == "failed"
        assert FIXING in (repo / "gate-out/fixes.patch").read_text()
        summary = (tmp_path / "summary.md").read_text()
        assert "Fixes the gate verified" in summary

        # The same pull request again: the suggestion is not posted twice.
        posted = len(github.review_comments)
        assert entrypoint([], actions_env(workspace, github, server, suggest_fixes="true")) == 1
        assert len([c for c in github.review_comments[posted:] if "suggestion\n" in c["body"]]) == 0

        # A fork's run, without the key: the cache replays the verdict; no fix is searched for.
        env = actions_env(workspace, github, server, fork=True, suggest_fixes="true")
        env["INPUT_OPENAI_BASE_URL"] = ""
        server.reset_stats()
        assert entrypoint([], env) == 1
        assert server.request_count == 0
        fixes = json.loads((repo / "gate-out/results.json").read_text())["fixes"]
        assert fixes["skipped"].startswith("no key to ask the models with")
        assert read_outputs(tmp_path / "output.txt")["fix_patch_path"] == ""

    # A pull request whose diff does not hold the edited line: no suggested change (it would replace a
    # line the review cannot sit on), the sticky comment's diff block only.
    with FakeGitHub("acme/agents") as github:
        readme = "@@ -1 +1,2 @@\n # weather\n+more\n"
        github.add_pull(7, {"README.md": readme}, head_sha=head, base_sha=base)
        assert entrypoint([], actions_env(workspace, github, server, suggest_fixes="true")) == 1
        assert not any("suggestion\n" in c["body"] for c in github.review_comments)
        [sticky] = github.comments_on(7)
        assert f'+      "description": "{FIXING}",' in sticky["body"]


# --- an agent program's own tool ----------------------------------------------------------------------

PROGRAM = '''\
"""A small agent on the openai SDK: get_weather from the gate's mock MCP server, local_time its own."""
import json, os, sys, urllib.request
import openai

client = openai.OpenAI(max_retries=0)
MCP = os.environ["TOOL_EVAL_GATE_MCP_URL"]
HEADERS = {"content-type": "application/json", "accept": "application/json"}

def mcp(method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    return json.load(urllib.request.urlopen(urllib.request.Request(MCP, body, HEADERS)))["result"]

LOCAL_TIME = {
    "name": "local_time",
    "description": "Use it for any city question.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
listed = mcp("tools/list", {})["tools"]
tools = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
          "parameters": t["inputSchema"]}} for t in listed]
tools.append({"type": "function", "function": LOCAL_TIME})
messages = []
for line in sys.stdin:
    message = json.loads(line)
    messages += [{"role": "user", "content": message["content"]}]
    while True:
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
        reply = reply.choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        if not reply.tool_calls:
            print(json.dumps({"content": reply.content}), flush=True)
            break
        for call in reply.tool_calls:
            arguments = json.loads(call.function.arguments)
            if call.function.name == "local_time":
                text = "09:30"
            else:
                result = mcp("tools/call", {"name": call.function.name, "arguments": arguments})
                text = result["content"][0]["text"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
'''
PROGRAM_SUITE = """\
version: 1
name: weather-desk
agent:
  command: [python3, agent/desk.py]
  watch: ["agent/**"]
  tools:
    - type: function
      function:
        name: get_weather
        description: The weather now in a city.
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
judge: {provider: openai, model: judge-model}
mocks:
  tools:
    get_weather: [{returns: {temp_c: 18}}]
cases:
  - id: paris
    input: What is the weather in Paris?
    expect:
      calls: [{tool: get_weather, args: {city: Paris}}]
      extra_calls: forbid
"""
PROGRAM_FIX = "The local time in a city, as HH:MM, when the user asks what time it is."
PROGRAM_SCRIPT = {
    "rules": [
        {
            "when": {"forced_tool": "propose_replacements"},
            "tool_calls": [{"arguments": {"candidates": [{"text": PROGRAM_FIX}]}}],
        },
        {  # a local_time "for any city question" is called beside get_weather
            "when": {"last_user": "weather in Paris", "described": "local_time: [^\n]*any city", "turn": 1},
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "local_time", "arguments": {"city": "Paris"}},
            ],
        },
        {
            "when": {"last_user": "weather in Paris", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        },
    ],
    "default": {"text": "It is 18 degrees in Paris."},
}


def test_an_agent_programs_own_tool_is_reworded_in_its_source_and_in_its_requests(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "desk"
    (repo / "agent").mkdir(parents=True)
    (repo / "agent/desk.py").write_text(PROGRAM)
    (repo / "desk.suite.yaml").write_text(PROGRAM_SUITE)
    git(repo, "init", "-q", "-b", "main")
    server = model_server(PROGRAM_SCRIPT)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    argv = ["desk.suite.yaml", "--allow-commands", "--quiet", "--json", "out/r.json"]
    assert run_main([*argv, "--suggest-fixes", "--fix-patch", "out/fix.patch"]) == 1
    [definition] = fixes_of(repo)["definitions"]
    line = PROGRAM.splitlines().index('    "description": "Use it for any city question.",') + 1
    assert (definition["file"], definition["line"], definition["tool"]) == (
        "agent/desk.py",
        line,
        "local_time",
    )
    [candidate] = definition["candidates"]
    assert candidate["status"] == "verified", candidate
    # the model was shown the new wording in the program's own request
    offered = [
        (t.get("function") or {}).get("description")
        for r in server.requests
        for t in r["body"].get("tools") or []
        if (t.get("function") or {}).get("name") == "local_time"
    ]
    assert PROGRAM_FIX in offered and "Use it for any city question." in offered
    assert (repo / "agent/desk.py").read_text() == PROGRAM  # never written
    git(repo, "apply", "out/fix.patch")
    assert f'    "description": "{PROGRAM_FIX}",' in (repo / "agent/desk.py").read_text()
    assert run_main(argv) == 0


# --- a paragraph of the system prompt ----------------------------------------------------------------

PROMPT = "You answer weather questions for travellers.\n\nUse get_forecast for questions about tomorrow.\n"
PROMPT_FIX = "Use get_forecast for anything about tomorrow or later days."
PROMPT_SCRIPT = {
    "rules": [
        {
            "when": {"forced_tool": "propose_replacements", "last_user": "a paragraph of the system prompt"},
            "tool_calls": [{"arguments": {"candidates": [{"text": "Be brief."}, {"text": PROMPT_FIX}]}}],
        },
        {"when": {"forced_tool": "propose_replacements"}, "tool_calls": [{"arguments": {"candidates": []}}]},
        {
            "when": {"last_user": "tomorrow", "system": "get_forecast for [^\n]*tomorrow", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        *SCRIPT["rules"][3:],
    ],
    "default": SCRIPT["default"],
}


def test_a_prompt_paragraph_the_change_broke_is_reworded_as_a_paragraph(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = SUITE.replace(
        "  tools: [{file: tools/weather.json}]\n",
        "  system_prompt: {file: prompt.md}\n  tools: [{file: tools/weather.json}]\n",
    )
    repo = make_repo(tmp_path, suite.replace(f"trials: {TRIALS}", "trials: 1"))
    (repo / "tools/weather.json").write_text(tools(GOOD))  # the pull request changes the prompt instead
    (repo / "prompt.md").write_text(PROMPT)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "prompt")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "pr")
    git(repo, "checkout", "-q", "pr")
    (repo / "prompt.md").write_text(
        PROMPT.replace("Use get_forecast for questions about tomorrow.", "Be brief.")
    )
    git(repo, "commit", "-qam", "shorter prompt")
    server = model_server(PROMPT_SCRIPT)
    assert run(repo, server, monkeypatch, "--suggest-fixes", "--fix-patch", "out/fix.patch") == 1
    paragraph = fixes_of(repo)["definitions"][0]
    assert (paragraph["kind"], paragraph["file"], paragraph["line"], paragraph["text"]) == (
        "prompt_paragraph",
        "prompt.md",
        3,
        "Be brief.",
    )
    assert [(c["status"], c["reason"]) for c in paragraph["candidates"]] == [
        ("refused", "it is the current text"),
        ("verified", ""),
    ]
    assert [c["role"] for c in paragraph["candidates"][1]["cases"]] == ["targeted", "passing", "passing"]
    git(repo, "apply", "out/fix.patch")
    assert (repo / "prompt.md").read_text() == PROMPT.replace(
        "Use get_forecast for questions about tomorrow.", PROMPT_FIX
    )
    assert run(repo, server, monkeypatch) == 0
