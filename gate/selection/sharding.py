"""Deterministic ``--shard INDEX/COUNT`` split of the cases of a run across CI matrix jobs. Pure.

Every job of a matrix loads the same suites and must agree, without talking to each other, on which
cases each one runs. Cases are ordered by a hash of ``suite path + case id`` (so the split does not
depend on the order in which files were found) and dealt out greedily to the least loaded shard,
weighing a case by its number of trials. Every case lands in exactly one shard, and shard loads
differ by at most one case's weight.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace

from gate import limits
from gate.errors import InputError, Problem
from gate.suite.model import Case, Suite
from gate.util.escape import show

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def shard_of(text: str) -> tuple[int, int] | None:
    """``"2/4"`` -> ``(2, 4)``: the 1-based shard index and the shard count; None for any other text."""
    match = _SHARD.match(text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> ``(2, 4)``: the 1-based shard index and the shard count.

    Raises ``InputError`` unless ``1 <= index <= count``."""
    parsed = shard_of(text)
    if parsed is None:
        raise _shard_error(text, "expected INDEX/COUNT such as 2/4", "e.g. --shard 1/3")
    index, count = parsed
    if count > limits.MAX_SHARDS:
        raise _shard_error(text, f"at most {limits.MAX_SHARDS:,} shards", "split into fewer shards")
    if count < 1 or not 1 <= index <= count:
        end = max(count, 1)
        raise _shard_error(
            text, "the index must be between 1 and the count (1-based)", f"use 1/{end} ... {end}/{end}"
        )
    return index, count


def _shard_error(text: str, message: str, hint: str) -> InputError:
    """A ``--shard`` value refused, located at the option (as every option error is)."""
    return InputError([Problem("--shard", 0, 0, f"{show(text, 40)}: {message}", hint=hint)])


def _key(suite_path: str, case_id: str) -> str:
    return hashlib.sha256(f"{suite_path}\0{case_id}".encode()).hexdigest()


def _weight(case: Case) -> int:
    return 0 if case.skip is not None else max(1, case.trials)


def assign_shards(suites: Sequence[Suite], count: int) -> dict[tuple[str, str], int]:
    """(suite path, case id) -> 1-based shard index, for every case of ``suites``."""
    if count < 1:
        raise ValueError("count must be at least 1")
    items = [
        (_weight(case), _key(suite.path, case.id), suite.path, case.id)
        for suite in suites
        for case in suite.cases
    ]
    # Heaviest first (longest-processing-time rule), the hash as a stable tie-break.
    items.sort(key=lambda item: (-item[0], item[1], item[2], item[3]))
    load = [(0, 0)] * count  # (weight, number of cases) per shard
    assignment: dict[tuple[str, str], int] = {}
    for weight, _hash, suite_path, case_id in items:
        target = min(range(count), key=lambda i: (load[i], i))
        load[target] = (load[target][0] + weight, load[target][1] + 1)
        assignment[(suite_path, case_id)] = target + 1
    return assignment


def shard_suites(suites: Sequence[Suite], index: int, count: int) -> tuple[Suite, ...]:
    """The suites restricted to the cases of shard ``index`` of ``count`` (1-based), cases kept in
    their file order; suites left without any case are dropped."""
    if count < 1 or not 1 <= index <= count:
        raise InputError(f"--shard {index}/{count}: the index must be between 1 and the count")
    assignment = assign_shards(suites, count)
    selected: list[Suite] = []
    for suite in suites:
        cases = tuple(case for case in suite.cases if assignment[(suite.path, case.id)] == index)
        if cases:
            selected.append(replace(suite, cases=cases))
    return tuple(selected)
