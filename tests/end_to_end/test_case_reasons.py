"""A failed case's reason reaches every output (DESIGN §3: every failed case carries a reason): a
case whose trials all pass on their own but whose mean score is under ``mean_pass_score`` says so in
the JSON results, the Markdown block, the console line and the JUnit failure."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION

SUITE = """\
version: 1
name: weather
agent:
  provider: openai
  model: test-model
  tools: [{file: weather.json}]
mocks: {tools: {get_weather: [{returns: {temp_c: 18}}]}}
defaults: {trials: 2, reducer: mean, mean_pass_score: 0.97, scoring: {mode: weighted, pass_score: 0.8}}
cases:
  - id: paris
    input: What's the weather in Paris?
    expect:
      calls: [{tool: get_weather, args: {city: Paris}}]
      output: {contains: "18"}
"""

# The first answer names the temperature, the second does not: trial scores 1.0 and 0.9, both at or
# above the pass score 0.8, their mean 0.95 under the case's mean_pass_score 0.97.
SCRIPT = {
    "rules": [
        {"when": {"after_tool": "get_weather"}, "times": 1, "text": "It is 18 degrees."},
        {"when": {"after_tool": "get_weather"}, "text": "It is mild."},
        {
            "when": {"last_user": "Paris"},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        },
    ]
}


def test_a_mean_under_mean_pass_score_is_the_reason_in_every_output(
    tmp_path, model_server, monkeypatch, capsys
):
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("CI", "true")
    (tmp_path / "weather.json").write_text(json.dumps([WEATHER_FUNCTION]), encoding="utf-8")
    (tmp_path / "weather.suite.yaml").write_text(SUITE, encoding="utf-8")
    out = tmp_path / "out"
    code = cli_main(
        [
            "run",
            "--root",
            str(tmp_path),
            str(tmp_path),
            "--concurrency",
            "1",
            "--json",
            str(out / "r.json"),
            "--junit",
            str(out / "r.xml"),
            "--markdown",
            str(out / "r.md"),
        ]
    )
    console = capsys.readouterr().out
    assert code == 1

    [case] = json.loads((out / "r.json").read_text(encoding="utf-8"))["suites"][0]["cases"]
    assert case["status"] == "failed"
    assert [t["status"] for t in case["trials"]] == ["passed", "passed"]
    [reason] = case["failures"]
    assert reason["reason"] == "below_pass_score"
    assert "0.950" in reason["message"] and "0.97" in reason["message"]
    assert (reason["expected"], reason["actual"]) == (0.97, 0.95)

    markdown = (out / "r.md").read_text(encoding="utf-8")
    summary = next(line for line in markdown.splitlines() if "<summary>" in line and "paris" in line)
    assert "below pass score" in summary
    assert reason["message"] in markdown.replace("\\_", "_")

    assert "below pass score" in next(line for line in console.splitlines() if "paris" in line)

    failure = ET.parse(out / "r.xml").getroot().find(".//testcase[@name='paris']/failure")
    assert failure is not None and failure.get("type") == "below_pass_score"
    assert reason["message"] in (failure.get("message") or "")
