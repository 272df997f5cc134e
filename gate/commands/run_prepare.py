"""What a ``run`` needs before its first request, loaded and checked: the suites and cases it evaluates
(``gate.commands.run_choice``), the base side (``--baseline auto``) or the baseline results
(``--baseline FILE``), the trust decision (``gate.trust``), the response cache it allows, the user
commands contained, the tools MCP servers list, the prices, the gate policy and the runner's options.
What stops the run here is raised (``InputError``, ``Refused``, ``NotVerified``) or, when there is
nothing to run, returned as its ``Outcome``.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.commands.plans import Outcome, RunPlan
from gate.commands.run_choice import base_side_of, run_root, suites_to_run
from gate.containment.preflight import contain_commands
from gate.containment.users import command_user
from gate.errors import EXIT_INVALID_INPUT, InputError
from gate.files.outputs import check_directory
from gate.files.results_file import load_results
from gate.files.text_files import load_file
from gate.files.yaml_source import YamlError
from gate.git.checkout import checkout_facts
from gate.providers.concurrency import RetryPolicy
from gate.results.outcomes import RunResults
from gate.results.settings import MadeFor, RunSettings
from gate.run.base_side import BaseSide
from gate.run.cache import DEFAULT_DIRECTORY, CacheMode, ResponseCache, open_cache, provenance
from gate.run.curtailing import head_curtailer
from gate.run.runner import RunControl, RunOptions
from gate.run.tool_listing import base_with_listed_tools, with_listed_tools
from gate.suite.model import KEY_VARIABLES, Suite
from gate.suite.pricing import BUILT_IN, PriceTable, price_table, prices_used, unpriced_models
from gate.trust.decision import NotVerified, Refused, Trust, decide
from gate.trust.facts import CacheFacts, CheckoutFacts, TrustFacts, ci_variable
from gate.trust.made_for import made_for
from gate.verdict.policy import FailOn, GatePolicy

# The SDK enforces --timeout on each request; the retry policy's own limit is a backstop beyond it.
TIMEOUT_BACKSTOP_SECONDS = 5.0


@dataclass(frozen=True)
class Prepared:
    """What the run needs, loaded and checked before any request: the suites with the selected cases,
    the base side (``--baseline auto``) or the baseline results (``--baseline FILE``), the gate policy,
    the response cache, the runner's options and the trust decision."""

    suites: list[Suite]
    base_side: BaseSide | None
    baseline: RunResults | None
    policy: GatePolicy
    cache: ResponseCache | None
    options: RunOptions
    trust: Trust

    @property
    def control(self) -> RunControl:
        """What stops the run (a signal, a budget)."""
        assert self.options.control is not None  # prepare always gives one
        return self.options.control


def prepare(plan: RunPlan) -> Prepared | Outcome:
    """What the run needs, or the outcome when there is nothing to run (or the input is refused)."""
    root = run_root(plan)
    chosen = suites_to_run(plan, root)
    if isinstance(chosen, Outcome):
        return chosen
    suites = chosen.suites
    base_side = base_side_of(plan, root, chosen) if plan.baseline == "auto" else None
    baseline = load_results(plan.baseline) if plan.baseline and plan.baseline != "auto" else None
    trust = _trust(plan, root, suites, base_side)
    cache = _cache(plan, root, trust)  # opened (what it holds fixed) before any command
    _contain_commands(root, suites, base_side, cache)
    suites, base_side = _with_listed_tools(root, suites, base_side, quiet=plan.quiet)
    prices = _load_prices(plan.prices)
    if plan.max_cost is not None and not plan.replay and _unpriced(suites, prices):
        return Outcome(EXIT_INVALID_INPUT)
    policy = GatePolicy(
        threshold=plan.threshold,
        errors_count=plan.errors == "count",
        fail_on=_fail_on(plan),
        max_error_rate=plan.max_error_rate,
    )
    options = _run_options(plan, suites, prices, cache, chosen.triggered, root)
    if base_side is not None:  # each case the budget starts must be able to run at the merge base too
        options = dataclasses.replace(options, reserve_base_for=frozenset(s.path for s in base_side.suites))
    if plan.trials_policy == "curtailed":
        base_suites = base_side.suites if base_side is not None else ()
        options = dataclasses.replace(
            options, curtailer=head_curtailer(suites, plan.trials, base_suites, baseline)
        )
    return Prepared(suites, base_side, baseline, policy, cache, options, trust)


def _fail_on(plan: RunPlan) -> FailOn:
    """``--fail-on``, else regression-or-threshold with a baseline and threshold without one."""
    return plan.fail_on or ("regression_or_threshold" if plan.baseline else "threshold")


def _trust(plan: RunPlan, root: Path, suites: Sequence[Suite], base_side: BaseSide | None) -> Trust:
    """The run's trust (``gate.trust.decision``), from what its environment, event, checkout and cache
    say; raises what stops the run before anything starts: the commands it may not start (exit 2 at
    their lines), ``Refused`` (exit 2), ``NotVerified`` (exit 3)."""
    facts = TrustFacts(
        event=plan.event,
        checkout=checkout_facts(root, plan.event.head) if plan.event.name else CheckoutFacts(),
        ci=ci_variable(os.environ),
        key=any(os.environ.get(name, "").strip() for name in KEY_VARIABLES.values()),
        replay=plan.replay,
        allow_commands=plan.allow_commands,
        capped=plan.max_cost is not None,
        cache=_cache_facts(plan, root, base_side is not None),
    )
    trust = decide(facts, [*suites, *(base_side.suites if base_side is not None else ())])
    if trust.commands:
        raise InputError(list(trust.commands))
    if trust.refused:
        raise Refused(trust)
    if trust.unverified:
        raise NotVerified(trust)
    return trust


def _cache_directory(plan: RunPlan, root: Path) -> Path:
    return Path(plan.cache) if plan.cache else root / DEFAULT_DIRECTORY


def _cache_facts(plan: RunPlan, root: Path, base_side: bool) -> CacheFacts | None:
    """The response cache directory (checked before the run) and who could have written it; None when
    the run uses no cache."""
    if not (plan.cache or plan.record or plan.replay or base_side):
        return None
    directory = _cache_directory(plan, root)
    check_directory(directory, "--cache", writable=not plan.replay)
    if ci_variable(os.environ) or plan.replay or directory.exists():
        return provenance(directory, root)
    return CacheFacts(str(directory))  # nothing there yet: only the gate will write it


def _cache(plan: RunPlan, root: Path, trust: Trust) -> ResponseCache | None:
    """The response cache, used as the trust decision says; None when the run uses none."""
    if trust.cache == "none":
        return None
    mode: CacheMode = "record" if plan.record else "replay" if plan.replay else "use"
    cache = open_cache(_cache_directory(plan, root), mode, root, trust.cache, trust.note)
    if cache.note:
        print(cache.note, file=sys.stderr)
    return cache


def _contain_commands(
    root: Path, suites: Sequence[Suite], base_side: BaseSide | None, cache: ResponseCache | None
) -> None:
    """Before the first command starts: check that the user commands run as can run them (exit 2),
    make the gate process unreadable to them (gate.containment), and see that whatever they could
    write into the response cache is stamped later than what the run reads from it."""
    sides = [(suites, root)]
    if base_side is not None:
        base_root = Path(base_side.directory.name)
        if command_user(os.environ) == "own":
            os.chmod(base_root, 0o755)  # the merge base's files, as readable as the checkout's
        sides.append((base_side.suites, base_root))
    if contain_commands(sides, os.environ) and cache is not None:
        cache.settle()


def _with_listed_tools(
    root: Path, suites: list[Suite], base_side: BaseSide | None, *, quiet: bool
) -> tuple[list[Suite], BaseSide | None]:
    """The suites (and base suites) whose tools come from MCP servers, with the tools the servers
    list: started only now, once the trust rule allowed it (gate.run.tool_listing). Starting them can
    take seconds: each is said first (unless ``quiet``)."""
    every = [*suites, *(base_side.suites if base_side is not None else ())]
    if not any(s.agent.tool_servers for s in every):
        return suites, base_side
    servers = dict.fromkeys(
        f"`{server.label}` ({server.source.path or suite.path})"
        for suite in every
        for server in suite.agent.tool_servers
        if server.command
    )
    if servers and not quiet:
        print(f"starting MCP servers to list their tools: {', '.join(servers)}", file=sys.stderr, flush=True)

    suites = with_listed_tools(suites, root)
    if base_side is not None:
        before = len(base_side.problems)
        base_side = base_with_listed_tools(base_side, root)
        for problem in base_side.problems[before:]:
            print(f"warning: {problem} (this suite has no base side)", file=sys.stderr)
    return suites, base_side


def _load_prices(path: str | None) -> PriceTable:
    """The price table: built in, extended by ``--prices FILE`` (its problems: exit 2)."""
    if not path:
        return BUILT_IN
    try:
        doc = load_file(Path(path), path)
    except YamlError as exc:
        raise InputError(exc.problems) from None
    table, problems = price_table(doc.data, path, lambda at: doc.position(at)[0])
    if problems:
        raise InputError(problems)
    return table


def _unpriced(suites: Sequence[Suite], prices: PriceTable) -> bool:
    """Whether --max-cost must refuse to run: a model without a price (said on stderr)."""
    refused = unpriced_models(suites, prices)
    for line in refused:
        print(line, file=sys.stderr)
    if refused:
        print(
            "tool-eval-gate run: --max-cost needs a price for every model; nothing was run", file=sys.stderr
        )
    return bool(refused)


def _run_options(
    plan: RunPlan,
    suites: Sequence[Suite],
    prices: PriceTable,
    cache: ResponseCache | None,
    triggered: dict[str, dict[str, str]],
    root: Path,
) -> RunOptions:
    """The runner's options: the plan's limits, the prices, the cache, and the settings the results
    record (``root``: where agent programs run)."""
    settings = RunSettings(
        errors=plan.errors,
        max_error_rate=plan.max_error_rate,
        fail_on=_fail_on(plan),
        threshold=plan.threshold,
        changed_since=plan.changed_since or None,
        model=plan.model or None,
        judge_model=plan.judge_model or None,
        trials=plan.trials,
        trials_policy=plan.trials_policy,
        cases=tuple(plan.cases),
        tags=tuple(plan.tags),
        prices=prices_used(suites, prices),
        made_for=_made_for(plan, root),
    )
    return RunOptions(
        concurrency=plan.concurrency,
        trials=plan.trials,
        max_requests=plan.max_requests,
        max_cost_usd=plan.max_cost,
        prices=prices,
        cache=cache,
        retry=RetryPolicy(timeout=plan.timeout + TIMEOUT_BACKSTOP_SECONDS),
        triggered_by=triggered,
        shard=plan.shard or "",
        settings=settings,
        control=RunControl(),
        root=str(root),
    )


def _made_for(plan: RunPlan, root: Path) -> MadeFor:
    """The commit and CI run the results are for (``gate.trust.made_for``), which a job that merges
    or publishes them checks."""
    return made_for(plan.event, checkout_facts(root, plan.event.head), os.environ.get("GITHUB_RUN_ID", ""))
