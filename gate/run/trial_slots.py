"""The slots trials run in: at most ``size`` trials at once, started by priority.

The runner gives each trial the priority (trial number, case order), so a run starts every case's
first trial before any case's second: by the time a case's later trial could start, its earlier
ones have usually finished, and curtailed trials (``gate.verdict.curtailment``) can stop it from
starting at all. Among equal priorities the first to ask goes first.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class TrialSlots:
    def __init__(self, size: int) -> None:
        self.free = max(1, size)
        self._waiting: list[tuple[tuple[int, int], int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @asynccontextmanager
    async def slot(self, priority: tuple[int, int]) -> AsyncIterator[None]:
        await self._acquire(priority)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, priority: tuple[int, int]) -> None:
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        handed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), handed))
        try:
            await handed
        except asyncio.CancelledError:
            if handed.done() and not handed.cancelled():
                self._release()  # the slot was handed over as the waiter was cancelled: pass it on
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, handed = heapq.heappop(self._waiting)
            if not handed.done():  # a cancelled waiter's future is done: skip it
                handed.set_result(None)
                return
        self.free += 1
