"""Start-up paid once (``reuse: true``): the trials of a suite share long-lived processes of its program,
each trial told by its first line (its own addresses and token in ``env``), its requests and its log
its own; a process that sends a request outside its trial, leaves a process running, writes a line no
message asked for, crashes or runs out of time is replaced, and every guarantee of a trial holds."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

from gate.programs.host import ProgramHost
from gate.programs.model_proxy import TrialProxy
from gate.programs.pool import LEFT_RUNNING, Lease, ProgramPool
from gate.programs.trial import run_program_trial
from gate.providers.base import ModelReply, ModelRequest
from gate.results.messages import ToolCall, UserMessage
from gate.results.run_record import RunRecord
from gate.suite.model import Command, Suite
from gate.suite.pricing import BUILT_IN
from gate.util.redact import Redactor
from tests.builders import case as make_case
from tests.builders import suite as make_suite

# A program as a framework adapter is written: each trial's clients built from the env of its first
# line (here plain HTTP), its answers "<pid> <the model's reply>", a log line per trial, and what the
# test asks of it in the case's input ("leave", "twice", "late", "crash", "hang", "early", "stale",
# "remember").
PROGRAM = """
import json, os, subprocess, sys, threading, time, urllib.request

def ask(env, text):
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]}).encode()
    headers = {"content-type": "application/json", "authorization": "Bearer " + env["OPENAI_API_KEY"]}
    request = urllib.request.Request(env["OPENAI_BASE_URL"] + "/chat/completions", body, headers)
    return json.load(urllib.request.urlopen(request))["choices"][0]["message"]["content"]

started = dict(os.environ)
memo, previous, env = {}, None, None
for line in sys.stdin:
    message = json.loads(line)
    with open("lines.jsonl", "a") as lines:
        lines.write(line)
    previous, env = env, {**started, **message.get("env", {})}
    text = message["content"]
    if text == "remember" and text in memo:  # an earlier trial's answer, without asking the model
        print(json.dumps({"content": memo[text]}), flush=True)
        continue
    if text == "stale":  # the client of the trial before (its token and addresses)
        env = previous
    if text == "crash":
        sys.exit(1)
    if text == "hang":
        time.sleep(60)
    if text == "early":
        env = started  # the client of its start, not the trial's
    reply = ask(env, text)
    print(f"log of {message.get('case')}", file=sys.stderr, flush=True)
    if text == "leave":
        child = subprocess.Popen(["sleep", "300"], start_new_session=True)
        open("child.pid", "w").write(str(child.pid))
    extra = json.dumps({"content": "and once more"}) + "\\n" if text == "twice" else ""
    sys.stdout.write(json.dumps({"content": f"{os.getpid()} {reply}"}) + "\\n" + extra)  # one write
    sys.stdout.flush()
    memo[text] = f"{os.getpid()} {reply}"
    if text == "late":  # work that goes on after the answer, into the next trial
        threading.Timer(0.5, ask, (env, "late")).start()
    if text == "leave-later":  # a process started once the trial is over, while the program waits
        def leave():
            child = subprocess.Popen(["sleep", "300"], start_new_session=True)
            open("child.pid", "w").write(str(child.pid))
        threading.Timer(0.3, leave).start()
"""


def reused_suite(tmp_path: Path, *, timeout_s: float = 20.0) -> Suite:
    (tmp_path / "agent.py").write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    command = Command((sys.executable, "agent.py"), "agent program", timeout_s=timeout_s, reuse=True)
    base = make_suite(system=None)
    return dataclasses.replace(
        base, agent=dataclasses.replace(base.agent, program=command), commands=(command,)
    )


async def _reply(request: ModelRequest) -> ModelReply:
    said = next(m.content for m in reversed(request.messages) if isinstance(m, UserMessage))
    if said == "slow-reply":
        await asyncio.sleep(1.0)
    if said == "remember":  # the model calls a tool, then (its result not asked for here) is done
        return ModelReply(f"reply to {said}", tool_calls=(ToolCall("call-1", "lookup", "{}"),))
    return ModelReply(f"reply to {said}")


def run_trials(
    tmp_path: Path, inputs: list[str], *, most: int = 1, timeout_s: float = 20.0, pause: float = 0.0
) -> tuple[list[tuple[RunRecord, TrialProxy]], ProgramPool]:
    """The trials of one case per input, one after another (``pause`` seconds apart), in one pool."""
    suite = reused_suite(tmp_path, timeout_s=timeout_s)
    command = suite.agent.program
    assert command is not None

    async def main() -> tuple[list[tuple[RunRecord, TrialProxy]], ProgramPool]:
        host = ProgramHost(Redactor(()))
        pool = ProgramPool(host, command, tmp_path, most=most, label="`agent.py` (s)")
        done = []
        try:
            for number, text in enumerate(inputs, 1):
                await asyncio.sleep(pause if number > 1 else 0.0)
                case = make_case(f"c{number}", text)
                done.append(
                    await run_program_trial(
                        host, suite, case, 0, _reply, root=tmp_path, prices=BUILT_IN, pool=pool
                    )
                )
        finally:
            await pool.close()
            await host.close()
        return done, pool

    return asyncio.run(main())


def pid(record: RunRecord) -> str:
    return record.output.split()[0]


def lines(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / "lines.jsonl").read_text().splitlines()]


def test_trials_share_a_process_each_told_by_its_line_with_its_own_requests_and_log(tmp_path: Path) -> None:
    done, pool = run_trials(tmp_path, ["one", "two", "three"])
    records = [record for record, _ in done]
    assert [r.stop_reason for r in records] == ["final_answer"] * 3
    assert len({pid(r) for r in records}) == 1 and pool.started == 1  # the start-up paid once
    assert [r.output.split(" ", 1)[1] for r in records] == ["reply to one", "reply to two", "reply to three"]
    # Each trial's requests are its own: one exchange each, the one its line asked for.
    assert [len(proxy.exchanges) for _, proxy in done] == [1, 1, 1]
    # Each line says its trial and carries its own addresses and token.
    sent = lines(tmp_path)
    assert [line["case"] for line in sent] == ["c1", "c2", "c3"]
    tokens = {line["env"]["OPENAI_API_KEY"] for line in sent}
    urls = {line["env"]["OPENAI_BASE_URL"] for line in sent}
    assert len(tokens) == len(urls) == 3
    assert all(
        set(line["env"])
        == {
            "OPENAI_BASE_URL",
            "OPENAI_API_KEY",
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            "TOOL_EVAL_GATE_MCP_URL",
        }
        for line in sent
    )
    # Each log is what the process wrote during that trial.
    assert [r.log for r in records] == ["log of c1", "log of c2", "log of c3"]
    assert pool.summary() == "the agent program `agent.py` (s), reused: 3 trials in 1 process"


def test_a_client_built_at_start_reaches_no_trial(tmp_path: Path) -> None:
    """A request to the addresses the process started with belongs to no trial: refused, the trial an
    error that says what to do, the process replaced."""
    done, pool = run_trials(tmp_path, ["early", "one"])
    (early, _), (one, _) = done
    assert early.stop_reason == "provider_error" and early.error is not None
    assert "to the address it was started with, not to its trial's" in early.error
    assert "build the model and MCP clients in each trial from the env of its first line" in early.error
    assert one.stop_reason == "final_answer" and pool.started == 2


def test_work_that_goes_on_after_its_answer_makes_the_next_trial_an_error(tmp_path: Path) -> None:
    """A request for a trial that has ended comes during the next one: that one cannot be told apart
    from it (an error), and the process is replaced."""
    done, pool = run_trials(tmp_path, ["late", "slow-reply", "three"])
    (late, _), (slow, slow_proxy), (three, _) = done
    assert late.stop_reason == "final_answer"
    assert slow.stop_reason == "provider_error" and slow.error is not None
    assert "sent a model request for a trial that had ended" in slow.error
    assert three.stop_reason == "final_answer" and pid(three) != pid(late)
    assert [e.request.messages[-1].content for e in slow_proxy.exchanges] == ["slow-reply"]  # not "late"


def test_a_client_of_the_trial_before_reaches_no_trial(tmp_path: Path) -> None:
    """A PR author's attempt to make one trial's requests count for another: the second trial's request
    sent with the first trial's token to the first trial's addresses is refused (that trial has ended),
    counts for neither, the second trial is an error, and the process is replaced."""
    done, pool = run_trials(tmp_path, ["one", "stale", "three"])
    (one, one_proxy), (stale, stale_proxy), (three, _) = done
    assert one.stop_reason == "final_answer" and len(one_proxy.exchanges) == 1
    assert stale.stop_reason == "provider_error" and "for a trial that had ended" in (stale.error or "")
    assert stale_proxy.exchanges == [] and stale.calls == ()
    assert three.stop_reason == "final_answer" and pid(three) != pid(one)


def test_what_a_process_remembers_cannot_make_up_a_call(tmp_path: Path) -> None:
    """A PR author's attempt to carry a passing trial into the next: the process answers the second
    trial from its memory of the first, without asking the model. The answer's text is the same (the
    program's own), but the second trial's record has no model reply and no call: the calls a trial is
    scored on are those of its own requests' replies."""
    done, pool = run_trials(tmp_path, ["remember", "remember"])
    (first, _), (second, second_proxy) = done
    assert [c.name for c in first.calls] == ["lookup"] and first.turns == 1
    assert second.output == first.output and pid(second) == pid(first)  # the same process, remembering
    assert second.calls == () and second.turns == 0 and second_proxy.exchanges == []


def test_a_process_a_trial_left_running_is_ended_with_its_program_which_is_replaced(tmp_path: Path) -> None:
    done, pool = run_trials(tmp_path, ["leave", "two"])
    (leave, _), (two, _) = done
    assert leave.stop_reason == two.stop_reason == "final_answer"
    assert pid(two) != pid(leave)  # the next trial never runs beside what the first one left
    child = int((tmp_path / "child.pid").read_text())
    assert not _alive(child)
    assert f"1 time: {LEFT_RUNNING}" in pool.summary()


def test_a_process_started_between_trials_is_seen_before_the_next_trial(tmp_path: Path) -> None:
    """What a program starts while it waits for its next trial: the process is not given another
    trial (the next one runs in a fresh process, never beside it), and it ends with its program."""
    done, pool = run_trials(tmp_path, ["leave-later", "two"], pause=1.5)
    (first, _), (two, _) = done
    assert first.stop_reason == two.stop_reason == "final_answer"
    assert pid(two) != pid(first)
    assert not _alive(int((tmp_path / "child.pid").read_text()))
    assert f"1 time: {LEFT_RUNNING}" in pool.summary()


def test_a_line_no_message_asked_for_replaces_the_process(tmp_path: Path) -> None:
    """A line written after the answer (here in the same write): never the next trial's answer. (One
    written later, once the next trial's line is sent, cannot be told from that trial's answer: the
    guide says a program writes one line per message.)"""
    done, _ = run_trials(tmp_path, ["twice", "two"])
    (twice, _), (two, _) = done
    assert twice.output.endswith("reply to twice") and two.output.endswith("reply to two")
    assert pid(two) != pid(twice)


def test_failures_in_a_reused_process_are_the_agent_s_and_it_is_replaced(tmp_path: Path) -> None:
    """Once a process ran a trial it had started: its crash is the agent's failure, not "could not
    start"; a trial over its time limit too. Either way the next trial gets a fresh process."""
    done, pool = run_trials(tmp_path, ["one", "crash", "hang", "four"], timeout_s=3)
    records = [record for record, _ in done]
    assert [r.stop_reason for r in records] == [
        "final_answer",
        "agent_crashed",
        "agent_crashed",
        "final_answer",
    ]
    assert "exited with code 1" in records[1].extra["agent_crashed"]
    assert "did not finish within 3 s" in records[2].extra["agent_crashed"]
    assert pool.started == 3 and "replaced" not in pool.summary()  # the failures say themselves


def test_a_fresh_process_that_ends_before_its_first_request_did_not_start(tmp_path: Path) -> None:
    done, _ = run_trials(tmp_path, ["crash"])
    [(record, _)] = done
    assert record.stop_reason == "provider_error" and record.error is not None
    assert record.error.startswith("the agent program ended before its first model request")


def test_the_pool_grows_only_while_waiting_would_cost_more_than_a_start(tmp_path: Path) -> None:
    suite = reused_suite(tmp_path)
    assert suite.agent.program is not None
    pool = ProgramPool(ProgramHost(Redactor(())), suite.agent.program, tmp_path, most=8, label="x")
    pool.cpus = 2
    pool.waiting = 6
    assert pool._may_start()  # the first one
    lease = Lease(None, None, 0.0, trials=1)  # type: ignore[arg-type]
    pool.leases = [lease]
    assert not pool._may_start()  # what a start costs is not known yet
    lease.answers, pool.start_s = 1, 3.0
    pool.trial_s.extend([0.05, 0.05])  # replayed: 6 waiting trials take 0.3 s on the one process
    assert not pool._may_start()
    pool.trial_s.extend([5.0] * 8)  # waiting on the model: 30 s for them, more than a start
    assert pool._may_start()
    pool.leases += [Lease(None, None, 0.0, trials=1), Lease(None, None, 0.0, trials=1)]  # type: ignore[arg-type]
    assert not pool._may_start()  # as many starting as there are CPUs
    pool.leases = [lease] * 8
    assert not pool._may_start()  # the run's concurrency


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
