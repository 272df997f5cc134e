"""A suite whose cases come from a JSON lines and a CSV file, run end to end: the failing case from a
data file is named at its own ``file:line`` on the console, in JUnit and in the JSON results."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION

SCRIPT = {
    "rules": [
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
agent: {provider: openai, model: test-model, tools: [{file: weather.json}]}
mocks: {tools: {get_weather: [{returns: {temp_c: 18}}]}}
cases:
  - {id: hello, input: Hello there, expect: {no_calls: true}}
  - file: cases.jsonl
  - file: cases.csv
"""

JSONL = (
    '{"id": "paris", "input": "Weather in Paris?", "expect": {"calls": [{"tool": "get_weather", '
    '"args": {"city": "Paris"}}]}}\n'
    '{"id": "rome", "input": "Weather in Rome?", "expect": {"calls": [{"tool": "get_weather", '
    '"args": {"city": "Milan"}}]}}\n'
)
CSV = 'id,input,tool,args\noslo,Weather in Oslo?,get_weather,"{""city"": ""Oslo""}"\nchat,Tell me a joke,,\n'


def test_cases_from_data_files_run_and_are_reported_at_their_own_lines(
    tmp_path, model_server, monkeypatch, capsys
):
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-1234567890")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    (tmp_path / ".git").mkdir()
    (tmp_path / "weather.json").write_text(json.dumps([WEATHER_FUNCTION]))
    (tmp_path / "w.suite.yaml").write_text(SUITE)
    (tmp_path / "cases.jsonl").write_text(JSONL)
    (tmp_path / "cases.csv").write_text(CSV)
    out = tmp_path / "out"
    code = cli_main(
        ["run", "--root", str(tmp_path), "-q", "--json", str(out / "r.json"), "--junit", str(out / "j.xml")]
    )
    console = capsys.readouterr().out
    assert code == 1
    assert "FAIL weather: 80.0% (4/5)" in console
    assert "FAIL  cases.jsonl:2 rome: value error" in console
    results = json.loads((out / "r.json").read_text())
    where = {c["case_id"]: (c["file"], c["line"], c["status"]) for c in results["suites"][0]["cases"]}
    assert where == {
        "hello": ("w.suite.yaml", 6, "passed"),
        "paris": ("cases.jsonl", 1, "passed"),
        "rome": ("cases.jsonl", 2, "failed"),
        "oslo": ("cases.csv", 2, "passed"),
        "chat": ("cases.csv", 3, "passed"),
    }
    testcase = ET.parse(out / "j.xml").getroot().find(".//testcase[@name='rome']")
    assert testcase is not None and (testcase.get("file"), testcase.get("line")) == ("cases.jsonl", "2")
