"""What a user of its own can reach: only the ``o`` bits of each mode on the way count."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.containment.reach import resolve_executable, unreachable


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A directory every user can reach (pytest's own lie below one only its user may enter)."""
    top = Path(tempfile.mkdtemp(prefix="tool-eval-gate-reach-"))
    os.chmod(top, 0o755)
    yield top
    shutil.rmtree(top)


def test_every_directory_on_the_way_must_be_searchable_and_the_target_readable(tmp_path: Path) -> None:
    top = tmp_path / "top"
    (top / "repo").mkdir(parents=True)
    program = top / "repo" / "agent"
    program.write_text("#!/bin/sh\n")
    os.chmod(tmp_path, 0o755)
    os.chmod(top, 0o755)
    os.chmod(top / "repo", 0o755)
    os.chmod(program, 0o755)
    assert unreachable(top / "repo") == "" and unreachable(program, execute=True) == ""
    os.chmod(program, 0o744)
    assert unreachable(program) == ""
    assert unreachable(program, execute=True) == f"{program} is not readable and executable by other users"
    os.chmod(top / "repo", 0o751)  # searchable, not listable: a directory to run in must be both
    assert unreachable(top / "repo") == f"{top / 'repo'} is not readable and searchable by other users"
    os.chmod(top, 0o750)
    assert unreachable(program) == f"{top} is not searchable by other users"
    os.chmod(top, 0o755)


def test_links_are_resolved_first(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    hidden.mkdir(mode=0o700)
    (hidden / "python").write_text("")
    os.chmod(hidden / "python", 0o755)
    os.chmod(tmp_path, 0o755)
    (tmp_path / "bin").mkdir(mode=0o755)
    os.symlink(hidden / "python", tmp_path / "bin" / "python")
    assert (
        unreachable(tmp_path / "bin" / "python", execute=True) == f"{hidden} is not searchable by other users"
    )


def test_a_program_is_found_as_the_system_runs_it(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "agent").write_text("")
    os.chmod(tmp_path / "bin" / "agent", 0o755)
    env = {"PATH": str(tmp_path / "bin")}
    assert resolve_executable("agent", "/", env) == str(tmp_path / "bin" / "agent")
    assert resolve_executable("bin/agent", tmp_path, {}) == str(tmp_path / "bin" / "agent")
    assert resolve_executable("missing", "/", env) is None
    assert resolve_executable("./missing", tmp_path, env) is None


def test_what_execve_would_refuse_is_found_before(tmp_path: Path) -> None:
    import errno

    from gate.containment.reach import exec_problem

    def program(name: str, text: str, mode: int = 0o755) -> str:
        (tmp_path / name).write_text(text)
        os.chmod(tmp_path / name, mode)
        return str(tmp_path / name)

    assert exec_problem(program("script", "#!/bin/sh\necho hi\n")) is None
    assert exec_problem("/bin/sh") is None  # a binary
    missing = exec_problem(str(tmp_path / "missing"))
    assert isinstance(missing, FileNotFoundError)
    no_interpreter = exec_problem(program("lost", "#!/nonexistent/python\n"))
    assert isinstance(no_interpreter, FileNotFoundError) and (tmp_path / "lost").is_file()
    not_executable = exec_problem(program("plain", "#!/bin/sh\n", 0o644))
    assert isinstance(not_executable, PermissionError)
    no_format = exec_problem(program("text", "echo hi\n"))
    assert no_format is not None and no_format.errno == errno.ENOEXEC
    assert isinstance(exec_problem(str(tmp_path)), PermissionError)  # a directory
