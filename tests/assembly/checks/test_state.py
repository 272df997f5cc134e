"""``validate`` refuses stateful mocks that can never work, each at its line (gate.assembly.checks.state
and state_shapes, through the loader): templates never closed, templates in conditions, templates
into scalar arguments, changes the declared state (the suite's or a case's) can never take."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites

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
        properties:
          flight_id: {type: string}
          seat: {type: integer}
          passenger: {type: object, properties: {name: {type: string}}}
        required: [flight_id]
state:
  flights: {UA100: {seats: 2}}
  bookings: []
  holds: {}
mocks:
  tools:
    book_flight:
      - when: {flight_id: UA100}
        append: {bookings: {id: "BK-{{ call.index }}", who: "{{ args.passenger.name }}"}}
        returns: {booked: "BK-{{ call.index }}"}
cases:
  - id: book
    input: Book UA100 please
"""


def _problems(tmp_path: Path, text: str):
    (tmp_path / "booking.suite.yaml").write_text(text, encoding="utf-8")
    return list(load_suites([tmp_path], root=tmp_path).problems)


def test_the_suite_is_valid(tmp_path):
    assert _problems(tmp_path, SUITE) == []


@pytest.mark.parametrize(
    ("replace", "by", "message"),
    [
        ('id: "BK-{{ call.index }}"', 'id: "BK-{{ call.index"', "opened with {{ but never closed"),
        ("append: {bookings:", 'append: {"bookings.BK-{{ call.index":', "opened with {{ but never closed"),
        (
            "append: {bookings:",
            "append: {holds:",
            "'holds' is a mapping in the declared state: append needs a",
        ),
        ("append: {bookings:", "append: {flights.UA100.seats.x:", "'flights.UA100.seats' is a number"),
        (
            "append: {bookings:",
            "set: {bookings.BK1:",
            "'bookings' is a list in the declared state: it has no key",
        ),
        ("when: {flight_id: UA100}", 'when: {flight_id: "{{ args.flight_id }}"}', "never filled"),
        ("when: {flight_id: UA100}", 'state_when: {flights.UA100.seats: "{{ state.x }}"}', "never filled"),
        ("{{ args.passenger.name }}", "{{ args.seat.row }}", "argument 'seat' is integer in the tool"),
        ("{{ args.passenger.name }}", "{{ args.flight_id.0 }}", "argument 'flight_id' is string"),
    ],
)
def test_stateful_mocks_that_can_never_work_are_refused_at_their_line(tmp_path, replace, by, message):
    assert replace in SUITE
    text = SUITE.replace(replace, by, 1)
    problems = _problems(tmp_path, text)
    assert len(problems) == 1, problems
    assert message in problems[0].message
    assert problems[0].line == text[: text.index(by)].count("\n") + 1


def test_a_case_state_that_turns_the_suites_list_into_a_mapping_is_refused_at_the_case(tmp_path):
    text = SUITE + "    state: {bookings: {}}\n"
    [problem] = _problems(tmp_path, text)
    assert problem.line == text.count("\n")  # the case's state line
    assert "this case's state cannot take the rule at booking.suite.yaml:24" in problem.message
    assert "'bookings' is a mapping in the declared state: append needs a list" in problem.message


def test_a_shape_a_rule_sets_first_is_not_refused(tmp_path):
    text = SUITE.replace("append: {bookings:", "set: {holds: []}\n        append: {holds:")
    assert _problems(tmp_path, text) == []
