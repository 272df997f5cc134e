"""Output paths are checked before the first model request and written safely: devices, FIFOs and
pipes are written through, symlinks keep pointing where they did, directories are refused before the
run, and a model's lone surrogate never costs the reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gate.cli import main as cli_main
from gate.commands.plans import ReportPlan
from gate.errors import InputError
from gate.files.outputs import check_output, check_outputs
from tests.commands.test_run import SCRIPT, point, suite_text

SURROGATE_SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "18 degrees \ud800 and \udfff"},
    ],
    "default": {"text": "I do not know."},
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from tests.commands.test_run import TOOLS

    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    (tmp_path / "suites" / "weather.suite.yaml").write_text(suite_text("openai", ["Paris", "Rome"]))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai-key-123456")
    monkeypatch.setenv("CI", "true")
    return tmp_path


def run(repo: Path, *args: str) -> int:
    return cli_main(["run", "--root", str(repo), "--quiet", *args])


def test_lone_surrogates_in_the_answer_are_reported_not_a_crash(repo, model_server, monkeypatch, capsys):
    point(monkeypatch, model_server(SURROGATE_SCRIPT))
    suite = repo / "suites" / "weather.suite.yaml"
    suite.write_text(suite.read_text().replace("contains: '18'", "contains: '20'"))  # fail: answer shown
    out = repo / "out"
    code = run(
        repo,
        "--json",
        str(out / "r.json"),
        "--junit",
        str(out / "r.xml"),
        "--markdown",
        str(out / "r.md"),
        "--cache",
        str(repo / "cache"),
    )
    captured = capsys.readouterr()
    assert code == 1, captured
    assert "Traceback" not in captured.err
    raw = (out / "r.json").read_bytes()
    raw.decode("utf-8")  # valid UTF-8
    data = json.loads(raw)  # and the answer comes back exactly as the model sent it
    assert data["suites"][0]["cases"][0]["trials"][0]["record"]["output"] == "18 degrees \ud800 and \udfff"
    assert "18 degrees \\ud800 and \\udfff" in (out / "r.md").read_text(encoding="utf-8")
    junit = (out / "r.xml").read_text(encoding="utf-8")
    assert junit.startswith("<?xml") and "18 degrees  and " in junit  # XML cannot hold them: removed
    # The report re-renders the same results.
    assert cli_main(["report", str(out / "r.json"), "--json", str(out / "again.json")]) == 1
    assert (out / "again.json").read_bytes() == raw


@pytest.mark.parametrize("option", ["--json", "--junit", "--markdown"])
def test_a_directory_is_refused_before_any_request(repo, model_server, monkeypatch, capsys, option):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "outdir").mkdir()
    assert run(repo, option, str(repo / "outdir")) == 2
    err = capsys.readouterr().err
    assert f"{option}: cannot write output here: it is a directory" in err and "Traceback" not in err
    assert server.request_count == 0


def test_unwritable_and_unparseable_paths_are_refused_before_the_run(repo, model_server, monkeypatch, capsys):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "plain").write_text("x")
    loop = repo / "loop.json"
    loop.symlink_to(loop)
    code = run(
        repo,
        "--json",
        str(repo / "plain" / "r.json"),
        "--junit",
        str(loop),
        "--markdown",
        str(repo / ("m" * 300 + ".md")),
    )
    err = capsys.readouterr().err
    assert code == 2 and server.request_count == 0
    assert "--json: cannot write output here:" in err and "is not a directory" in err
    assert "--junit: cannot write output here: a symlink loop" in err
    assert "--markdown: cannot write output here: the file name is too long" in err
    with pytest.raises(InputError, match="NUL"):
        check_output("a\x00b.json")


def test_the_same_file_for_two_outputs_is_refused(tmp_path):
    with pytest.raises(InputError, match="the same file as --json"):
        check_outputs(ReportPlan(results=(), json=str(tmp_path / "r"), markdown=str(tmp_path / "r")))


def test_a_symlinked_output_is_written_through_and_stays_a_symlink(repo, model_server, monkeypatch):
    """The user's own links, outside CI (in CI a link inside the repository is refused: a pull
    request can commit one; tests/end_to_end/test_untrusted_checkout.py)."""
    monkeypatch.delenv("CI")
    point(monkeypatch, model_server(SCRIPT))
    real = repo / "real.json"
    real.write_text("old")
    link = repo / "link.json"
    link.symlink_to(real)
    dangling = repo / "dangling.md"
    dangling.symlink_to(repo / "new-report.md")
    assert run(repo, "--json", str(link), "--markdown", str(dangling)) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["suites"][0]["name"] == "weather"
    assert dangling.is_symlink() and (repo / "new-report.md").read_text().strip()


def test_a_fifo_is_written_through_never_replaced(repo, model_server, monkeypatch):
    point(monkeypatch, model_server(SCRIPT))
    fifo = repo / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    # The reader holds the FIFO open before the run checks its outputs (a FIFO without a reader is
    # refused): opening here, not in the thread, leaves no race.
    read_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(read_fd, True)

    def read_all() -> None:
        with os.fdopen(read_fd, "rb") as handle:
            chunks = []
            while True:
                chunk = handle.read(65536)
                if chunk:
                    chunks.append(chunk)
                elif not chunks:
                    time.sleep(0.01)  # no writer yet: EOF until the gate opens the FIFO
                else:
                    break
            received.append(b"".join(chunks))

    reader = threading.Thread(target=read_all)
    reader.start()
    assert run(repo, "--json", str(fifo)) == 0
    reader.join(10)
    assert fifo.is_fifo()
    assert json.loads(received[0])["suites"][0]["name"] == "weather"


def test_a_fifo_without_reader_is_refused_instead_of_hanging(repo, capsys):
    fifo = repo / "nobody.fifo"
    os.mkfifo(fifo)
    assert run(repo, "--json", str(fifo)) == 2
    assert "has no reader" in capsys.readouterr().err


def test_dev_stdout_and_process_substitution_work(repo, model_server):
    """In a subprocess: --markdown /dev/stdout prints the report, --json >(cat) style pipes work,
    and /dev/null takes the JUnit; none is replaced."""
    server = model_server(SCRIPT)
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.openai_base_url,
        "PYTHONPATH": str(Path(__file__).parents[2]),
    }
    read_end, write_end = os.pipe()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gate",
            "run",
            "--root",
            str(repo),
            "--quiet",
            "--markdown",
            "/dev/stdout",
            "--junit",
            "/dev/null",
            "--json",
            f"/dev/fd/{write_end}",
        ],
        stdin=subprocess.DEVNULL,
        env=env,
        capture_output=True,
        text=True,
        pass_fds=(write_end,),
        timeout=120,
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        piped = pipe.read()
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "weather" in proc.stdout and "PASSED" in proc.stdout
    assert json.loads(piped)["suites"][0]["name"] == "weather"
    assert Path("/dev/null").is_char_device()


def test_an_output_failing_after_the_run_loses_nothing(repo, model_server, monkeypatch, capsys):
    """/dev/full accepts the open but every write fails: the other outputs are written, the results
    are rescued into a file that ``report`` reads, and the exit code says the run is incomplete."""
    point(monkeypatch, model_server(SCRIPT))
    monkeypatch.chdir(repo)
    code = run(repo, "--markdown", "/dev/full", "--junit", str(repo / "r.xml"))
    err = capsys.readouterr().err
    assert code == 3, err
    assert "/dev/full" in err and "Traceback" not in err
    assert (repo / "r.xml").read_text().startswith("<?xml")
    assert Path("/dev/full").is_char_device()
    rescued = [p for p in repo.glob("tool-eval-gate-results-*.json")]
    assert len(rescued) == 1 and f"tool-eval-gate report {rescued[0]}" in err
    assert cli_main(["report", str(rescued[0])]) == 0


def test_an_existing_files_permissions_are_kept(repo, model_server, monkeypatch):
    point(monkeypatch, model_server(SCRIPT))
    target = repo / "r.json"
    target.write_text("{}")
    target.chmod(0o600)
    assert run(repo, "--json", str(target)) == 0
    assert target.stat().st_mode & 0o777 == 0o600
    assert not list(repo.glob(".r.json.*"))  # no temporary file left behind


def test_a_cache_path_that_cannot_work_is_refused_before_any_request(repo, model_server, monkeypatch, capsys):
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    (repo / "plain").write_text("x")
    assert run(repo, "--cache", str(repo / "plain")) == 2
    assert "--cache: it is not a directory" in capsys.readouterr().err
    assert server.request_count == 0


def test_a_cache_that_cannot_store_never_costs_the_answers(repo, model_server, monkeypatch, capsys):
    """The cache directory becomes unwritable during the run (a full disk, a read-only mount): the
    answers are still used, the run completes, and the summary says what was not stored."""
    from gate.run import cache as cache_module

    def failing(directory_fd, name, data):
        raise OSError(28, "No space left on device")

    point(monkeypatch, model_server(SCRIPT))
    monkeypatch.setattr(cache_module, "_replace_in", failing)
    assert run(repo, "--cache", str(repo / "cache"), "--json", str(repo / "r.json")) == 0
    out = capsys.readouterr().out
    assert "4 answer(s) could not be stored" in out and "No space left on device" in out
    assert [c["status"] for c in json.loads((repo / "r.json").read_text())["suites"][0]["cases"]] == [
        "passed"
    ] * 2


def test_dash_is_standard_output(repo, model_server):
    server = model_server(SCRIPT)
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.openai_base_url,
        "PYTHONPATH": str(Path(__file__).parents[2]),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "gate", "run", "--root", str(repo), "--quiet", "--json", "-"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    document, _, summary = proc.stdout.partition("\n")
    assert json.loads(document)["suites"][0]["name"] == "weather"
    assert "PASSED" in summary and not (repo / "-").exists()


def test_lone_surrogates_in_tool_calls_never_break_the_next_request(repo, model_server, monkeypatch, capsys):
    """The model's call name and arguments hold lone surrogates: the record keeps them, the next
    request carries U+FFFD instead (UTF-8 cannot hold them), and every output is written."""
    script = {
        "rules": [
            {
                "when": {"turn": 1},
                "tool_calls": [
                    {"name": "get\ud800weather", "arguments": {"city\ud800": "Paris \udfff"}},
                    {"name": "get_weather", "raw_arguments": '{"city": "\\ud800"}'},
                ],
            }
        ],
        "default": {"text": "18 degrees"},
    }
    server = model_server(script)
    point(monkeypatch, server)
    out = repo / "o"
    code = run(
        repo, "--json", str(out / "r.json"), "--junit", str(out / "r.xml"), "--markdown", str(out / "r.md")
    )
    captured = capsys.readouterr()
    assert code == 1 and "Traceback" not in captured.err
    assert server.request_count == 4  # two turns per case, no retries of an unencodable request
    trial = json.loads((out / "r.json").read_bytes())["suites"][0]["cases"][0]["trials"][0]
    assert trial["status"] == "failed" and trial["record"]["error"] is None
    assert trial["record"]["calls"][0]["name"] == "get\ud800weather"
    assert trial["record"]["calls"][1]["arguments"] == {"city": "\ud800"}
    assert "\ufffd" in json.dumps(server.requests[-1], ensure_ascii=False)


def test_an_overlong_directory_name_after_a_missing_one_is_refused_not_a_crash(tmp_path):
    """Found by the output-path fuzzer: a missing directory, '..', then a 300-byte name."""
    from gate.errors import InputError
    from gate.files.outputs import check_output

    path = f"{tmp_path}/missing/../{'a' * 300}/x"
    with pytest.raises(InputError, match="too long"):
        check_output(path)


def test_an_invalid_run_leaves_no_committed_file_at_its_output_paths(repo, model_server, monkeypatch, capsys):
    """A pull request commits a passing results.json (and reports) where the gate writes, and a suite
    that cannot load: the run stops on invalid input, and what a later step uploads from those paths is
    nothing, never the committed files. A file the checkout did not bring (an earlier run's) stays, with
    its permissions, until the run replaces it."""
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    out = repo / "out"
    out.mkdir()
    for name in ("r.json", "r.xml", "r.md", "r.html", "base.json"):
        (out / name).write_text('{"forged": true}')
    (repo / "suites" / "broken.suite.yaml").write_text("version: 1\nname: broken\ncases: [\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "forged"]):
        subprocess.run([*git, *args], check=True)
    (out / "earlier.json").write_text("{}")  # not the checkout's
    code = run(
        repo,
        *("--json", str(out / "r.json"), "--junit", str(out / "r.xml"), "--markdown", str(out / "r.md")),
        *("--html", str(out / "r.html"), "--baseline", "auto", "--baseline-json", str(out / "base.json")),
        *("--changed-since", "HEAD"),
    )
    assert code == 2, capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == ["earlier.json"]
    code = run(repo, "--json", str(out / "earlier.json"))
    assert code == 2 and (out / "earlier.json").read_text() == "{}"
    assert server.request_count == 0


def test_an_output_that_is_also_an_input_is_kept(repo, model_server, monkeypatch, capsys):
    """`--rerun-failed out/r.json --json out/r.json` reads what it then replaces; `report r.json --json
    r.json` re-renders in place."""
    point(monkeypatch, model_server(SCRIPT))
    results = repo / "r.json"
    assert run(repo, "--json", str(results)) == 0
    assert run(repo, "--rerun-failed", str(results), "--json", str(results)) == 0
    assert "no case failed" in capsys.readouterr().out
    assert cli_main(["report", str(results), "--json", str(results)]) == 0
    assert json.loads(results.read_text())["suites"]


def test_results_say_which_commit_and_run_they_were_made_for(repo, model_server, monkeypatch, capsys):
    """And `report --made-for-commit/--made-for-run` renders only such results: a job that merges or
    publishes them never renders a file a pull request committed."""
    point(monkeypatch, model_server(SCRIPT))
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
    ):
        subprocess.run(["git", "-C", str(repo), *args], check=True)
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    results = repo / "r.json"
    assert run(repo, "--json", str(results)) == 0
    assert json.loads(results.read_text())["settings"]["made_for"] == {"commit": head.strip(), "run": "4242"}
    same = ["--made-for-commit", head.strip(), "--made-for-run", "4242"]
    assert cli_main(["report", str(results), *same]) == 0
    capsys.readouterr()
    for other in (["--made-for-commit", "f" * 40], ["--made-for-run", "4241"]):
        assert cli_main(["report", str(results), *other, "--json", str(repo / "again.json")]) == 2
        err = capsys.readouterr().err
        assert f"were made for commit {head[:12]} in run 4242" in err and "not rendered" in err
        assert not (repo / "again.json").exists()
