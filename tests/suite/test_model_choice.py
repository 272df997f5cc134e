"""``--model`` / ``--judge-model``: which provider a choice names, and the suites it makes."""

from __future__ import annotations

import dataclasses
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.suite.model import Judge, ModelParams
from gate.suite.model_choice import ModelChoice, ModelChoiceError, with_models
from tests.builders import case, suite


@pytest.mark.parametrize(
    ("text", "name", "provider"),
    [
        ("gpt-4.1-mini", "gpt-4.1-mini", None),
        ("anthropic:claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic"),
        ("openai:gpt-4o", "gpt-4o", "openai"),
        ("llama3.1:8b", "llama3.1:8b", None),  # an Ollama tag is part of the name
        ("openai/gpt-4o", "openai/gpt-4o", None),  # a served name (vLLM, LiteLLM) stays a name
        ("anthropic:claude:beta", "claude:beta", "anthropic"),
    ],
)
def test_a_provider_prefix_is_one_of_the_providers(text, name, provider):
    assert ModelChoice.parse(text) == ModelChoice(text, name, provider)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "the model name is empty"),
        ("anthropic:", "'anthropic:' names a provider and no model"),  # ran a model named 'anthropic:'
        ("openai:", "'openai:' names a provider and no model"),
        ("gpt-4o\n", "control character ('\\n')"),
        ("gpt-4o\x00", "control character ('\\x00')"),
        ("gpt\u202e4o", "control character ('\\u202e')"),
        ("openai: gpt-4o", "white space around it"),
        (" gpt-4o", "white space around it"),
        ("x" * 300, "300 characters long"),
    ],
)
def test_a_choice_that_names_no_model_is_refused(text, problem):
    with pytest.raises(ModelChoiceError, match=re.escape(problem)):
        ModelChoice.parse(text)


@settings(max_examples=300)
@given(
    text=st.text(max_size=30)
    | st.builds(lambda p, t: p + t, st.sampled_from(["openai:", "anthropic:"]), st.text(max_size=10))
)
def test_every_choice_names_a_model_a_provider_could_serve_or_is_refused(text):
    """Whatever the text: a choice whose name is a plain name, or a ModelChoiceError (a newline or
    NUL never reaches a request, an empty name is never "no choice")."""
    try:
        choice = ModelChoice.parse(text)
    except ModelChoiceError:
        return
    assert choice.name and choice.name == choice.name.strip() and len(choice.name) <= 256
    assert all(unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Cs") for c in choice.name)
    assert text in (choice.name, f"{choice.provider}:{choice.name}")


def test_the_agent_and_judge_models_are_replaced_and_nothing_else():
    base = suite(case(), judge=Judge("openai", "gpt-4o-mini", reasoning_effort="low"))
    base = dataclasses.replace(base, agent=dataclasses.replace(base.agent, api="responses"))
    [chosen], problems = with_models([base], ModelChoice.parse("gpt-4.1"), ModelChoice.parse("o4-mini"))
    assert problems == []
    assert (chosen.agent.provider, chosen.agent.model, chosen.agent.api) == ("openai", "gpt-4.1", "responses")
    assert chosen.agent.tools == base.agent.tools and chosen.agent.params == base.agent.params
    assert (chosen.judge.model, chosen.judge.reasoning_effort) == ("o4-mini", "low")
    assert chosen.cases == base.cases


def test_switching_provider_refuses_the_parameters_the_new_one_has_no_place_for():
    base = suite(case(), judge=None)
    base = dataclasses.replace(
        base,
        agent=dataclasses.replace(base.agent, api="responses", params=ModelParams(reasoning_effort="low")),
    )
    [chosen], problems = with_models([base], ModelChoice.parse("anthropic:claude-sonnet-4-5"), None)
    assert (chosen.agent.provider, chosen.agent.api, chosen.judge) == ("anthropic", "chat", None)
    assert problems == [
        f"--model anthropic:claude-sonnet-4-5: suite {base.name} ({base.path}): "
        "agent.params.reasoning_effort: reasoning_effort is an OpenAI parameter; "
        "Anthropic has no such setting"
    ]
    _, judged = with_models([base], None, ModelChoice.parse("anthropic:claude-haiku-4-5"))
    assert judged == []  # a suite without a judge has nothing to replace


def test_an_agent_program_keeps_its_own_model_and_its_judge_is_switched():
    from gate.suite.model import Command

    base = suite(case(), judge=Judge("openai", "gpt-4o-mini"))
    command = Command(("python", "agent.py"), "agent program")
    program = dataclasses.replace(
        base, agent=dataclasses.replace(base.agent, provider="", model="", program=command)
    )
    [chosen], problems = with_models(
        [program], ModelChoice.parse("anthropic:claude-x"), ModelChoice.parse("gpt-x")
    )
    assert chosen.agent == program.agent and problems == []
    assert chosen.judge is not None and chosen.judge.model == "gpt-x"
