"""The shards of one run merged into the results the whole run would have given (``report s1.json
s2.json ...``). Pure.

- Suites with the same path are merged case by case, cases in file order; a case found in two parts
  is an error. Suites come out sorted by path.
- The parts must be shards of one run: they agree on every suite they share (name, threshold,
  provider, model, prompt, tool definitions) and on what the run was asked (the policy, the changed
  files' base, the models chosen, the base side's merge base). A disagreement is an error that names
  both files; it is never settled by which file came first. An agent program's tools are not among
  them: they are what its requests offered in the cases each part ran, so the parts' lists are
  joined (a name's definition from the first part, in shard order, that has it).
- What the run spent is summed over the parts: requests, cost, cache answers, both sides'.
- With ``--baseline auto`` each part carries its base side (each case's base side ran in the shard
  that ran its head side): the base sides are merged the same way, so the merged comparison is the
  one the whole run would have drawn.
- The result does not depend on the order of the parts (they are taken in shard order).
- The merge is complete only when every part is and, when the parts name their shards (``i/n``),
  every shard 1..n is present. ``shard`` is cleared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from gate import limits
from gate.errors import InputError, Problem
from gate.results.outcomes import RESULTS_VERSION, CaseResult, RequestStats, RunResults, SuiteResult
from gate.results.settings import BaseSideRecord, CacheCounts, PriceRecord, RunSettings
from gate.selection.sharding import shard_of
from gate.util.escape import show

T = TypeVar("T")
Named = tuple[str, RunResults]  # a part and the name its errors give it (its file)


def _ordered(parts: Sequence[Named]) -> list[Named]:
    """The parts in shard order (then by time and name): the merge never depends on the order given."""

    def key(named: Named) -> tuple[int, str, str, str]:
        name, part = named
        shard = shard_of(part.shard)
        return (shard[0] if shard else 0, part.started_at, part.finished_at, name)

    return sorted(parts, key=key)


def _disagreement(
    what: str, first: tuple[str, T], other: tuple[str, T], describe: Callable[[T], str]
) -> None:
    """Raise when two parts differ about ``what`` (an error naming both files)."""
    (a, va), (b, vb) = first, other
    if va != vb:
        raise InputError(
            [
                Problem(
                    b,
                    0,
                    0,
                    f"{a} and {b} disagree about {what}: {describe(va)} in one, {describe(vb)} in the other",
                    hint="merge the shards of one run (the same commit, options and suites)",
                )
            ]
        )


def _suite_facts(suite: SuiteResult) -> tuple[object, ...]:
    # An agent program's tools are those its requests offered in the cases the shard ran: shards
    # that ran other cases may have seen others (a tool only some cases are offered): they are joined.
    tools = tuple(sorted(suite.tools, key=lambda t: t.name)) if suite.provider else ()
    return (suite.name, suite.threshold, suite.provider, suite.model, suite.prompt, tools)


_SUITE_FACTS = ("name", "threshold", "provider", "model", "prompt", "tool definitions")


def _merge_suites(path: str, group: list[tuple[str, SuiteResult]]) -> SuiteResult:
    first_name, first = group[0]
    for name, suite in group[1:]:
        for field, mine, theirs in zip(_SUITE_FACTS, _suite_facts(first), _suite_facts(suite), strict=True):
            show: Callable[[object], str] = (
                (lambda _: "other definitions") if field == "tool definitions" else repr
            )
            _disagreement(
                f"the {field} of suite {first.name!r} ({path})", (first_name, mine), (name, theirs), show
            )
    cases: list[CaseResult] = []
    seen: dict[str, str] = {}
    for name, suite in group:
        for case in suite.cases:
            if case.case_id in seen:
                raise InputError(
                    [
                        Problem(
                            first.path,
                            case.line,
                            0,
                            f"case {case.case_id!r} of suite {first.name!r} is in {seen[case.case_id]} and "
                            f"in {name} (the same shard given twice?)",
                        )
                    ]
                )
            seen[case.case_id] = name
            cases.append(case)
    cases.sort(key=lambda c: (c.line, c.case_id))
    triggered = {file: why for _, suite in group for file, why in suite.triggered_by.items()}
    tools = {t.name: t for _, suite in reversed(group) for t in suite.tools}  # the first shard's win
    return replace(
        first,
        tools=tuple(tools[name] for name in dict.fromkeys(t.name for _, s in group for t in s.tools)),
        cases=tuple(cases),
        triggered_by=dict(sorted(triggered.items())),
        wall_ms=max(s.wall_ms for _, s in group),  # shards run side by side
        requests=sum((s.requests for _, s in group), RequestStats()),
    )


def _incomplete(parts: Sequence[Named]) -> list[str]:
    """Why the merge is incomplete: incomplete parts, missing shards (empty: it is complete). Parts
    that cannot be shards of one split are refused: a shard that is not INDEX/COUNT or whose index
    is outside 1..COUNT, different counts, an index given twice, a count above the bound."""
    reasons: list[str] = []
    for _, part in parts:
        if not part.complete:
            why = part.incomplete_reason or "incomplete"
            label = _labelled(part.shard, why)
            if label not in reasons:
                reasons.append(label)
    shards = [(name, part.shard, shard_of(part.shard)) for name, part in parts if part.shard]
    for name, text, parsed in shards:
        if parsed is None or not 1 <= parsed[0] <= parsed[1]:
            raise InputError(
                [
                    Problem(
                        name,
                        0,
                        0,
                        f"shard {show(text, 40)} is not one of a split: INDEX/COUNT, INDEX from 1 to COUNT",
                        hint="merge the results of run --shard 1/N ... N/N",
                    )
                ]
            )
    valid = [parsed for _, _, parsed in shards if parsed is not None]
    counts = {count for _, count in valid}
    if len(counts) > 1:
        raise InputError(f"the parts come from different shard splits: {sorted(p.shard for _, p in parts)}")
    indexes = sorted(index for index, _ in valid)
    duplicates = sorted({i for i in indexes if indexes.count(i) > 1}) if len(indexes) < 10**4 else []
    if duplicates:
        raise InputError(f"shard(s) {_ranges(duplicates, '')} given more than once")
    if counts:
        count = counts.pop()
        if count > limits.MAX_SHARDS:  # a forged part: never counted up to it
            raise InputError(f"the parts say {count:,} shards: at most {limits.MAX_SHARDS:,}")
        present = set(indexes)
        missing = [i for i in range(1, count + 1) if i not in present]
        if missing:
            reasons.append(f"missing shard(s) {_ranges(missing, f'/{count}')}")
    return reasons


def _labelled(shard: str, text: str) -> str:
    return f"shard {shard}: {text}" if shard else text


_SHOWN_RANGES = 10


def _ranges(numbers: Sequence[int], suffix: str) -> str:
    """``1/12, 3-9/12, 12/12`` for sorted ``numbers`` (``suffix`` ``/12``), at most ten runs shown, then
    how many more shards: a missing shard list stays a line whatever the count (one shard of 10,000
    given alone said 116 kB)."""
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    shown = [f"{a}{suffix}" if a == b else f"{a}-{b}{suffix}" for a, b in runs[:_SHOWN_RANGES]]
    more = sum(b - a + 1 for a, b in runs[_SHOWN_RANGES:])
    return ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")


def _asked(settings: RunSettings) -> tuple[tuple[str, object], ...]:
    """What a part was asked to do: the shards of one run agree on all of it."""
    base = settings.baseline
    return (
        ("the errors policy", settings.errors),
        ("fail_on", settings.fail_on),
        ("the error budget (--max-error-rate)", settings.max_error_rate),
        ("the threshold", settings.threshold),
        ("--changed-since", settings.changed_since),
        ("--model", settings.model),
        ("--judge-model", settings.judge_model),
        ("--trials", settings.trials),
        ("--trials-policy", settings.trials_policy),
        ("--case", settings.cases),
        ("--tag", settings.tags),
        ("the base side (--baseline auto)", base.merge_base if base is not None else None),
        ("the commit and run they were made for", settings.made_for),
    )


def _total(values: Iterable[T | None], add: Callable[[T, T], T]) -> T | None:
    """The sum of the recorded values; None when none was recorded."""
    total: T | None = None
    for value in values:
        if value is not None:
            total = value if total is None else add(total, value)
    return total


def _cache_sum(a: CacheCounts, b: CacheCounts) -> CacheCounts:
    return CacheCounts(a.hits + b.hits, a.misses + b.misses)


def _base_record(records: list[BaseSideRecord]) -> BaseSideRecord:
    lines: dict[str, set[int]] = {}
    for record in records:
        for path, numbers in record.changed_lines.items():
            lines.setdefault(path, set()).update(numbers)
    return replace(
        records[0],
        changed_lines={path: tuple(sorted(numbers)) for path, numbers in sorted(lines.items())},
        suites_without_base=tuple(sorted({s for r in records for s in r.suites_without_base})),
        suites_base_failed=tuple(sorted({s for r in records for s in r.suites_base_failed})),
        requests=sum(r.requests for r in records),
        estimated_cost_usd=round(sum(r.estimated_cost_usd for r in records), 6),
        cache=_total((r.cache for r in records), _cache_sum),
    )


def _settings(parts: Sequence[Named]) -> RunSettings:
    """The parts' settings, which must agree on what was asked, with what they spent summed."""
    (first_name, first), *others = [(name, part.settings) for name, part in parts]
    for name, settings in others:
        for (what, value), (_, other) in zip(_asked(first), _asked(settings), strict=True):
            _disagreement(what, (first_name, value), (name, other), repr)
    every = [part.settings for _, part in parts]
    prices: dict[str, PriceRecord] = {}
    for settings in every:
        prices.update({k: v for k, v in (settings.prices or {}).items() if k not in prices})
    extra = {k: v for settings in reversed(every) for k, v in settings.extra.items()}
    records = [s.baseline for s in every if s.baseline is not None]
    cost = _total((s.estimated_cost_usd for s in every), lambda a, b: a + b)
    return replace(
        first,
        prices=dict(sorted(prices.items())) if any(s.prices is not None for s in every) else None,
        requests=_total((s.requests for s in every), lambda a, b: a + b),
        estimated_cost_usd=None if cost is None else round(cost, 6),
        cost_incomplete=any(s.cost_incomplete for s in every),
        cache=_total((s.cache for s in every), _cache_sum),
        baseline=_base_record(records) if records else None,
        extra=extra,
    )


def merge(parts: Sequence[RunResults], names: Sequence[str] = ()) -> RunResults:
    """Merge the shards of one run into one ``RunResults`` (see the module doc); ``names`` are the
    parts' files, for the errors (default: ``part 1``, ``part 2``...)."""
    if not parts:
        raise InputError("no results to merge")
    named = _ordered(
        [(names[i] if i < len(names) else f"part {i + 1}", part) for i, part in enumerate(parts)]
    )
    groups: dict[str, list[tuple[str, SuiteResult]]] = {}
    for name, part in named:
        for suite in part.suites:
            groups.setdefault(suite.path, []).append((name, suite))
    suites = tuple(_merge_suites(path, groups[path]) for path in sorted(groups))
    reasons = _incomplete(named)
    settings = _settings(named)
    bases = [(f"{name} (base side)", part.base) for name, part in named if part.base is not None]
    started = sorted(p.started_at for _, p in named if p.started_at)
    finished = sorted(p.finished_at for _, p in named if p.finished_at)
    return RunResults(
        suites=suites,
        started_at=started[0] if started else "",
        finished_at=finished[-1] if finished else "",
        complete=not reasons,
        incomplete_reason="; ".join(reasons),
        unverified="; ".join(
            dict.fromkeys(_labelled(p.shard, p.unverified) for _, p in named if p.unverified)
        ),
        shard="",
        settings=settings,
        version=RESULTS_VERSION,
        base=merge([b for _, b in bases], [n for n, _ in bases]) if bases else None,
    )
