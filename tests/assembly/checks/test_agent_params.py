"""Agent parameters that can never work or would replace what the gate reports on (pure)."""

from __future__ import annotations

import pytest

from gate.assembly.checks.agent_params import extra_body_problems, tool_choice_problem


@pytest.mark.parametrize(
    "key",
    ["model", "messages", "input", "instructions", "system", "tools", "tool_choice", "stream", "n", "Model"],
)
def test_keys_the_gate_sends_and_reports_on_are_refused(key):
    [(path, message, _)] = extra_body_problems({key: 1}, ("extra_body",))
    assert path == ("extra_body", key) and "it would replace" in message


@pytest.mark.parametrize("key", ["temperature", "top_p", "max_tokens", "seed", "stop", "reasoning_effort"])
def test_parameters_the_gate_models_are_refused(key):
    [(_, message, hint)] = extra_body_problems({key: 1}, ())
    assert "a parameter the gate models" in message and "agent.params" in hint


@pytest.mark.parametrize(
    "key",
    ["api_key", "x-api-key", "Authorization", "headers", "base_url", "api_base_url", "token", "password"],
)
def test_credentials_headers_and_urls_are_refused(key):
    [(_, message, _)] = extra_body_problems({key: "x"}, ())
    assert "credentials, headers and URLs never come from a suite" in message


def test_server_options_pass_through():
    options = {"top_k": 20, "repetition_penalty": 1.1, "prompt_cache_key": "w", "chat_template_kwargs": {}}
    assert extra_body_problems(options, ()) == []


def test_tool_choice_required_needs_tools():
    assert tool_choice_problem("required", has_tools=False) is not None
    assert tool_choice_problem("required", has_tools=True) is None
    assert tool_choice_problem("auto", has_tools=False) is None
