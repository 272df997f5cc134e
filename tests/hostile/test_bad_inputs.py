"""Bad input gets a clear, located error and exit code 2, never a traceback, in bounded time and memory.

The corpus is ``tests/bad_inputs/``; its README holds the table of expected errors (input file,
``path:line:column`` of the error, a message substring). Each row runs ``tool-eval-gate validate``
in-process; one subprocess validates the whole corpus at once (every error of every file in one
run), and the hostile inputs (alias bomb, deep nesting, huge and sparse files) also run as
subprocesses under a memory limit. Inputs git cannot hold portably (symlinks) or that are too big to
commit are made here, in the temporary repository.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gate.cli import main

CORPUS = Path(__file__).parents[1] / "bad_inputs"
TABLE_ROW = re.compile(r"^\| `(?P<input>[^`]+)` \| `(?P<where>[^`]+)` \| (?P<message>.+) \|$")
# CPU seconds one validation of one hostile file may take (most take well under a second; CPU time,
# not wall time, so that a loaded CI machine does not make the test flaky).
TIME_LIMIT = 10.0
# Wall-clock seconds after which a validation counts as hung.
WALL_LIMIT = 60.0
# Address-space limit of the validating subprocess: a parser that expanded an alias bomb or read a
# 2 GiB file into memory would die with MemoryError (a traceback) instead of reporting the problem.
MEMORY_LIMIT = 1024 * 1024 * 1024
# Peak resident memory allowed for validating a hostile file.
PEAK_RSS_LIMIT_MB = 150


def _expected_rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in (CORPUS / "README.md").read_text(encoding="utf-8").splitlines():
        match = TABLE_ROW.match(line)
        if match:
            message = match["message"].strip()
            if message.startswith("`") and message.endswith("`"):
                message = message[1:-1]
            rows.append((match["input"], match["where"], message.replace("\\|", "|")))
    return rows


ROWS = _expected_rows()


def test_corpus_table_is_complete() -> None:
    """At least 40 bad inputs, each listed once, each present in the corpus."""
    inputs = [row[0] for row in ROWS]
    assert len(inputs) >= 40
    assert len(set(inputs)) == len(inputs)
    for name in inputs:
        assert (CORPUS / name).is_file(), name
    committed = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.suite.yaml")}
    assert committed - set(inputs) == {"valid.suite.yaml"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding the corpus as ``bad_inputs/``."""
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(CORPUS, root / "bad_inputs")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _validate(repo: Path, capsys: pytest.CaptureFixture[str], *paths: str) -> tuple[int, str, float]:
    old = Path.cwd()
    os.chdir(repo)
    try:
        start = time.process_time()
        code = main(["validate", *paths])
        elapsed = time.process_time() - start
    finally:
        os.chdir(old)
    captured = capsys.readouterr()
    return code, captured.out + captured.err, elapsed


def _assert_reported(output: str, where: str, message: str) -> None:
    prefix = f"bad_inputs/{where}: "
    lines = [line for line in output.splitlines() if line.startswith(prefix)]
    assert lines, f"no error at {prefix!r} in:\n{output}"
    assert any(message in line for line in lines), f"{message!r} not in {lines}"


def test_the_valid_suite_is_valid(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, output, _ = _validate(repo, capsys, "bad_inputs/valid.suite.yaml")
    assert code == 0, output


@pytest.mark.parametrize("name,where,message", ROWS, ids=[row[0] for row in ROWS])
def test_bad_input_is_refused_with_a_located_error(
    repo: Path, capsys: pytest.CaptureFixture[str], name: str, where: str, message: str
) -> None:
    code, output, elapsed = _validate(repo, capsys, f"bad_inputs/{name}")
    assert code == 2, output
    assert "Traceback" not in output
    _assert_reported(output, where, message)
    assert elapsed < TIME_LIMIT


def test_nothing_from_a_python_tag_was_executed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = Path("/tmp/pwned")
    existed = marker.exists()
    code, _, _ = _validate(repo, capsys, "bad_inputs/python_tag_code_execution.suite.yaml")
    assert code == 2
    assert marker.exists() == existed


# ---------------------------------------------------------------------------------------------
# Inputs made here: symlinks leaving the repository, huge and sparse files.


@pytest.fixture()
def scratch(tmp_path: Path) -> Path:
    """A fresh repository with the corpus, plus a directory outside it holding a 'secret' file."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text('[{"name": "leak", "description": "x", "input_schema": {}}]')
    (outside / "secret.md").write_text("the runner's private notes")
    (outside / "stolen.suite.yaml").write_text((CORPUS / "valid.suite.yaml").read_text())
    root = tmp_path / "repo"
    shutil.copytree(CORPUS, root / "bad_inputs")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _suite_with(repo: Path, name: str, old: str, new: str) -> str:
    text = (repo / "bad_inputs" / "valid.suite.yaml").read_text().replace(old, new)
    (repo / "bad_inputs" / name).write_text(text)
    return f"bad_inputs/{name}"


def test_symlinked_tool_file_leaving_the_repository(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "bad_inputs" / "tools" / "linked.json").symlink_to(scratch.parent / "outside" / "secret.json")
    suite = _suite_with(scratch, "symlink_tool.suite.yaml", "tools/weather.json", "tools/linked.json")
    code, output, _ = _validate(scratch, capsys, suite)
    assert code == 2 and "Traceback" not in output
    _assert_reported(
        output, "symlink_tool.suite.yaml:8:14", "resolves through a symlink to outside the repository"
    )
    assert "leak" not in output


def test_symlinked_directory_on_the_way_to_a_prompt(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "bad_inputs" / "shared").symlink_to(scratch.parent / "outside", target_is_directory=True)
    suite = _suite_with(
        scratch,
        "symlink_dir.suite.yaml",
        "system_prompt: You are a weather assistant.",
        "system_prompt: {file: shared/secret.md}",
    )
    code, output, _ = _validate(scratch, capsys, suite)
    assert code == 2 and "Traceback" not in output
    _assert_reported(
        output, "symlink_dir.suite.yaml:6:25", "resolves through a symlink to outside the repository"
    )
    assert "private notes" not in output


def test_symlink_to_a_device_is_refused(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (scratch / "bad_inputs" / "tools" / "zero.json").symlink_to("/dev/zero")
    suite = _suite_with(scratch, "device.suite.yaml", "tools/weather.json", "tools/zero.json")
    code, output, elapsed = _validate(scratch, capsys, suite)
    assert code == 2 and "Traceback" not in output
    _assert_reported(output, "device.suite.yaml:8:14", "outside the repository")
    assert elapsed < TIME_LIMIT


def test_suite_file_that_is_a_symlink_out_of_the_repository(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = scratch / "bad_inputs" / "linked.suite.yaml"
    link.symlink_to(scratch.parent / "outside" / "stolen.suite.yaml")
    code, output, _ = _validate(scratch, capsys, "bad_inputs/linked.suite.yaml")
    assert code == 2 and "Traceback" not in output
    assert "bad_inputs/linked.suite.yaml" in output and "outside the repository" in output


def test_a_fifo_is_not_read(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A named pipe would block a reader forever; it is refused as not a regular file."""
    os.mkfifo(scratch / "bad_inputs" / "tools" / "pipe.json")
    suite = _suite_with(scratch, "fifo.suite.yaml", "tools/weather.json", "tools/pipe.json")
    code, output, elapsed = _validate(scratch, capsys, suite)
    assert code == 2 and "Traceback" not in output
    _assert_reported(output, "fifo.suite.yaml:8:14", "not a regular file")
    assert elapsed < TIME_LIMIT


def _make_huge(repo: Path) -> dict[str, tuple[str, str]]:
    """Hostile files too big to commit; name -> (error location, message substring)."""
    corpus = repo / "bad_inputs"
    (corpus / "huge.suite.yaml").write_text(
        "version: 1\nname: huge\ndescription: '" + "x" * 3_000_000 + "'\n", encoding="utf-8"
    )
    with open(corpus / "sparse.suite.yaml", "wb") as handle:  # 2 GiB, nothing on disk
        handle.truncate(2 * 1024**3)
    (corpus / "many_values.suite.yaml").write_text(
        "version: 1\nname: many\ntags:\n" + "- t\n" * 210_000, encoding="utf-8"
    )
    huge_tool = (
        "["
        + ",".join(
            f'{{"name": "tool_{i}", "description": "{"d" * 200}", "input_schema": {{"type": "object"}}}}'
            for i in range(8_000)
        )
        + "]"
    )
    (corpus / "tools" / "huge.json").write_text(huge_tool, encoding="utf-8")
    _suite_with(repo, "huge_tool_file.suite.yaml", "tools/weather.json", "tools/huge.json")
    return {
        "huge.suite.yaml": ("huge.suite.yaml", "file too large"),
        "sparse.suite.yaml": ("sparse.suite.yaml", "file too large"),
        "many_values.suite.yaml": ("many_values.suite.yaml", "more than 200000 values"),
        "huge_tool_file.suite.yaml": ("tools/huge.json", "file too large"),
    }


def test_huge_files_are_refused_quickly(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, (where, message) in _make_huge(scratch).items():
        code, output, elapsed = _validate(scratch, capsys, f"bad_inputs/{name}")
        assert code == 2, output
        assert "Traceback" not in output
        assert any(
            line.startswith(f"bad_inputs/{where}") and message in line for line in output.splitlines()
        ), (
            name,
            output,
        )
        assert elapsed < TIME_LIMIT, (name, elapsed)


# ---------------------------------------------------------------------------------------------
# The real command line, as a subprocess, under a memory limit.


# The child reports its own peak (VmHWM, of the memory its ``exec`` made): the ``ru_maxrss`` that
# ``wait4`` gives starts from the forking parent's resident size, so it grows with the test process.
_PEAK_REPORTING = (
    "import os, sys\n"
    "from gate.cli import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "finally:\n"
    "    with open('/proc/self/status') as status, open(os.environ['PEAK_FILE'], 'w') as peak:\n"
    "        peak.write(next(l.split()[1] for l in status if l.startswith('VmHWM:')))\n"
    "raise SystemExit(code)\n"
)


def _run_limited(repo: Path, *paths: str, timeout: float = WALL_LIMIT) -> tuple[int, str, float, float]:
    """Run ``gate validate PATHS`` in ``repo`` under an address-space limit; returns the exit code, the
    output, the child's CPU time and its peak resident memory in MB."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    out_path, peak_path = repo / ".validate-output", repo / ".validate-peak"
    with open(out_path, "w") as out:
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-c", _PEAK_REPORTING, "validate", *paths],
            cwd=repo,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=limit,
            env={**os.environ, "PEAK_FILE": str(peak_path)},
        )
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                process.kill()
                pytest.fail(f"validate {paths} did not finish within {timeout} s")
            time.sleep(0.01)
        cpu = usage.ru_utime + usage.ru_stime
    process.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = int(peak_path.read_text()) / 1024  # kilobytes
    return process.returncode, out_path.read_text(encoding="utf-8", errors="replace"), cpu, peak_mb


def test_whole_corpus_in_one_subprocess_reports_every_error(repo: Path) -> None:
    code, output, cpu, peak_mb = _run_limited(repo, "bad_inputs")
    assert code == 2
    assert "Traceback" not in output
    for _name, where, message in ROWS:
        _assert_reported(output, where, message)
    assert cpu < 2 * TIME_LIMIT
    assert peak_mb < PEAK_RSS_LIMIT_MB, peak_mb


def test_hostile_files_in_a_subprocess_bounded_time_and_memory(scratch: Path) -> None:
    hostile = {name: spec for name, spec in _make_huge(scratch).items()}
    hostile["alias_bomb.suite.yaml"] = ("alias_bomb.suite.yaml:6:11", "alias expansion")
    hostile["deep_nesting.suite.yaml"] = ("deep_nesting.suite.yaml:3:70", "nesting deeper than")
    for name, (where, message) in hostile.items():
        code, output, cpu, peak_mb = _run_limited(scratch, f"bad_inputs/{name}")
        assert code == 2, (name, output)
        assert "Traceback" not in output, output
        assert f"bad_inputs/{where}" in output and message in output, (name, output)
        assert cpu < TIME_LIMIT, (name, cpu)
        assert peak_mb < PEAK_RSS_LIMIT_MB, (name, peak_mb)


# ---------------------------------------------------------------------------------------------
# A suite or tool file cannot make the gate reach the network through a JSON Schema "$ref".


def test_remote_schema_references_are_never_fetched(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from gate.suite.matcher_tree import parse_matcher
    from gate.suite.matchers import match_value, schema_validator

    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server interface
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"type": "string"}')

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/schema.json"
    try:
        tool = [
            {
                "name": "get_weather",
                "description": "Weather.",
                "input_schema": {"type": "object", "properties": {"city": {"$ref": url}}},
            }
        ]
        (scratch / "bad_inputs" / "tools" / "remote.json").write_text(json.dumps(tool))
        suite = _suite_with(scratch, "remote_ref.suite.yaml", "tools/weather.json", "tools/remote.json")
        text = (
            (scratch / suite)
            .read_text()
            .replace("args: {city: Paris}", f'args: {{city: {{schema: {{$ref: "{url}"}}}}}}')
        )
        (scratch / suite).write_text(text)
        code, output, _ = _validate(scratch, capsys, suite)
        assert code == 2 and "Traceback" not in output
        _assert_reported(output, "remote_ref.suite.yaml:15:40", "a remote schema reference")
        _assert_reported(output, "tools/remote.json:1:120", "refer to a remote schema")
        outcome = match_value(parse_matcher({"schema": {"$ref": url}}), True, "Paris")
        assert not outcome.ok and "cannot be resolved" in outcome.detail
        validator = schema_validator(json.dumps(tool[0]["input_schema"], sort_keys=True))
        with pytest.raises(Exception, match="Unresolvable"):
            list(validator.iter_errors({"city": 5}))
        assert hits == []
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------------------------------------
# Issue 15: symlink loops, unreadable files and directories, duplicate suite names (made here).


def test_symlink_loops_are_located_and_do_not_break_the_rest(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = scratch / "bad_inputs"
    (base / "loop_a.suite.yaml").symlink_to("loop_b.suite.yaml")
    (base / "loop_b.suite.yaml").symlink_to("loop_a.suite.yaml")
    (base / "prompts" / "loop.md").symlink_to("loop.md")
    (base / "tools" / "loop.json").symlink_to("loop.json")
    _suite_with(
        scratch,
        "prompt_loop.suite.yaml",
        "system_prompt: You are a weather assistant.",
        "system_prompt: {file: prompts/loop.md}",
    )
    _suite_with(scratch, "tool_loop.suite.yaml", "tools/weather.json", "tools/loop.json")
    code, output, _ = _validate(scratch, capsys, "bad_inputs/loop_a.suite.yaml")
    assert code == 2 and "Traceback" not in output
    _assert_reported(output, "loop_a.suite.yaml:1:1", "a symlink loop")
    # The whole repository: every loop is located, and the other suites are still validated.
    code, output, _ = _validate(scratch, capsys, "bad_inputs")
    assert code == 2 and "Traceback" not in output
    _assert_reported(output, "loop_a.suite.yaml:1:1", "the suite file is a symlink loop")
    _assert_reported(output, "loop_b.suite.yaml:1:1", "the suite file is a symlink loop")
    _assert_reported(
        output, "prompt_loop.suite.yaml:6:25", "file reference 'prompts/loop.md': a symlink loop"
    )
    _assert_reported(output, "tool_loop.suite.yaml:8:14", "file reference 'tools/loop.json': a symlink loop")
    _assert_reported(output, "wrong_version.suite.yaml:1:10", "version: must be 1, got 2")


def test_two_suites_with_one_name_are_refused(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _suite_with(scratch, "same_name.suite.yaml", "version: 1", "version: 1")
    code, output, _ = _validate(
        scratch, capsys, "bad_inputs/valid.suite.yaml", "bad_inputs/same_name.suite.yaml"
    )
    assert code == 2 and "Traceback" not in output
    _assert_reported(
        output,
        "valid.suite.yaml:2:7",
        "name: duplicate suite name 'valid-weather' (also bad_inputs/same_name.suite.yaml:2)",
    )


def test_a_directory_named_like_a_suite_file_is_named_and_called_a_directory(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "bad_inputs" / "x.suite.yaml").mkdir()
    for named in ("bad_inputs/x.suite.yaml", "bad_inputs"):
        code, output, _ = _validate(scratch, capsys, named)
        assert code == 2 and "Traceback" not in output
        assert any(
            line.startswith("bad_inputs/x.suite.yaml: is a directory, not a suite file")
            for line in output.splitlines()
        ), output


def _as_unprivileged(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``command`` so that file permissions apply: as root, without the capabilities that let
    root read any file (``setpriv``), since root otherwise reads a mode-000 file."""
    if os.geteuid() == 0:
        drop = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--inh-caps={drop}", f"--bounding-set={drop}", *command]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=WALL_LIMIT)


def test_unreadable_files_and_directories_are_located(scratch: Path) -> None:
    root = scratch
    try:
        base = root / "bad_inputs"
        (base / "secret.suite.yaml").write_text(
            (base / "valid.suite.yaml").read_text().replace("valid-weather", "secret")
        )
        (base / "locked").mkdir()
        (base / "locked" / "inner.suite.yaml").write_text("version: 1\n")
        (base / "tools" / "locked.json").write_text((base / "tools" / "weather.json").read_text())
        text = (base / "valid.suite.yaml").read_text().replace("valid-weather", "uses-locked")
        (base / "uses_locked.suite.yaml").write_text(text.replace("tools/weather.json", "tools/locked.json"))
        os.chmod(base / "secret.suite.yaml", 0)
        os.chmod(base / "locked", 0)
        os.chmod(base / "tools" / "locked.json", 0)
        proc = _as_unprivileged([sys.executable, "-m", "gate", "validate", "bad_inputs"], root)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 2 and "Traceback" not in output, output
        _assert_reported(output, "secret.suite.yaml:1:1", "the suite file cannot be read (permission denied)")
        _assert_reported(
            output, "uses_locked.suite.yaml:8:14", "file reference 'tools/locked.json': cannot be read"
        )
        assert "cannot read directory: Permission denied" in output and "locked" in output
    finally:  # let pytest clean up
        for path in (base / "secret.suite.yaml", base / "locked", base / "tools" / "locked.json"):
            os.chmod(path, 0o755)


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        ("system_prompt: You are a weather assistant.", "system_prompt: {file: ../.git/config}", "6:25"),
        ("tools/weather.json", "../.git/HEAD", "8:14"),
        ("tools/weather.json", "tools/../../.git/config", "8:14"),
        # A case-insensitive file system (macOS, Windows) opens the repository's own .git for it.
        ("tools/weather.json", "../.GIT/config", "8:14"),
        ("tools/weather.json", "../vendor/lib/.git/config", "8:14"),  # a submodule's
        ("cases:", "mocks: {file: ../.git/description}\ncases:", "9:15"),
    ],
)
def test_a_reference_into_git_s_own_directory_is_refused(
    scratch: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, where: str
) -> None:
    """A suite never means git's own files (``.git/config`` can hold the checkout's credentials):
    refused where the reference is written, whatever it would read."""
    (scratch / "vendor" / "lib" / ".git").mkdir(parents=True)
    (scratch / "vendor" / "lib" / ".git" / "config").write_text("[core]\n")
    suite = _suite_with(scratch, "git_dir.suite.yaml", old, new)
    code, output, _ = _validate(scratch, capsys, suite)
    assert code == 2 and "Traceback" not in output
    _assert_reported(output, f"git_dir.suite.yaml:{where}", "git's own directory")


def test_a_link_into_git_s_own_directory_is_refused(
    scratch: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (scratch / "bad_inputs" / "prompt.md").symlink_to("../.git/config")
    suite = _suite_with(
        scratch,
        "git_link.suite.yaml",
        "system_prompt: You are a weather assistant.",
        "system_prompt: {file: prompt.md}",
    )
    code, output, _ = _validate(scratch, capsys, suite)
    assert code == 2 and "Traceback" not in output
    _assert_reported(output, "git_link.suite.yaml:6:25", "git's own directory")
    assert "[core]" not in output
