"""Loading suites: discovery, schema and semantic problems with exact positions, the built model."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gate.files import file_references
from gate.files.suite_loader import load_suites

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
VALID = CORPUS / "valid"
INVALID = CORPUS / "invalid"
INVALID_SUITES = sorted(INVALID.glob("*.suite.yaml"))


def test_valid_corpus_loads_without_problems():
    result = load_suites([VALID], root=VALID)
    assert result.problems == ()
    assert sorted(s.name for s in result.suites) == ["file-refs", "inline-formats", "minimal"]
    assert set(result.checked_files) >= {
        "file-refs.suite.yml",
        "prompts/dict.md",
        "tools/shared.json",
        "mocks.yml",
    }


def test_invalid_corpus_covers_every_kind_of_mistake():
    names = {p.name.removesuffix(".suite.yaml") for p in INVALID_SUITES}
    assert {
        "yaml-syntax",
        "unknown-keys",
        "wrong-types",
        "duplicate-ids",
        "unknown-tools",
        "missing-vars",
        "file-refs",
        "invalid-tools",
        "judged-without-judge",
        "empty",
        "binary",
        "latin1",
        "alias-bomb",
        "duplicate-keys",
        "checks",
        "checks-schema",
        "not-a-mapping",
        "mock-file",
        "mock-file-semantic",
    } <= names


@pytest.mark.parametrize("suite", INVALID_SUITES, ids=lambda p: p.name)
def test_invalid_suite_gives_exactly_the_expected_problems(suite):
    expected = suite.with_name(suite.name.removesuffix(".suite.yaml") + ".expected").read_text(
        encoding="utf-8"
    )
    result = load_suites([suite], root=INVALID)
    assert result.suites == ()
    assert [p.render() for p in result.problems] == expected.splitlines()


def test_all_invalid_files_in_one_run_report_every_problem():
    result = load_suites([INVALID], root=INVALID)
    expected = set()
    for suite in INVALID_SUITES:
        expected.update(
            suite.with_name(suite.name.removesuffix(".suite.yaml") + ".expected").read_text().splitlines()
        )
    assert {p.render() for p in result.problems} == expected
    assert [p.path for p in result.problems] == sorted(p.path for p in result.problems)


def test_examples_validate_and_are_realistic():
    result = load_suites([ROOT / "examples"], root=ROOT)
    assert result.problems == ()
    by_name = {s.name: s for s in result.suites}
    weather, banking = by_name["weather-agent"], by_name["banking-support"]
    assert len(weather.cases) >= 10 and len(banking.cases) >= 10
    assert weather.judge is not None and banking.judge is not None
    assert {t.name for t in weather.agent.tools} == {"get_weather", "get_forecast"}
    assert banking.agent.provider == "anthropic" and len(banking.agent.tools) >= 6
    assert set(weather.dependencies) == {
        "examples/weather/prompts/weather.md",
        "examples/weather/tools/weather.json",
        "examples/weather/mocks/weather.yaml",
    }
    assert weather.path == "examples/weather/weather.suite.yaml"
    forecast = weather.tool("get_forecast")
    assert (
        forecast.source.path == "examples/weather/tools/weather.json" and forecast.parameter_lines["days"] > 0
    )


def _copy_valid(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(VALID, repo / "suites")
    (repo / ".git").mkdir()
    return repo


def test_built_cases_fold_defaults_overrides_vars_and_mocks(tmp_path):
    repo = _copy_valid(tmp_path)
    result = load_suites([repo / "suites" / "inline-formats.suite.yaml"], root=repo)
    (suite,) = result.suites
    assert suite.path == "suites/inline-formats.suite.yaml" and suite.threshold == 0.75
    first, second, skipped, alternatives = suite.cases
    # suite defaults folded in; case overrides win
    assert (first.trials, first.reducer, first.at_least) == (3, "at_least", 2)
    assert (second.trials, second.reducer) == (1, "all")
    assert first.scoring.mode == "weighted" and first.scoring.weights["precision"] == 0.5
    assert first.max_tool_calls == 16  # built-in default
    # vars: case over suite; conversation kept, input turned into one user message
    assert second.vars == {"user": "Ana", "topic": "docs", "page": "install"}
    assert [m.role for m in second.conversation] == ["user", "assistant", "user"]
    assert [(m.role, m.content) for m in first.conversation] == [("user", "Find install docs")]
    # case mocks are tried before the suite's, other tools keep the suite's rules
    assert second.mocks.tools["open_page"][0].returns == {"html": "<h1>Install</h1>"}
    assert second.mocks.tools["search_docs"] == suite.mocks.tools["search_docs"]
    assert second.mocks.unmocked.returns == {"status": "ok"}
    assert skipped.skip == "flaky upstream"
    # expectations
    call = first.expect.calls.calls[0]
    assert (call.tool, call.times.min, call.times.max, call.allow_extra_args) == ("search_docs", 1, 2, True)
    assert call.source.line == 59 and first.source.line == 54
    assert first.expect.calls.order == "in_order" and first.expect.calls.extra_calls == "forbid"  # merge key
    assert first.expect.asserts[0].written == {"match": {"regex": "install"}}
    assert first.expect.asserts[0].aggregate == "mean" and first.expect.asserts[0].threshold == 0.5
    assert second.expect.output.choice.correct == "Yes" and second.expect.output.ranking.threshold == 0.75
    assert (
        len(alternatives.expect.alternatives) == 2 and alternatives.expect.alternatives[1].order == "strict"
    )
    assert alternatives.expect.latency_ms == 20000
    assert alternatives.expect.output.criteria == ("Is short.", "Mentions the page.")
    assert suite.agent.system_prompt.template == "You help {{ user }} with {{ topic }}."
    assert suite.agent.system_prompt.from_file is False


def test_symlink_escaping_the_repository_is_refused(tmp_path):
    repo = _copy_valid(tmp_path)
    secret = tmp_path / "secret.md"
    secret.write_text("top secret {{ audience }}\n")
    prompt = repo / "suites" / "prompts" / "dict.md"
    prompt.unlink()
    os.symlink(secret, prompt)
    result = load_suites([repo / "suites" / "file-refs.suite.yml"], root=repo)
    assert result.suites == ()
    (problem,) = result.problems
    assert problem.path == "suites/file-refs.suite.yml" and (problem.line, problem.column) == (6, 25)
    assert "resolves through a symlink to outside the repository" in problem.message


def test_symlink_inside_the_repository_is_fine(tmp_path):
    repo = _copy_valid(tmp_path)
    prompt = repo / "suites" / "prompts" / "dict.md"
    shutil.move(prompt, repo / "real.md")
    os.symlink(repo / "real.md", prompt)
    assert load_suites([repo / "suites" / "file-refs.suite.yml"], root=repo).problems == ()


def test_a_changed_tool_prompt_or_mock_file_loads_the_suites_using_it(tmp_path):
    repo = _copy_valid(tmp_path)
    for changed in ("suites/tools/shared.json", "suites/prompts/dict.md", "suites/mocks.yml"):
        result = load_suites([repo / changed], root=repo)
        assert [s.name for s in result.suites] == ["file-refs"], changed
    # a broken tool file is reported under its own path, with its line
    (repo / "suites" / "tools" / "shared.json").write_text(
        '{"tools": [{"name": "bad name", "parameters": {"type": "object"}}]}'
    )
    result = load_suites([repo / "suites" / "tools" / "shared.json"], root=repo)
    assert [p.path for p in result.problems] == ["suites/tools/shared.json"]
    assert "invalid tool name" in result.problems[0].message


def test_unreferenced_tool_file_is_validated_on_its_own(tmp_path):
    repo = tmp_path
    (repo / ".git").mkdir()
    (repo / "tools").mkdir()
    (repo / "tools" / "t.yaml").write_text("- name: ok\n  parameters: {type: object, required: [x]}\n")
    result = load_suites([repo / "tools" / "t.yaml"], root=repo)
    assert [p.render() for p in result.problems] == [
        "tools/t.yaml:2:41: required parameter 'x' of tool 'ok' is not in properties (fix: declare it "
        "under properties)"
    ]
    (repo / "mocks").mkdir()
    (repo / "mocks" / "m.yaml").write_text("tools: {t: [{retuns: 1}]}\n")
    problems = load_suites([repo / "mocks" / "m.yaml"], root=repo).problems
    assert any("unknown key 'retuns'" in p.message for p in problems)


def test_each_referenced_file_is_read_once_per_run(tmp_path, monkeypatch):
    repo = _copy_valid(tmp_path)
    second = repo / "suites" / "second.suite.yml"
    second.write_text(
        (repo / "suites" / "file-refs.suite.yml").read_text().replace("name: file-refs", "name: second")
    )
    reads: list[str] = []
    original = file_references.load_file

    def counting(path, display, **kwargs):
        reads.append(display)
        return original(path, display, **kwargs)

    monkeypatch.setattr(file_references, "load_file", counting)
    result = load_suites([repo], root=repo)
    assert result.problems == () and len(result.suites) == 4
    assert reads.count("suites/tools/shared.json") == 1 and reads.count("suites/mocks.yml") == 1


def test_paths_are_root_relative_and_missing_paths_reported(tmp_path):
    repo = _copy_valid(tmp_path)
    result = load_suites([repo / "nope.suite.yaml", tmp_path / "elsewhere"], root=repo)
    messages = [p.render() for p in result.problems]
    assert "nope.suite.yaml: no such file or directory" in messages
    assert any("outside the repository root" in m for m in messages)


def test_without_a_root_paths_are_relative_to_the_git_ancestor_of_the_cwd(tmp_path, monkeypatch):
    repo = _copy_valid(tmp_path)
    monkeypatch.chdir(repo / "suites" / "prompts")
    result = load_suites([repo / "suites" / "minimal.suite.yaml"])
    assert result.suites[0].path == "suites/minimal.suite.yaml"


def test_any_of_errors_name_what_is_wrong_not_another_branch_s_type(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.suite.yaml").write_text(
        "version: 1\nname: t\nagent:\n  provider: openai\n  model: m\n  tools:\n"
        "    - "
        "{type: function, function: {name: f, description: d, parameters: {type: object, properties: {}}}}\n"
        "cases:\n"
        "  - {id: a, input: hi, expect: {output: {contains: ''}}}\n"
        "  - {id: b, input: hi, expect: {output: {contains: 5}}}\n"
    )
    messages = [p.render() for p in load_suites([tmp_path], root=tmp_path).problems]
    assert messages == [
        "a.suite.yaml:9:52: cases[0].expect.output.contains: must not be empty",
        "a.suite.yaml:10:52: cases[1].expect.output.contains: expected a string or a list, got the integer 5",
    ]


def test_schema_errors_hide_nothing_else_and_cause_nothing_nonsensical(tmp_path):
    """A schema-invalid suite is still checked (DESIGN section 4: everything in one run), without what its
    schema errors damaged: a misspelt key is not followed by errors about its absence."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.suite.yaml").write_text(
        "version: 1\n"
        "name: a\n"
        "agent:\n"
        "  provider: openai\n"
        "  model: gpt-4o-mini\n"
        "  tols:\n"
        "    - {name: get_weather, parameters: {type: object, properties: {city: {type: string}}}}\n"
        "juge: {provider: openai, model: gpt-4o-mini}\n"
        "vars: {user: [1]}\n"
        "cases:\n"
        "  - id: one\n"
        '    input: "hi {{ user }}"\n'
        "    trails: 3\n"
        "    reducer: at_least\n"
        "    at_least: 2\n"
        "    expect:\n"
        "      calls: [{tool: get_weather, args: {city: Paris}}]\n"
        "      output: {criteria: polite}\n"
        "  - id: two\n"
        "    conversation:\n"
        "      - {role: user, content: hi}\n"
        "      - {role: assistant}\n"
        "    expect:\n"
        '      calls: [{args: {city: {regex: "("}}}]\n'
    )
    (tmp_path / "b.suite.yaml").write_text(
        "version: 1\n"
        "name: b\n"
        "agent:\n"
        "  provider: openai\n"
        "  model: gpt-4o-mini\n"
        "  tools:\n"
        "    - {name: get_weather, parameters: {type: object, properties: {city: {type: string}}}}\n"
        "judge: {provider: openai}\n"
        "mocks:\n"
        "  tools:\n"
        "    get_weather: [{retuns: 1}]\n"
        "    get_wether: [{returns: 1}]\n"
        "cases:\n"
        "  - id: one\n"
        "    input: hi\n"
        "    expect:\n"
        "      calls: [{tool: get_wether, args: {city: 5}}, {tool: get_weather, args: {city: 5, cty: x}}]\n"
        "      output: {criteria: polite}\n"
        "  - id: one\n"
        "    input: hi\n"
        "    vars: 3\n"
    )
    result = load_suites([tmp_path], root=tmp_path)
    assert result.suites == ()
    assert [p.render() for p in result.problems] == [
        "a.suite.yaml:6:3: agent: unknown key 'tols' (fix: did you mean 'tools'?)",
        "a.suite.yaml:8:1: unknown key 'juge' (fix: did you mean 'judge'?)",
        "a.suite.yaml:9:14: vars.user: expected a string or a number or true or false, got a list",
        "a.suite.yaml:13:5: cases[0]: unknown key 'trails' (fix: did you mean 'trials'?)",
        "a.suite.yaml:22:9: cases[1].conversation[1]: missing required key 'content' "
        "(fix: add 'content': What the message says: the text (may contain {{ var }} placeholders); for a "
        "tool message, the call's result (text or any JSON value).)",
        "a.suite.yaml:24:15: cases[1].expect.calls[0]: missing required key 'tool' "
        "(fix: add 'tool': Name of the expected tool (must be one of the agent's tools).)",
        "a.suite.yaml:24:37: cases[1].expect.calls[0].args.city.regex: invalid regular expression '(': "
        "missing ) at position 1 (fix: check the escaping (in YAML, prefer single quotes))",
        "b.suite.yaml:8:8: judge: missing required key 'model' (fix: add 'model': Judge model name.)",
        "b.suite.yaml:11:20: mocks.tools.get_weather[0]: unknown key 'retuns' (fix: did you mean 'returns'?)",
        "b.suite.yaml:12:5: mocks.tools.get_wether: mocks for unknown tool 'get_wether' "
        "(fix: did you mean 'get_weather'?)",
        "b.suite.yaml:17:22: cases[0].expect.calls[0].tool: unknown tool 'get_wether' "
        "(fix: did you mean 'get_weather'?)",
        "b.suite.yaml:17:85: cases[0].expect.calls[1].args.city: the expected value 5 can never match: tool "
        "'get_weather' requires 'city' to satisfy its schema (5 is not of type 'string') "
        "(fix: write a value the tool accepts)",
        "b.suite.yaml:17:88: cases[0].expect.calls[1].args.cty: tool 'get_weather' has no parameter 'cty' "
        "(fix: did you mean 'city'?)",
        "b.suite.yaml:19:9: cases[1].id: duplicate case id 'one' (first at line 14) "
        "(fix: case ids must be unique in the suite)",
        "b.suite.yaml:21:11: cases[1].vars: expected a mapping, got the integer 3",
    ]


def test_a_tool_definition_without_a_valid_name_makes_no_tool_unknown(tmp_path):
    repo = _copy_valid(tmp_path)
    (repo / "suites" / "tools" / "shared.json").write_text(
        '[{"name": "look up", "parameters": {"type": "object"}}]'
    )
    result = load_suites([repo / "suites" / "file-refs.suite.yml"], root=repo)
    assert [p.path for p in result.problems] == ["suites/tools/shared.json"]  # not "unknown tool 'lookup'"
    (repo / "suites" / "tools" / "shared.json").write_text(
        '[{"name": "lookup", "parameters": {"type": "object", "required": ["wrd"]}}, '
        '{"name": "other", "parameters": {"type": "object"}}]'
    )
    result = load_suites([repo / "suites" / "file-refs.suite.yml"], root=repo)
    assert [p.path for p in result.problems] == ["suites/tools/shared.json"]
    (repo / "suites" / "tools" / "shared.json").write_text('[{"name": "other", "parameters": {"typ": 1}}]')
    messages = [
        p.render() for p in load_suites([repo / "suites" / "file-refs.suite.yml"], root=repo).problems
    ]
    assert any("suites/file-refs.suite.yml:14:22" in m and "unknown tool 'lookup'" in m for m in messages)


def test_a_mock_file_s_schema_errors_hide_none_of_its_semantic_errors(tmp_path):
    """A mock file is checked like the suite's own mocks: its schema errors and its semantic ones in one
    run (DESIGN section 4), without errors about what the schema errors damaged."""
    repo = _copy_valid(tmp_path)
    (repo / "suites" / "mocks.yml").write_text(
        "tools:\n"
        "  lookup:\n"
        "    - {when: {wrd: cat}, returns: 1}\n"
        '    - when: {word: {regex: "("}}\n'
        "      returns: 1\n"
        "    - retuns: {typo: true}\n"
        "      when: {nothing: 1}\n"
        "  lokup: [{returns: 1}]\n"
        "unmocked: {returnz: 1}\n"
    )
    result = load_suites([repo / "suites" / "file-refs.suite.yml"], root=repo)
    assert result.suites == ()
    assert [p.render() for p in result.problems] == [
        "suites/mocks.yml:3:20: tools.lookup[0].when.wrd: the mock condition is on 'wrd', which tool "
        "'lookup' does not have (fix: use one of its parameters: word)",
        "suites/mocks.yml:4:28: tools.lookup[1].when.word.regex: invalid regular expression '(': missing ) "
        "at position 1 (fix: check the escaping (in YAML, prefer single quotes))",
        "suites/mocks.yml:6:7: tools.lookup[2]: unknown key 'retuns' (fix: did you mean 'returns'?)",
        "suites/mocks.yml:8:3: tools.lokup: mocks for unknown tool 'lokup' (fix: did you mean 'lookup'?)",
        "suites/mocks.yml:9:12: unmocked: unknown key 'returnz' (fix: did you mean 'returns'?)",
    ]


def test_a_line_break_editors_do_not_see_does_not_hide_the_files_other_problems(tmp_path):
    """Every error of every file: a NEL early in a suite or a tool file is refused where it stands, and
    the problems after it (a schema error, an unknown key in the tool file) are reported too."""
    suite = (
        'version: 1\nname: n\ndescription: "a\u0085b"\nagent:\n  provider: openai\n  model: m\n'
        "  modle: x\n  tools: [{file: tools.json}]\ncases:\n"
        '  - {id: a, input: hi, expect: {calls: [{tool: t, args: {n: "3"}}]}}\n'
    )
    (tmp_path / "n.suite.yaml").write_text(suite, encoding="utf-8")
    tools = '[{"name": "t", "description": "d\u2028", "input_schema": {"type": "object", "properties": '
    tools += '{"n": {"type": "integer"}}}}]'
    (tmp_path / "tools.json").write_text(tools, encoding="utf-8")
    rendered = [p.render() for p in load_suites([tmp_path], root=tmp_path).problems]
    assert any(r.startswith("n.suite.yaml:3:16: the character U+0085") for r in rendered), rendered
    assert any(r.startswith("n.suite.yaml:7:3: agent: unknown key 'modle'") for r in rendered), rendered
    assert any(r.startswith("tools.json:1:33: the character U+2028") for r in rendered), rendered
    assert any('the expected value "3" can never match' in r for r in rendered), rendered
