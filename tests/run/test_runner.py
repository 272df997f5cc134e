"""The runner: every (case, trial) through the real SDK against the scripted server, bounded
concurrency, retries on 429, budgets, fatal errors and interrupts, deterministic result order."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

import pytest

from gate.providers import make_provider
from gate.providers.concurrency import RetryPolicy
from gate.run.cache import ResponseCache
from gate.run.progress import Progress
from gate.run.runner import RunControl, RunOptions, run_suites
from gate.suite.model import MockRule, Mocks, OutputChecks
from gate.verdict.view import summary_line
from tests import builders

SCRIPT = {
    "rules": [
        {
            "when": {"forced_tool": "submit_verdict", "last_user": "States the temperature"},
            "tool_calls": [{"arguments": {"verdict": "yes", "rationale": "It states the temperature."}}],
        },
        {"when": {"forced_tool": "submit_verdict"}, "tool_calls": [{"arguments": {"verdict": "perhaps"}}]},
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} DEGREES."},
    ],
    "default": {"text": "I do not know."},
}
MOCKS = Mocks(tools={"get_weather": (MockRule(when=None, returns={"temp_c": 18}),)})
FAST_RETRY = RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05, timeout=10)


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")


def weather_case(i: int, city: str = "Paris", **kw):
    return builders.case(
        id=f"case-{i:02d}",
        input=f"What's the weather in {city}? (case {i})",
        expect=builders.expectation(builders.ecall("get_weather", {"city": city})),
        **kw,
    )


def make_suite(*cases, **kw):
    return builders.suite(*cases, mocks=MOCKS, **kw)


def run(server, monkeypatch, suites, **options):
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    options.setdefault("retry", FAST_RETRY)
    return asyncio.run(
        run_suites(suites, RunOptions(**options), lambda name: make_provider(name, timeout=10))
    )


def script_with(*rules: dict[str, Any]) -> dict[str, Any]:
    """SCRIPT with ``rules`` tried before its own."""
    return dict(SCRIPT, rules=[*rules, *SCRIPT["rules"]])


def statuses(results):
    return [(c.case_id, c.status) for s in results.suites for c in s.cases]


def test_results_in_file_order_with_pass_fail_and_suite_details(model_server, monkeypatch):
    server = model_server(SCRIPT, latency=0.01)
    wrong = builders.case(
        id="wrong",
        input="What's the weather in Rome?",
        expect=builders.expectation(builders.ecall("get_forecast")),
    )
    skipped = builders.case(id="skipped", skip="not ready")
    first = make_suite(weather_case(1), wrong, skipped, name="first")
    second = dataclasses.replace(
        make_suite(weather_case(2, "Oslo"), name="second"), path="suites/second.suite.yaml"
    )
    results = run(server, monkeypatch, [first, second], concurrency=4)
    assert statuses(results) == [
        ("case-01", "passed"),
        ("wrong", "failed"),
        ("skipped", "skipped"),
        ("case-02", "passed"),
    ]
    assert results.complete and results.incomplete_reason == ""
    suite = results.suites[0]
    assert (suite.name, suite.path, suite.provider, suite.model) == (
        "first",
        "suites/weather.yaml",
        "openai",
        "test-model",
    )
    assert [t.name for t in suite.tools] == ["get_weather", "get_forecast", "search"]
    assert (suite.tools[0].file, suite.tools[0].line) == ("tools.json", 1)
    assert suite.prompt is not None and suite.prompt.file == "suites/weather.yaml"
    assert results.suites[0].cases[1].failures[0].reason in ("wrong_tool", "missing_call")
    assert server.request_count == 6  # 3 run cases x 2 turns; the skipped case costs nothing


def test_concurrency_is_bounded_and_used(model_server, monkeypatch):
    server = model_server(SCRIPT, latency=0.05)
    suite = make_suite(*(weather_case(i) for i in range(24)))
    results = run(server, monkeypatch, [suite], concurrency=4)
    assert all(status == "passed" for _, status in statuses(results))
    assert server.max_in_flight == 4


def test_trials_override_and_result_order_independent_of_completion(model_server, monkeypatch):
    server = model_server(SCRIPT, latency=0.0)
    suite = make_suite(*(weather_case(i) for i in range(5)))
    results = run(server, monkeypatch, [suite], concurrency=8, trials=3)
    for case in results.suites[0].cases:
        assert [t.index for t in case.trials] == [0, 1, 2]
    assert [c.case_id for c in results.suites[0].cases] == [f"case-{i:02d}" for i in range(5)]
    assert server.request_count == 5 * 3 * 2


def test_rate_limits_with_retry_after_are_retried_to_completion(model_server, monkeypatch):
    server = model_server(
        SCRIPT, faults=[{"fault": {"kind": "status", "status": 429, "retry_after": 0.2}, "first": 3}]
    )
    suite = make_suite(*(weather_case(i) for i in range(4)))
    started = time.monotonic()
    results = run(server, monkeypatch, [suite], concurrency=4)
    elapsed = time.monotonic() - started
    assert all(status == "passed" for _, status in statuses(results))
    assert server.status_counts.get(429) == 3
    assert server.request_count == 8 + 3
    assert elapsed >= 0.2  # the retry-after was honoured


def test_transient_server_errors_are_retried_then_recorded_as_errors(model_server, monkeypatch):
    server = model_server(SCRIPT, faults=[{"fault": {"kind": "status", "status": 503}, "every": 1}])
    suite = make_suite(weather_case(1))
    results = run(server, monkeypatch, [suite], concurrency=2)
    (case,) = results.suites[0].cases
    assert case.status == "error"
    assert "503" in case.trials[0].record.error
    assert server.request_count == FAST_RETRY.max_attempts
    assert results.complete  # an error on one case is a result, not an interrupted run


def budget_errors(results, cases):
    """The errors of ``cases``' trials, each checked to name the request budget and to be an error."""
    for case in cases:
        assert case.status == "error", case.case_id
        for trial in case.trials:
            assert trial.status == "error" and trial.record.stop_reason == "budget"
            assert "request budget ran out" in trial.record.error and "--max-requests" in trial.record.error
            assert [f.message for f in trial.failures] == [trial.record.error]  # not "the provider failed"


def test_max_requests_budget_stops_cleanly(model_server, monkeypatch):
    server = model_server(SCRIPT)
    suite = make_suite(*(weather_case(i) for i in range(6)))
    results = run(server, monkeypatch, [suite], concurrency=1, max_requests=5)
    # Each case took 2 requests: the fifth would start a case with 1 left, which it could not finish.
    assert server.request_count == 4
    got = statuses(results)
    assert got[:2] == [("case-00", "passed"), ("case-01", "passed")]
    budget_errors(results, results.suites[0].cases[2:])
    assert not results.complete and "max-requests" in results.incomplete_reason


def test_max_requests_finishes_the_cases_it_starts_under_high_concurrency(model_server, monkeypatch):
    server = model_server(SCRIPT, latency=0.02)
    wrong = builders.case(
        id="case-01",
        input="What's the weather in Rome? (case 1)",
        expect=builders.expectation(builders.ecall("get_forecast")),
        max_turns=2,
    )
    cases = [weather_case(0, max_turns=2), wrong, *(weather_case(i, max_turns=2) for i in range(2, 7))]
    suite = make_suite(*cases)
    results = run(server, monkeypatch, [suite], concurrency=16, max_requests=7)
    # Cases start in file order while the unreserved budget covers their 2 requests: three fit in 7.
    got = statuses(results)
    assert got[:3] == [("case-00", "passed"), ("case-01", "failed"), ("case-02", "passed")]
    assert all(c.trials[0].record.turns == 2 for c in results.suites[0].cases[:3])  # complete episodes
    budget_errors(results, results.suites[0].cases[3:])
    assert server.request_count == 6 <= 7
    assert results.settings.requests == 6
    assert not results.complete and "request budget ran out" in results.incomplete_reason


def test_max_requests_gives_back_what_a_case_did_not_use_and_starts_the_last_case_alone(
    model_server, monkeypatch
):
    server = model_server(SCRIPT, latency=0.02)
    suite = make_suite(*(weather_case(i, max_turns=4) for i in range(4)))
    results = run(server, monkeypatch, [suite], concurrency=8, max_requests=6)
    # case-00 reserves 4 (its max_turns) and uses 2; case-01 waits for the 2 it gives back, then fits;
    # case-02 cannot reserve 4 with 2 left, so it starts alone once case-01 is over (2 left cover the 2
    # a trial has needed so far); nothing is left for case-03.
    got = statuses(results)
    assert got[:3] == [("case-00", "passed"), ("case-01", "passed"), ("case-02", "passed")]
    budget_errors(results, results.suites[0].cases[3:])
    assert "0 left, not enough to start this case" in results.suites[0].cases[3].trials[0].record.error
    assert server.request_count == 6


def test_only_a_case_started_alone_can_be_cut_short_and_it_says_so(model_server, monkeypatch):
    script = script_with(
        {
            "when": {"last_user": "slowly", "turn": 2},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}],
        },
    )
    server = model_server(script)
    slow = builders.case(
        id="slow",
        input="What's the weather in Paris? Answer slowly.",
        expect=builders.expectation(builders.ecall("get_weather", {"city": "Paris"})),
    )
    results = run(server, monkeypatch, [make_suite(weather_case(0), slow)], concurrency=8, max_requests=4)
    # Neither case can reserve its 8 turns: case-00 starts alone and uses 2; "slow" starts alone with
    # the 2 left (what a trial needed so far) but needs a third request.
    first, cut = results.suites[0].cases
    assert first.status == "passed"
    assert cut.status == "error" and cut.trials[0].record.turns == 2
    assert (
        cut.trials[0].record.error
        == "stopped: the request budget ran out during this trial (--max-requests 4)"
    )
    assert server.request_count == 4


def test_max_requests_runs_all_trials_of_a_case_or_none(model_server, monkeypatch):
    server = model_server(SCRIPT, latency=0.02)
    suite = make_suite(*(weather_case(i, max_turns=2) for i in range(3)))
    results = run(server, monkeypatch, [suite], concurrency=8, max_requests=10, trials=3)
    first, *rest = results.suites[0].cases
    assert first.status == "passed" and [t.status for t in first.trials] == ["passed"] * 3
    budget_errors(results, rest)  # 6 of 10 reserved: the next case's 3 trials need 6 more
    assert [len(c.trials) for c in rest] == [3, 3]
    assert server.request_count == 6


def test_max_requests_reserves_the_judge_requests(model_server, monkeypatch):
    server = model_server(SCRIPT, latency=0.02)
    cases = [
        dataclasses.replace(
            weather_case(i, max_turns=2),
            expect=builders.expectation(
                builders.ecall("get_weather", {"city": "Paris"}),
                output=OutputChecks(criteria=("States the temperature.",)),
            ),
        )
        for i in range(4)
    ]
    results = run(server, monkeypatch, [make_suite(*cases)], concurrency=8, max_requests=8)
    # 2 agent turns and 1 judge request per case: two cases fit in 8, and are judged.
    assert statuses(results)[:2] == [("case-00", "passed"), ("case-01", "passed")]
    assert all(
        any(c.kind == "criteria" for c in case.trials[0].checks) for case in results.suites[0].cases[:2]
    )
    budget_errors(results, results.suites[0].cases[2:])
    assert server.request_count == 6


def test_a_case_the_budget_cannot_cover_still_runs_from_the_cache(model_server, monkeypatch, tmp_path):
    server = model_server(SCRIPT)
    suite = make_suite(*(weather_case(i, max_turns=2) for i in range(3)))
    warm = run(server, monkeypatch, [make_suite(*suite.cases[:2])], cache=ResponseCache(tmp_path, "use"))
    assert server.request_count == 4 and warm.complete
    results = run(server, monkeypatch, [suite], max_requests=1, cache=ResponseCache(tmp_path, "use"))
    # Nothing fits in 1 request, but the two cached cases cost nothing; the third needs a request.
    assert statuses(results)[:2] == [("case-00", "passed"), ("case-01", "passed")]
    (third,) = results.suites[0].cases[2:]
    assert third.status == "error" and "the cache does not hold this request" in third.trials[0].record.error
    assert server.request_count == 4  # not one more
    assert not results.complete and "max-requests" in results.incomplete_reason


def test_max_cost_budget_stops_cleanly(model_server, monkeypatch):
    server = model_server(SCRIPT)
    suite = make_suite(*(weather_case(i) for i in range(6)))
    priced = dataclasses.replace(suite, agent=dataclasses.replace(suite.agent, model="gpt-4o"))
    results = run(server, monkeypatch, [priced], concurrency=1, max_cost_usd=1e-9)
    assert server.request_count == 1  # the first request's cost already exceeds the budget
    assert {status for _, status in statuses(results)} == {"error"}
    assert not results.complete and "max-cost" in results.incomplete_reason


def test_a_hard_condition_broken_before_the_cost_budget_stopped_the_case_is_its_reason(
    model_server, monkeypatch
):
    """The agent called a forbidden tool, then --max-cost refused the next request: the trial failed
    (nothing later could mend it), and says why: the forbidden call, not the budget."""
    server = model_server(SCRIPT)
    forbidding = builders.case(
        id="forbidden",
        input="What's the weather in Paris?",
        expect=builders.expectation(builders.ecall("search"), forbidden_tools=("get_weather",)),
    )
    suite = make_suite(forbidding)
    priced = dataclasses.replace(suite, agent=dataclasses.replace(suite.agent, model="gpt-4o"))
    results = run(server, monkeypatch, [priced], concurrency=1, max_cost_usd=1e-9)
    (case,) = results.suites[0].cases
    assert case.trials[0].record.stop_reason == "budget" and server.request_count == 1
    assert case.status == "failed" and [f.reason for f in case.failures] == ["forbidden_call"]


def test_fatal_auth_error_stops_the_run_and_keeps_what_completed(model_server, monkeypatch):
    script = script_with(
        {"when": {"last_user": "case 3"}, "fault": {"kind": "status", "status": 401}},
    )
    server = model_server(script)
    suite = make_suite(*(weather_case(i) for i in range(8)))
    results = run(server, monkeypatch, [suite], concurrency=1)
    got = statuses(results)
    assert got[:3] == [("case-00", "passed"), ("case-01", "passed"), ("case-02", "passed")]
    assert {status for _, status in got[3:]} == {"error"}
    assert not results.complete and "auth" in results.incomplete_reason
    assert server.status_counts.get(401) == 1  # never retried, and nothing started after it
    assert server.request_count == 7


def test_judge_verdicts_are_fetched_once_and_failures_carry_the_reason(model_server, monkeypatch):
    server = model_server(SCRIPT)
    judged = weather_case(1)
    judged = dataclasses.replace(
        judged,
        expect=builders.expectation(
            builders.ecall("get_weather", {"city": "Paris"}),
            output=OutputChecks(criteria=("States the temperature.",)),
        ),
    )
    unparseable = dataclasses.replace(
        judged,
        id="bad-judge",
        expect=builders.expectation(
            builders.ecall("get_weather", {"city": "Paris"}), output=OutputChecks(criteria=("Says hello.",))
        ),
        conversation=(builders.UserMessage("What's the weather in Paris? (other)"),),
    )
    suite = make_suite(judged, unparseable)
    results = run(server, monkeypatch, [suite], concurrency=4, trials=3)
    good, bad = results.suites[0].cases
    assert good.status == "passed"
    criteria = [c for c in good.trials[0].checks if c.kind == "criteria"]
    assert criteria and criteria[0].rationale == "It states the temperature."
    assert bad.status == "error"  # no valid verdict after retries: could not evaluate, not the agent's fault
    (failure,) = [f for f in bad.failures if f.reason == "judge_failed"]
    assert "verdict" in failure.message  # why the judge's answer was unusable
    judge_calls = [r for r in server.requests if r["body"].get("tool_choice") == "required"]
    assert len(judge_calls) == 2  # one per distinct question, not one per trial


def judged_case(id: str, criterion: str, **kw):
    return dataclasses.replace(
        weather_case(1, **kw),
        id=id,
        expect=builders.expectation(
            builders.ecall("get_weather", {"city": "Paris"}), output=OutputChecks(criteria=(criterion,))
        ),
    )


def test_a_judge_answering_http_400_makes_the_case_an_error_and_not_met_a_failure(model_server, monkeypatch):
    script = script_with(
        {
            "when": {"forced_tool": "submit_verdict", "last_user": "Says goodbye"},
            "fault": {"kind": "status", "status": 400},
        },
        {
            "when": {"forced_tool": "submit_verdict", "last_user": "Names the wind"},
            "tool_calls": [{"arguments": {"verdict": "no", "rationale": "No wind is named."}}],
        },
    )
    server = model_server(script)
    weighted = builders.Scoring(mode="weighted", pass_score=0.5)
    suite = make_suite(
        judged_case("judge-400", "Says goodbye."),
        judged_case("judge-400-weighted", "Says goodbye.", scoring=weighted),
        judged_case("not-met", "Names the wind."),
        judged_case("met", "States the temperature."),
    )
    results = run(server, monkeypatch, [suite], concurrency=2)
    assert statuses(results) == [
        ("judge-400", "error"),
        ("judge-400-weighted", "error"),
        ("not-met", "failed"),
        ("met", "passed"),
    ]
    broken = results.suites[0].cases[0]
    assert [f.reason for f in broken.failures] == ["judge_failed"]
    assert "400" in broken.failures[0].message


def test_a_missed_call_fails_the_case_even_when_the_judge_fails(model_server, monkeypatch):
    script = script_with(
        {"when": {"forced_tool": "submit_verdict"}, "fault": {"kind": "status", "status": 400}},
    )
    server = model_server(script)
    wrong = dataclasses.replace(
        judged_case("wrong-and-judge-400", "Says goodbye."),
        expect=builders.expectation(
            builders.ecall("get_forecast", {"city": "Paris"}),
            output=OutputChecks(criteria=("Says goodbye.",)),
        ),
    )
    results = run(server, monkeypatch, [make_suite(wrong)], concurrency=1)
    assert statuses(results) == [("wrong-and-judge-400", "failed")]


def test_stop_cancels_in_flight_trials_and_returns_partial_results(model_server, monkeypatch):
    server = model_server(SCRIPT, latency=0.2)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    suite = make_suite(*(weather_case(i) for i in range(6)))
    control = RunControl()

    class StopAfterFirst(Progress):
        def trial_done(self):
            super().trial_done()
            control.stop("interrupted (SIGINT)")  # as the SIGINT handler of `run` does

    async def go():
        return await run_suites(
            [suite],
            RunOptions(concurrency=2, control=control, retry=FAST_RETRY),
            lambda name: make_provider(name, timeout=10),
            StopAfterFirst(enabled=False),
        )

    results = asyncio.run(go())
    # The rest of the run was not waited for: the model saw the stopped trials' requests only (the
    # whole run sends 6 cases x 2 turns).
    assert server.request_count < 6
    got = statuses(results)
    assert len(got) == 6 and any(status == "passed" for _, status in got)
    assert any(status == "error" for _, status in got)
    errors = [c for c in results.suites[0].cases if c.status == "error"]
    assert all("interrupted" in c.trials[0].record.error for c in errors)
    assert not results.complete and "interrupted" in results.incomplete_reason


def test_cached_run_makes_no_requests(model_server, monkeypatch, tmp_path):
    server = model_server(SCRIPT)
    suite = make_suite(*(weather_case(i) for i in range(3)))
    first = run(server, monkeypatch, [suite], concurrency=2, cache=ResponseCache(tmp_path, "use"))
    assert server.request_count == 6
    replay = ResponseCache(tmp_path, "replay")
    second = run(server, monkeypatch, [suite], concurrency=2, cache=replay)
    assert server.request_count == 6 and replay.hits == 6
    assert statuses(first) == statuses(second)
    assert [c.trials[0].record.output for c in second.suites[0].cases] == [
        c.trials[0].record.output for c in first.suites[0].cases
    ]


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_on_a_terminal_redraws_one_line():
    import io

    stream = io.StringIO()
    clock = FakeClock()
    progress = Progress(stream, live=True, clock=clock)
    progress.start([1, 1, 1])
    for status in ("passed", "failed", "error"):
        clock.now += 1.0
        progress.case_done(status)
        progress.trial_done()
    progress.finish()
    text = stream.getvalue()
    assert "\n" not in text.rstrip("\n") and text.count("\r") == 5  # drawn at the start too
    assert text.startswith("\r[0/3 cases] 0 passed 0 failed 0 errors  0.0 s\x1b[K")
    assert text.rstrip("\n").endswith("[3/3 cases] 1 passed 1 failed 1 errors  3.0 s\x1b[K")


def test_progress_says_what_is_starting_at_once_and_ticks_while_nothing_finishes():
    import io

    clock = FakeClock()
    live = io.StringIO()
    progress = Progress(live, live=True, clock=clock)
    progress.start([1, 1])
    clock.now = 1.0
    progress.starting("a.suite.yaml", "the agent program `python3 agent.py` (a)")
    progress.starting("a.suite.yaml", "the agent program `python3 agent.py` (a)")  # said once
    assert live.getvalue().split("\r")[-1] == (
        "[0/2 cases] 0 passed 0 failed 0 errors  1.0 s; "
        "starting the agent program `python3 agent.py` (a)\x1b[K"
    )
    clock.now = 2.0
    progress.tick()  # the clock moves while nothing finishes
    assert (
        live.getvalue().split("\r")[-1].startswith("[0/2 cases] 0 passed 0 failed 0 errors  2.0 s; starting")
    )
    progress.started("a.suite.yaml")
    progress.tick()
    assert live.getvalue().split("\r")[-1] == "[0/2 cases] 0 passed 0 failed 0 errors  2.0 s\x1b[K"

    plain = io.StringIO()
    progress = Progress(plain, live=False, clock=clock, interval=10)
    clock.now = 0.0
    progress.start([1, 1])
    progress.starting("a.suite.yaml", "the agent program `python3 agent.py` (a)")
    for second in range(1, 21):
        clock.now = float(second)
        progress.tick()
    assert plain.getvalue().splitlines() == [
        "running 2 cases x 1 trial = 2 trials",
        "starting the agent program `python3 agent.py` (a)",
        "[0/2 cases] 0 passed 0 failed 0 errors  10.0 s",  # a line every interval with nothing done
        "[0/2 cases] 0 passed 0 failed 0 errors  20.0 s",
    ]


def test_progress_in_ci_prints_plain_lines_every_tenth():
    import io

    stream = io.StringIO()
    clock = FakeClock()
    progress = Progress(stream, live=False, clock=clock, interval=1000)
    progress.start([5] * 20)
    for trial in range(100):
        clock.now += 0.01
        if trial % 5 == 4:
            progress.case_done("passed")
        progress.trial_done()
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "running 20 cases x 5 trials = 100 trials"
    assert "\r" not in stream.getvalue()
    assert len(lines) == 11  # the header and one line per 10 %
    assert lines[1].startswith("[ 2/20 cases,  10/100 trials] 2 passed 0 failed 0 errors")
    assert lines[-1].startswith("[20/20 cases, 100/100 trials] 20 passed 0 failed 0 errors")


def test_progress_counts_cases_as_the_summary_does(model_server, monkeypatch):
    import io

    from gate.verdict.policy import decide

    server = model_server(SCRIPT)
    cases = [weather_case(0, trials=2), weather_case(1, "Rome", trials=2), weather_case(2, trials=2)]
    cases[1] = dataclasses.replace(
        cases[1], expect=builders.expectation(builders.ecall("get_weather", {"city": "Oslo"}))
    )
    stream = io.StringIO()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    results = asyncio.run(
        run_suites(
            [make_suite(*cases)],
            RunOptions(retry=FAST_RETRY, concurrency=1),
            lambda name: make_provider(name, timeout=10),
            Progress(stream, live=False, interval=1000),
        )
    )
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("[3/3 cases, 6/6 trials] 2 passed 1 failed 0 errors")
    assert "2/3 passed" in summary_line(decide(results))  # the same count of cases


def test_progress_is_plain_when_ci_is_set_even_on_a_terminal(monkeypatch):
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("CI", "true")
    assert Progress(Tty()).live is False
    monkeypatch.delenv("CI")
    assert Progress(Tty()).live is True
    assert Progress(io.StringIO()).live is False


def test_progress_header_says_cases_and_trials():
    from gate.run.progress import plan_text

    assert plan_text([1]) == "1 case x 1 trial = 1 trial"
    assert plan_text([3, 1, 3]) == "3 cases, 1-3 trials each = 7 trials"
    assert plan_text([]) == "0 cases"


def _with_agent(suite, name, **agent):
    return dataclasses.replace(
        suite, name=name, path=f"suites/{name}.suite.yaml", agent=dataclasses.replace(suite.agent, **agent)
    )


def test_a_missing_key_of_one_provider_never_stops_the_suites_of_another(model_server, monkeypatch):
    server = model_server(SCRIPT)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    openai_suite = _with_agent(make_suite(*(weather_case(i) for i in range(3))), "openai-suite")
    claude_suite = _with_agent(
        make_suite(*(weather_case(i) for i in range(3, 5))),
        "claude-suite",
        provider="anthropic",
        model="claude-x",
    )
    results = run(server, monkeypatch, [claude_suite, openai_suite], concurrency=2)

    claude, openai_ = results.suites
    assert [c.status for c in openai_.cases] == ["passed"] * 3
    assert [c.status for c in claude.cases] == ["error"] * 2
    (error,) = {t.record.error for c in claude.cases for t in c.trials}
    assert error.startswith("not run: auth") and "anthropic" in error
    assert not results.complete and results.incomplete_reason.startswith("stopped anthropic: auth")


def test_an_unknown_model_stops_only_its_own_suites(model_server, monkeypatch):
    script = script_with(
        {"when": {"model": "^gpt-gone$"}, "fault": {"kind": "status", "status": 404}},
    )
    server = model_server(script)
    gone = _with_agent(make_suite(*(weather_case(i) for i in range(4))), "gone", model="gpt-gone")
    fine = _with_agent(make_suite(*(weather_case(i) for i in range(4, 7))), "fine")
    results = run(server, monkeypatch, [gone, fine], concurrency=1)

    gone_result, fine_result = results.suites
    assert [c.status for c in fine_result.cases] == ["passed"] * 3
    assert {c.status for c in gone_result.cases} == {"error"}
    assert all(
        t.record.error.startswith("not run: bad_request (HTTP 404)")
        for c in gone_result.cases
        for t in c.trials
    )
    assert server.status_counts.get(404) == 1  # the model's other cases never asked again
    assert "stopped openai gpt-gone" in results.incomplete_reason
