"""``agent: {command, watch, timeout_s}`` read and checked offline: the program suite's model, and every
mistake at its ``file:line:column`` (nothing runs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
        "s.suite.yaml:4:13: agent.command[0]: program not found: 'agent/missing.sh' (no such file) "
        "(fix: a command's path is relative to the repository root, where the command runs)"
    ]
    write(tmp_path, "  command: [../outside/run.sh]\n" + TOOLS)
    assert problems(tmp_path)[0].endswith(
        "agent.command[0]: the program '../outside/run.sh' is outside the repository "
        "(fix: a command runs a program on PATH (python3, node), a file of the repository, or a "
        "virtualenv's interpreter there (.venv/bin/python, beside .venv/pyvenv.cfg))"
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


# -- command shapes: what validates can be started ------------------------------------------------

_ODD = [" ", "\n", "\t", "\x00", "/", "\\", "\ud800", "\u2028", "\x7f", "\x85", ".", "a"]
_PROGRAMS = st.builds(
    lambda base, before, after: before + base + after,
    st.sampled_from(
        ["agent/run.sh", "./agent/run.sh", "true", "agent", ".", "..", "agent/..", "agent/run.sh/"]
    ),
    st.text(st.sampled_from(_ODD), max_size=2),
    st.text(st.sampled_from(_ODD), max_size=2),
)
_ARGUMENTS = st.lists(
    st.text(st.sampled_from(["a", "-", " ", "\n", "\x00", "\ud800", "é"]), max_size=4), max_size=3
)


def _started(argv: list[str], root: Path) -> str:
    """How starting ``argv`` from ``root`` ends, as the gate starts a program: "ran", "not on PATH",
    or the error that shows the command could never start."""
    try:
        process = subprocess.Popen(
            argv,
            cwd=root,
            env={"PATH": os.environ["PATH"]},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        return "not on PATH" if "/" not in argv[0] else "not found"
    except (OSError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    process.wait(timeout=30)
    return "ran"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=_PROGRAMS, arguments=_ARGUMENTS)
def test_a_command_validate_accepts_can_be_started_and_one_it_refuses_is_located(
    tmp_path, program, arguments
):
    """Whatever the argv (a string where a list goes aside: the schema refuses it), ``validate``
    either accepts a command that starts (or names a program PATH may hold), or refuses it at
    ``agent.command[i]``; it never raises (a trailing '/', a newline or NUL in the name, a lone
    surrogate in an argument all validated and failed only when the run started them)."""
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    (root / "agent").mkdir(exist_ok=True)
    script = root / "agent" / "run.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    argv = [program, *arguments]
    suite = {
        "version": 1,
        "name": "s",
        "agent": {"command": argv, "tools": [{"name": "t", "description": "d"}]},
        "cases": [{"id": "a", "input": "hi"}],
    }
    (root / "s.suite.yaml").write_text(json.dumps(suite))  # JSON is YAML: every string escaped
    found = load_suites([root], root=root).problems
    if not found:
        assert _started(argv, root) in ("ran", "not on PATH"), argv
    else:
        assert all(p.path == "s.suite.yaml" and p.line == 1 for p in found)
        assert any("agent.command[" in p.message or "command" in p.render() for p in found), found


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ('"python3 agent/main.py"', "s.suite.yaml:4:12: agent.command: expected a list, got the string"),
        ("[]", "s.suite.yaml:4:12: agent.command: must not be empty"),
        ("[agent/main.py/]", 's.suite.yaml:4:13: agent.command[0]: the program "agent/main.py/" names a '),
        ('["python3\\n"]', "s.suite.yaml:4:13: agent.command[0]: the program name holds a control character"),
        ('["py\\0thon"]', "s.suite.yaml:4:13: agent.command[0]: the program name holds a control character"),
        ('[python3, "a\\0b"]', "s.suite.yaml:4:22: agent.command[1]: the argument holds a NUL character"),
        ('[" python3"]', 's.suite.yaml:4:13: agent.command[0]: the program " python3" has white space'),
        ('["  "]', "s.suite.yaml:4:13: agent.command[0]: the program name is blank"),
        ("[.]", 's.suite.yaml:4:13: agent.command[0]: the program "." names a directory'),
    ],
)
def test_command_shapes_that_can_never_start_are_refused_at_their_item(
    tmp_path: Path, command: str, problem: str
) -> None:
    write(tmp_path, f"  command: {command}\n" + TOOLS)
    found = problems(tmp_path)
    assert len(found) == 1 and found[0].startswith(problem), found


def test_a_watch_glob_with_a_reversed_range_is_refused_at_its_item(tmp_path: Path) -> None:
    """``[z-a]`` validated and ``run --changed-since`` stopped on it with a traceback (re.error)."""
    write(tmp_path, "  command: [python3, agent/main.py]\n  watch: ['agent/[z-a].py']\n" + TOOLS)
    assert problems(tmp_path) == [
        "s.suite.yaml:5:11: agent.watch[0]: watch pattern 'agent/[z-a].py': the range [z-a] is reversed "
        "(write [a-z]) (fix: write a glob relative to the repository root, e.g. agent/**/*.py)"
    ]
