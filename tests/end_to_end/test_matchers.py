"""any_of / all_of and the looser normalized comparisons in a suite file: through the real loader,
the agent through the real OpenAI SDK against the scripted server, in every place a matcher goes
(expected arguments, nested objects, mock ``when``, ``final_state``, path ``match``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.providers import make_provider
from gate.run.runner import RunOptions, run_suites

SUITE = """\
version: 1
name: travel
agent:
  provider: openai
  model: gpt-4o-mini
  system_prompt: Book trips.
  tools:
    - name: book_trip
      description: Book a trip.
      parameters:
        type: object
        properties:
          city: {type: string}
          language: {type: string}
          traveller: {type: object, properties: {name: {type: string}, seat: {type: string}}}
        required: [city]
state:
  trips: []
mocks:
  tools:
    book_trip:
      - when: {city: {any_of: [{normalized: NYC}, {normalized: New York}]}}
        append: {trips: "{{ args.city }}"}
        returns: {booked: "{{ args.city }}"}
      - error: "we only fly to New York"
cases:
  - id: trip
    input: Book my trip
    expect:
      calls:
        - tool: book_trip
          args:
            city: {any_of: [{normalized: NYC}, {normalized: New York}]}
            language: {normalized: {value: "C#", ignore: [punctuation]}}
            traveller:
              name: {all_of: [{regex: "^[A-Z]"}, {normalized: {value: "Zoë Brontë", ignore: [accents]}}]}
              seat: {optional: {any_of: [aisle, window]}}
      final_state:
        trips: {unordered: [{any_of: [{normalized: NYC}, {normalized: New York}]}]}
      assert:
        - path: calls[0].args.city
          match: {any_of: [{normalized: NYC}, {normalized: New York}]}
"""


def _script(city: str, language: str, name: str) -> dict:
    arguments = {"city": city, "language": language, "traveller": {"name": name}}
    return {
        "rules": [
            {"when": {"turn": 1}, "tool_calls": [{"name": "book_trip", "arguments": arguments}]},
            {"when": {"after_tool": "book_trip"}, "text": "Done: {result}"},
        ]
    }


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")


def _run(tmp_path: Path, server, monkeypatch):
    (tmp_path / "travel.suite.yaml").write_text(SUITE, encoding="utf-8")
    loaded = load_suites([tmp_path], root=tmp_path)
    assert loaded.problems == ()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    provider = lambda name: make_provider(name, timeout=10)  # noqa: E731
    results = asyncio.run(run_suites(list(loaded.suites), RunOptions(), provider))
    return results.suites[0].cases[0]


def test_every_place_accepts_what_any_of_all_of_and_the_options_allow(tmp_path, model_server, monkeypatch):
    case = _run(tmp_path, model_server(_script("new  york", "c", "Zoe Bronte")), monkeypatch)
    assert case.status == "passed", case.failures
    record = case.trials[0].record
    assert record.calls[0].result == {"booked": "new  york"}  # the mock's any_of rule answered
    assert record.state == {"trips": ["new  york"]}


def test_every_place_refuses_what_they_do_not_allow_naming_what_was_tried(
    tmp_path, model_server, monkeypatch
):
    case = _run(tmp_path, model_server(_script("Boston", "C++", "zoe bronte")), monkeypatch)
    assert case.status == "failed"
    record = case.trials[0].record
    assert record.calls[0].result == "we only fly to New York"  # no mock rule took "Boston"
    by_argument = {f.argument: f for f in case.failures if f.argument}
    city = by_argument["city"]
    assert city.reason == "value_error"
    assert '"Boston" matches none of: {"normalized": "NYC"}' in city.message
    assert "after normalisation ignoring punctuation" in by_argument["language"].message
    assert "all_of item 1 of 2" in by_argument["traveller.name"].message
    reasons = {f.reason for f in case.failures}
    assert "state_mismatch" in reasons  # final_state: no trip was booked
    assert any("calls[0].args.city match" in f.message for f in case.failures)
