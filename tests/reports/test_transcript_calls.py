"""How the plain-text transcript says who answered a call and whether with an error (the JUnit
``system-out`` and the Markdown report's transcripts): "error error mock:" said the kind and the
error twice for a mock's error rule."""

from __future__ import annotations

import dataclasses

import pytest

from gate.reports.transcript import transcript
from tests.results_factory import call, case, record, trial


@pytest.mark.parametrize(
    ("kind", "is_error", "said"),
    [
        ("matched", False, '  -> matched mock: {"temp_c": 18}'),
        ("fallback", False, '  -> fallback mock: {"temp_c": 18}'),
        ("error", True, '  -> error from the mock: {"temp_c": 18}'),
        ("matched", True, '  -> error from the matched mock: {"temp_c": 18}'),
        ("unmocked", False, '  -> unmocked default: {"temp_c": 18}'),
        ("unmocked", True, '  -> error from the unmocked default: {"temp_c": 18}'),
        ("live", False, '  -> live server: {"temp_c": 18}'),
        ("live", True, '  -> error from the live server: {"temp_c": 18}'),
        ("program", False, '  -> the program\'s own code: {"temp_c": 18}'),
        ("program", True, '  -> error from the program\'s own code: {"temp_c": 18}'),
        ("unknown_tool", True, '  -> {"temp_c": 18}'),
    ],
)
def test_a_call_s_result_says_who_answered_it_and_whether_with_an_error(
    kind: str, is_error: bool, said: str
) -> None:
    made = call("get_weather", {"city": "Paris"}, result={"temp_c": 18}, mock=kind)
    made = dataclasses.replace(made, is_error=is_error)
    text = transcript(case("c", "passed", trials=[trial(rec=record("Weather?", [made]))]))
    lines = text.splitlines()
    assert lines[lines.index('[call] get_weather({"city": "Paris"})') + 1] == said
