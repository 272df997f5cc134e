"""``agent: {command, watch, timeout_s}`` read and checked offline: the program suite's model, and every
mistake at its ``file:line:column`` (nothing runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gate.files.suite_loader import load_suites

TOOLS = """\
  tools:
    - name: get_weather
      description: The weather now.
      parameters: {type: object, properties: {city: {type: string}}, required: [city]}
"""


def write(
    root: Path,
    agent: str,
    cases: str = "cases: [{id: a, input: hi, expect: {calls: [{tool: get_weather}]}}]\n",
) -> Path:
    (root / ".git").mkdir(exist_ok=True)
    (root / "agent").mkdir(exist_ok=True)
    (root / "agent" / "main.py").write_text("print('hi')\n")
    suite = root / "s.suite.yaml"
    suite.write_text(f"version: 1\nname: s\nagent:\n{agent}{cases}")
    return suite


def problems(root: Path) -> list[str]:
    return [p.render() for p in load_suites([root], root=root).problems]


def test_a_program_suite_builds_its_command_and_names_its_files(tmp_path: Path) -> None:
    write(
        tmp_path,
        "  command: [python, agent/main.py, --fast]\n  watch: ['agent/**/*.py']\n  timeout_s: 30\n" + TOOLS,
    )
    loaded = load_suites([tmp_path], root=tmp_path)
    assert loaded.problems == ()
    [suite] = loaded.suites
    program = suite.agent.program
    assert program is not None and suite.commands == (program,)
    assert program.argv == ("python", "agent/main.py", "--fast") and program.watch == ("agent/**/*.py",)
    assert program.timeout_s == 30 and program.purpose == "agent program"
    assert (program.source.path, program.source.line) == ("s.suite.yaml", 4)  # type: ignore[union-attr]
    assert (
        suite.agent.provider == ""
        and suite.agent.model == ""
        and [t.name for t in suite.agent.tools] == ["get_weather"]
    )
    assert "agent/main.py" in suite.dependencies  # a file the command runs: a change to it affects the suite


def test_a_program_picks_its_own_model_and_every_program_mistake_is_located(tmp_path: Path) -> None:
    agent = (
        "  command: [/usr/bin/python3, agent/main.py]\n  provider: openai\n  model: gpt-4o\n"
        "  system_prompt: Be brief.\n  watch: [/etc/passwd, '../other/*', 'a\\b']\n" + TOOLS
    )
    write(tmp_path, agent)
    model_keys = "an agent program picks its own model, parameters and prompt"
    glob_hint = "(fix: write a glob relative to the repository root, e.g. agent/**/*.py)"
    assert problems(tmp_path) == [
        "s.suite.yaml:4:13: agent.command[0]: the program '/usr/bin/python3' is an absolute path (fix: name "
        "a program found on PATH (python, node) or write its path relative to the repository root)",
        *(
            f"s.suite.yaml:{line}:3: agent.{key}: {model_keys}: {key} does not apply "
            f"(fix: remove agent.{key} (the program's own requests name the model))"
            for line, key in ((5, "provider"), (6, "model"), (7, "system_prompt"))
        ),
        "s.suite.yaml:8:11: agent.watch[0]: watch pattern '/etc/passwd': a pattern is relative to the "
        f"repository root, not absolute {glob_hint}",
        "s.suite.yaml:8:24: agent.watch[1]: watch pattern '../other/*': a pattern cannot leave the "
        f"repository ('..') {glob_hint}",
        "s.suite.yaml:8:38: agent.watch[2]: watch pattern 'a\\\\b': write paths with '/' (a backslash is "
        f"not a path separator here) {glob_hint}",
    ]


def test_a_program_path_must_be_a_file_inside_the_repository(tmp_path: Path) -> None:
    write(tmp_path, "  command: [agent/missing.sh]\n" + TOOLS)
    assert problems(tmp_path) == [
        "s.suite.yaml:4:13: program not found: 'agent/missing.sh' (no such file) "
        "(fix: a command's path is relative to the repository root, where the command runs)"
    ]
    write(tmp_path, "  command: [../outside/run.sh]\n" + TOOLS)
    assert problems(tmp_path)[0].endswith(
        "the program '../outside/run.sh' is outside the repository "
        "(fix: commands run programs on PATH or inside the repository)"
    )


def test_expectations_and_mocks_are_checked_against_the_program_suite_s_tools(tmp_path: Path) -> None:
    cases = (
        "mocks: {tools: {get_wether: [{returns: 1}]}}\n"
        "cases: [{id: a, input: hi, expect: {calls: [{tool: get_forecast}]}}]\n"
    )
    write(tmp_path, "  command: [python, agent/main.py]\n" + TOOLS, cases)
    found = problems(tmp_path)
    assert any("unknown tool 'get_forecast'" in p for p in found)
    assert any("get_wether" in p and "get_weather" in p for p in found)  # "did you mean"


def test_watch_or_timeout_without_a_command_and_a_model_agent_without_a_model(tmp_path: Path) -> None:
    write(
        tmp_path,
        "  provider: openai\n  model: m\n  timeout_s: 5\n  watch: [x]\n",
        "cases: [{id: a, input: hi}]\n",
    )
    assert problems(tmp_path) == [
        f"s.suite.yaml:{where}: agent.{key}: {key} goes with agent.command (the team's own agent program) "
        f"(fix: add the program's command, or remove {key})"
        for where, key in (("6:14", "timeout_s"), ("7:10", "watch"))
    ]
    write(tmp_path, "  tools: []\n")
    assert any("missing required key 'provider'" in p for p in problems(tmp_path))


def test_validate_never_starts_the_program(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (tmp_path / "agent").mkdir()
    write(tmp_path, "  command: [python, agent/touch.py]\n" + TOOLS)
    (tmp_path / "agent" / "touch.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    done = subprocess.run(
        [sys.executable, "-m", "gate", "validate", str(tmp_path), "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists()
