"""``calls: live``: a trial's calls go to its own server process (started at its first call, ended
with the trial), results come back with their structured content and error flag."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time

import pytest

from gate.errors import GateError
from gate.suite.model import ToolServer
from gate.tool_servers.live import MAX_RESULT_CHARS, LiveTools, bounded
from gate.tool_servers.session import CallAnswer
from tests.builders import suite
from tests.tool_servers.test_listing import ENTRY, SERVER


def live_suite(*flags: str, calls: str = "live", starts: str = "", timeout_s: float = 30.0):
    extra = ("--starts", starts) if starts else ()
    srv = ToolServer(
        command=(sys.executable, SERVER, *flags, *extra),
        source=ENTRY,
        calls=calls,  # type: ignore[arg-type]
        tools=("get_weather", "add_item", "fail"),
        timeout_s=timeout_s,
    )
    base = suite()
    return dataclasses.replace(base, agent=dataclasses.replace(base.agent, tool_servers=(srv,)))


async def trial_calls(live: LiveTools, *calls: tuple[str, dict]) -> list[CallAnswer]:
    try:
        return [await live.call(name, arguments) for name, arguments in calls]
    finally:
        await live.close()


def test_results_errors_and_structured_content_come_back():
    answers = asyncio.run(
        trial_calls(
            LiveTools(live_suite()),
            ("get_weather", {"city": "Paris"}),
            ("add_item", {"item": "milk"}),
            ("fail", {}),
        )
    )
    assert answers[0] == CallAnswer("18 C and cloudy in Paris", "18 C and cloudy in Paris", False)
    assert answers[1] == CallAnswer('{"count": 1}', {"count": 1}, False)
    assert answers[2] == CallAnswer("the tool failed on purpose", "the tool failed on purpose", True)


def test_each_trial_has_its_own_server_process_so_no_state_leaks(tmp_path):
    starts = tmp_path / "starts.log"
    shop = live_suite(starts=str(starts))
    one = asyncio.run(trial_calls(LiveTools(shop), ("add_item", {"item": "a"}), ("add_item", {"item": "b"})))
    two = asyncio.run(trial_calls(LiveTools(shop), ("add_item", {"item": "c"})))
    assert [a.value for a in one] == [{"count": 1}, {"count": 2}]
    assert [a.value for a in two] == [{"count": 1}]
    assert len(starts.read_text().split()) == 2


def test_a_trial_that_calls_no_live_tool_starts_no_server(tmp_path):
    starts = tmp_path / "starts.log"
    live = LiveTools(live_suite(starts=str(starts)))
    assert live.names == {"get_weather", "add_item", "fail"}
    asyncio.run(live.close())
    assert not starts.exists()
    assert LiveTools(live_suite(calls="mock")).names == frozenset()


def test_a_server_that_cannot_start_fails_the_call_naming_it():
    with pytest.raises(GateError, match="repeats|did not complete the MCP initialisation"):
        asyncio.run(trial_calls(LiveTools(live_suite("--crash")), ("add_item", {"item": "a"})))


def test_results_stay_within_bounds():
    huge = "x" * (MAX_RESULT_CHARS + 10)
    cut = bounded(CallAnswer(huge, huge, False))
    assert len(cut.text) < MAX_RESULT_CHARS + 100 and cut.value == cut.text
    deep: object = 1
    for _ in range(100):
        deep = [deep]
    assert bounded(CallAnswer("[[...]]", deep, False)).value == "[[...]]"


def test_calls_from_other_tasks_share_the_trial_s_server_and_close_ends_it(tmp_path):
    """An agent program's calls arrive in the tasks of the mock MCP server's connections, and the
    trial's own task ends the servers: the SDK's task groups cannot be left by another task than the
    one that entered them, so each session lives in a task of its own."""
    starts = tmp_path / "starts.log"

    async def trial() -> list[CallAnswer]:
        live = LiveTools(live_suite(starts=str(starts)))
        first = await asyncio.ensure_future(live.call("add_item", {"item": "a"}))
        second = await asyncio.ensure_future(live.call("add_item", {"item": "b"}))
        await live.close()
        with pytest.raises(GateError, match="called after its trial had ended"):
            await live.call("get_weather", {"city": "Paris"})  # starts nothing
        return [first, second]

    answers = asyncio.run(trial())
    assert [a.value for a in answers] == [{"count": 1}, {"count": 2}]  # one process for both calls
    assert len(starts.read_text().split()) == 1


def test_a_server_still_starting_when_the_trial_ends_is_stopped_not_waited_for(tmp_path):
    starts = tmp_path / "starts.log"

    async def trial() -> tuple[BaseException | CallAnswer, float]:
        # it never answers its initialisation, and may take 120 s to do so
        live = LiveTools(live_suite("--hang", starts=str(starts), timeout_s=120.0))
        call = asyncio.ensure_future(live.call("add_item", {"item": "a"}))
        while not starts.exists():
            await asyncio.sleep(0.05)
        begun = time.perf_counter()
        await live.close()
        outcome = (await asyncio.gather(call, return_exceptions=True))[0]
        return outcome, time.perf_counter() - begun

    outcome, took = asyncio.run(trial())
    assert isinstance(outcome, GateError) and "was still starting" in str(outcome)
    assert took < 60.0  # its timeout_s is not waited out
