"""The simulated user: the suite's user_simulator (real SDK, scripted server) plays the user from
the case's goal until it says ###STOP###; the episode's turns are in the transcript, expectations
apply to the whole episode, and a replay from the cache sends no request."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gate.episode.simulated_user import STOP, next_message, simulator_request
from gate.files.suite_loader import load_suites
from gate.providers import make_provider
from gate.results.messages import AssistantMessage, SystemMessage, ToolCall, ToolResult, UserMessage
from gate.run.cache import ResponseCache
from gate.run.runner import RunOptions, run_suites
from gate.suite.model import Judge, SimulatedUser

SUITE = """\
version: 1
name: shop
agent:
  provider: openai
  model: agent-model
  system_prompt: You sell shoes. Ask for the size before ordering.
  tools:
    - name: order
      description: Order shoes.
      parameters: {type: object, properties: {size: {type: integer}}, required: [size]}
user_simulator: {provider: openai, model: user-model}
state: {orders: []}
mocks:
  tools:
    order:
      - append: {orders: {size: "{{ args.size }}"}}
        returns: {ordered: true}
cases:
  - id: buy-shoes
    input: I want shoes
    user: {goal: "Buy running shoes in size 42.", persona: terse, max_turns: 3}
    expect:
      calls: [{tool: order, args: {size: 42}}]
      final_state: {orders: [{size: 42}]}
"""

SCRIPT = {
    "rules": [
        # The simulated user (its system prompt holds the goal).
        {"when": {"model": "user-model", "last_user": "Ordered"}, "text": STOP},
        {"when": {"model": "user-model", "last_user": "size"}, "text": "42"},
        # The agent.
        {"when": {"model": "agent-model", "after_tool": "order"}, "text": "Ordered size 42."},
        {
            "when": {"model": "agent-model", "last_user": "^42$"},
            "tool_calls": [{"name": "order", "arguments": {"size": 42}}],
        },
        {"when": {"model": "agent-model"}, "text": "Which size?"},
    ]
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")


def _run(tmp_path: Path, server, monkeypatch, mode: str):
    (tmp_path / "shop.suite.yaml").write_text(SUITE, encoding="utf-8")
    loaded = load_suites([tmp_path], root=tmp_path)
    assert loaded.problems == ()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    options = RunOptions(cache=ResponseCache(tmp_path / "cache", mode))  # type: ignore[arg-type]
    results = asyncio.run(run_suites(loaded.suites, options, lambda name: make_provider(name, timeout=10)))
    return results.suites[0].cases[0]


def test_the_simulated_user_plays_the_episode_and_replays_with_no_request(
    tmp_path, model_server, monkeypatch
):
    server = model_server(SCRIPT)
    case = _run(tmp_path, server, monkeypatch, "record")
    assert case.status == "passed", case.failures
    record = case.trials[0].record
    said = [
        (m.role, m.content)
        for m in record.messages
        if isinstance(m, (UserMessage, AssistantMessage)) and m.content
    ]
    assert said == [
        ("user", "I want shoes"),
        ("assistant", "Which size?"),
        ("user", "42"),
        ("assistant", "Ordered size 42."),
    ]
    assert [m.simulated for m in record.messages if isinstance(m, UserMessage)] == [False, True]
    assert record.stop_reason == "user_done"
    recorded = server.request_count
    assert recorded == 5  # agent 3 + simulator 2

    replay_server = model_server(SCRIPT)
    again = _run(tmp_path, replay_server, monkeypatch, "replay")
    assert replay_server.request_count == 0
    assert again.status == "passed"
    assert again.trials[0].record.messages == record.messages


def test_the_simulator_sees_the_conversation_with_roles_swapped_and_its_goal():
    simulator = Judge(provider="openai", model="user-model")
    user = SimulatedUser(goal="Buy size 42.", persona="terse")
    transcript = [
        SystemMessage("agent prompt"),
        UserMessage("I want shoes"),
        AssistantMessage("", (ToolCall("c1", "find_shoes"),)),
        ToolResult("c1", "find_shoes", "{}"),
        AssistantMessage("Which size?"),
    ]
    request = simulator_request(simulator, user, transcript)
    assert "Buy size 42." in (request.system or "") and "terse" in (request.system or "")
    assert request.messages == (
        UserMessage("(The conversation begins. Write your first message.)"),
        AssistantMessage("I want shoes"),
        UserMessage("Which size?"),
    )
    assert request.tools == ()
    assert next_message(f"Thanks! {STOP}") is None
    assert next_message("  42 ") == "42"


def test_a_simulated_user_without_a_user_simulator_is_refused(tmp_path):
    text = SUITE.replace("user_simulator: {provider: openai, model: user-model}\n", "")
    (tmp_path / "shop.suite.yaml").write_text(text, encoding="utf-8")
    problems = load_suites([tmp_path], root=tmp_path).problems
    assert len(problems) == 1 and "needs the suite's user_simulator" in problems[0].message
    assert (
        problems[0].line
        == text.splitlines().index(next(r for r in text.splitlines() if "user: {goal" in r)) + 1
    )


def test_the_agents_max_turns_bounds_the_whole_episode(tmp_path, model_server, monkeypatch):
    """Budgets are limits over the whole episode: an agent that has used its max_turns replies gets
    no further user message (the simulator is not asked), and using exactly max_turns is no failure."""
    text = SUITE.replace("    user: {goal:", "    max_turns: 2\n    user: {goal:").replace(
        "      calls: [{tool: order, args: {size: 42}}]\n      final_state: {orders: [{size: 42}]}\n",
        "      no_calls: true\n",
    )
    chatty = {
        "rules": [
            {"when": {"model": "user-model"}, "text": "Tell me more."},
            {"when": {"model": "agent-model"}, "text": "Which size?"},
        ]
    }
    server = model_server(chatty)
    (tmp_path / "shop.suite.yaml").write_text(text, encoding="utf-8")
    loaded = load_suites([tmp_path], root=tmp_path)
    assert loaded.problems == ()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    results = asyncio.run(
        run_suites(loaded.suites, RunOptions(), lambda name: make_provider(name, timeout=10))
    )
    case = results.suites[0].cases[0]
    record = case.trials[0].record
    assert record.turns == 2
    assert [m.role for m in record.messages if isinstance(m, (UserMessage, AssistantMessage))] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert server.request_count == 3  # agent 2 + simulator 1: no message the agent could not answer
    assert record.stop_reason == "final_answer"
    assert case.status == "passed", case.failures


def test_a_simulated_users_message_cut_at_its_token_limit_is_the_trials_error(
    tmp_path, model_server, monkeypatch
):
    """A cut message is not the user's whole message: the trial is an error saying which limit to raise,
    not a conversation that goes on with half a sentence."""
    text = SUITE.replace(
        "user_simulator: {provider: openai, model: user-model}",
        "user_simulator: {provider: openai, model: user-model, max_tokens: 3}",
    )
    rambling = {
        "rules": [
            {"when": {"model": "user-model"}, "text": "Well, let me think about my size " * 5},
            *SCRIPT["rules"],
        ]
    }
    server = model_server(rambling, cut_at_limit=True)
    (tmp_path / "shop.suite.yaml").write_text(text, encoding="utf-8")
    loaded = load_suites([tmp_path], root=tmp_path)
    assert loaded.problems == ()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    results = asyncio.run(
        run_suites(loaded.suites, RunOptions(), lambda name: make_provider(name, timeout=10))
    )
    case = results.suites[0].cases[0]
    record = case.trials[0].record
    assert case.status == "error" and record.stop_reason == "max_tokens"
    why = "user simulator: the reply was cut at max_tokens=3: raise it (user_simulator.max_tokens)"
    assert record.error == why and [f.reason for f in case.failures] == ["reply_cut"]
    assert server.request_count == 2  # the agent's question, the cut message: nothing sent after it
