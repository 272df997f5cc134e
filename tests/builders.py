"""Small builders for suite-model objects and run records, so tests construct them directly.

Every builder takes keyword overrides for the fields a test cares about and fills the rest with
plain defaults (a weather agent with ``get_weather``, ``get_forecast`` and ``search``).
"""

from __future__ import annotations

import json
from typing import Any

from gate.results.messages import AssistantMessage, Message, UserMessage
from gate.results.run_record import RecordedCall, RunRecord, Usage
from gate.suite.matcher_tree import parse_matcher, parse_matchers
from gate.suite.model import (
    Agent,
    CallExpectation,
    Case,
    Defaults,
    Expectation,
    ExpectedCall,
    Judge,
    Mocks,
    ModelParams,
    OutputChecks,
    PathAssertion,
    Prompt,
    Scoring,
    Source,
    Suite,
    Times,
    ToolDef,
)


def tool(
    name: str, properties: dict[str, Any] | None = None, required: tuple[str, ...] = (), description: str = ""
) -> ToolDef:
    properties = properties if properties is not None else {}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return ToolDef(
        name=name,
        description=description or f"The {name} tool.",
        parameters=schema,
        source=Source("tools.json", 1, 1),
    )


DEFAULT_JUDGE = Judge("openai", "judge-model")

WEATHER_TOOLS = (
    tool(
        "get_weather",
        {"city": {"type": "string"}, "units": {"type": "string", "enum": ["metric", "imperial"]}},
        required=("city",),
    ),
    tool(
        "get_forecast",
        {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 7}},
        ("city",),
    ),
    tool("search", {"query": {"type": "string"}}, ("query",)),
)


# ``get_weather`` in the OpenAI function format, as end-to-end tests write it to tools/weather.json.
WEATHER_FUNCTION: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def ecall(
    tool_name: str,
    args: dict[str, Any] | None = None,
    times: tuple[int, int | None] = (1, 1),
    allow_extra_args: bool | None = None,
) -> ExpectedCall:
    """An expected call; without ``args`` any arguments are allowed, as when a suite leaves them out."""
    extra = args is None if allow_extra_args is None else allow_extra_args
    return ExpectedCall(
        tool=tool_name, args=parse_matchers(args or {}), times=Times(*times), allow_extra_args=extra
    )


def path_assertion(path: str, check: dict[str, Any], **kw: Any) -> PathAssertion:
    """A path assertion as a suite writes it: ``path_assertion("output", {"match": {"regex": "x"}})``."""
    ((name, operand),) = check.items()
    if name == "match":
        return PathAssertion(path, name, matcher=parse_matcher(operand), **kw)
    return PathAssertion(path, name, operand, **kw)


def calls_expectation(*calls: ExpectedCall, **kw: Any) -> CallExpectation:
    return CallExpectation(calls=tuple(calls), **kw)


def expectation(
    *calls: ExpectedCall,
    output: OutputChecks | None = None,
    alternatives: tuple[CallExpectation, ...] = (),
    latency_ms: int | None = None,
    asserts: tuple = (),
    **call_kw: Any,
) -> Expectation:
    return Expectation(
        calls=CallExpectation(calls=tuple(calls), **call_kw),
        alternatives=alternatives,
        output=output or OutputChecks(),
        latency_ms=latency_ms,
        asserts=tuple(asserts),
    )


def case(
    id: str = "c1",
    input: str = "What's the weather in Paris?",
    expect: Expectation | None = None,
    conversation: tuple[Message, ...] | None = None,
    vars: dict[str, str] | None = None,
    **overrides: Any,
) -> Case:
    fields: dict[str, Any] = dict(
        id=id,
        conversation=conversation if conversation is not None else (UserMessage(input),),
        vars=dict(vars or {}),
        tags=(),
        expect=expect or Expectation(),
        trials=1,
        reducer="all",
        at_least=1,
        mean_pass_score=0.5,
        max_tool_calls=16,
        max_turns=8,
        scoring=Scoring(),
        mocks=Mocks(),
        source=Source("suites/weather.yaml", 10, 5),
    )
    fields.update(overrides)
    return Case(**fields)


def suite(
    *cases: Case,
    name: str = "weather",
    tools: tuple[ToolDef, ...] = WEATHER_TOOLS,
    system: str | None = "You are a weather assistant.",
    judge: Judge | None = DEFAULT_JUDGE,
    mocks: Mocks | None = None,
    defaults: Defaults | None = None,
) -> Suite:
    return Suite(
        name=name,
        path="suites/weather.yaml",
        description="",
        tags=(),
        agent=Agent(
            provider="openai",
            model="test-model",
            params=ModelParams(temperature=0),
            system_prompt=Prompt(system, Source("suites/weather.yaml", 3, 1)) if system is not None else None,
            tools=tools,
        ),
        judge=judge,
        mocks=mocks or Mocks(),
        defaults=defaults or Defaults(),
        threshold=0.9,
        cases=cases,
    )


def call(
    name: str, args: dict[str, Any] | None = None, *, raw: str | None = None, turn: int = 1, id: str = ""
) -> RecordedCall:
    """A recorded call; ``raw`` alone (unparseable text) gives ``arguments=None``."""
    if raw is not None and args is None:
        return RecordedCall(
            id=id or f"call_{name}",
            name=name,
            raw_arguments=raw,
            arguments=None,
            arguments_error="invalid JSON",
            turn=turn,
        )
    args = dict(args or {})
    return RecordedCall(
        id=id or f"call_{name}",
        name=name,
        raw_arguments=json.dumps(args),
        arguments=args,
        arguments_error=None,
        turn=turn,
    )


def record(
    *calls: RecordedCall,
    output: str = "It is 18 °C and cloudy in Paris.",
    latency_ms: float = 120.0,
    error: str | None = None,
    input: str = "What's the weather in Paris?",
    **overrides: Any,
) -> RunRecord:
    messages = (UserMessage(input), AssistantMessage(output))
    fields: dict[str, Any] = dict(
        input=input,
        messages=messages,
        calls=calls,
        output=output,
        turns=1 + bool(calls),
        latency_ms=latency_ms,
        usage=Usage(100, 20),
        cost_usd=0.001,
        error=error,
        stop_reason="provider_error" if error else "final_answer",
        model="test-model",
    )
    fields.update(overrides)
    return RunRecord(**fields)
