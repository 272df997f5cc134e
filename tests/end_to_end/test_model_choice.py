"""``--model``: the suites run with another model, the reports say which model ran, and a run with
the suites' own model saved as a baseline shows what switching models would break."""

from __future__ import annotations

import json

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION

# The suites' own model calls the tool; "cheap-model" answers from memory instead.
SCRIPT = {
    "rules": [
        {"when": {"model": "cheap-model"}, "text": "Probably sunny, 25 degrees."},
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is 18 degrees."},
    ],
    "default": {"text": "I do not know."},
}

SUITE = """\
version: 1
name: weather
agent: {provider: openai, model: good-model, tools: [{file: weather.json}]}
mocks: {tools: {get_weather: [{returns: {temp_c: 18}}]}}
cases:
  - {id: paris, input: Weather in Paris?, expect: {calls: [{tool: get_weather, args: {city: Paris}}]}}
"""


def test_another_model_runs_is_named_and_compared_with_the_suites_own(
    tmp_path, model_server, monkeypatch, capsys
):
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-1234567890")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    (tmp_path / ".git").mkdir()
    (tmp_path / "weather.json").write_text(json.dumps([WEATHER_FUNCTION]))
    (tmp_path / "w.suite.yaml").write_text(SUITE)
    base, head, report = tmp_path / "base.json", tmp_path / "head.json", tmp_path / "report.md"
    root = ["--root", str(tmp_path), "-q"]

    assert cli_main(["run", *root, "--json", str(base)]) == 0
    capsys.readouterr()
    code = cli_main(
        [
            "run",
            *root,
            "--model",
            "cheap-model",
            "--baseline",
            str(base),
            "--json",
            str(head),
            "--markdown",
            str(report),
        ]
    )
    console = capsys.readouterr().out
    assert code == 1  # the case regressed: the cheaper model does not call the tool
    assert {r["body"]["model"] for r in server.requests} == {"good-model", "cheap-model"}
    suite = json.loads(head.read_text())["suites"][0]
    assert (suite["provider"], suite["model"]) == ("openai", "cheap-model")
    said = "model: openai/cheap-model (--model cheap-model, instead of the suites' own)"
    assert said in console and "the baseline ran openai/good-model" in console
    markdown = report.read_text()
    assert "Model: openai/cheap-model (--model cheap-model, instead of the suites' own)." in markdown
    assert "The baseline ran openai/good-model." in markdown
    assert "regressed" in markdown
