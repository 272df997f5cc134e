"""Stateful mocks and final-state expectations: a suite file through the real loader, the agent
through the real OpenAI SDK against the scripted server, the state after every call in the record."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.providers import make_provider
from gate.results.messages import ToolResult
from gate.run.runner import RunOptions, run_suites
from gate.suite import mock_state
from gate.suite.matcher_tree import parse_matchers
from gate.suite.mocks import MockSession
from gate.suite.model import MockRule, Mocks, MockStep

SUITE = """\
version: 1
name: booking
agent:
  provider: openai
  model: gpt-4o-mini
  system_prompt: Book flights.
  tools:
    - name: book_flight
      description: Book a seat on a flight.
      parameters:
        type: object
        properties: {flight_id: {type: string}}
        required: [flight_id]
    - name: list_bookings
      description: List the bookings.
      parameters: {type: object, properties: {}}
state:
  flights: {UA100: {seats: 2}}
  bookings: []
mocks:
  tools:
    book_flight:
      - state_when: {"flights.{{ args.flight_id }}.seats": {range: {min: 1}}}
        append: {bookings: {id: "BK-{{ call.index }}", flight: "{{ args.flight_id }}"}}
        returns: {booked: "BK-{{ call.index }}", bookings: "{{ state.bookings }}"}
      - error: "no seats on {{ args.flight_id }}"
    list_bookings:
      - returns: "{{ state.bookings }}"
cases:
  - id: book-once
    input: Book UA100 once please
    expect:
      final_state:
        bookings: [{id: {anything: true}, flight: UA100}]
"""

BOOK_TWICE = {
    "rules": [
        {
            "when": {"last_user": "once", "turn": 1},
            "tool_calls": [{"name": "book_flight", "arguments": {"flight_id": "UA100"}}],
        },
        {
            "when": {"last_user": "once", "turn": 2},
            "tool_calls": [{"name": "book_flight", "arguments": {"flight_id": "UA100"}}],
        },
        {
            "when": {"last_user": "once", "turn": 3},
            "tool_calls": [{"name": "list_bookings", "arguments": {}}],
        },
        {"when": {"last_user": "once"}, "text": "Booked: {result}"},
    ]
}
BOOK_ONCE = {"rules": [BOOK_TWICE["rules"][0], BOOK_TWICE["rules"][2], BOOK_TWICE["rules"][3]]}
BOOK_ONCE["rules"][1] = {**BOOK_ONCE["rules"][1], "when": {"last_user": "once", "turn": 2}}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")


def _load(tmp_path: Path, text: str):
    (tmp_path / "booking.suite.yaml").write_text(text, encoding="utf-8")
    return load_suites([tmp_path], root=tmp_path)


def _run(server, monkeypatch, suite):
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    results = asyncio.run(run_suites([suite], RunOptions(), lambda name: make_provider(name, timeout=10)))
    return results.suites[0].cases[0]


def test_booking_twice_fails_the_final_state_naming_key_expected_and_actual(
    tmp_path, model_server, monkeypatch
):
    loaded = _load(tmp_path, SUITE)
    assert loaded.problems == ()
    case = _run(model_server(BOOK_TWICE), monkeypatch, loaded.suites[0])
    assert case.status == "failed"
    [failure] = [f for f in case.failures if f.reason == "state_mismatch"]
    assert failure.argument == "bookings"
    assert failure.actual == [{"id": "BK-1", "flight": "UA100"}, {"id": "BK-2", "flight": "UA100"}]
    assert failure.message == "state bookings: expected 1 element, got 2"  # each said once
    record = case.trials[0].record
    # The state after every call, and the templated results the agent saw.
    assert [len(c.state["bookings"]) for c in record.calls] == [1, 2, 2]
    assert record.calls[1].result == {"booked": "BK-2", "bookings": failure.actual}
    assert record.calls[2].result == failure.actual
    assert [m.state for m in record.messages if isinstance(m, ToolResult)][0].startswith('{"bookings": [{')
    assert record.state == record.calls[-1].state


def test_booking_once_passes_and_the_seat_rule_reads_the_state(tmp_path, model_server, monkeypatch):
    loaded = _load(tmp_path, SUITE)
    case = _run(model_server(BOOK_ONCE), monkeypatch, loaded.suites[0])
    assert case.status == "passed", case.failures
    assert case.trials[0].record.state["bookings"] == [{"id": "BK-1", "flight": "UA100"}]


def test_a_case_state_replaces_suite_keys_and_an_unmet_state_falls_to_the_next_rule(
    tmp_path, model_server, monkeypatch
):
    text = SUITE.replace(
        "    input: Book UA100 once please\n",
        "    input: Book UA100 once please\n    state: {flights: {UA100: {seats: 0}}}\n",
    )
    loaded = _load(tmp_path, text)
    assert loaded.problems == ()
    case = _run(model_server(BOOK_ONCE), monkeypatch, loaded.suites[0])
    calls = case.trials[0].record.calls
    assert (calls[0].is_error, calls[0].result) == (True, "no seats on UA100")
    assert case.trials[0].record.state == {"flights": {"UA100": {"seats": 0}}, "bookings": []}
    assert case.status == "failed"


def test_set_remove_and_sequence_over_successive_calls():
    mocks = Mocks(
        tools={
            "cancel": (
                MockRule(
                    when=None,
                    state_when=parse_matchers({"bookings.{{ args.id }}": {"anything": True}}),
                    set=(("log.-1", "cancelled {{ args.id }}"),),
                    remove=("bookings.{{ args.id }}",),
                    returns={"cancelled": "{{ args.id }}"},
                ),
                MockRule(when=None, error="no booking {{ args.id }}"),
            ),
            "status": (
                MockRule(
                    when=None,
                    sequence=(MockStep(returns="pending"), MockStep(error="busy"), MockStep(returns="done")),
                ),
            ),
        }
    )
    session = MockSession(
        mocks, ["cancel", "status"], {"bookings": {"B1": {"to": "NYC"}}, "log": ["created B1"]}
    )
    assert session.call("cancel", {"id": "B1"}).result == {"cancelled": "B1"}
    assert session.state == {"bookings": {}, "log": ["cancelled B1"]}
    again = session.call("cancel", {"id": "B1"})
    assert (again.is_error, again.result) == (True, "no booking B1")
    steps = [session.call("status", {}) for _ in range(4)]
    assert [(s.result, s.is_error) for s in steps] == [
        ("pending", False),
        ("busy", True),
        ("done", False),
        ("done", False),
    ]


def test_a_change_the_state_cannot_take_is_a_tool_error_naming_the_rule():
    rule = MockRule(when=None, append=(("count", 1),), returns="ok")
    session = MockSession(Mocks(tools={"t": (rule,)}), ["t"], {"count": 3})
    outcome = session.call("t", {})
    assert outcome.is_error and "is not a list" in outcome.result
    assert session.state == {"count": 3}


def test_templates_keep_json_types_whole_and_become_text_inside_strings():
    context = mock_state.CallContext({"n": 2, "who": {"name": "Ann"}}, {"items": [1, 2]}, 7, 1)
    assert mock_state.render("{{ args.n }}", context) == 2
    assert mock_state.render(
        {"k": "{{ state.items }}", "t": "n={{ args.n }} {{ args.who.name }}"}, context
    ) == {
        "k": [1, 2],
        "t": "n=2 Ann",
    }
    assert mock_state.render("{{ args.missing }}", context) is None
    assert mock_state.render("#{{ call.index }}", context) == "#7"


@pytest.mark.parametrize(
    ("replace", "by", "message"),
    [
        ("{{ args.flight_id }}.seats", "{{ args.flight }}.seats", "the tool has no parameter 'flight'"),
        ("append: {bookings:", "append: {orders:", "the state has no key 'orders'"),
        ('"{{ state.bookings }}"', '"{{ state.booking }}"', "the state has no key 'booking'"),
        ('BK-{{ call.index }}", flight', 'BK-{{ call.number }}", flight', "call has only index and count"),
        ('{{ args.flight_id }}"}', '{{ input.flight_id }}"}', "unknown template {{ input.flight_id }}"),
        ("        bookings: [{id", "        bookings..x: [{id", "has an empty segment"),
        ("        bookings: [{id", "        seats: [{id", "the state has no key 'seats'"),
    ],
)
def test_validate_checks_every_reference_into_the_state_and_every_template_at_its_line(
    tmp_path, replace, by, message
):
    assert replace in SUITE
    text = SUITE.replace(replace, by, 1)
    problems = _load(tmp_path, text).problems
    assert len(problems) == 1, problems
    [problem] = problems
    line = text[: text.index(by)].count("\n") + 1
    assert message in problem.message
    assert problem.line == line


def test_a_state_reference_without_a_declared_state_is_refused(tmp_path):
    text = SUITE.replace("state:\n  flights: {UA100: {seats: 2}}\n  bookings: []\n", "")
    messages = [p.message for p in _load(tmp_path, text).problems]
    assert messages and all("neither the suite nor the case declares a state" in m for m in messages)
