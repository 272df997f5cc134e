"""The bundled weather example, run end to end against a scripted model that gets it wrong in the
ways users meet (a required argument left out, a number sent as text, a value outside the enum, the
two tools confused): the report's advice is true of examples/weather/tools/weather.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from gate.analysis.definition_facts import overlap
from gate.cli import main as cli_main
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "weather"
MISTAKES = [
    {  # paris-now: `units` (required) left out
        "when": {"last_user": "(?i)weather in Paris right now", "turn": 1},
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    },
    {  # week-ahead: `days` as text, which the expectation and the schema both reject
        "when": {"last_user": "(?i)forecast for Munich for the whole coming week", "turn": 1},
        "tool_calls": [
            {"name": "get_forecast", "arguments": {"city": "Munich", "days": "7 days", "units": "metric"}}
        ],
    },
    {  # paris-next-three-days: a unit outside the enum
        "when": {"last_user": "(?i)rain in Paris over the next three days", "turn": 1},
        "tool_calls": [
            {"name": "get_forecast", "arguments": {"city": "Paris", "days": 3, "units": "celsius"}}
        ],
    },
    {  # tomorrow-is-one-day: the current weather instead of the forecast
        "when": {"last_user": "(?i)sunglasses in Paris tomorrow", "turn": 1},
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "units": "metric"}}],
    },
]


def _run(tmp_path: Path, model_server: Any, monkeypatch: Any) -> tuple[str, dict[str, Any]]:
    script = yaml.safe_load((ROOT / "examples" / "scripted" / "weather.yaml").read_text())
    script["rules"] = MISTAKES + script["rules"]
    server = model_server(script)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "scripted-test-model")
    monkeypatch.setenv("CI", "true")
    shutil.copytree(EXAMPLE, tmp_path / "weather")
    out = tmp_path / "out"
    code = cli_main(
        ["run", "--root", str(tmp_path), str(tmp_path / "weather"), "--markdown", str(out / "r.md")]
        + ["--json", str(out / "r.json"), "--quiet"]
    )
    assert code == 1
    return (out / "r.md").read_text(), json.loads((out / "r.json").read_text())


def _recommendation(report: str, starts: str) -> str:
    (line,) = [line for line in report.splitlines() if starts in line]
    return line


def test_the_weather_example_report_advises_what_its_definitions_do_not_already_say(
    tmp_path: Path, model_server: Any, monkeypatch: Any
) -> None:
    report, results = _run(tmp_path, model_server, monkeypatch)
    tools = {
        t["function"]["name"]: t["function"]
        for t in json.loads((EXAMPLE / "tools" / "weather.json").read_text())
    }
    # The results carry each tool's schema, which the advice reads.
    (suite,) = results["suites"]
    assert {t["name"]: t["parameters"] for t in suite["tools"]} == {
        n: t["parameters"] for n, t in tools.items()
    }

    assert "mark it required" not in report
    units = _recommendation(report, "Argument `units` of `get_weather`")
    assert "was left out in 1 of" in units
    assert "it is already required in the schema: name it in the description of `get_weather`" in units
    assert '(e.g. "always pass `units`")' in units

    days = _recommendation(report, "Argument `days` of `get_forecast`")
    assert 'the schema already declares it `integer`, yet the model sent `"7 days"`' in days
    assert 'a bare `integer` (not `"7 days"`)' in days  # the case expects a range: no literal to show

    enum = _recommendation(report, "Argument `units` of `get_forecast`")
    # Its description ("Use metric unless the user asks for ... imperial units") names both values.
    assert (
        'already gives the allowed values (`enum`: `"metric"`, `"imperial"`) and its description names'
        in enum
    )
    assert 'yet the model sent `"celsius"`: say in its description' in enum
    assert '(e.g. `"celsius"` means `"metric"`)' in enum

    confused = _recommendation(report, "`get_weather` was called where `get_forecast` was expected")
    share = overlap(tools["get_forecast"]["description"], tools["get_weather"]["description"])
    assert (
        f"share {share.shared} of their {share.total} distinct content words ({share.ratio:.0%})" in confused
    )
    assert "both descriptions already name the other tool" in confused
    assert "(such as `Do I need sunglasses in Paris tomorrow?`)" in confused  # the case's request, quoted

    # Re-rendered from the results file, the advice is the same (the schemas are read back).
    assert cli_main(
        ["report", str(tmp_path / "out" / "r.json"), "--markdown", str(tmp_path / "again.md")]
    ) in (0, 1)
    again = (tmp_path / "again.md").read_text()
    assert _recommendation(again, "Argument `units` of `get_weather`") == units

    # One call, a type error and a schema violation: counted once, as the type error.
    assert "| type error | 1 | 1 |" in report and "| schema violation |" not in report
