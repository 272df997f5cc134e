"""``calls: live``: a trial's calls go to its own server process (started at its first call, ended
with the trial), results come back with their structured content and error flag."""

from __future__ import annotations

import asyncio
import dataclasses
import sys

import pytest

from gate.errors import GateError
from gate.suite.model import ToolServer
from gate.tool_servers.live import MAX_RESULT_CHARS, LiveTools, bounded
from gate.tool_servers.session import CallAnswer
from tests.builders import suite
from tests.tool_servers.test_listing import ENTRY, SERVER


def live_suite(*flags: str, calls: str = "live", starts: str = ""):
    extra = ("--starts", starts) if starts else ()
    srv = ToolServer(
        command=(sys.executable, SERVER, *flags, *extra),
        source=ENTRY,
        calls=calls,  # type: ignore[arg-type]
        tools=("get_weather", "add_item", "fail"),
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
