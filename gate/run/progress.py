"""Progress while running, on stderr: a live line on a terminal, plain periodic lines in CI logs.

It counts cases, as the closing summary does (a case is counted once its trials are done, with the
status its reducer gives), and, when a case runs several trials, the trials done as well. On a TTY
(and not in CI) one line is redrawn in place with ``\\r``::

    [ 8/15 cases, 37/60 trials] 5 passed 2 failed 1 errors  12.3 s

The base side of ``--baseline auto`` reports the same way, its lines labelled
(``base side (1a2b3c4d5e6f): [ 3/15 cases] ...``).

Otherwise (``CI=true`` or output redirected) a plain line is printed every ``interval`` seconds or
every 10 % of the trials, whichever comes first, and once at the end.

Nothing stays silent while something starts: the line is drawn (or the plan printed) as the run
starts, and what is starting (an agent program's first processes, whose imports can take seconds)
is said at once (``starting``) and kept on the live line until it has finished a trial
(``started``). ``tick`` (every second, from the runner) redraws the live line, so its clock moves,
and in CI prints the line once ``interval`` seconds passed without one.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TextIO


def plan_text(trials_per_case: Sequence[int]) -> str:
    """``20 cases x 5 trials = 100 trials``; ``3 cases, 1-5 trials each = 7 trials`` when they differ."""
    cases, total = len(trials_per_case), sum(trials_per_case)
    counts = sorted(set(trials_per_case))
    if not counts:
        return "0 cases"
    each = f"{counts[0]} trial{'s' if counts[0] != 1 else ''}"
    shape = f" x {each}" if len(counts) == 1 else f", {counts[0]}-{counts[-1]} trials each"
    return f"{cases} case{'s' if cases != 1 else ''}{shape} = {total} trial{'s' if total != 1 else ''}"


class Progress:
    """Counts finished cases by status and finished trials, and reports them. ``start`` /
    ``trial_done`` / ``case_done`` / ``finish``."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        live: bool | None = None,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        enabled: bool = True,
        label: str = "",
    ):
        self.stream = stream if stream is not None else sys.stderr
        if live is None:
            isatty = getattr(self.stream, "isatty", None)
            live = bool(isatty and isatty()) and os.environ.get("CI", "").lower() not in ("true", "1")
        self.live = live
        self.interval = interval
        self.clock = clock
        self.enabled = enabled
        self.prefix = f"{label}: " if label else ""  # which side of a comparison, when there are two
        self.total = 0  # trials
        self.done = 0
        self.cases = 0
        self.cases_done = 0
        self.several = False  # some case runs more than one trial: the line counts trials too
        self.counts = {"passed": 0, "failed": 0, "error": 0}  # cases
        self._started = clock()
        self._last_print = self._started
        self._last_fraction = 0.0
        self._last_live = 0.0
        self._starting: dict[str, str] = {}  # what is starting and has not finished a trial yet
        self._said: set[str] = set()  # every key ``starting`` was told, once

    def start(self, trials_per_case: Sequence[int]) -> None:
        """``trials_per_case``: the number of trials of each case that will run."""
        self.total = sum(trials_per_case)
        self.cases = len(trials_per_case)
        self.several = any(n > 1 for n in trials_per_case)
        self._started = self._last_print = self.clock()
        if self.enabled and not self.live:
            self._write(f"{self.prefix}running {plan_text(trials_per_case)}\n")
        elif self.enabled:
            self._draw(self._started)

    def starting(self, key: str, what: str) -> None:
        """``what`` (under ``key``, e.g. a suite's path) is starting: said at once (once a key), and on
        the live line until ``started(key)``."""
        if key in self._said:
            return
        self._said.add(key)
        self._starting[key] = what
        if not self.enabled:
            return
        if self.live:
            self._draw(self.clock())
        else:
            self._write(f"{self.prefix}starting {what}\n")

    def started(self, key: str) -> None:
        """What ``starting(key)`` said has finished a trial: the live line stops saying it."""
        self._starting.pop(key, None)

    def note(self, text: str) -> None:
        """A line of its own (on a terminal above the live line, which is drawn again)."""
        if not self.enabled:
            return
        if self.live:
            self._write("\r\x1b[K" + self.prefix + text + "\n")
            self._draw(self.clock())
        else:
            self._write(self.prefix + text + "\n")

    def tick(self) -> None:
        """Called every second while the run goes: the live line's clock moves; in CI a line is printed
        when ``interval`` seconds passed without one."""
        if not self.enabled:
            return
        now = self.clock()
        if self.live:
            self._draw(now)
        elif now - self._last_print >= self.interval:
            self._last_print = now
            self._write(self.line(now) + "\n")

    def case_done(self, status: str) -> None:
        """A case's trials are all done and ``status`` is its result's (the one the summary counts);
        called before its last ``trial_done``, so the line that trial draws counts the case."""
        self.cases_done += 1
        self.counts[status] = self.counts.get(status, 0) + 1

    def trial_done(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = self.clock()
        if self.live:
            if now - self._last_live >= 0.05 or self.done == self.total:  # redraw at most 20 times a second
                self._draw(now)
            return
        fraction = self.done / self.total if self.total else 1.0
        if now - self._last_print >= self.interval or fraction - self._last_fraction >= 0.1:
            self._last_print, self._last_fraction = now, fraction
            self._write(self.line(now) + "\n")

    def finish(self) -> None:
        self._starting.clear()
        if not self.enabled:
            return
        now = self.clock()
        if self.live:
            self._write("\r" + self.line(now) + "\x1b[K\n")
        elif self._last_fraction < 1.0 or self.done == 0:
            self._write(self.line(now) + "\n")

    def line(self, now: float | None = None) -> str:
        elapsed = (self.clock() if now is None else now) - self._started
        done = f"{self.cases_done:>{len(str(self.cases))}}/{self.cases} cases"
        if self.several:
            done += f", {self.done:>{len(str(self.total))}}/{self.total} trials"
        # On a terminal the line says what is starting; a CI log said it on a line of its own.
        starting = f"; starting {', '.join(self._starting.values())}" if self._starting and self.live else ""
        return (
            f"{self.prefix}[{done}] {self.counts['passed']} passed {self.counts['failed']} failed "
            f"{self.counts['error']} errors  {elapsed:.1f} s{starting}"
        )

    def _draw(self, now: float) -> None:
        self._last_live = now
        self._write("\r" + self.line(now) + "\x1b[K")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # closed or broken stream: progress is not worth failing for
            self.enabled = False
