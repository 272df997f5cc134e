"""A PR check's conclusion for the HTML report's tests: two suites with passed, failed, errored,
flaky, skipped and non-gating cases, tags, a judged check, tool calls with mock results, and a base
side with a regression (traced to a changed line), a fix and a removed case; one answer is hostile."""

from __future__ import annotations

import dataclasses
from typing import Any

from gate.results.outcomes import CheckScore, SourceRef
from gate.results.settings import BaseSideRecord, RunSettings
from gate.verdict.conclusion import Conclusion, conclude
from tests.results_factory import call, case, failure, record, run, suite, tool, trial, trials_case

# A model answer that tries to be markup, script, a link and a request: it must stay text.
HOSTILE = (
    '<img src="http://127.0.0.1:9/pixel.png" onerror="document.body.dataset.pwned=1">'
    "<script>document.body.dataset.pwned=2</script></script><!--"
    '<a id="evil" href="javascript:document.body.dataset.pwned=3">click</a>'
    '<link rel="stylesheet" href="http://127.0.0.1:9/x.css"> \u2028 </body></html>'
)


def _weather_tools() -> list[Any]:
    return [
        tool("get_weather", "Current weather.", file="tools/weather.json", line=2, description_line=4),
        tool("get_forecast", "Forecast.", file="tools/weather.json", line=20, description_line=22),
    ]


def _oslo(status: str) -> Any:
    if status == "passed":
        rec = record("Is it raining in Oslo?", [call("get_weather", {"city": "Oslo"}, result={"rain": True})])
        return case("oslo-rain", suite="weather", file="evals/weather.yaml", line=24, rec=rec, tags=["rain"])
    rec = record(
        "Is it raining in Oslo?",
        [call("get_forecast", {"city": "Oslo", "days": 1}, result={"days": [{"rain": True}]})],
        "It will rain tomorrow.",
    )
    wrong = failure(
        "wrong_tool",
        "called get_forecast instead of get_weather",
        expected_tool="get_weather",
        tool="get_forecast",
    )
    judged = CheckScore(
        "criteria", 0.0, False, "says whether it rains now", rationale="It talks about tomorrow, not now."
    )
    one = trial("failed", failures=[wrong], rec=rec, checks=[judged])
    return case(
        "oslo-rain",
        "failed",
        suite="weather",
        file="evals/weather.yaml",
        line=24,
        trials=[one],
        tags=["rain"],
    )


def _weather(oslo: str) -> Any:
    hostile = record("Say something odd.", output=HOSTILE)
    known = dataclasses.replace(
        case("sometimes-asks", "failed", suite="weather", line=80, failures=[failure("missing_call")]),
        non_gating="known flaky: the model sometimes asks first",
    )
    cases = [
        case("paris-now", suite="weather", file="evals/weather.yaml", line=12, tags=["smoke"]),
        _oslo(oslo),
        case(
            "rome-week",
            "failed",
            suite="weather",
            file="evals/weather.yaml",
            line=36,
            tags=["forecast"],
            failures=[
                failure("type_error", "days: expected an integer", tool="get_forecast", argument="days")
            ],
        ),
        case("berlin-down", "error", suite="weather", file="evals/weather.yaml", line=48),
        trials_case("london-flaky", "pfp", suite="weather", file="evals/weather.yaml", line=72),
        case("tokyo-later", "skipped", suite="weather", file="evals/weather.yaml", line=60),
        known,
        case(
            "odd-answer",
            "failed",
            suite="weather",
            file="evals/weather.yaml",
            line=90,
            rec=hostile,
            failures=[failure("output_check_failed", "the answer does not say the temperature")],
        ),
    ]
    return suite(
        "weather",
        cases,
        path="evals/weather.yaml",
        tools=_weather_tools(),
        prompt=SourceRef("prompts/weather.md", 1),
    )


def _travel(cancel: str, old: bool) -> Any:
    cases = [case("cancel", cancel, suite="travel", file="evals/travel.yaml", line=32)]
    if old:
        cases.append(case("old-case", suite="travel", file="evals/travel.yaml", line=90))
    return suite("travel", cases, path="evals/travel.yaml")


def pr_check(extra_cases: int = 0) -> Conclusion:
    """The head run of a PR (with ``extra_cases`` passing cases in a third suite) and its base side."""
    head_suites = [_weather("failed"), _travel("passed", old=False)]
    if extra_cases:
        many = [
            case(f"case-{n:05d}", suite="bulk", file="evals/bulk.yaml", line=n + 1)
            for n in range(extra_cases)
        ]
        head_suites.append(suite("bulk", many, path="evals/bulk.yaml"))
    head = run(*head_suites)
    base_record = BaseSideRecord(
        ref="origin/main", merge_base="b" * 40, changed_lines={"tools/weather.json": (4,)}
    )
    head = dataclasses.replace(head, settings=RunSettings(baseline=base_record, requests=12))
    base = run(_weather("passed"), _travel("failed", old=True))
    return conclude(head, base)
