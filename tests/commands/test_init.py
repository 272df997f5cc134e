"""``tool-eval-gate init``: a repository gets a starter suite that validates, the workflow for its
default branch, the pre-commit entry and the .gitignore lines; nothing is ever overwritten."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.cli import main as cli_main
from gate.commands import starter
from gate.files.suite_loader import load_suites
from gate.suite.matcher_tree import matchers_json
from tests.builders import WEATHER_FUNCTION
from tests.conftest import ROOT

ANTHROPIC_TOOL = {
    "name": "book_flight",
    "description": "Book a flight.",
    "input_schema": {
        "type": "object",
        "properties": {
            "flight": {"type": "string", "description": "Flight number, e.g. UA100."},
            "seat": {"type": "string", "enum": ["window", "aisle"]},
            "note": {"type": "string"},
        },
        "required": ["flight", "seat"],
    },
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(tmp_path)], check=True)
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "tools.json").write_text(json.dumps([WEATHER_FUNCTION, ANTHROPIC_TOOL]))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_writes_a_starter_that_validates_the_workflow_pre_commit_and_gitignore(repo, capsys):
    assert cli_main(["init", "--tools", "agent/tools.json"]) == 0
    out = capsys.readouterr().out
    assert "evals/tools.suite.yaml: valid, 3 cases to fill in" in out
    assert "the workflow needs the OPENAI_API_KEY secret" in out

    loaded = load_suites([repo / "evals"], root=repo)
    assert loaded.problems == ()
    suite = loaded.suites[0]
    assert (suite.name, suite.agent.provider, suite.agent.model) == ("tools", "openai", "gpt-4o-mini")
    assert [t.name for t in suite.agent.tools] == ["get_weather", "book_flight"]
    weather, booking, chat = suite.cases
    assert matchers_json(weather.expect.calls.calls[0].args) == {"city": {"anything": True}}
    assert matchers_json(booking.expect.calls.calls[0].args) == {
        "flight": {"anything": True},
        "seat": {"one_of": ["window", "aisle"]},
    }
    assert booking.expect.calls.calls[0].allow_extra_args  # the optional note may be sent
    assert chat.expect.calls.no_calls

    workflow = (repo / ".github" / "workflows" / "tool-eval-gate.yml").read_text()
    # The shipped example's workflow (tests/commands/test_starter.py), for this repository's default branch:
    # pull requests compared with their merge base (baseline: auto), the cache, the push that warms it.
    assert workflow == starter.workflow("trunk", ["openai"])
    precommit = (repo / ".pre-commit-config.yaml").read_text()
    assert (
        "id: tool-eval-gate-validate" in precommit
        and "repo: https://github.com/tool-eval-gate/tool-eval-gate" in precommit
    )
    assert (repo / ".gitignore").read_text().splitlines()[1:] == [
        ".tool-eval-gate/",
        "tool-eval-gate-results/",
    ]


def test_init_refuses_to_overwrite_and_writes_nothing(repo, capsys):
    (repo / "evals").mkdir()
    (repo / "evals" / "tools.suite.yaml").write_text("mine\n")
    assert cli_main(["init", "--tools", "agent/tools.json"]) == 2
    err = capsys.readouterr().err
    assert "evals/tools.suite.yaml: init never overwrites: the file exists" in err
    assert (repo / "evals" / "tools.suite.yaml").read_text() == "mine\n"
    assert not (repo / ".github").exists() and not (repo / ".gitignore").exists()


def test_existing_gitignore_and_pre_commit_config_are_added_to_or_left_alone(repo, capsys):
    (repo / ".gitignore").write_text("node_modules/\n.tool-eval-gate\n")
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    assert cli_main(["init", "--tools", "agent/tools.json", "--model", "anthropic:claude-sonnet-4-5"]) == 0
    out = capsys.readouterr().out
    assert (repo / ".gitignore").read_text() == (
        "node_modules/\n.tool-eval-gate\n"
        "# tool-eval-gate: the response cache and the reports\ntool-eval-gate-results/\n"
    )
    assert (repo / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    assert ".pre-commit-config.yaml exists and was left as it is; add to its repos:" in out
    assert "the workflow needs the ANTHROPIC_API_KEY secret" in out
    workflow = (repo / ".github" / "workflows" / "tool-eval-gate.yml").read_text()
    assert (
        "anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}" in workflow and "openai_api_key" not in workflow
    )
    assert load_suites([repo / "evals"], root=repo).suites[0].agent.provider == "anthropic"


def test_without_a_tool_file_an_example_is_written_beside_a_suite_that_validates(repo, capsys):
    assert cli_main(["init", "--dir", "quality/evals"]) == 0
    assert (
        json.loads((repo / "quality" / "evals" / "tools.json").read_text())[0]["function"]["name"]
        == "get_weather"
    )
    loaded = load_suites([repo / "quality"], root=repo)
    assert loaded.problems == () and loaded.suites[0].name == "agent"


def test_a_tool_file_with_problems_is_reported_and_nothing_is_written(repo, capsys):
    (repo / "agent" / "bad.json").write_text('[{"name": "x y"}]')
    assert cli_main(["init", "--tools", "agent/bad.json"]) == 2
    assert "agent/bad.json:1:" in capsys.readouterr().err
    assert not (repo / "evals").exists()


# -- what init writes into: checked before anything is written (DESIGN section 9) ------------------


def _init(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``init`` in its own process (a FIFO that blocked it would hang the test otherwise)."""
    return subprocess.run(
        [sys.executable, "-m", "gate", "init", "--tools", "agent/tools.json", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _written(repo: Path) -> list[str]:
    """What init may have written (nothing, when it refused)."""
    names = ("evals", ".github", ".pre-commit-config.yaml")
    return [name for name in names if os.path.lexists(repo / name)]


def _gitignore_out(repo: Path, outside: Path) -> None:
    (outside / "x").write_text("kept\n")
    (repo / ".gitignore").symlink_to(outside / "x")


def _github_out(repo: Path, outside: Path) -> None:
    (repo / ".github").symlink_to(outside)


def _workflow_dangling(repo: Path, outside: Path) -> None:
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "tool-eval-gate.yml").symlink_to(repo / "nowhere.yml")


def _workflows_dir_dangling(repo: Path, outside: Path) -> None:
    (repo / ".github").mkdir()
    (repo / ".github" / "workflows").symlink_to(repo / "gone")


def _gitignore_fifo(repo: Path, outside: Path) -> None:
    os.mkfifo(repo / ".gitignore")


def _gitignore_zero(repo: Path, outside: Path) -> None:
    (repo / ".gitignore").symlink_to("/dev/zero")


def _precommit_fifo(repo: Path, outside: Path) -> None:
    os.mkfifo(repo / ".pre-commit-config.yaml")


def _precommit_directory(repo: Path, outside: Path) -> None:
    (repo / ".pre-commit-config.yaml").mkdir()


def _gitignore_loop(repo: Path, outside: Path) -> None:
    (repo / ".gitignore").symlink_to(repo / ".gitignore")


def _github_a_file(repo: Path, outside: Path) -> None:
    (repo / ".github").write_text("not a directory\n")


def _evals_out(repo: Path, outside: Path) -> None:
    (repo / "evals").symlink_to(outside)


@pytest.mark.parametrize(
    ("make", "where", "problem"),
    [
        (_gitignore_out, ".gitignore", "leads outside the repository"),
        (_github_out, ".github/workflows/tool-eval-gate.yml", "leads outside the repository"),
        (_workflow_dangling, ".github/workflows/tool-eval-gate.yml", "is a symlink to nothing"),
        (_workflows_dir_dangling, ".github/workflows/tool-eval-gate.yml", "is a symlink to nothing"),
        (_gitignore_fifo, ".gitignore", "is not a regular file (a FIFO)"),
        (_gitignore_zero, ".gitignore", "leads outside the repository"),
        (_precommit_fifo, ".pre-commit-config.yaml", "is not a regular file (a FIFO)"),
        (_precommit_directory, ".pre-commit-config.yaml", "is not a regular file (a directory)"),
        (_gitignore_loop, ".gitignore", "is a symlink loop"),
        (_github_a_file, ".github/workflows/tool-eval-gate.yml", ".github is not a directory"),
        (_evals_out, "--dir: evals", "outside the repository"),
    ],
)
def test_a_path_init_cannot_write_safely_refuses_it_before_anything_is_written(
    repo, tmp_path_factory, make, where, problem
):
    """A cloned repository can commit ``.gitignore -> ../x`` or ``.github -> /elsewhere``: init
    appended and wrote outside, crashed after writing the suite (a dangling link), blocked on a FIFO
    and ran out of memory on /dev/zero. Now: exit 2 naming the path, nothing written, no traceback."""
    outside = tmp_path_factory.mktemp("outside")
    make(repo, outside)
    before = _written(repo)
    done = _init(repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert any(line.startswith(where) and problem in line for line in done.stderr.splitlines()), done.stderr
    assert _written(repo) == before and list(outside.iterdir()) in ([], [outside / "x"])
    if (outside / "x").exists():
        assert (outside / "x").read_text() == "kept\n"


def test_a_suite_directory_linked_inside_the_repository_gets_a_suite_that_validates(repo, capsys):
    """The suite's references are read as written (normalised), so they are written from where the
    suite is written, not from where a link leads."""
    (repo / "quality" / "evals").mkdir(parents=True)
    (repo / "evals").symlink_to("quality/evals")
    assert cli_main(["init", "--tools", "agent/tools.json", "--dir", "evals"]) == 0
    loaded = load_suites([repo / "evals" / "tools.suite.yaml"], root=repo)
    assert loaded.problems == () and [t.name for t in loaded.suites[0].agent.tools] == [
        "get_weather",
        "book_flight",
    ]


@pytest.mark.parametrize("option", ["--tools", "--prompt"])
def test_a_tool_or_prompt_file_that_is_a_fifo_is_refused_never_read(repo, capsys, option):
    os.mkfifo(repo / "agent" / "pipe")
    assert cli_main(["init", option, "agent/pipe"]) == 2
    assert f"{option}: agent/pipe: not a regular file" in capsys.readouterr().err
    assert not (repo / "evals").exists()


@pytest.mark.parametrize("given_root", [True, False])
def test_outside_a_repository_init_writes_nothing(tmp_path, monkeypatch, capsys, given_root):
    """``init --root /`` (or init run in the home directory) wrote evals/, .github/, .gitignore and the
    pre-commit configuration there: a directory that is no git repository's top is refused."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(home)
    argv = ["init", "--root", str(home)] if given_root else ["init"]
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert ("--root: " if given_root else f"{home}: ") in err and "not a git repository" in err
    assert list(home.iterdir()) == []


def test_the_command_init_says_to_run_next_runs_the_suite_it_wrote(repo, capsys):
    """A --dir holding a space (or a shell's characters) is one argument in the next command shown:
    'tool-eval-gate run my evals' ran two paths that do not exist."""
    assert cli_main(["init", "--tools", "agent/tools.json", "--dir", "my evals"]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next: ")]
    command = shlex.split(line.split("then: ", 1)[1])
    assert command == ["tool-eval-gate", "run", "my evals", "--html", "out/report.html"]
    assert (repo / command[2] / "tools.suite.yaml").is_file()


def test_a_gitignore_linked_to_a_file_inside_the_repository_gets_its_lines(repo):
    (repo / "config").mkdir()
    (repo / "config" / "ignore").write_text("node_modules/\n")
    (repo / ".gitignore").symlink_to("config/ignore")
    done = _init(repo)
    assert done.returncode == 0, done.stderr
    assert (repo / ".gitignore").is_symlink()
    assert (repo / "config" / "ignore").read_text().splitlines()[-2:] == [
        ".tool-eval-gate/",
        "tool-eval-gate-results/",
    ]


# -- the starter validates, whatever the tools define ----------------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-2, 2, allow_nan=False),
    st.sampled_from(["Paris", "{{ city }}", "{{city}}", "a: b", "#c", "", "x\ny", "{{ 1 }}"]),
    st.lists(st.sampled_from(["a", 1]), max_size=2),
    st.dictionaries(st.sampled_from(["k"]), st.sampled_from(["v", 1]), max_size=1),
)
_TYPES = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])
_PARAMETER = st.fixed_dictionaries(
    {},
    optional={
        "type": _TYPES | st.lists(_TYPES, min_size=1, max_size=2, unique=True),
        "enum": st.lists(_VALUES, min_size=1, max_size=4),
        "description": st.sampled_from(["The city, e.g. {{ city }}.", "x" * 200, "line\nbreak"]),
        "const": _VALUES,
    },
)
_NAMES = st.text(st.sampled_from("abcxyz_"), min_size=1, max_size=6)


@st.composite
def _tools(draw: st.DrawFn) -> list[dict[str, object]]:
    tools = []
    for name in draw(st.lists(_NAMES, min_size=1, max_size=3, unique=True)):
        properties = draw(st.dictionaries(_NAMES, _PARAMETER, max_size=3))
        required = draw(st.lists(st.sampled_from([*properties, "ghost"]), max_size=3, unique=True))
        parameters: dict[str, object] = {"type": "object", "properties": properties, "required": required}
        if draw(st.booleans()):
            parameters["additionalProperties"] = False
        tools.append(
            {"type": "function", "function": {"name": name, "description": "d", "parameters": parameters}}
        )
    return tools


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=_tools())
def test_init_never_writes_a_starter_its_own_validate_refuses(tmp_path, tools):
    """Whatever the tool file defines (enums holding ``{{ city }}``, values outside their own type,
    required names without a property): a tool file validate accepts gets a starter validate accepts;
    one it refuses gets nothing written."""
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    (root / ".git").mkdir()
    (root / "tools.json").write_text(json.dumps(tools))
    tools_valid = not load_suites([root / "tools.json"], root=root).problems
    code = cli_main(["init", "--tools", str(root / "tools.json"), "--root", str(root)])
    if tools_valid:
        assert code == 0
        assert load_suites([root / "evals"], root=root).problems == ()
    else:
        assert code == 2 and not (root / "evals").exists() and not (root / ".github").exists()


def test_a_prompt_that_is_not_text_is_refused_at_its_path_and_nothing_is_written(repo, capsys):
    (repo / "agent" / "prompt.md").write_bytes(b"\x00\x01binary")
    assert cli_main(["init", "--tools", "agent/tools.json", "--prompt", "agent/prompt.md"]) == 2
    assert capsys.readouterr().err.startswith("agent/prompt.md:1:1: binary file")
    assert _written(repo) == []


def _program(repo: Path) -> None:
    (repo / "agent" / "run.py").write_text(
        "import sys\nfor line in sys.stdin:\n    print('{}', flush=True)\n"
    )
    (repo / "agent" / "requirements.txt").write_text("openai\n")


def test_init_with_an_agent_command_writes_a_program_suite_and_the_workflow_that_runs_it(repo, capsys):
    """A team whose agent is a program: the suite names the program and its code, no model (the
    program picks its own); the workflow is the one that runs programs with the CLI, installing the
    program's requirements."""
    _program(repo)
    assert cli_main(["init", "--agent-command", "python3 agent/run.py", "--tools", "agent/tools.json"]) == 0
    out = capsys.readouterr().out
    assert "tool-eval-gate run evals --allow-commands --html out/report.html" in out
    loaded = load_suites([repo / "evals"], root=repo)
    assert loaded.problems == ()
    agent = loaded.suites[0].agent
    assert agent.program is not None
    assert (agent.program.argv, agent.program.watch) == (("python3", "agent/run.py"), ("agent/**",))
    assert [t.name for t in agent.tools] == ["get_weather", "book_flight"]
    workflow = (repo / ".github" / "workflows" / "tool-eval-gate.yml").read_text()
    assert workflow == starter.program_workflow("trunk", ["agent/requirements.txt"], [])
    assert "--allow-commands" in workflow


def test_init_with_a_virtualenv_interpreter_as_the_program_writes_a_suite_that_validates(repo, capsys):
    _program(repo)
    venv = repo / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    assert cli_main(["init", "--agent-command", ".venv/bin/python agent/run.py"]) == 0
    assert load_suites([repo / "evals"], root=repo).problems == ()


def test_a_program_init_cannot_start_or_a_model_for_a_program_is_refused_and_nothing_is_written(repo, capsys):
    (repo / "agent" / "link").symlink_to(sys.executable)  # a link out of the repository
    assert cli_main(["init", "--agent-command", "agent/link run.py"]) == 2
    assert "is a link to outside the repository" in capsys.readouterr().err
    _program(repo)
    assert cli_main(["init", "--agent-command", "python3 agent/run.py", "--model", "gpt-4o"]) == 2
    assert "--model: an agent program picks its own model and prompt" in capsys.readouterr().err
    assert cli_main(["init", "--agent-command", "python3 'agent/run.py"]) == 2
    assert "cannot be split into words" in capsys.readouterr().err
    assert not (repo / "evals").exists() and not (repo / ".github").exists()


def test_init_with_an_mcp_command_takes_the_tools_the_server_lists(repo, capsys):
    """The server is started once, as run --allow-commands would, and its tools/list makes the cases;
    the suite takes its tools from the server, so a change to the server's code runs it."""
    server = repo / "server"
    server.mkdir()
    (server / "server.py").write_text((ROOT / "examples" / "mcp_weather" / "server.py").read_text())
    _program(repo)
    argv = ["init", "--agent-command", "python3 agent/run.py", "--mcp-command", "python3 server/server.py"]
    assert cli_main(argv) == 0
    text = (repo / "evals" / "agent.suite.yaml").read_text()
    assert '{mcp: {command: ["python3", "server/server.py"], watch: ["server/**"]}}' in text
    suite = load_suites([repo / "evals"], root=repo).suites[0]
    assert [c.id for c in suite.cases] == ["calls-get_weather", "calls-get_forecast", "no-tool-needed"]
    assert suite.agent.tool_servers[0].command == ("python3", "server/server.py")


def test_allow_extra_args_is_written_only_for_a_tool_with_optional_arguments(repo, capsys):
    every = {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up an order.",
            "parameters": {
                "type": "object",
                "properties": {"order": {"type": "string"}},
                "required": ["order"],
            },
        },
    }
    (repo / "agent" / "one.json").write_text(json.dumps([every, ANTHROPIC_TOOL]))
    assert cli_main(["init", "--tools", "agent/one.json"]) == 0
    lookup, booking, _ = load_suites([repo / "evals"], root=repo).suites[0].cases
    assert not lookup.expect.calls.calls[0].allow_extra_args  # every argument is required
    assert booking.expect.calls.calls[0].allow_extra_args  # the optional note may be sent


def test_init_with_an_mcp_command_without_the_mcp_sdk_says_what_to_install(repo, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)  # the mcp extra not installed
    assert cli_main(["init", "--mcp-command", "python3 server.py"]) == 2
    assert "needs the MCP SDK (fix: pip install 'tool-eval-gate[mcp]')" in capsys.readouterr().err
    assert not (repo / "evals").exists()


def test_init_with_an_mcp_command_for_an_anthropic_model_gives_the_workflow_its_key(repo, capsys):
    """A model agent whose tools come from a server runs with the CLI workflow; the key it needs is its
    provider's, not the OpenAI key a program's workflow names by default."""
    server = repo / "server"
    server.mkdir()
    (server / "server.py").write_text((ROOT / "examples" / "mcp_weather" / "server.py").read_text())
    argv = ["init", "--mcp-command", "python3 server/server.py", "--model", "anthropic:claude-sonnet-4-5"]
    assert cli_main(argv) == 0
    assert "the workflow needs the ANTHROPIC_API_KEY secret" in capsys.readouterr().out
    workflow = (repo / ".github" / "workflows" / "tool-eval-gate.yml").read_text()
    assert workflow == starter.program_workflow("trunk", [], [], ["anthropic"])
    assert (
        "ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}" in workflow and "OPENAI_API_KEY" not in workflow
    )
    assert load_suites([repo / "evals"], root=repo).suites[0].agent.provider == "anthropic"
