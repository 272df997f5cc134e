"""Start-up paid once (DESIGN section 10, ``agent: {command, reuse: true}``): the long-lived processes of
one suite's agent program, each running one trial at a time.

A framework's import can take seconds, paid by every trial when every trial starts the program. With
``reuse: true`` a trial leases a process of its suite's pool (``lease``) and gives it back when done
(``give_back``); the trial is told by its first line, which carries the trial's own addresses and
token (``env``: the proxy's routes and the mock MCP server of that trial, as a fresh process gets them
in its environment). A process starts with addresses of its own that serve nothing
(``ProgramHost.open_process``): its model and MCP clients are built in each trial from that trial's
``env``, so every request is that trial's, and a request for no trial is seen.

**How many.** The first process starts alone (its start-up is not known yet). Once a process has run
a trial, the pool knows what a start costs (from spawning to its first model request, or its answer)
and what a trial costs once started; a trial that finds no idle process starts another only while
the trials waiting would wait longer for the running ones than a start takes (the waiting trials
times a trial's time over the processes running them), at most as many starting at once as there
are CPUs, at most ``most`` in all (the run's concurrency). A run replayed from the cache keeps one
process or two; a run waiting on the model grows to its concurrency.

**Replaced.** Every guarantee of a trial holds per trial: a process goes back to the pool only if it
answered within the trial's time limit and by the protocol, wrote nothing no message asked for, left
no process running (``CommandScope.others``: the program alone, whatever it started ended; where
the system cannot say, no process is kept), and sent no request outside its trial: one to the
addresses it started with, or for a trial that had ended, is refused, makes the trial it runs then
(if any) an error (one trial's work cannot be told from the next's), and the process is replaced.
Everything else ends it with all it started (``ProgramProcess.end``); a later trial starts a fresh
one. ``close`` closes every process's input, gives it ``EXIT_GRACE_S`` to exit, and ends it: its exit
status then is nobody's failure.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gate.programs.host import ProgramHost, TrialRoute
from gate.programs.model_proxy import TrialProxy
from gate.programs.process import ProgramProcess, program_environment
from gate.suite.model import Command
from gate.util.wording import plural

EXIT_GRACE_S = 2.0  # at the run's end, the time a process has to exit once its input is closed
_OBSERVED = 8  # the last trials whose times say what a trial costs


def cpu_count() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# Why a process that answered its trial by the protocol is not kept (``summary`` says these: the
# trial's result does not).
LEFT_RUNNING = "it left processes running after a trial"
UNASKED = "it wrote to its standard output, or ended, between trials"
NO_PROC = "the system does not show what a trial left running (no /proc)"


@dataclass
class Lease:
    """One long-lived process of a pool, and what the pool knows of it."""

    process: ProgramProcess
    home: TrialRoute  # the addresses it started with (they serve nothing)
    spawned: float  # time.monotonic()
    trials: int = 0  # trials begun
    requests: int = 0  # model requests its trials received
    answers: int = 0  # messages it answered
    mark: int = 0  # how much it had written to its standard error when its last trial ended
    broken: str = ""  # why it may not run another trial (said to the trial it runs, if any)
    proxy: TrialProxy | None = None  # the trial it runs now
    routes: list[str] = field(default_factory=list)  # its own and its trials' route ids

    @property
    def fresh(self) -> bool:
        """Whether it is in its first trial (or has none yet)."""
        return self.trials <= 1 and not self.answers and not self.requests

    def outside(self, kind: str, *, ended_trial: bool) -> None:
        """It sent a request (``kind``: "openai", "anthropic", "mcp") outside a running trial of its own."""
        what = "an MCP request" if kind == "mcp" else "a model request"
        if ended_trial:
            why = f"sent {what} for a trial that had ended (its work went on after its answer)"
        else:
            why = (
                f"sent {what} to the address it was started with, not to its trial's (reuse: true: build "
                "the model and MCP clients in each trial from the env of its first line)"
            )
        self.broken = self.broken or why
        if self.proxy is not None:  # the trial it runs now cannot be told apart from it
            self.proxy.episode.end("provider_error", f"the agent program {self.broken}")


class ProgramPool:
    """The long-lived processes of one suite's agent program (see the module doc); ``most``: how many
    at most (the run's concurrency)."""

    def __init__(self, host: ProgramHost, command: Command, root: Path, *, most: int, label: str):
        self.host, self.command, self.root, self.label = host, command, root, label
        self.most = max(1, most)
        self.cpus = cpu_count()
        self.leases: list[Lease] = []
        self.idle: list[Lease] = []
        self.waiting = 0
        self.changed = asyncio.Condition()
        self.start_s: float | None = None  # what a start costs, once one was seen through
        self.trial_s: deque[float] = deque(maxlen=_OBSERVED)  # what a trial costs once started
        self.started = 0
        self.trials = 0  # trials run
        self.replaced: Counter[str] = Counter()  # why processes were not kept (for ``summary``)
        self._ending: set[asyncio.Task[None]] = set()

    async def lease(self) -> Lease:
        """A process for one trial: an idle one, a new one when the growth rule says so, else the
        first that comes back. ``NotStarted`` when a new one could not be started."""
        async with self.changed:
            self.waiting += 1
            try:
                while True:
                    if self.idle:
                        lease = self.idle.pop()
                        for _ in range(3):  # what it wrote since its trial ended is read first
                            await asyncio.sleep(0)
                        why = lease.broken or self._unfit(lease)  # what it did while idle
                        if why:
                            self.replaced[why] += 1
                            self._end(lease)
                            continue
                        lease.trials += 1
                        return lease
                    if self._may_start():
                        lease = await self._spawn()
                        lease.trials += 1
                        return lease
                    await self.changed.wait()
            finally:
                self.waiting -= 1

    def _may_start(self) -> bool:
        """Whether a waiting trial starts another process (the module doc's rule)."""
        if len(self.leases) >= self.most:
            return False
        if not self.leases:
            return True
        starting = sum(1 for lease in self.leases if lease.fresh)
        if self.start_s is None or not self.trial_s or starting >= self.cpus:
            return False
        running = max(1, len(self.leases) - starting)
        wait = self.waiting * (sum(self.trial_s) / len(self.trial_s)) / running
        return wait > self.start_s

    async def _spawn(self) -> Lease:
        holder: list[Lease] = []

        def stray(what: str) -> None:
            if holder:
                holder[0].outside(what, ended_trial=False)

        home = await self.host.open_process(stray)
        env = program_environment(home, dict(os.environ))
        try:
            process = await ProgramProcess.start(self.command, self.root, env)
        except BaseException:
            self.host.forget([home.id])
            raise
        lease = Lease(process, home, time.monotonic(), routes=[home.id])
        holder.append(lease)
        self.leases.append(lease)
        self.started += 1
        return lease

    def late(self, lease: Lease) -> Callable[[str], None]:
        """What the host tells of a request for one of ``lease``'s trials after it ended."""
        return lambda what: lease.outside(what, ended_trial=True)

    async def give_back(
        self, lease: Lease, *, began: float, first_request: float | None, why_not: str
    ) -> None:
        """The trial of ``lease`` is over (it began at ``began``, its first model request came at
        ``first_request``); ``why_not``: why the process may not run another ("" when the trial went
        by the protocol). It is kept only if nothing else says otherwise (see the module doc)."""
        ended = time.monotonic()
        self.trials += 1
        if lease.trials == 1 and self.start_s is None:
            self.start_s = (first_request or ended) - lease.spawned
        self.trial_s.append(ended - (first_request if lease.trials == 1 and first_request else began))
        lease.proxy, lease.mark = None, lease.process.stderr_written
        quiet = lease.broken or self._unfit(lease)  # nothing in the trial's result says these
        async with self.changed:
            if why_not or quiet:
                if quiet and not why_not:
                    self.replaced[quiet] += 1
                self._end(lease)
            else:
                self.idle.append(lease)
            self.changed.notify_all()

    def _unfit(self, lease: Lease) -> str:
        """Why a process that answered its trial by the protocol still may not run another."""
        if lease.process.proc.returncode is not None or lease.process.wrote_unasked():
            return UNASKED
        others = lease.process.others()
        if others is None:
            return NO_PROC
        return LEFT_RUNNING if others else ""

    def _end(self, lease: Lease) -> None:
        """End ``lease``'s process with everything it started, in the background (``close`` waits)."""
        self.leases.remove(lease)
        self.host.forget(lease.routes)
        task = asyncio.ensure_future(lease.process.end())
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    async def close(self) -> None:
        """Close every process's input, give it ``EXIT_GRACE_S`` to exit, end it with all it started."""
        leases, self.idle = list(self.leases), []
        await asyncio.gather(
            *(lease.process.finish(EXIT_GRACE_S) for lease in leases), return_exceptions=True
        )
        for lease in leases:
            self._end(lease)
        if self._ending:
            await asyncio.gather(*self._ending, return_exceptions=True)

    def summary(self) -> str:
        """What the pool did, once it is closed: how many trials it ran in how many processes, and the
        processes replaced for what no trial's result says (what they left behind or sent, the
        system's limits), which make reuse pay less ("" when it ran no trial)."""
        if not self.trials:
            return ""
        ran = f"{plural(self.trials, 'trial')} in {plural(self.started, 'process', 'processes')}"
        said = f"the agent program {self.label}, reused: {ran}"
        if self.replaced:
            reasons = "; ".join(f"{plural(n, 'time')}: {why}" for why, n in self.replaced.items())
            said += f"; replaced after a trial {reasons}"
        return said
