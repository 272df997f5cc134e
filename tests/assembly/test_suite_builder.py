"""The builder is pure: a parsed document and the referenced files, injected, give a Suite or problems."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from gate.assembly.suite_builder import ToolFile, build_suite, written_tool_name
from gate.errors import Problem
from gate.files.suite_schema import schema_findings
from gate.files.yaml_source import YamlDocument, parse
from gate.suite.model import Prompt, Source, ToolDef

SUITE = """\
version: 1
name: s
agent:
  provider: openai
  model: gpt-4o-mini
  system_prompt: {file: prompt.md}
  tools: [{file: tools.json}]
cases:
  - id: a
    input: hi
    expect:
      calls: [{tool: lookup}]
"""


@dataclass
class InMemoryFiles:
    """The referenced files as values (what gate.files.file_references reads from the repository)."""

    tools: ToolFile
    prompt: str = "Be brief."
    dependencies: list[str] = field(default_factory=list)

    def tool_file(self, ref: str, at: tuple) -> ToolFile:
        self.dependencies.append(ref)
        return self.tools

    def prompt_file(self, ref: str, at: tuple) -> tuple[Prompt | None, list[Problem]]:
        self.dependencies.append(ref)
        return Prompt(self.prompt, Source(ref, 1, 1), from_file=True), []

    def mock_file(self, ref: str, at: tuple) -> tuple[YamlDocument | None, list[Problem]]:
        return None, []


def _tool(name: str) -> ToolDef:
    return ToolDef(
        name=name, description="d", parameters={"type": "object"}, source=Source("tools.json", 1, 1)
    )


def test_a_valid_document_builds_its_suite_from_the_injected_files():
    doc = parse(SUITE, "s.suite.yaml")
    files = InMemoryFiles(ToolFile((_tool("lookup"),), (), frozenset({"lookup"})))
    suite, problems = build_suite(doc, files)
    assert problems == []
    assert suite.agent.system_prompt.template == "Be brief." and [t.name for t in suite.agent.tools] == [
        "lookup"
    ]
    assert suite.dependencies == ("prompt.md", "tools.json")


def test_a_broken_tool_file_still_names_its_tools():
    doc = parse(SUITE.replace("tool: lookup", "tool: lokup"), "s.suite.yaml")
    broken = Problem("tools.json", 3, 1, "the parameters of tool 'lookup' are not a valid JSON Schema")
    suite, problems = build_suite(doc, InMemoryFiles(ToolFile((), (broken,), frozenset({"lookup"}))))
    assert [p.render() for p in problems] == [
        broken.render(),
        "s.suite.yaml:12:22: cases[0].expect.calls[0].tool: unknown tool 'lokup' "
        "(fix: did you mean 'lookup'?)",
    ]
    # a file whose tool names cannot be read makes no tool unknown
    _, problems = build_suite(doc, InMemoryFiles(ToolFile((), (broken,), None)))
    assert problems == [broken]


def test_a_schema_invalid_document_is_checked_without_its_damaged_parts():
    doc = parse(
        SUITE.replace("input: hi", "input: hi\n    trials: 0").replace("lookup", "lokup"), "s.suite.yaml"
    )
    schema_problems, damage = schema_findings(doc, doc.data)
    assert [p.message for p in schema_problems] == ["cases[0].trials: must be at least 1, got 0"]
    files = InMemoryFiles(ToolFile((_tool("lookup"),), (), frozenset({"lookup"})))
    _, problems = build_suite(doc, files, damage)
    assert [p.message for p in problems] == ["cases[0].expect.calls[0].tool: unknown tool 'lokup'"]


def test_the_written_name_of_a_tool_in_each_format():
    assert written_tool_name({"type": "function", "function": {"name": "a"}}) == "a"
    assert written_tool_name({"name": "b", "input_schema": {}}) == "b"
    assert written_tool_name({"name": "not valid!"}) is None
    assert written_tool_name({"function": "x"}) is None and written_tool_name("x") is None


def test_an_unknown_tool_gets_the_same_fix_in_mocks_as_in_expectations():
    for tools, hint in [
        ((_tool("lookup"),), "did you mean 'lookup'?"),
        ((_tool("define"),), "defined tools: define"),
        ((), "the agent defines no tools"),
    ]:
        text = SUITE.replace("cases:", "mocks: {tools: {lokup: [{returns: 1}]}}\ncases:").replace(
            "tool: lookup", "tool: lokup"
        )
        doc = parse(text, "s.suite.yaml")
        files = InMemoryFiles(ToolFile(tools, (), frozenset(t.name for t in tools)))
        _, problems = build_suite(doc, files)
        assert [(p.message, p.hint) for p in problems] == [
            ("mocks.tools.lokup: mocks for unknown tool 'lokup'", hint),
            ("cases[0].expect.calls[0].tool: unknown tool 'lokup'", hint),
        ]


def test_a_tool_defined_twice_across_an_agents_tools_says_where_each_is():
    twice = SUITE.replace(
        "  tools: [{file: tools.json}]",
        "  tools:\n    - {file: tools.json}\n    - {name: lookup, parameters: {type: object}}\n"
        "    - {file: more.json}",
    )

    class TwoFiles(InMemoryFiles):
        def tool_file(self, ref: str, at: tuple) -> ToolFile:
            tool = dataclasses.replace(_tool("lookup"), source=Source(ref, 4, 3))
            return ToolFile((tool,), (), frozenset({"lookup"}))

    _, problems = build_suite(parse(twice, "s.suite.yaml"), TwoFiles(ToolFile((), (), None)))
    hint = "tool names must be unique; rename or remove one"
    assert [(p.line, p.message, p.hint) for p in problems] == [
        (9, "agent.tools[1]: duplicate tool name 'lookup' (first defined at tools.json:4)", hint),
        (
            10,
            "agent.tools[2]: duplicate tool name 'lookup' at more.json:4 (first defined at tools.json:4)",
            hint,
        ),
    ]
