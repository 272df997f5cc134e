"""Running what a ``run`` prepared: the head side, then (``--baseline auto``) the base side, on one
event loop, with SIGINT / SIGTERM stopping the run instead of raising (``StopOnSignal``): the trials
in flight are cancelled and the outputs are still written.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from gate.commands.plans import RunPlan
from gate.commands.run_prepare import Prepared
from gate.providers import make_provider
from gate.providers.base import Provider
from gate.results.outcomes import RunResults
from gate.run.base_side import run_base_side
from gate.run.progress import Progress
from gate.run.runner import RunControl, run_suites

T = TypeVar("T")


class StopOnSignal:
    """SIGINT / SIGTERM stop the run (``RunControl.stop``) instead of raising: the trials in flight
    are cancelled, and the outputs are still written. Further signals (an impatient second Ctrl-C)
    are absorbed until the outputs are on disk; the previous handlers come back afterwards."""

    SIGNALS = ((signal.SIGINT, "interrupted (SIGINT)"), (signal.SIGTERM, "terminated (SIGTERM)"))

    def __init__(self, control: RunControl):
        self.control = control
        self.loop: asyncio.AbstractEventLoop | None = None
        self.received: list[str] = []
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopOnSignal:
        for signum, _ in self.SIGNALS:
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except (ValueError, OSError):  # not the main thread: no signal handling
                pass
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)

    def _handle(self, signum: int, frame: object) -> None:
        names: dict[int, str] = {int(number): text for number, text in self.SIGNALS}
        name = names.get(signum, f"signal {signum}")
        self.received.append(name)
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.control.stop, name)

    def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """``work`` on an event loop of its own that a signal stops; a signal that came before the loop
        ran stops it at once."""

        async def stoppable() -> T:
            self.loop = asyncio.get_running_loop()
            if self.received:
                self.control.stop(self.received[0])
            try:
                return await work()
            finally:
                self.loop = None

        return asyncio.run(stoppable())


def provider_factory(timeout: float) -> Callable[[str], Provider]:
    """The providers a run's requests go to, each request within ``timeout`` seconds."""

    def make(name: str) -> Provider:
        return make_provider(name, timeout=timeout)

    return make


def run_sides(
    plan: RunPlan, prepared: Prepared, signals: StopOnSignal
) -> tuple[RunResults, RunResults | None]:
    """Run the head side, then (with --baseline auto, unless stopped) the base side."""

    async def both() -> tuple[RunResults, RunResults | None]:
        providers = provider_factory(plan.timeout)
        head = await run_suites(
            prepared.suites, prepared.options, providers, Progress(enabled=not plan.quiet)
        )
        side = prepared.base_side
        if side is None or prepared.control.stopped:
            return head, None
        progress = Progress(enabled=not plan.quiet, label=f"base side ({side.commit[:12]})")
        return head, await run_base_side(side, head, prepared.options, providers, progress)

    return signals.run(both)
