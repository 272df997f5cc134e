"""One trial of an agent program: the JSON-lines protocol, its environment, and every way a program can
fail (its failure), with its process group ended and its output bounded; a program that could not be
started is an error (could not evaluate), not a failure."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from gate.programs.host import ProgramHost
from gate.programs.process import MAX_ANSWER_BYTES
from gate.programs.trial import run_program_trial
from gate.providers.base import ModelReply, ModelRequest
from gate.results.messages import AssistantMessage, UserMessage
from gate.results.run_record import RunRecord
from gate.scoring.trial import score_trial
from gate.suite.model import Case, Command, Judge, SimulatedUser, Suite
from gate.suite.path_assertions import select
from gate.suite.pricing import BUILT_IN
from gate.util.redact import Redactor
from tests.builders import case as make_case
from tests.builders import suite as make_suite


def program_suite(tmp_path: Path, code: str, *, timeout_s: float = 20.0) -> Suite:
    (tmp_path / "agent.py").write_text(textwrap.dedent(code), encoding="utf-8")
    command = Command((sys.executable, "agent.py"), "agent program", timeout_s=timeout_s)
    base = make_suite(system=None)
    return dataclasses.replace(
        base, agent=dataclasses.replace(base.agent, program=command), commands=(command,)
    )


async def _simulator(request: ModelRequest) -> ModelReply:
    said = sum(1 for m in request.messages if isinstance(m, AssistantMessage))
    return ModelReply("And tomorrow?" if said == 1 else "###STOP###")


def trial(suite: Suite, case: Case, index: int = 0) -> RunRecord:
    async def main() -> RunRecord:
        host = ProgramHost(Redactor(()))
        try:
            record, _proxy = await run_program_trial(
                host, suite, case, index, _simulator, root=Path(suite.path).parent, prices=BUILT_IN
            )
        finally:
            await host.close()
        return record

    return asyncio.run(main())


def run(tmp_path: Path, code: str, case: Case | None = None, **options: Any) -> RunRecord:
    suite = dataclasses.replace(program_suite(tmp_path, code, **options), path=str(tmp_path / "s.suite.yaml"))
    return trial(suite, case or make_case("c1", "Weather in Paris?"))


ECHO = """
    import json, os, sys
    for line in sys.stdin:
        message = json.loads(line)
        print(json.dumps({"content": "got " + json.dumps(message, sort_keys=True)}), flush=True)
"""


def test_the_first_line_carries_case_trial_vars_and_the_earlier_turns(tmp_path: Path) -> None:
    case = dataclasses.replace(
        make_case("c2", "x"),
        conversation=(UserMessage("Hi"), AssistantMessage("Which city?"), UserMessage("Paris")),
        vars={"tier": "gold"},
    )
    record = run(tmp_path, ECHO, case)
    sent = json.loads(record.output.removeprefix("got "))
    assert sent == {
        "role": "user",
        "content": "Paris",
        "suite": "weather",
        "case": "c2",
        "trial": 0,
        "vars": {"tier": "gold"},
        "history": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Which city?"}],
    }
    assert record.stop_reason == "final_answer" and record.input == "Paris"
    assert [m.role for m in record.messages] == ["user", "assistant", "user", "assistant"]
    assert record.messages[1] == AssistantMessage("Which city?", given=True)


def test_a_simulated_user_keeps_one_process_and_plain_text_answers_count(tmp_path: Path) -> None:
    code = """
        import os, sys
        for number, line in enumerate(sys.stdin, 1):
            print(f"answer {number} from process {os.getpid()}", flush=True)
    """
    case = dataclasses.replace(make_case("c3", "Weather now?"), user=SimulatedUser(goal="know the weather"))
    base = dataclasses.replace(program_suite(tmp_path, code), path=str(tmp_path / "s.suite.yaml"))
    suite = dataclasses.replace(base, user_simulator=Judge("openai", "sim"))
    record = trial(suite, case)
    answers = [m.content for m in record.messages if isinstance(m, AssistantMessage)]
    assert [a.split(" from ")[0] for a in answers] == ["answer 1", "answer 2"]
    assert len({a.split(" from ")[1] for a in answers}) == 1  # the same process for the whole episode
    assert record.stop_reason == "user_done"
    assert [m.simulated for m in record.messages if isinstance(m, UserMessage)] == [False, True]


def test_no_secret_and_no_real_provider_setting_reaches_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key-1234567890")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-real")
    monkeypatch.setenv("DATABASE_PASSWORD", "hunter2hunter2")
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    monkeypatch.setenv("INPUT_OPENAI_BASE_URL", "https://user:pass@proxy.example/v1")  # the action's
    for name, value in (("COUNT", "1"), ("KEY_0", "safe.directory"), ("VALUE_0", "/github/workspace")):
        monkeypatch.setenv(f"GIT_CONFIG_{name}", value)  # as the action sets them for its own git
    code = """
        import json, os, sys
        for line in sys.stdin:
            print(json.dumps({"content": json.dumps(dict(os.environ))}), flush=True)
    """
    env = json.loads(run(tmp_path, code).output)
    assert "DATABASE_PASSWORD" not in env and "OPENAI_ORG_ID" not in env and env["PLAIN_SETTING"] == "kept"
    assert "INPUT_OPENAI_BASE_URL" not in env
    # A count without its keys breaks every git call ("missing config key"): the whole group goes.
    assert not [name for name in env if name.startswith("GIT_CONFIG_")]
    assert env["OPENAI_API_KEY"] == env["ANTHROPIC_API_KEY"] != "sk-real-key-1234567890"
    assert env["OPENAI_BASE_URL"].startswith("http://127.0.0.1:") and env["OPENAI_BASE_URL"].endswith(
        "/openai/v1"
    )
    assert env["TOOL_EVAL_GATE_MCP_URL"].endswith("/mcp") and env["PYTHONUNBUFFERED"] == "1"
    assert env["PATH"] == os.environ["PATH"]  # the program is what PATH finds, as for the team's shell


@pytest.mark.parametrize(
    ("code", "crash"),
    [
        (
            "import os, sys, urllib.request\nsys.stdin.readline()\n"
            "try:\n    urllib.request.urlopen(os.environ['OPENAI_BASE_URL'] + '/chat/completions', b'{}')\n"
            "except Exception:\n    pass\n"
            "sys.stderr.write('boom: the config is missing\\n'); sys.exit(3)",
            "exited with code 3 without answering message 1",
        ),
        (
            "import sys\nfor line in sys.stdin:\n    print('{\"answer\": 1}', flush=True)",
            'a JSON object needs a string "content"',
        ),
        (
            "import sys\nsys.stdin.readline()\nsys.stdout.write('x' * (MAX + 10))\nsys.stdout.flush()",
            "longer than",
        ),
        (
            "import sys\nfor line in sys.stdin:\n    print('done', flush=True)\nsys.exit(1)",
            "exited with code 1 after its last answer",
        ),
        ("import time\ntime.sleep(30)", "did not finish within 1 s (timeout_s)"),
    ],
    ids=["exits-before-answering", "off-protocol", "line-too-long", "exits-non-zero-after", "times-out"],
)
def test_a_failing_program_is_the_agent_s_failure_with_its_standard_error(
    tmp_path: Path, code: str, crash: str
) -> None:
    record = run(tmp_path, code.replace("MAX", str(MAX_ANSWER_BYTES)), timeout_s=1 if "sleep" in code else 20)
    assert record.stop_reason == "agent_crashed" and record.error is None
    assert crash in record.extra["agent_crashed"]
    result = score_trial(make_suite(), make_case("c1", "x"), record, 0, {})
    assert result.status == "failed" and result.failures[-1].reason == "agent_crashed"
    if "boom" in code:  # its standard error is its log, apart from what was said
        assert "boom: the config is missing" in record.log
        assert all("boom" not in str(m.content) for m in record.messages)


def start(tmp_path: Path, *argv: str) -> RunRecord:
    suite = dataclasses.replace(program_suite(tmp_path, ""), path=str(tmp_path / "s.suite.yaml"))
    command = Command(argv, "agent program")
    suite = dataclasses.replace(suite, agent=dataclasses.replace(suite.agent, program=command))
    return trial(suite, make_case("c1", "hi"))


@pytest.mark.parametrize(
    ("make", "argv", "why"),
    [
        (None, ("no-such-agent-binary",), "'no-such-agent-binary' is not on PATH"),
        (None, ("bin/agent",), "'bin/agent': no such file in the repository"),
        (
            "#!/usr/bin/env python3\n",  # written without the executable bit
            ("bin/agent", "--fast"),
            "'bin/agent': Permission denied; make it executable (with a #! line) or put its interpreter "
            "first: [python3, bin/agent]",
        ),
        ("#!/no/such/interpreter\n", ("bin/agent",), "'bin/agent': the interpreter its #! line names"),
    ],
    ids=["not-on-path", "no-such-file", "not-executable", "no-interpreter"],
)
def test_a_program_that_cannot_start_is_an_error_naming_the_command_and_why(
    tmp_path: Path, make: str | None, argv: tuple[str, ...], why: str
) -> None:
    # Never started, it did nothing wrong as an agent: the trial could not be evaluated.
    if make is not None:
        (tmp_path / "bin").mkdir()
        (tmp_path / "bin" / "agent").write_text(make)
        if "interpreter" in make:
            (tmp_path / "bin" / "agent").chmod(0o755)
    record = start(tmp_path, *argv)
    assert record.stop_reason == "provider_error" and "agent_crashed" not in record.extra
    assert record.error is not None and record.error.startswith(
        f"the agent program could not be started: {why}"
    )
    result = score_trial(make_suite(), make_case("c1", "x"), record, 0, {})
    assert result.status == "error"
    assert [f.reason for f in result.failures] == ["provider_error"]


def test_the_process_group_ends_with_the_trial_and_a_lingering_program_is_not_a_failure(
    tmp_path: Path,
) -> None:
    code = f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(tmp_path / "child.pid")!r}, "w").write(str(child.pid))
        sys.stdin.readline()
        print("ok", flush=True)
        time.sleep(60)  # never exits by itself
    """
    started = time.monotonic()
    record = run(tmp_path, code)
    assert record.stop_reason == "final_answer" and record.output == "ok"
    assert time.monotonic() - started < 15
    pid = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the program's child outlived the trial")


def test_the_trial_token_is_masked_in_the_standard_error_kept(tmp_path: Path) -> None:
    code = """
        import os, sys
        sys.stderr.write("using key " + os.environ["OPENAI_API_KEY"] + "\\n")
        sys.stdin.readline()
        print("ok", flush=True)
    """
    record = run(tmp_path, code)
    assert "using key ***" in record.log
    # What was said last is the program's answer, not its log (a path assertion reads the same as for
    # the model agent).
    assert select(record.as_path_root(), "messages[-1].content") == ["ok"]
