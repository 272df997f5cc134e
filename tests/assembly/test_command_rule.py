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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

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
    (root / "main.py").write_text("#!/usr/bin/env python3\nprint('hi')\n")
    (root / "main.py").chmod(0o755)
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
    (repo / "agent.py").write_text("print('hi')\n")
    (repo / "agent.py").chmod(0o644)  # as git checks out a file committed without its execute bit
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
        "./agent.py": "the program './agent.py' is not executable (its file has no execute permission) "
        "(fix: mark it executable in git (git update-index --chmod=+x ./agent.py), or start it with its "
        "interpreter ([python3, ./agent.py]))",
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


# -- what validate accepts is what runs (issue 35, class 2) ----------------------------------------

_PARTS = [
    "a",
    "out",
    "up",
    "file",
    "none",
    "loop",
    "venv",
    "fake",
    "away",
    "bin",
    "..",
    ".",
    "run.sh",
    "python",
    "pyvenv.cfg",  # a file of the repository without the execute bit
]


def _layout(root: Path, outside: Path) -> None:
    """A repository whose links lead everywhere a command path could go: out of it (a directory, a
    file, a virtualenv kept elsewhere), back in, nowhere, round in a loop; a virtualenv and a fake one."""
    for directory in (root / "a", outside / "d", outside / "env" / "bin"):
        directory.mkdir(parents=True, exist_ok=True)
    for script in (root / "run.sh", root / "a" / "run.sh", outside / "run.sh", outside / "d" / "run.sh"):
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o755)
    (outside / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (outside / "env" / "bin" / "python").symlink_to(sys.executable)
    links = {
        "out": outside / "d",
        "up": Path("a") / ".." / "a",
        "file": outside / "run.sh",
        "none": root / "missing",
        "loop": root / "loop",
        "away": outside / "env",
    }
    for name, target in links.items():
        (root / name).symlink_to(target)
    virtualenv(root / "venv")
    (root / "fake" / "bin").mkdir(parents=True)
    (root / "fake" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "fake" / "bin" / "python").symlink_to(outside / "run.sh")


def _runs_inside_or_a_virtualenv(root: Path, program: str) -> bool:
    """What the system would start for ``program`` is an executable file of the repository, or a
    virtualenv's interpreter: ``bin/python`` beside the ``pyvenv.cfg`` of its virtualenv's directory,
    which the system reaches where the path, read as written, says (no '..' after a link on the way)."""
    written = os.path.join(root, program)
    real = os.path.realpath(written)
    if not os.path.isfile(written) or not os.access(written, os.X_OK):
        return False
    if real == str(root.resolve()) or real.startswith(str(root.resolve()) + os.sep):
        return True
    # the virtualenv's directory as the system reaches it, and as a reader reads the path: the same
    directory = os.path.realpath(os.path.join(root, str(Path(program).parent.parent)))
    normal = Path(os.path.normpath(program))
    read = os.path.realpath(os.path.join(root, str(normal.parent.parent)))
    named = normal.parent.name == "bin" and normal.name.startswith("python")
    return named and directory == read and os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("layout")
    _layout(top / "repo", top / "outside")
    return top / "repo"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(_PARTS), min_size=1, max_size=4))
@example(parts=["out", "..", "run.sh"])  # the repository's run.sh as written, outside/run.sh as run
@example(parts=["away", "bin", "python"])  # a virtualenv kept elsewhere, linked in: accepted
@example(parts=["out", "..", "env", "bin", "python"])  # another's interpreter through '..'
@example(parts=["fake", "bin", "python"])  # a fake virtualenv: its 'interpreter' is a script out
@example(parts=["fake", "pyvenv.cfg"])  # a file of the repository no system can start
def test_a_command_path_validate_accepts_runs_a_file_of_the_repository_or_a_virtualenv(layout, parts) -> None:
    """Whatever a path goes through (links out and back, '..' after a link, a loop, a virtualenv kept
    elsewhere): validate accepts it only when what the system runs is the repository's file or a
    virtualenv's interpreter, and gives an agent program and an MCP server the same answer.
    'sub/../run.sh', sub a link out, validated as the repository's run.sh and ran the file outside."""
    program = "/".join(parts)
    if "/" not in program:
        program = "./" + program
    verdicts = {place: problems(layout, place, program) for place in PLACES}
    assert (verdicts["agent"] == []) == (verdicts["mcp"] == []), verdicts
    if verdicts["agent"] == []:
        assert _runs_inside_or_a_virtualenv(layout, program), program
