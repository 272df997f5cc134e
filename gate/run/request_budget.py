"""``--max-requests N``: a request budget that finishes what it starts.

Admission rule (docs/architecture.md, "The request budget"): cases are taken in order (suites as
given, cases in file order), all trials of a case together. A case starts when the budget that is
neither spent nor reserved by the cases already started covers the most requests it can need
(:func:`case_need`); it is then sure to finish. Otherwise it waits for the started cases to end
(each gives back what it did not use); with none left running it starts *alone* when what is left
covers what the most demanding trial so far used, per trial (the first case, with nothing measured
yet, starts with whatever is left); else the budget has run out for it. A started case draws on its
own reservation first, then on what nobody reserved. Requests sent never exceed N; only a case
started alone can be cut short, when it needs more than every trial before it did. With
``--baseline auto`` the head side also holds back each case's base-side reservation.

A case the budget cannot cover may still run from the response cache (an account that reserves
nothing and may not borrow): a cache hit costs nothing, the first request the cache does not hold
ends its trial as an error naming the budget. Pure: counting only; the runner does the waiting.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.suite.model import Case, Suite
from gate.suite.path_assertions import is_judged


@dataclass
class Account:
    """One started case's share of the budget: ``reserved`` requests for its ``trials`` trials,
    ``used`` so far; ``borrow``: whether it may take requests nobody reserved once its own are used."""

    reserved: int
    trials: int = 1
    borrow: bool = True
    used: int = 0  # requests sent (retries included)
    asked: int = 0  # requests the case's trials made, answered from the cache or not
    why: str = ""  # for a cache-only account: why the budget did not start the case

    @property
    def unused(self) -> int:
        return max(0, self.reserved - self.used)


class RequestBudget:
    """At most ``limit`` requests (None: no limit), shared out by reservations."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.sent = 0
        self._outstanding = 0  # reserved by open accounts and not used yet
        self._open = 0  # open accounts that reserve something
        # The most requests a trial of a finished case needed (per case, rounded up; cached ones too).
        self.most_per_trial = 0

    @property
    def free(self) -> int | None:
        """Requests neither sent nor reserved (None without a limit)."""
        if self.limit is None:
            return None
        return max(0, self.limit - self.sent - self._outstanding)

    @property
    def started(self) -> int:
        """Open accounts that hold a reservation: cases started and not finished."""
        return self._open

    def admit(self, need: int, trials: int, keep: int = 0) -> Account | None:
        """The account of a case whose ``trials`` trials can need at most ``need`` requests, when it
        may start now; None when it must wait for started cases to end (``started``) or, with none
        left, when the budget has run out for it. ``keep``: requests held back for the case's other
        side (``--baseline auto``: its base side runs later, out of what this side did not send);
        they are never used nor given back here."""
        free = self.free
        if free is None:
            return Account(0, trials)
        sides = 2 if keep else 1
        if need + keep > free and (self._open or not free or free < self.most_per_trial * trials * sides):
            return None
        if need + keep > free:  # alone: everything left, shared between the sides
            keep = min(keep, free // 2)
            need = free - keep
        self._outstanding += need + keep
        self._open += 1
        return Account(need, trials)

    def cache_only(self, why: str) -> Account:
        """An account for a case the budget did not start (``why``): no reservation, no borrowing."""
        return Account(0, borrow=False, why=why)

    def take(self, account: Account | None) -> bool:
        """One request for ``account`` (None: a request outside any case, which borrows): whether it
        may be sent. Counts it when it may."""
        if self.limit is not None:
            if account is not None and account.unused > 0:
                self._outstanding -= 1
            elif (account is not None and not account.borrow) or not self.free:
                return False
        self.sent += 1
        if account is not None:
            account.used += 1
        return True

    def close(self, account: Account) -> None:
        """The case is over: its unused reservation goes back to the budget."""
        needed = max(account.used, account.asked)  # what it took, cached answers included
        self.most_per_trial = max(self.most_per_trial, -(-needed // max(1, account.trials)))
        if self.limit is None or account.reserved == 0:
            return
        self._outstanding -= account.unused
        self._open -= 1
        account.reserved = account.used  # closed: nothing left to give back


def trial_need(suite: Suite, case: Case) -> int:
    """The most requests one trial of ``case`` can send without retries: an agent reply per turn
    (``max_turns``, over the whole episode, simulated user included), the simulated user's messages
    (at most its ``max_turns``: it is asked only while both may speak), and one judge request per
    judged check the case declares. A judged
    check over several values (a path selecting every call, a judged argument on a repeated call)
    asks once per value; those requests, and retries, come out of the unused turns first, then out
    of what nobody reserved."""
    need = case.max_turns
    if case.user is not None and suite.user_simulator is not None:
        need += case.user.max_turns
    return need + judged_checks(case)


def judged_checks(case: Case) -> int:
    """How many judged checks ``case`` declares (each asks the judge at least once per trial)."""
    expect = case.expect
    count = expect.output.judged + (expect.trajectory is not None)
    for calls in (expect.calls, *expect.alternatives):
        count += sum(1 for expected in calls.calls if expected.judged)
    for assertion in expect.asserts:
        count += is_judged(assertion)
    return count


def case_need(suite: Suite, case: Case, trials: int) -> int:
    """The reservation of a case: ``trials`` trials of :func:`trial_need`."""
    return trial_need(suite, case) * max(1, trials)
