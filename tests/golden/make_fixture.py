"""Regenerates ``tests/golden/results.json`` and ``baseline.json`` (run: python -m tests.golden.make_fixture).

The fixture: several suites; passed, failed, error, skipped and flaky cases; a wrong-tool confusion;
argument failures; a baseline; and untrusted model output that tries to break the reports."""

from __future__ import annotations

from pathlib import Path

from gate.results.outcomes import CheckScore, RequestStats, SourceRef
from gate.results_json.codec import to_json
from tests.results_factory import call, case, failure, record, run, suite, tool, trial, trials_case

HERE = Path(__file__).resolve().parent

EVIL = (
    "<img src=x onerror=alert(1)></details></summary><script>alert(2)</script>\n"
    "```\nbroken fence\n````\nquadruple\n"
    "cc @org/team and @octocat <!-- tool-eval-gate:default --> ]]> \x00\x07\x1b[31m \ufffe"
    " ![pixel](https://evil.example/p.png) | pipe"
)


def weather_tools():
    return [
        tool(
            "get_weather",
            "Get the current weather for a city.",
            file="tools/weather.json",
            line=2,
            description_line=5,
            parameter_lines={"city": 10, "units": 14},
        ),
        tool(
            "get_forecast",
            "Get the weather forecast for a city for the next days.",
            file="tools/weather.json",
            line=20,
            description_line=23,
            parameter_lines={"city": 28, "days": 32},
        ),
    ]


def head():
    paris = record(
        "Weather in Paris?",
        [call("get_weather", {"city": "Paris", "units": "metric"}, result={"temp_c": 18})],
        output="18 °C and cloudy in Paris.",
    )
    confused = record(
        "Is it raining in Oslo now?",
        [call("get_forecast", {"city": "Oslo", "days": 1}, result={"days": [{"rain": True}]})],
        output=EVIL,
    )
    days = record(
        "Forecast for Rome this week",
        [call("get_forecast", {"city": "Rome", "days": "7 days"}, result="error: days must be an integer")],
        output="Sorry, I could not get the forecast.",
    )
    # Three attempts timed out (after 60 s each) and were retried: most of the time went there.
    slow = RequestStats(
        requests=9,
        attempts=12,
        timeouts=3,
        answered_ms=21_400.0,
        timeout_ms=180_300.0,
        backoff_ms=2_100.0,
        cost_usd=0.00071,
    )
    expected_weather = {"calls": [{"tool": "get_weather", "args": {"city": {"normalized": "oslo"}}}]}
    expected_days = {"calls": [{"tool": "get_forecast", "args": {"city": "Rome", "days": 7}}]}
    weather = suite(
        "weather",
        [
            case(
                "paris-now",
                rec=paris,
                line=12,
                expected={"calls": [{"tool": "get_weather", "args": {"city": "Paris"}}]},
            ),
            case(
                "oslo-rain",
                "failed",
                line=24,
                rec=confused,
                expected=expected_weather,
                failures=[
                    failure(
                        "wrong_tool",
                        "called get_forecast instead of get_weather",
                        tool="get_forecast",
                        expected_tool="get_weather",
                    ),
                ],
            ),
            case(
                "rome-week",
                "failed",
                line=36,
                rec=days,
                expected=expected_days,
                failures=[
                    failure(
                        "type_error",
                        "days: expected an integer, got a string",
                        tool="get_forecast",
                        argument="days",
                        expected=7,
                        actual="7 days",
                    ),
                ],
            ),
            case("berlin-down", "error", line=48),
            case("tokyo-later", "skipped", line=60, skip_reason="tool not ready <b>@team</b>"),
            trials_case("london-flaky", "pfp", status="passed", line=72),
        ],
        tools=weather_tools(),
        prompt=SourceRef("prompts/weather.md", 1),
        requests=slow,
        threshold=0.8,
    )
    ghost = record(
        "Book me a flight",
        [call("book_flite", {"to": "NYC"}, result=None, mock="unmocked")],
        output="Booked ```` @everyone",
    )
    clarify_trial = trial(
        "failed",
        failures=[failure("judge_failed", "did not ask for the travel date")],
        checks=[
            CheckScore(
                "clarification",
                0.0,
                False,
                "asks_clarification",
                "The agent guessed a date instead of asking.",
            )
        ],
        rec=record(
            "Book a flight to Paris",
            [call("book_flight", {"to": "Paris", "date": "2026-01-01"})],
            output="Booked for Jan 1.",
        ),
    )
    travel = suite(
        "travel",
        [
            case(
                "ghost-tool",
                "failed",
                line=8,
                rec=ghost,
                failures=[
                    failure("hallucinated_tool", "book_flite is not a defined tool", tool="book_flite"),
                ],
            ),
            case("needs-date", "failed", line=20, trials=[clarify_trial]),
            case("cancel", line=32),
        ],
        tools=[
            tool(
                "book_flight",
                "Book a flight.",
                file="tools/travel.yaml",
                line=1,
                description_line=2,
                parameter_lines={"to": 6, "date": 9},
            )
        ],
        prompt=SourceRef("prompts/travel.md", 3),
        requests=RequestStats(requests=5, attempts=5, answered_ms=9_800.0, cost_usd=0.00031),
    )
    return run(weather, travel, settings={"errors": "count"})


def base():
    weather = suite(
        "weather",
        [
            case("paris-now", line=12),
            case("oslo-rain", line=24),
            case("rome-week", "failed", line=36),
            case("berlin-down", line=48),
            case("old-case", line=90),
        ],
        tools=weather_tools(),
        threshold=0.8,
    )
    travel = suite("travel", [case("ghost-tool", "failed", line=8), case("cancel", "failed", line=32)])
    return run(weather, travel)


if __name__ == "__main__":
    (HERE / "results.json").write_text(to_json(head()), encoding="utf-8")
    (HERE / "baseline.json").write_text(to_json(base()), encoding="utf-8")
