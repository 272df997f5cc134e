"""expect.trajectory: the judge (through the real SDK, scripted server) reads the user's goal, the
tools with their descriptions and every call with its result; a booking made without the
confirmation the policy requires fails with the judge's rationale, a confirmed one passes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.providers import make_provider
from gate.results.messages import AssistantMessage, ToolCall, ToolResult, UserMessage
from gate.run.runner import RunOptions, run_suites
from gate.scoring.trajectory import goal_text, trajectory_text
from gate.suite.judging import prompt_for, trajectory_request

SUITE = """\
version: 1
name: airline
agent:
  provider: openai
  model: gpt-4o-mini
  system_prompt: "Policy: before booking, state the price and ask the user to confirm."
  tools:
    - name: book_flight
      description: Book a seat on a flight for the user.
      parameters: {type: object, properties: {flight_id: {type: string}}, required: [flight_id]}
judge: {provider: openai, model: judge-model}
state: {bookings: []}
mocks:
  tools:
    book_flight:
      - append: {bookings: "{{ args.flight_id }}"}
        returns: {booking_id: "BK-{{ call.index }}"}
cases:
  - id: confirmed
    conversation:
      - {role: user, content: Book UA100 for me}
      - {role: assistant, content: "UA100 costs $300. Shall I book it?"}
      - {role: user, content: yes please}
    expect:
      trajectory: {criteria: The agent asks for confirmation before booking.}
  - id: skipped-confirmation
    input: Book UA100 for me
    expect:
      trajectory: {criteria: The agent asks for confirmation before booking.}
"""

SCRIPT = {
    "rules": [
        {
            "when": {
                "forced_tool": "submit_verdict",
                "last_user": "(?s)ASSISTANT: UA100 costs.*CALL book_flight",
            },
            "tool_calls": [{"arguments": {"verdict": "yes", "rationale": "Confirmed before booking."}}],
        },
        {
            "when": {"forced_tool": "submit_verdict"},
            "tool_calls": [
                {"arguments": {"verdict": "no", "rationale": "Booked without asking to confirm."}}
            ],
        },
        {"when": {"after_tool": "book_flight"}, "text": "Booked {result.booking_id}."},
        {
            "when": {"last_user": "yes please|Book UA100"},
            "tool_calls": [{"name": "book_flight", "arguments": {"flight_id": "UA100"}}],
        },
    ]
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")


def _suite(tmp_path: Path):
    (tmp_path / "airline.suite.yaml").write_text(SUITE, encoding="utf-8")
    loaded = load_suites([tmp_path], root=tmp_path)
    assert loaded.problems == ()
    return loaded.suites[0]


def test_skipping_the_required_confirmation_fails_the_trajectory_with_the_rationale(
    tmp_path, model_server, monkeypatch
):
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    results = asyncio.run(
        run_suites([_suite(tmp_path)], RunOptions(), lambda name: make_provider(name, timeout=10))
    )
    confirmed, skipped = results.suites[0].cases
    assert confirmed.status == "passed", confirmed.failures
    assert skipped.status == "failed"
    [failure] = skipped.failures
    assert failure.reason == "trajectory_failed"
    assert "Booked without asking to confirm." in failure.message
    [check] = [c for c in skipped.trials[0].checks if c.kind == "trajectory"]
    assert (check.passed, check.rationale) == (False, "Booked without asking to confirm.")
    judged = [r for r in server.requests if "submit_verdict" in str(r)]
    assert len(judged) == 2  # one trajectory question per case


def test_the_judge_reads_goal_tools_with_descriptions_and_every_call_with_its_result(tmp_path):
    from tests.results_factory import call, record

    suite = _suite(tmp_path)
    booked = call("book_flight", {"flight_id": "UA100"}, result={"booking_id": "BK-1"})
    rec = record("Book UA100 for me", [booked], output="Booked BK-1.")
    rec = type(rec)(
        **{
            **rec.__dict__,
            "messages": (
                UserMessage("Book UA100 for me"),
                AssistantMessage("", tool_calls=(ToolCall(booked.id, "book_flight", booked.raw_arguments),)),
                ToolResult(booked.id, "book_flight", "{}"),
                AssistantMessage("Booked BK-1."),
            ),
        }
    )
    prompt = prompt_for(
        trajectory_request(trajectory_text(suite, rec), "Confirm first.", goal_text(rec))
    ).user
    assert "Book UA100 for me" in prompt
    assert "- book_flight: Book a seat on a flight for the user." in prompt
    assert 'CALL book_flight({"flight_id": "UA100"}) -> RESULT: {"booking_id": "BK-1"}' in prompt
    assert "ASSISTANT: Booked BK-1." in prompt
    assert "Confirm first." in prompt


def test_a_trajectory_without_a_judge_is_refused_at_its_line(tmp_path):
    text = SUITE.replace("judge: {provider: openai, model: judge-model}\n", "")
    (tmp_path / "airline.suite.yaml").write_text(text, encoding="utf-8")
    problems = load_suites([tmp_path], root=tmp_path).problems
    lines = [i for i, row in enumerate(text.splitlines(), 1) if "trajectory:" in row]
    assert [p.line for p in problems] == lines
    assert all("trajectory judgement needs a judge" in p.message for p in problems)
