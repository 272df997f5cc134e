"""One rule for every command a suite makes the gate start, an agent program's and an MCP server's
alike, checked offline at the program's ``file:line:column``: a name on PATH, a file of the repository,
or a virtualenv's interpreter there (the one link a command may follow out of the repository); never
an absolute path, a path leaving the repository, a missing file, or any other link out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites

TOOL = "{name: get_weather, description: The weather now., inputSchema: {type: object}}"
CASES = "cases: [{id: a, input: hi}]\n"
# Where a command is written: the suite, and the line:column of its program (argv[0]).
PLACES = {
    "agent": (
        f"version: 1\nname: s\nagent:\n  command: [PROGRAM, main.py]\n  tools: [{TOOL}]\n{CASES}",
        "4:13",
    ),
    "mcp": (
        "version: 1\nname: s\nagent:\n  provider: openai\n  model: m\n  tools:\n"
        f"    - mcp:\n        command: [PROGRAM, main.py]\n{CASES}",
        "8:19",
    ),
}
LINK_HINT = (
    "(fix: a command runs a program on PATH (python3, node), a file of the repository, or a "
    "virtualenv's interpreter there (.venv/bin/python, beside .venv/pyvenv.cfg))"
)


def virtualenv(path: Path) -> Path:
    """A real virtualenv (no pip: quick), made as a team makes one; its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def problems(root: Path, place: str, program: str) -> list[str]:
    (root / ".git").mkdir(exist_ok=True)
    (root / "main.py").write_text("print('hi')\n")
    suite, _ = PLACES[place]
    (root / "s.suite.yaml").write_text(suite.replace("PROGRAM", program))
    return [p.render() for p in load_suites([root], root=root).problems]


@pytest.mark.parametrize("place", PLACES)
def test_a_name_on_path_a_repository_file_and_a_virtualenv_interpreter_are_accepted(
    place: str, tmp_path: Path
) -> None:
    virtualenv(tmp_path / ".venv")
    assert (tmp_path / ".venv" / "bin" / "python").is_symlink()  # a link out of the repository
    for program in ("python3", "main.py", "./main.py", ".venv/bin/python", ".venv/bin/python3"):
        assert problems(tmp_path, place, program) == [], program


@pytest.mark.parametrize("place", PLACES)
def test_a_virtualenv_linked_into_the_repository_is_accepted(place: str, tmp_path: Path) -> None:
    """``.venv`` a link to a virtualenv kept elsewhere (as the base side of ``--baseline auto`` links the
    working tree's installs into the merge base's tree)."""
    virtualenv(tmp_path / "venvs" / "project")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".venv").symlink_to(tmp_path / "venvs" / "project", target_is_directory=True)
    assert problems(repo, place, ".venv/bin/python") == []


@pytest.mark.parametrize("place", PLACES)
def test_every_other_program_path_is_refused_at_its_location(place: str, tmp_path: Path) -> None:
    _, at = PLACES[place]
    key = "agent.command[0]" if place == "agent" else "agent.tools[0].mcp.command[0]"
    data = tmp_path / "data.txt"  # outside the repository, not executable
    data.write_text("x\n")
    data.chmod(0o644)
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    (repo / "tools" / "python").symlink_to(sys.executable)  # an interpreter, but no virtualenv's
    fake = repo / "fake"
    (fake / "bin").mkdir(parents=True)
    (fake / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (fake / "bin" / "sh").symlink_to("/bin/sh")  # beside a pyvenv.cfg, but no interpreter
    (fake / "bin" / "python").symlink_to(data)  # an interpreter's name, not an executable
    cases = {
        "/usr/bin/python3": "the program '/usr/bin/python3' is an absolute path (fix: name a program "
        "found on PATH (python, node) or write its path relative to the repository root)",
        "../outside/run.sh": f"the program '../outside/run.sh' is outside the repository {LINK_HINT}",
        "agent/missing.sh": "program not found: 'agent/missing.sh' (no such file) (fix: a command's path "
        "is relative to the repository root, where the command runs)",
        "tools/python": f"the program 'tools/python' is a link to outside the repository {LINK_HINT}",
        "fake/bin/sh": f"the program 'fake/bin/sh' is a link to outside the repository {LINK_HINT}",
        "fake/bin/python": f"the program 'fake/bin/python' is a link to outside the repository {LINK_HINT}",
        ".venv/bin/python": "program not found: '.venv/bin/python' (no such file) (fix: create the "
        "virtualenv (python3 -m venv) where the gate runs, before validate and run)",
    }
    for program, message in cases.items():
        assert problems(repo, place, program) == [f"s.suite.yaml:{at}: {key}: {message}"], program


@pytest.mark.parametrize("place", PLACES)
def test_a_virtualenv_whose_marker_is_not_a_file_is_no_virtualenv(place: str, tmp_path: Path) -> None:
    virtualenv(tmp_path / ".venv")
    os.remove(tmp_path / ".venv" / "pyvenv.cfg")
    (tmp_path / ".venv" / "pyvenv.cfg").mkdir()
    [problem] = problems(tmp_path, place, ".venv/bin/python")
    assert problem.endswith(f"the program '.venv/bin/python' is a link to outside the repository {LINK_HINT}")
