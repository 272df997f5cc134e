"""``tool-eval-gate run`` end to end: suites written to a temporary repository, the real SDKs
talking to the scripted server, outputs on disk, exit codes as documented."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION
from tests.conftest import ROOT

OPENAI_KEY = "sk-test-dummy-openai-key-123456"
ANTHROPIC_KEY = "sk-ant-test-dummy-key-123456"

SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees."},
    ],
    "default": {"text": "I do not know."},
}

TOOLS = [
    WEATHER_FUNCTION,
    {
        "name": "get_forecast",
        "description": "Forecast for a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
]


def suite_text(
    provider: str, cities: list[str], *, expect_forecast_for: tuple[str, ...] = (), name: str = "weather"
) -> str:
    lines = [
        "version: 1",
        f"name: {name}",
        "agent:",
        f"  provider: {provider}",
        "  model: test-model",
        "  params: {temperature: 0}",
        "  system_prompt: You are a weather assistant.",
        "  tools:",
        "    - {file: ../tools/weather.json}",
        "mocks:",
        "  tools:",
        "    get_weather:",
        "      - returns: {temp_c: 18}",
        "threshold: 0.9",
        "cases:",
    ]
    for city in cities:
        tool = "get_forecast" if city in expect_forecast_for else "get_weather"
        lines += [
            f"  - id: {city.lower()}",
            f"    input: What's the weather in {city}?",
            "    expect:",
            "      calls:",
            f"        - tool: {tool}",
            f"          args: {{city: {city}}}",
            "      output: {contains: '18'}",
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("CI", "true")
    return tmp_path


def point(monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)


def gate_run(repo: Path, *args: str) -> int:
    return cli_main(["run", "--root", str(repo), *args])


def no_secrets(*texts: str) -> None:
    for text in texts:
        assert OPENAI_KEY not in text and ANTHROPIC_KEY not in text


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_passing_suite_exits_0_and_writes_outputs(provider, repo, model_server, monkeypatch, capsys):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "suites" / "weather.suite.yaml").write_text(suite_text(provider, ["Paris", "Rome", "Oslo"]))
    out = repo / "out"
    code = gate_run(
        repo,
        str(repo / "suites"),
        "--json",
        str(out / "r.json"),
        "--junit",
        str(out / "r.xml"),
        "--markdown",
        str(out / "r.md"),
    )
    captured = capsys.readouterr()
    assert code == 0, captured
    assert "PASSED" in captured.out and "weather: 100.0% (3/3)" in captured.out
    data = json.loads((out / "r.json").read_text())
    (suite,) = data["suites"]
    assert suite["provider"] == provider
    assert [c["status"] for c in suite["cases"]] == ["passed"] * 3
    assert suite["cases"][0]["trials"][0]["record"]["calls"][0]["arguments"] == {"city": "Paris"}
    assert (out / "r.xml").read_text().startswith("<?xml")
    assert (out / "r.md").read_text().strip()
    assert server.request_count == 6
    no_secrets(captured.out, captured.err, (out / "r.json").read_text())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_failing_suite_exits_1(provider, repo, model_server, monkeypatch, capsys):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text(provider, ["Paris", "Rome"], expect_forecast_for=("Rome",))
    )
    code = gate_run(repo, "--json", str(repo / "r.json"))
    captured = capsys.readouterr()
    assert code == 1
    assert "FAIL weather: 50.0% (1/2)" in captured.out
    cases = json.loads((repo / "r.json").read_text())["suites"][0]["cases"]
    assert [c["status"] for c in cases] == ["passed", "failed"]
    # The threshold override can let it pass.
    assert gate_run(repo, "--threshold", "0.5") == 0


def test_record_then_replay_makes_no_requests_and_needs_no_key(repo, model_server, monkeypatch, capsys):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "suites" / "weather.suite.yaml").write_text(suite_text("openai", ["Paris", "Rome"]))
    cache = repo / "cache"
    assert gate_run(repo, "--record", "--cache", str(cache), "--trials", "2") == 0
    assert server.request_count == 8
    monkeypatch.delenv("OPENAI_API_KEY")
    assert (
        gate_run(repo, "--replay", "--cache", str(cache), "--trials", "2", "--json", str(repo / "r.json"))
        == 0
    )
    assert server.request_count == 8  # not one request more
    assert "cache (replay): 8 hits, 0 misses" in capsys.readouterr().out
    # A changed suite misses the recording: an error for that case, never a model call.
    (repo / "suites" / "weather.suite.yaml").write_text(suite_text("openai", ["Paris", "Lima"]))
    code = gate_run(repo, "--replay", "--cache", str(cache), "--trials", "2", "--json", str(repo / "r.json"))
    assert code in (1, 3)  # the error counts against the gate (the verdict policy says how)
    cases = json.loads((repo / "r.json").read_text())["suites"][0]["cases"]
    assert [c["status"] for c in cases] == ["passed", "error"]
    assert "run with --record" in cases[1]["trials"][0]["record"]["error"]
    assert server.request_count == 8


def test_invalid_suite_exits_2_with_locations(repo, capsys):
    (repo / "suites" / "bad.suite.yaml").write_text(
        "version: 1\nname: bad\nagent: {provider: openai}\ncases: []\n"
    )
    assert gate_run(repo) == 2
    err = capsys.readouterr().err
    assert "suites/bad.suite.yaml:" in err and "nothing was run" in err


def test_usage_errors_exit_2(repo, capsys):
    assert gate_run(repo, "--record", "--replay") == 2
    assert gate_run(repo, "--concurrency", "0") == 2
    assert gate_run(repo, "--shard", "3/2") == 2


def test_help_documents_exit_codes_and_interrupts(capsys):
    with pytest.raises(SystemExit) as info:
        cli_main(["run", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert "SIGTERM" in text and "3  the evaluation could not be completed" in text


def test_authentication_failure_exits_3_with_partial_results(repo, model_server, monkeypatch, capsys):
    script = dict(
        SCRIPT,
        rules=[
            {
                "when": {"last_user": "Rome"},
                "fault": {"kind": "status", "status": 401, "message": f"invalid key {OPENAI_KEY}"},
            },
            *SCRIPT["rules"],
        ],
    )
    server = model_server(script)
    point(monkeypatch, server)
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text("openai", ["Paris", "Rome", "Oslo", "Lima"])
    )
    code = gate_run(repo, "--concurrency", "1", "--json", str(repo / "r.json"))
    captured = capsys.readouterr()
    assert code == 3
    data = json.loads((repo / "r.json").read_text())
    assert data["complete"] is False and "auth" in data["incomplete_reason"]
    assert [c["status"] for c in data["suites"][0]["cases"]] == ["passed", "error", "error", "error"]
    assert server.request_count == 3  # Paris (2 turns), Rome (rejected, not retried), nothing after
    no_secrets(captured.out, captured.err, (repo / "r.json").read_text())


def test_request_budget_exits_3_with_partial_results(repo, model_server, monkeypatch):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "suites" / "weather.suite.yaml").write_text(suite_text("openai", ["Paris", "Rome", "Oslo"]))
    code = gate_run(repo, "--concurrency", "1", "--max-requests", "4", "--json", str(repo / "r.json"))
    assert code == 3 and server.request_count == 4
    data = json.loads((repo / "r.json").read_text())
    assert [c["status"] for c in data["suites"][0]["cases"]] == ["passed", "passed", "error"]
    assert data["complete"] is False and "budget" in data["incomplete_reason"]


def test_request_budget_under_high_concurrency_completes_whole_cases_and_writes_every_report(
    repo, model_server, monkeypatch, capsys
):
    server = model_server(SCRIPT, latency=0.02)
    point(monkeypatch, server)
    text = suite_text(
        "openai", ["Paris", "Rome", "Oslo", "Lima", "Kyiv", "Bern"], expect_forecast_for=("Rome",)
    )
    (repo / "suites" / "weather.suite.yaml").write_text(
        text.replace("threshold:", "defaults: {max_turns: 2}\nthreshold:")
    )
    out = {kind: repo / f"r.{kind}" for kind in ("json", "xml", "md")}
    code = gate_run(
        repo,
        *("--concurrency", "16", "--max-requests", "7"),
        *("--json", str(out["json"]), "--junit", str(out["xml"]), "--markdown", str(out["md"])),
    )
    console = capsys.readouterr().out
    assert code == 3
    # Each case may need 2 requests (max_turns): three fit in 7 and finish, on their merits.
    assert server.request_count == 6
    data = json.loads(out["json"].read_text())
    cases = data["suites"][0]["cases"]
    assert [c["status"] for c in cases] == ["passed", "failed", "passed", "error", "error", "error"]
    assert data["settings"]["requests"] == 6 and data["complete"] is False
    assert "request budget ran out" in data["incomplete_reason"]
    for case in cases[3:]:
        (trial,) = case["trials"]
        assert trial["record"]["stop_reason"] == "budget"
        assert trial["failures"][0]["message"].startswith(
            "not run: the request budget ran out (--max-requests 7"
        )
    junit = out["xml"].read_text()
    assert 'failures="1"' in junit and 'errors="3"' in junit and "request budget ran out" in junit
    assert "request budget ran out" in out["md"].read_text()
    assert "lima: not run: the request budget ran out" in console


def test_shards_split_the_cases(repo, model_server, monkeypatch):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text("openai", ["Paris", "Rome", "Oslo", "Lima"])
    )
    ids = []
    for index in (1, 2):
        assert gate_run(repo, "--shard", f"{index}/2", "--json", str(repo / f"r{index}.json")) == 0
        data = json.loads((repo / f"r{index}.json").read_text())
        assert data["shard"] == f"{index}/2"
        ids.append({c["case_id"] for s in data["suites"] for c in s["cases"]})
    assert ids[0].isdisjoint(ids[1]) and ids[0] | ids[1] == {"paris", "rome", "oslo", "lima"}
    assert server.request_count == 8


def test_changed_since_runs_only_affected_suites(repo, model_server, monkeypatch, capsys):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "suites" / "a.suite.yaml").write_text(suite_text("openai", ["Paris"], name="a"))
    (repo / "suites" / "b.suite.yaml").write_text(suite_text("openai", ["Rome"], name="b"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "base"], check=True)
    (repo / "suites" / "b.suite.yaml").write_text(suite_text("openai", ["Rome", "Oslo"], name="b"))
    assert gate_run(repo, "--changed-since", "HEAD", "--json", str(repo / "r.json")) == 0
    data = json.loads((repo / "r.json").read_text())
    assert [s["name"] for s in data["suites"]] == ["b"]
    assert data["suites"][0]["triggered_by"] == {"suites/b.suite.yaml": "suite file"}
    assert server.request_count == 4


def test_sigterm_writes_partial_outputs_and_exits_3(repo, model_server):
    server = model_server(SCRIPT, latency=0.5)
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text("openai", ["Paris", "Rome", "Oslo", "Lima", "Cairo", "Quito"])
    )
    env = dict(
        os.environ,
        OPENAI_BASE_URL=server.openai_base_url,
        OPENAI_API_KEY=OPENAI_KEY,
        CI="true",
        PYTHONPATH=str(ROOT),
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gate",
            "run",
            "--root",
            str(repo),
            "--concurrency",
            "1",
            "--json",
            str(repo / "r.json"),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while server.request_count < 3 and time.monotonic() < deadline:  # Paris done, Rome under way
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 3, err
    data = json.loads((repo / "r.json").read_text())
    assert data["complete"] is False and "SIGTERM" in data["incomplete_reason"]
    statuses = [c["status"] for c in data["suites"][0]["cases"]]
    assert statuses[0] == "passed" and statuses[-1] == "error"
    assert "INCOMPLETE" in out
    no_secrets(out, err)


def test_no_suites_at_all_is_invalid_input_not_a_silent_pass(repo, capsys):
    assert gate_run(repo) == 2
    assert "no suite files" in capsys.readouterr().err


def test_a_missing_provider_sdk_is_refused_before_any_request_naming_the_extra(tmp_path):
    """The base package has no SDK (the pre-commit validate hook stays light): `run` says which extra
    to install, exit 2, instead of failing on the first request."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    hide_openai = (
        "import sys, importlib.abc\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'openai' or name.startswith('openai.'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "import importlib.util\n"
        "_find = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n == 'openai' else _find(n, *a)\n"
        "from gate.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide_openai, "run", str(root / "examples" / "weather"), "--replay"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'tool-eval-gate[openai]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_skip_unreferenced_with_nothing_relevant_is_a_pass_with_no_request(tmp_path, capsys):
    from pathlib import Path

    from gate.cli import main as cli

    root = Path(__file__).resolve().parents[2]
    assert cli(["run", "--skip-unreferenced", "--root", str(root), str(root / "README.md")]) == 0
    assert "nothing to run" in capsys.readouterr().out


def test_trials_below_a_cases_at_least_is_refused_before_any_request(repo, model_server, monkeypatch, capsys):
    """`--trials N` overrides the suites' trials; a case whose reducer needs more passing trials than
    N could never pass (validate refuses the same in a file): exit 2 naming the case, no request."""
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    text = suite_text("openai", ["Paris"]).replace(
        "threshold: 0.9\n", "threshold: 0.9\ndefaults: {trials: 5, reducer: at_least, at_least: 3}\n"
    )
    (repo / "suites" / "w.suite.yaml").write_text(text)
    assert gate_run(repo, "--trials", "1") == 2
    err = capsys.readouterr().err
    assert "--trials 1" in err and "paris" in err and "at_least 3" in err and "suites/w.suite.yaml:" in err
    assert server.request_count == 0
    assert gate_run(repo, "--trials", "3") == 0


def test_the_run_and_report_commands_leave_the_heavy_optional_dependencies_to_their_edges() -> None:
    # commands import the gate's modules at the top; the SDKs, PyGithub, mcp and Playwright are
    # imported only where a request, a GitHub call, an MCP session or a browser needs them
    code = (
        "import sys; import gate.commands.run, gate.commands.report; "
        "print(sorted(m for m in ('openai', 'anthropic', 'github', 'mcp', 'playwright') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr
