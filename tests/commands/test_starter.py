"""The starter files ``init`` writes: the suite made from any tool definition reads back as written,
and the workflow is the shipped example's."""

from __future__ import annotations

import json

from gate.commands.starter import Starter, program_workflow, starter_suite, workflow
from gate.files.yaml_source import parse
from gate.suite.model import Source, ToolDef
from tests.conftest import ROOT


def test_the_workflow_for_main_and_an_openai_key_is_the_shipped_example():
    example = (ROOT / "examples" / "workflows" / "tool-eval-gate.yml").read_text(encoding="utf-8")
    assert workflow("main", ["openai"]) == example, (
        "init writes this workflow: change gate/commands/starter.py's WORKFLOW with the example"
    )


def test_the_workflow_of_suites_that_start_commands_is_the_shipped_agent_program_example():
    example = (ROOT / "examples" / "workflows" / "tool-eval-gate-agent-program.yml").read_text(
        encoding="utf-8"
    )
    written = program_workflow("main", ["agents/concierge/requirements.txt"], ["agents/orders"])
    assert written == example, (
        "init --agent-command writes this workflow: change starter.py's PROGRAM_WORKFLOW with the example"
    )
    plain = program_workflow("trunk", [], [])
    assert "branches: [trunk]" in plain and "setup-node" not in plain and "npm ci" not in plain
    assert (
        "pip install 'tool-eval-gate[all] @ git+https://github.com/tool-eval-gate/tool-eval-gate'\n" in plain
    )


def test_the_workflow_names_the_default_branch_and_each_provider_s_key_once():
    text = workflow("trunk", ["anthropic", "openai", "anthropic"])
    assert "branches: [trunk]" in text
    assert text.count("anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}") == 1
    assert text.count("openai_api_key: ${{ secrets.OPENAI_API_KEY }}") == 1


def test_whatever_a_definition_holds_the_suite_reads_back_as_written():
    hostile = ToolDef(
        name="true",  # a name YAML would read as a boolean
        description='Says: "no" # not a comment\nsecond line\u2028third\x07',
        parameters={
            "type": "object",
            "properties": {
                "null": {"type": "string", "enum": ["a: b", "#c", None]},
                "on": {"type": ["integer", "string"], "description": "x" * 300},
            },
            "required": ["null", "on", 5],
        },
        source=Source("t.json", 1, 1),
    )
    text = starter_suite(Starter("s", "openai", "gpt-4o-mini", (hostile,), "../tools: a.json"))
    data = parse(text, "s.suite.yaml").data
    assert data["agent"]["tools"] == [{"file": "../tools: a.json"}]
    case, no_call = data["cases"]
    assert case["id"] == "calls-true" and case["expect"]["calls"][0]["tool"] == "true"
    assert case["expect"]["calls"][0]["args"] == {
        "null": {"one_of": ["a: b", "#c"]},  # None is in the enum, but its type refuses it
        "on": {"anything": True},
    }
    assert no_call["expect"] == {"no_calls": True}
    assert all(len(line) < 200 for line in text.splitlines())  # long descriptions are cut in comments
    assert json.loads(json.dumps(data))  # plain JSON-like data
