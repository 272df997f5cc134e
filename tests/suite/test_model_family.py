"""What each model family accepts: pure decisions, tested without a server."""

from __future__ import annotations

import pytest

from gate.suite.model import ModelParams
from gate.suite.model_family import (
    anthropic_max_tokens,
    family_of,
    judge_params,
    provider_problems,
    thinking_problems,
    token_limit_key,
)


@pytest.mark.parametrize(
    ("model", "reasoning"),
    [
        ("o1", True),
        ("o3-mini", True),
        ("o4-mini-2025-04-16", True),
        ("gpt-5", True),
        ("gpt-5-mini", True),
        ("gpt-5.1", True),
        ("openai/o3", True),
        ("gpt-5-chat-latest", False),
        ("gpt-4o", False),
        ("omni-moderation", False),
        ("my-deployment", False),
    ],
)
def test_openai_reasoning_models_are_known_by_name(model, reasoning):
    assert family_of("openai", model).reasoning is reasoning
    assert family_of("anthropic", model).reasoning is False


def test_the_token_limit_goes_under_the_name_each_api_takes():
    limit = ModelParams(max_tokens=100)
    assert token_limit_key("openai", "chat", "gpt-4o", limit) == "max_tokens"
    assert token_limit_key("openai", "chat", "o3", limit) == "max_completion_tokens"
    assert token_limit_key("openai", "responses", "gpt-4o", limit) == "max_output_tokens"
    assert token_limit_key("anthropic", "chat", "claude", limit) == "max_tokens"
    written = ModelParams(max_completion_tokens=100)
    assert token_limit_key("openai", "chat", "gpt-4o", written) == "max_completion_tokens"


def test_the_judge_sends_temperature_0_only_where_the_family_takes_it():
    chat = judge_params("openai", "gpt-4o-mini", 1024, None)
    assert (chat.temperature, chat.max_tokens, chat.max_completion_tokens) == (0.0, 1024, None)
    reasoning = judge_params("openai", "gpt-5-mini", 1024, "low")
    assert reasoning.temperature is None and reasoning.max_tokens is None
    assert (reasoning.max_completion_tokens, reasoning.reasoning_effort) == (1024, "low")
    assert judge_params("anthropic", "claude-haiku-4-5", 512, None).temperature == 0.0


def test_thinking_constraints():
    assert thinking_problems(ModelParams(thinking_budget=2048)) == []
    assert anthropic_max_tokens(ModelParams(thinking_budget=2048)) == 3072
    names = [n for n, _ in thinking_problems(ModelParams(thinking_budget=512, temperature=0.2, top_p=0.5))]
    assert names == ["thinking", "temperature", "top_p"]
    assert [n for n, _ in thinking_problems(ModelParams(thinking_budget=2048, tool_choice="lookup"))] == [
        "tool_choice"
    ]
    assert thinking_problems(ModelParams(thinking_budget=2048, temperature=1, tool_choice="auto")) == []


def test_settings_without_a_place_in_the_provider_or_api():
    assert [n for n, _ in provider_problems("anthropic", "responses", ModelParams(verbosity="low"))] == [
        "verbosity",
        "api",
    ]
    assert [n for n, _ in provider_problems("openai", "chat", ModelParams(thinking_budget=2048))] == [
        "thinking"
    ]
    assert provider_problems("openai", "chat", ModelParams(stop=("x",), seed=1)) == []
    assert [n for n, _ in provider_problems("openai", "responses", ModelParams(stop=("x",), seed=1))] == [
        "stop",
        "seed",
    ]
