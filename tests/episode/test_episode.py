"""One episode for both agents: the same case shapes through the model agent (the gate's own loop) and
through an agent program that does what that loop does (``mirror_agent.py``: the same prompt, token
limit and model, its calls answered by the mock MCP server) end with the same run record and the same
verdict: one turn, a conversation, a mid-task history, a simulated user, a simulated user's reply cut
at its token limit, the turn and call budgets, a reply cut at its token limit, a provider that
refuses the request (a conversation that ends with tool results is the model agent's only: validate
refuses it in a program suite). Each agent has a scripted model server
of its own (call ids and token counts follow the server's request count); what may differ is only
how the agent's turn is obtained: the error a cut reply gives names where the limit is set, a request
body's size (input tokens) is each agent's own, a program's record lists the tools each of its
requests offered, and the time each took."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from gate.files.suite_loader import load_suites
from gate.providers import make_provider
from gate.results.outcomes import RunResults
from gate.run.runner import RunOptions, run_suites

HERE = Path(__file__).resolve().parent
SYSTEM = "You are a weather assistant."

SUITE = """\
version: 1
name: weather
agent:
{agent}
  tools:
    - name: get_weather
      description: The current weather in a city.
      parameters: {{type: object, properties: {{city: {{type: string}}}}, required: [city]}}
user_simulator: {{provider: openai, model: user-model, max_tokens: 16}}
mocks:
  tools:
    get_weather:
      - when: {{city: Oslo}}
        error: the weather service is down
      - returns: {{temp_c: 18}}
cases:
  - id: one-turn
    input: Weather in Paris?
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}], output: {{contains: ["18"]}}}}
  - id: conversation
    conversation:
      - {{role: user, content: Hi}}
      - {{role: assistant, content: Which city?}}
      - {{role: user, content: Weather in Paris?}}
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
  - id: mid-task
    conversation:
      - {{role: user, content: Weather in Oslo?}}
      - role: assistant
        content: ""
        tool_calls: [{{id: given_1, name: get_weather, arguments: {{city: Oslo}}}}]
      - {{role: tool, content: the weather service is down, is_error: true}}
      - {{role: user, content: Weather in Paris?}}
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
  - id: simulated-user
    input: Hello
    user: {{goal: Know the weather in Paris., max_turns: 3}}
    expect: {{calls: [{{tool: get_weather, args: {{city: Paris}}}}]}}
  - id: simulated-user-cut
    input: Hello chatty
    user: {{goal: Chat at length., max_turns: 3}}
  - id: turn-budget
    input: Weather everywhere, forever
    max_turns: 2
  - id: call-budget
    input: Weather in three cities
    max_tool_calls: 2
  - id: cut-reply
    input: Tell me a long story
  - id: refused
    input: Something the provider refuses
"""

SIMULATOR_S = 2.0  # each simulated user's answer takes this long: not the agent's latency

SCRIPT = {
    "rules": [
        # The simulated user (its roles swapped: the agent's words are its user's).
        {"when": {"model": "user-model", "last_user": "degrees"}, "text": "###STOP###", "delay": SIMULATOR_S},
        {
            "when": {"model": "user-model", "system": "at length"},
            "text": "Let me tell you all about my day " * 4,
        },
        {"when": {"model": "user-model"}, "text": "Weather in Paris?", "delay": SIMULATOR_S},
        # The agent.
        {
            "when": {"model": "agent-model", "last_user": "refuses"},
            "fault": {"kind": "status", "status": 400},
        },
        {"when": {"model": "agent-model", "last_user": "story"}, "text": "Once upon a time " * 20},
        {
            "when": {"model": "agent-model", "last_user": "forever"},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Turn {turn}"}}],
        },
        {
            "when": {"model": "agent-model", "last_user": "three cities", "turn": 1},
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "get_weather", "arguments": {"city": "Rome"}},
                {"name": "get_weather", "arguments": {"city": "Oslo"}},
            ],
        },
        {
            "when": {"model": "agent-model", "after_tool": "get_weather"},
            "text": "It is {result.temp_c} degrees.",
        },
        {
            "when": {"model": "agent-model", "last_user": "Paris"},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        },
        {"when": {"model": "agent-model"}, "text": "Which city?"},
    ]
}

MODEL_AGENT = (
    f"  provider: openai\n  model: agent-model\n  system_prompt: {SYSTEM}\n  params: {{max_tokens: 60}}"
)


PROGRAM_AGENT = f'  command: [python3, mirror_agent.py, "{SYSTEM}", "60"]'


def run(root: Path, agent: str, model_server: Any, monkeypatch: pytest.MonkeyPatch) -> RunResults:
    server = model_server(SCRIPT, cut_at_limit=True)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    root.mkdir()
    shutil.copy(HERE / "mirror_agent.py", root / "mirror_agent.py")
    (root / "weather.suite.yaml").write_text(SUITE.format(agent=agent), encoding="utf-8")
    loaded = load_suites([root], root=root)
    assert loaded.problems == ()
    options = RunOptions(concurrency=1, root=str(root))  # one case at a time: the same request order
    return asyncio.run(run_suites(loaded.suites, options, lambda name: make_provider(name, timeout=10)))


def comparable(results: RunResults) -> dict[str, Any]:
    """Per case: its verdict, and each trial's record less what is each agent's own (the time it
    took, the input tokens of its own request bodies, the words of a cut reply's error)."""
    cases = {}
    for case in results.suites[0].cases:
        trials = []
        for trial in case.trials:
            record = trial.record
            # Where a cut reply's limit is set is each agent's own: the suite's params, the program.
            cut = record.stop_reason == "max_tokens" and not (record.error or "").startswith("user simulator")
            kept = dataclasses.replace(
                record,
                latency_ms=0.0,
                usage=dataclasses.replace(record.usage, input_tokens=0),
                error="cut" if cut else record.error,
                offered=(),  # recorded for a program's requests only (the model agent's offer the suite's)
            )
            failures = [f.reason for f in trial.failures] if cut else trial.failures
            trials.append((trial.status, trial.score, failures, kept))
        cases[case.case_id] = (case.status, trials)
    return cases


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")


def latency(results: RunResults, case_id: str) -> float:
    return next(c for c in results.suites[0].cases if c.case_id == case_id).trials[0].record.latency_ms


def test_the_same_cases_give_the_same_record_and_verdict_through_both_agents(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_results = run(tmp_path / "model", MODEL_AGENT, model_server, monkeypatch)
    program_results = run(tmp_path / "program", PROGRAM_AGENT, model_server, monkeypatch)
    # The simulated user answered twice, SIMULATOR_S each time: none of it is either agent's latency.
    assert latency(model_results, "simulated-user") < 2 * SIMULATOR_S * 1000
    assert latency(program_results, "simulated-user") < 2 * SIMULATOR_S * 1000
    by_model, by_program = comparable(model_results), comparable(program_results)
    assert list(by_program) == list(by_model)
    for case_id, expected in by_model.items():
        assert by_program[case_id] == expected, case_id
    stops = {case_id: trials[0][3].stop_reason for case_id, (_, trials) in by_model.items()}
    assert stops == {
        "one-turn": "final_answer",
        "conversation": "final_answer",
        "mid-task": "final_answer",
        "simulated-user": "user_done",
        "simulated-user-cut": "max_tokens",
        "turn-budget": "max_turns",
        "call-budget": "max_tool_calls",
        "cut-reply": "max_tokens",
        "refused": "provider_error",
    }
