"""``validate`` refuses what validates against the schema but can never work, each at its
``file:line:column``, before any model call (DESIGN.md section 9): contradictions between
expectations, budgets and reducers, agent parameters that replace what the gate reports on, a
simulated user's goal, path assertions naming keys no run record has. Through the loader, as
``validate`` reads a suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.results.run_record import PATH_ROOT_SHAPE, RunRecord

SUITE = """\
version: 1
name: weather
agent:
  provider: openai
  model: gpt-4o-mini
  params: {temperature: 0, extra_body: {top_k: 20, prompt_cache_key: w}}
  system_prompt: You answer weather questions.
  tools:
    - name: get_weather
      description: Current weather for a city.
      parameters:
        type: object
        properties:
          city: {type: string}
          days: {type: integer}
          units: {type: string, enum: [metric, imperial]}
        required: [city]
user_simulator: {provider: openai, model: gpt-4o-mini}
vars: {city: Paris}
mocks:
  tools:
    get_weather:
      - when: {units: metric}
        returns: {temp_c: 18}
defaults:
  trials: 3
cases:
  - id: paris
    input: Weather in {{ city }}?
    user: {goal: "Learn the weather in {{ city }}", persona: "Lives in {{ city }}"}
    expect:
      calls:
        - tool: get_weather
          args: {city: Paris}
      max_calls: 2
      assert:
        - path: calls[*].args.city
          equals: Paris
"""


def _problems(tmp_path: Path, text: str):
    (tmp_path / "weather.suite.yaml").write_text(text, encoding="utf-8")
    return list(load_suites([tmp_path], root=tmp_path).problems)


def test_the_suite_is_valid_and_the_simulated_users_goal_is_templated(tmp_path):
    (tmp_path / "weather.suite.yaml").write_text(SUITE, encoding="utf-8")
    loaded = load_suites([tmp_path], root=tmp_path)
    assert list(loaded.problems) == []
    user = loaded.suites[0].cases[0].user
    assert user is not None and user.goal == "Learn the weather in Paris" and user.persona == "Lives in Paris"


CANNOT_WORK = [
    # contradictions
    (
        "      max_calls: 2",
        "      forbidden_tools: [get_weather]",
        "tool 'get_weather' is both expected (calls[0])",
    ),
    ("      max_calls: 2", "      max_calls: 0", "max_calls is 0, but the expected calls need at least 1"),
    (
        "  trials: 3",
        "  trials: 3\n  reducer: at_least",
        "reducer at_least needs at_least: how many trials must pass",
    ),
    # agent parameters
    ("extra_body: {top_k: 20", "extra_body: {model: gpt-4o", "extra_body may not set 'model'"),
    ("extra_body: {top_k: 20", "extra_body: {messages: []", "it would replace the messages"),
    ("extra_body: {top_k: 20", "extra_body: {tools: []", "it would replace the tools"),
    ("extra_body: {top_k: 20", "extra_body: {system: x", "it would replace the system prompt"),
    ("extra_body: {top_k: 20", "extra_body: {stream: true", "it would replace streaming"),
    ("extra_body: {top_k: 20", "extra_body: {tool_choice: auto", "it would replace the tool choice"),
    ("extra_body: {top_k: 20", "extra_body: {temperature: 1", "it is a parameter the gate models"),
    ("extra_body: {top_k: 20", "extra_body: {api_key: sk-x", "credentials, headers and URLs never come"),
    ("extra_body: {top_k: 20", "extra_body: {Authorization: Bearer x", "credentials, headers and URLs"),
    ("extra_body: {top_k: 20", "extra_body: {base_url: 'http://x'", "credentials, headers and URLs"),
    ("extra_body: {top_k: 20", "extra_body: {extra_headers: {}", "credentials, headers and URLs"),
    # a simulated user
    ('goal: "Learn the weather in {{ city }}"', 'goal: "Learn the weather in {{ town }}"', "{{ town }}"),
    (
        'goal: "Learn the weather in {{ city }}"',
        'goal: "  "',
        "the simulated user's goal is only white space",
    ),
    # a mock condition outside the enum
    ("when: {units: metric}", "when: {units: kelvin}", 'the expected value "kelvin" can never match'),
    # path assertions naming keys the run record never has
    ("path: calls[*].args.city", "path: calls[*].arguments.city", "has no key 'arguments'"),
    ("path: calls[*].args.city", "path: usage.total_tokens", "has no key 'total_tokens'"),
    ("path: calls[*].args.city", "path: output.text", "output is a single value"),
    # a regex flag mid-pattern
    ("          equals: Paris", "          matches: 'paris(?i)'", "global flags not at the start"),
    # matchers the tool's schema makes impossible
    ("args: {city: Paris}", "args: {city: [Paris]}", 'the list ["Paris"] can never match'),
    ("args: {city: Paris}", "args: {city: {name: Paris}}", "can never match: it matches only an object"),
    ("args: {city: Paris}", "args: {city: Paris, days: {regex: '^3'}}", "it matches only a string"),
    ("args: {city: Paris}", "args: {city: Paris, days: {optional: {equals: '3'}}}", 'value "3" can never'),
    ("args: {city: Paris}", "args: {city: {all_of: [{absent: true}, Paris]}}", "a value and for its absence"),
    # model names no provider serves: they were sent as written
    (
        "openai\n  model: gpt-4o-mini",
        'openai\n  model: "gpt-4o-mini\\n"',
        "model name holds a control character",
    ),
    ("openai\n  model: gpt-4o-mini", 'openai\n  model: " gpt-4o-mini"', "has white space around it"),
    (
        "user_simulator: {provider: openai, model: gpt-4o-mini}",
        'user_simulator: {provider: openai, model: "gpt\\u202e4o"}',
        "model name holds a control character",
    ),
]


@pytest.mark.parametrize(("replace", "by", "message"), CANNOT_WORK)
def test_what_can_never_work_is_refused_at_its_line(tmp_path, replace, by, message):
    assert replace in SUITE
    text = SUITE.replace(replace, by, 1)
    problems = _problems(tmp_path, text)
    assert len(problems) == 1, problems
    assert message in problems[0].message, problems[0].message
    assert problems[0].line == text[: text.index(by) + len(by)].count("\n") + 1  # the last line written


def test_expected_calls_the_agent_may_never_make_are_refused_at_the_case(tmp_path):
    text = SUITE.replace("  trials: 3", "  trials: 3\n  max_tool_calls: 1")
    text = text.replace(
        "          args: {city: Paris}\n", "          args: {city: Paris}\n          times: 2\n"
    )
    text = text.replace("max_calls: 2", "max_calls: 3")
    [problem] = _problems(tmp_path, text)
    assert problem.line == 27  # defaults.max_tool_calls
    assert "the case expects at least 2 tool calls, but the agent may make only 1" in problem.message
    text = SUITE.replace("temperature: 0,", "temperature: 0, tool_choice: none,")
    [problem] = _problems(tmp_path, text)
    assert problem.message.startswith("cases[0].expect: the case expects at least 1 tool calls")
    assert "tool_choice is none" in problem.message and problem.line == 32


def test_tool_choice_required_without_tools_is_refused(tmp_path):
    start, end = SUITE.index("  tools:\n"), SUITE.index("user_simulator:")
    text = SUITE[:start] + SUITE[end:]
    text = text.replace("temperature: 0,", "temperature: 0, tool_choice: required,")
    text = text[: text.index("mocks:")] + text[text.index("defaults:") :]
    text = text.replace("      calls:\n        - tool: get_weather\n          args: {city: Paris}\n", "")
    text = text.replace("      max_calls: 2\n", "")
    problems = _problems(tmp_path, text)
    assert [p.message for p in problems] == [
        "agent.params.tool_choice: tool_choice: required needs tools, but the agent has none"
    ]


def test_the_path_shape_is_the_run_records():
    """validate's picture of the run record is the record's own (its keys, and those of a call)."""
    record = RunRecord(input="hi", messages=(), calls=(), output="", turns=0, latency_ms=0.0)
    root = record.as_path_root()
    assert set(root) == set(PATH_ROOT_SHAPE)
    assert set(root["usage"]) == set(PATH_ROOT_SHAPE["usage"])
