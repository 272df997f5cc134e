"""``tool-eval-gate validate``: output format, summary, exit codes, no heavy imports, speed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from gate.cli import main as cli_main
from gate.commands.validate import main
from gate.errors import EXIT_INVALID_INPUT, EXIT_PASSED

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "tests" / "corpus" / "valid"
INVALID = ROOT / "tests" / "corpus" / "invalid"


def test_valid_suites_exit_0_with_summary(capsys):
    assert main(["--root", str(VALID), str(VALID)]) == EXIT_PASSED
    out, err = capsys.readouterr()
    assert out.strip() == "3 suite files, 7 cases: OK" and err == ""


def test_problems_are_printed_sorted_with_fix_hints_and_exit_2(capsys):
    files = [INVALID / "unknown-tools.suite.yaml", INVALID / "duplicate-ids.suite.yaml"]
    assert main(["--root", str(INVALID), *map(str, files)]) == EXIT_INVALID_INPUT
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == ""
    assert lines[0] == (
        "duplicate-ids.suite.yaml:11:9: cases[2].id: duplicate case id 'same' (first at line 7) "
        "(fix: case ids must be unique in the suite)"
    )
    assert (
        "unknown-tools.suite.yaml:24:17: cases[0].expect.calls[0].tool: unknown tool 'get_wether' "
        "(fix: did you mean 'get_weather'?)" in lines
    )
    assert lines[-1] == "7 problems in 2 files"


def test_quiet_prints_problems_only(capsys):
    assert main(["--quiet", "--root", str(INVALID), str(INVALID / "empty.suite.yaml")]) == EXIT_INVALID_INPUT
    assert (
        capsys.readouterr().err
        == "empty.suite.yaml:1:1: empty file (fix: write the document, or delete the file)\n"
    )


def test_default_path_is_the_repository_root(tmp_path, monkeypatch, capsys):
    shutil.copytree(VALID, tmp_path / "suites")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path / "suites" / "tools")
    assert cli_main(["validate"]) == EXIT_PASSED
    assert "3 suite files, 7 cases: OK" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys):
    from gate.cli import main as cli_main

    assert cli_main(["validate", "--bogus"]) == EXIT_INVALID_INPUT
    assert cli_main(["validate", "--root", "/no/such/dir"]) == EXIT_INVALID_INPUT
    assert "--root: /no/such/dir: not a directory" in capsys.readouterr().err


def test_validate_never_imports_provider_sdks_or_pygithub_or_the_mcp_sdk():
    # examples/ holds a suite whose tools come from an MCP server: validate neither starts it nor
    # imports the mcp SDK
    code = (
        "import sys; from gate.cli import main; rc = main(['validate', '--root', sys.argv[1], sys.argv[1]]); "
        "bad = [m for m in ('openai', 'anthropic', 'github', 'httpx', 'mcp', 'anyio', 'pydantic') "
        "if m in sys.modules]; "
        "print(rc, bad)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "examples")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.stdout.strip().splitlines()[-1] == "0 []", run.stderr


def _imports_after_validate(path: Path) -> tuple[int, list[str]]:
    code = (
        "import json, sys; from gate.cli import main; rc = main(['validate', '--root', sys.argv[1], "
        "sys.argv[1]]); "
        "print(rc, json.dumps(sorted(m for m in ('jsonschema', 'referencing', 'openai', 'anthropic', "
        "'github') "
        "if m in sys.modules)))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    rc, imported = run.stdout.strip().splitlines()[-1].split(" ", 1)
    return int(rc), json.loads(imported)


def test_valid_files_never_import_jsonschema(tmp_path):
    # jsonschema (0.1-0.3 s to import, slow on the success path) only explains invalid files
    for name in ("weather", "banking"):
        shutil.copytree(ROOT / "examples" / name, tmp_path / name)
    (tmp_path / "weather" / "extra.suite.yaml").write_text(
        (ROOT / "tests" / "corpus" / "valid" / "inline-formats.suite.yaml").read_text()
    )
    assert _imports_after_validate(tmp_path) == (EXIT_PASSED, [])


def test_an_invalid_file_is_explained_by_jsonschema(tmp_path):
    shutil.copytree(ROOT / "examples" / "weather", tmp_path / "weather")
    suite = tmp_path / "weather" / "weather.suite.yaml"
    suite.write_text(suite.read_text().replace("threshold: 0.9", "threshold: 1.5"))
    rc, imported = _imports_after_validate(tmp_path)
    assert rc == EXIT_INVALID_INPUT and "jsonschema" in imported


def _write_suites(directory: Path, count: int) -> None:
    (directory / "tools").mkdir(parents=True)
    shutil.copy(
        ROOT / "examples" / "weather" / "tools" / "weather.json", directory / "tools" / "weather.json"
    )
    suite = (ROOT / "examples" / "weather" / "weather.suite.yaml").read_text()
    suite = suite.replace("system_prompt: {file: prompts/weather.md}", "system_prompt: Weather bot.")
    suite = suite.replace("mocks: {file: mocks/weather.yaml}", "")
    for index in range(count):
        (directory / f"s{index:03}.suite.yaml").write_text(
            suite.replace("name: weather-agent", f"name: w{index}")
        )


def test_one_hundred_suites_validate_in_a_cold_process(tmp_path):
    """What the validate budget (DESIGN section 8) is measured on: its speed is bench/run.py --only
    validate's to report (a ratio against the budget), not a timed test on a shared machine."""
    _write_suites(tmp_path, 100)
    (tmp_path / ".git").mkdir()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "gate", "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "100 suite files, 1300 cases: OK"


def test_a_directory_without_suites_is_an_input_error_not_a_pass(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / "sutes").mkdir()  # a typo'd directory must not pass CI silently
    (tmp_path / "sutes" / "notes.md").write_text("nothing here\n")
    assert main(["--root", str(tmp_path), str(tmp_path / "sutes")]) == EXIT_INVALID_INPUT
    assert "no suite files (*.suite.yaml) found in" in capsys.readouterr().err


def test_a_suite_without_the_suite_suffix_is_told_to_rename_not_called_a_bad_tool_file(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / "calendar.yaml").write_text((VALID / "minimal.suite.yaml").read_text())
    assert main(["--root", str(tmp_path), str(tmp_path / "calendar.yaml")]) == EXIT_INVALID_INPUT
    err = capsys.readouterr().err
    assert "calendar.yaml:1:1: this looks like a suite, but suite files are named *.suite.yaml" in err
    assert "rename it to calendar.suite.yaml" in err and "tool" not in err


def test_skip_unreferenced_checks_only_suites_and_the_files_they_use(tmp_path, capsys):
    shutil.copytree(VALID, tmp_path / "suites")
    (tmp_path / ".git").mkdir()
    (tmp_path / "build" / "tools").mkdir(parents=True)
    unrelated = tmp_path / "build" / "tools" / "package.json"
    unrelated.write_text('{"name": "not a tool file"}')
    args = ["--root", str(tmp_path), str(unrelated)]
    assert main(args) == EXIT_INVALID_INPUT  # checked alone, it is a bad tool file
    capsys.readouterr()
    assert main(["--skip-unreferenced", *args]) == EXIT_PASSED
    assert "nothing to check" in capsys.readouterr().out
    used = sorted((tmp_path / "suites" / "tools").iterdir())[0]
    used.write_text("[not json")
    assert main(["--skip-unreferenced", "--root", str(tmp_path), str(unrelated), str(used)]) == 2
    err = capsys.readouterr().err
    assert used.name in err and "package.json" not in err


def test_one_run_shows_schema_semantic_and_tool_file_errors_together(tmp_path, capsys):
    """DESIGN section 4: what the schema finds and what the semantic checks find, in the same run, for
    every file: a schema error does not hide the suite's unknown tool or its broken tool file."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(
        '[\n  {"name": "get_weather",\n'
        '   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},\n'
        '  {"name": "get_forecast", "parameters": {"type": "objekt"}}\n]\n'
    )
    (tmp_path / "weather.suite.yaml").write_text(
        "version: 1\n"
        "name: weather\n"
        "agent:\n"
        "  provider: openai\n"
        "  model: gpt-4o-mini\n"
        "  tools: [{file: tools/weather.json}]\n"
        "cases:\n"
        "  - id: paris\n"
        "    input: Weather in Paris?\n"
        "    trials: many\n"
        "    expect:\n"
        "      calls:\n"
        "        - tool: get_wether\n"
    )
    assert cli_main(["validate", "--root", str(tmp_path), str(tmp_path)]) == EXIT_INVALID_INPUT
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "tools/weather.json:4:51: the parameters of tool 'get_forecast' must be a schema of type object "
        "(fix: set type: object (arguments are always a JSON object))",
        "weather.suite.yaml:10:13: cases[0].trials: expected an integer, got the string 'many'",
        "weather.suite.yaml:13:17: cases[0].expect.calls[0].tool: unknown tool 'get_wether' "
        "(fix: did you mean 'get_weather'?)",
        "3 problems in 2 files",
    ]
