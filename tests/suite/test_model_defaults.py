"""Each default of the suite language is written once (gate.suite.model) and shown in the JSON Schema.

The schema is JSON and cannot import the model, so this test holds the two together: every default the
schema shows equals the model's, and a suite that leaves the keys out loads with exactly those values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.files.suite_loader import load_suites
from gate.suite.model import (
    DEFAULT_PROGRAM_TIMEOUT_S,
    DEFAULT_THRESHOLD,
    DEFAULT_WEIGHTS,
    CallExpectation,
    Command,
    Defaults,
    ExpectedCall,
    Judge,
    OutputChecks,
    PathAssertion,
    Ranking,
    Scoring,
    SimulatedUser,
    ToolServer,
)

ROOT = Path(__file__).resolve().parents[2]

MODEL_DEFAULTS: dict[tuple[str, ...], Any] = {
    ("properties", "threshold"): DEFAULT_THRESHOLD,
    ("$defs", "agent", "properties", "api"): "chat",
    ("$defs", "agent", "properties", "timeout_s"): DEFAULT_PROGRAM_TIMEOUT_S,
    ("$defs", "agent", "properties", "reuse"): Command.reuse,
    ("$defs", "judge", "properties", "api"): Judge.api,
    ("$defs", "judge", "properties", "max_tokens"): Judge.max_tokens,
    ("$defs", "userSimulator", "properties", "api"): Judge.api,
    ("$defs", "case", "properties", "user", "properties", "max_turns"): SimulatedUser.max_turns,
    ("$defs", "expectedCall", "properties", "allow_extra_args"): ExpectedCall.allow_extra_args,
    ("$defs", "callExpectation", "properties", "order"): CallExpectation.order,
    ("$defs", "callExpectation", "properties", "extra_calls"): CallExpectation.extra_calls,
    ("$defs", "callExpectation", "properties", "no_calls"): CallExpectation.no_calls,
    ("$defs", "expect", "properties", "order"): CallExpectation.order,
    ("$defs", "expect", "properties", "extra_calls"): CallExpectation.extra_calls,
    ("$defs", "expect", "properties", "no_calls"): CallExpectation.no_calls,
    ("$defs", "ranking", "properties", "threshold"): Ranking.threshold,
    ("$defs", "output", "properties", "ignore_case"): OutputChecks.ignore_case,
    ("$defs", "pathAssertion", "properties", "aggregate"): PathAssertion.aggregate,
    ("$defs", "pathAssertion", "properties", "threshold"): PathAssertion.threshold,
    ("$defs", "scoring", "properties", "mode"): Scoring.mode,
    ("$defs", "scoring", "properties", "pass_score"): Scoring.pass_score,
    ("$defs", "scoring", "properties", "weights"): DEFAULT_WEIGHTS,
    ("$defs", "defaults", "properties", "trials"): Defaults.trials,
    ("$defs", "defaults", "properties", "reducer"): Defaults.reducer,
    ("$defs", "defaults", "properties", "at_least"): Defaults.at_least,
    ("$defs", "defaults", "properties", "mean_pass_score"): Defaults.mean_pass_score,
    ("$defs", "defaults", "properties", "max_tool_calls"): Defaults.max_tool_calls,
    ("$defs", "defaults", "properties", "max_turns"): Defaults.max_turns,
    ("$defs", "mcpServer", "properties", "calls"): ToolServer.calls,
    ("$defs", "mcpServer", "properties", "timeout_s"): ToolServer.timeout_s,
}


def _schema() -> dict[str, Any]:
    return json.loads((ROOT / "schemas" / "suite.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("pointer", list(MODEL_DEFAULTS), ids="/".join)
def test_schema_shows_the_model_default(pointer: tuple[str, ...]) -> None:
    node: Any = _schema()
    for key in pointer:
        node = node[key]
    assert node["default"] == MODEL_DEFAULTS[pointer]


def test_every_default_in_the_schema_is_checked_here() -> None:
    found: list[tuple[str, ...]] = []

    def walk(node: Any, at: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            if "default" in node:
                found.append(at)
            for key, value in node.items():
                walk(value, (*at, key))

    walk(_schema(), ())
    assert sorted(found) == sorted(MODEL_DEFAULTS)


SUITE = """\
version: 1
name: defaults
agent: {provider: openai, model: gpt-4o-mini, tools: [{name: t, description: d, parameters: {type: object}}]}
judge: {provider: openai, model: gpt-4o-mini}
cases:
  - id: c
    input: hi
    expect:
      calls: [{tool: t, args: {}}]
      output: {ranking: {reference: r, wrong: w, irrelevant: i}}
      assert: [{path: output, exists: true}]
"""


def test_a_suite_that_leaves_the_keys_out_gets_the_schema_defaults(tmp_path: Path) -> None:
    (tmp_path / "s.suite.yaml").write_text(SUITE, encoding="utf-8")
    result = load_suites([tmp_path], root=tmp_path)
    assert result.problems == ()
    (suite,) = result.suites
    case = suite.cases[0]
    schema = _schema()
    defs = schema["$defs"]
    assert suite.threshold == schema["properties"]["threshold"]["default"]
    assert (
        suite.judge is not None
        and suite.judge.max_tokens == defs["judge"]["properties"]["max_tokens"]["default"]
    )
    calls = case.expect.calls
    assert calls.order == defs["expect"]["properties"]["order"]["default"]
    assert calls.extra_calls == defs["expect"]["properties"]["extra_calls"]["default"]
    assert (
        calls.calls[0].allow_extra_args is defs["expectedCall"]["properties"]["allow_extra_args"]["default"]
    )
    assert case.expect.output.ranking is not None
    assert case.expect.output.ranking.threshold == defs["ranking"]["properties"]["threshold"]["default"]
    assert case.expect.output.ignore_case is defs["output"]["properties"]["ignore_case"]["default"]
    assertion = case.expect.asserts[0]
    assert assertion.aggregate == defs["pathAssertion"]["properties"]["aggregate"]["default"]
    assert assertion.threshold == defs["pathAssertion"]["properties"]["threshold"]["default"]
    shown = {
        key: defs["defaults"]["properties"][key]["default"] for key in ("trials", "reducer", "max_turns")
    }
    assert {"trials": case.trials, "reducer": case.reducer, "max_turns": case.max_turns} == shown
    assert case.max_tool_calls == defs["defaults"]["properties"]["max_tool_calls"]["default"]
    assert case.scoring.mode == defs["scoring"]["properties"]["mode"]["default"]
    assert case.scoring.weights == defs["scoring"]["properties"]["weights"]["default"]
