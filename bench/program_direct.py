"""The benchmark's direct run of the agent program: the same cases at the same concurrency as the gate
runs them, each a process of ``bench/program_agent.py`` talking to the model itself (no gate).

Each process is started as the gate starts a program: by this interpreter, in a session of its own
(``start_new_session``). The session matters to the measurement: where the kernel groups processes by
session for CPU time (``sched_autogroup``, on by default on many Linux systems), a process in its own
session gets a share of the CPU of its own against the other sessions on the machine, while processes
of one session share one; on a loaded machine a program run in the benchmark's session was slower than
the same program run by the gate for that reason alone.

    python bench/program_direct.py CASES --concurrency N     # OPENAI_BASE_URL / OPENAI_API_KEY set
    python bench/program_direct.py CASES --one-process --startup 3   # every case in one process

Prints one JSON line: the cases run, the answers that came, the wall seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

AGENT = Path(__file__).resolve().parent / "program_agent.py"


async def case(number: int, slots: asyncio.Semaphore) -> bool:
    async with slots:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(AGENT),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            start_new_session=True,  # as the gate starts it (see the module doc)
        )
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((json.dumps({"role": "user", "content": f"case {number}"}) + "\n").encode())
        await process.stdin.drain()
        line = await process.stdout.readline()
        process.stdin.close()
        await process.wait()
        return json.loads(line)["content"].startswith("The value is")


async def one_process(cases: int, startup: float) -> list[bool]:
    """Every case in one process of the program, one after another (its start-up paid once)."""
    argv = [str(AGENT), "--startup", str(startup)] if startup else [str(AGENT)]
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    answered = []
    for number in range(cases):
        process.stdin.write((json.dumps({"role": "user", "content": f"case {number}"}) + "\n").encode())
        await process.stdin.drain()
        answered.append(json.loads(await process.stdout.readline())["content"].startswith("The value is"))
    process.stdin.close()
    await process.wait()
    return answered


async def main(cases: int, concurrency: int) -> dict[str, object]:
    slots = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    answered = await asyncio.gather(*(case(n, slots) for n in range(cases)))
    return {"cases": cases, "answered": sum(answered), "wall": time.perf_counter() - started}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", type=int)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--one-process", action="store_true", help="every case in one process, in turn")
    parser.add_argument("--startup", type=float, default=0.0, help="CPU seconds the program spends starting")
    args = parser.parse_args()
    if args.one_process:
        started = time.perf_counter()
        answered = asyncio.run(one_process(args.cases, args.startup))
        result = {"cases": args.cases, "answered": sum(answered), "wall": time.perf_counter() - started}
        print(json.dumps(result))
    else:
        print(json.dumps(asyncio.run(main(args.cases, args.concurrency))))
