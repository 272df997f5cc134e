"""``tool-eval-gate run``: run the agent over the suites' cases and gate on the pass rate.

Loads and validates the suites (exit 2 with every ``path:line:column`` problem), keeps the suites
affected by ``--changed-since`` and this ``--shard``, runs every case and trial against the model
(``gate.run.runner``), writes the requested outputs and prints a summary and the verdict line.

Exit codes: 0 the gate passed; 1 the gate failed; 2 invalid input; 3 the evaluation could not be
completed (authentication or another fatal provider error, a budget reached, errors beyond the
policy, or an interrupt) or is not verified (``gate.trust``, or a replay that could not answer). On
SIGINT / SIGTERM the trials in flight are cancelled, the outputs are written with what completed
(marked incomplete) and the exit code is 3.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gate.commands.arguments import Parser
from gate.commands.options import add_options
from gate.commands.plans import Outcome, RunPlan
from gate.errors import EXIT_INCOMPLETE, EXIT_INVALID_INPUT, EXIT_PASSED, InputError, Problem
from gate.trust.facts import EventFacts

if TYPE_CHECKING:
    from gate.files.outputs import OutputPlan, OutputTarget
    from gate.providers.base import Provider
    from gate.results.fixes import FixSearch
    from gate.results.outcomes import RunResults
    from gate.results.settings import MadeFor
    from gate.run.base_side import BaseSide
    from gate.run.cache import ResponseCache
    from gate.run.runner import RunControl, RunOptions
    from gate.selection.filters import Selection
    from gate.suite.model import Suite
    from gate.suite.pricing import PriceTable
    from gate.trust.decision import Trust
    from gate.trust.facts import CacheFacts
    from gate.verdict.conclusion import Conclusion
    from gate.verdict.policy import FailOn, GatePolicy

EPILOG = """\
exit codes:
  0  the gate passed
  1  the gate failed (a pass rate under its threshold, or per --fail-on)
  2  invalid input (usage, or a suite / prompt / tool file that fails validation)
  3  the evaluation could not be completed: authentication or another fatal provider error,
     a --max-requests / --max-cost budget reached, errors beyond the policy, or an interrupt;
     or it is not verified: a replay could not answer a request, or its answers could have
     been written by someone other than the model and the gate.
     On Ctrl-C / SIGTERM the trials in flight are cancelled and the outputs are still written,
     with what completed, marked incomplete.

environment:
  OPENAI_API_KEY, OPENAI_BASE_URL        OpenAI and OpenAI-compatible servers
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  Anthropic
  (a suite can never choose where requests or keys are sent; --replay needs no key)
  TOOL_EVAL_GATE_COMMAND_USER            own (default as root: each command a user of its own) or
                                         gate (commands run as the gate's own user)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tool-eval-gate run",
        description="Run the agent's model over the suites' cases with mocked tools, score every tool call "
        "and gate on the pass rate.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_options(parser, RunPlan)
    return parser


def _make_provider_factory(timeout: float) -> Callable[[str], Provider]:
    def make(name: str) -> Provider:
        from gate.providers import make_provider

        return make_provider(name, timeout=timeout)

    return make


class _StopOnSignal:
    """SIGINT / SIGTERM stop the run (``RunControl.stop``) instead of raising: the trials in flight
    are cancelled, and the outputs are still written. Further signals (an impatient second Ctrl-C)
    are absorbed until the outputs are on disk; the previous handlers come back afterwards."""

    SIGNALS = ((signal.SIGINT, "interrupted (SIGINT)"), (signal.SIGTERM, "terminated (SIGTERM)"))

    def __init__(self, control: RunControl):
        self.control = control
        self.loop: asyncio.AbstractEventLoop | None = None
        self.received: list[str] = []
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _StopOnSignal:
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


def _selection(plan: RunPlan) -> Selection | None:
    """What --case, --tag and --rerun-failed select (see gate.selection.filters); None when the
    --rerun-failed results hold no failed case (nothing to do is a pass)."""
    from gate.selection.filters import Selection, failed_cases

    rerun = None
    if plan.rerun_failed:
        from gate.files.results_file import load_results

        rerun = failed_cases(load_results(plan.rerun_failed))
        if not rerun:
            return None
    return Selection(plan.cases, plan.tags, rerun)


def _select_cases(plan: RunPlan, suites: list[Suite], selection: Selection) -> list[Suite]:
    """The selected cases of ``suites``; selecting nothing from suites that exist is an input error."""
    from gate.selection.filters import select

    chosen = select(suites, selection)
    if not chosen and suites:
        asked = " ".join([*(f"--case {c}" for c in plan.cases), *(f"--tag {t}" for t in plan.tags)])
        if selection.rerun is not None:
            asked += f" --rerun-failed {plan.rerun_failed}"
        raise InputError(f"{asked.strip()}: selects no case of the suites to run")
    return chosen


def _require_sdks(suites: Sequence[Suite]) -> None:
    """Refuse before any request when a suite's provider SDK is not installed (the base package is
    light so that the pre-commit validate hook stays small; the SDKs come with extras)."""
    from gate.providers import missing_sdks
    from gate.suite.pricing import suite_models

    missing = missing_sdks({provider for suite in suites for _, provider, _ in suite_models(suite)})
    if missing:
        extras = ",".join(missing)
        raise InputError(
            f"the suites need the {' and '.join(missing)} package(s), which are not installed "
            f"(fix: pip install 'tool-eval-gate[{extras}]', or 'tool-eval-gate[all]' for every provider)"
        )


def _load_prices(path: str | None) -> PriceTable:
    """The price table: built in, extended by ``--prices FILE`` (its problems: exit 2)."""
    from gate.suite.pricing import BUILT_IN, price_table

    if not path:
        return BUILT_IN
    from gate.files.text_files import load_file
    from gate.files.yaml_source import YamlError

    try:
        doc = load_file(Path(path), path)
    except YamlError as exc:
        raise InputError(exc.problems) from None
    table, problems = price_table(doc.data, path, lambda at: doc.position(at)[0])
    if problems:
        raise InputError(problems)
    return table


def main(argv: Sequence[str] | None = None) -> int:
    return execute(plan_of(list(sys.argv[1:] if argv is None else argv), os.environ)).code


def plan_of(argv: Sequence[str], environ: Mapping[str, str]) -> RunPlan:
    """The plan of the command line ``argv`` in the environment ``environ`` (its GitHub Actions event)."""
    return RunPlan.from_args(build_parser().parse_args(list(argv)), _event(environ))


def _event(environ: Mapping[str, str]) -> EventFacts:
    """What the GitHub Actions event of the job says (``GITHUB_EVENT_NAME``, the event file at
    ``GITHUB_EVENT_PATH``); no event outside Actions. An event file that cannot be read says nothing
    of whose commits the run holds: "unknown"."""
    name = environ.get("GITHUB_EVENT_NAME", "")
    if not name:
        return EventFacts()
    from gate.files.event_file import EventFileError, read_event_payload
    from gate.trust.facts import event_facts

    payload = None
    try:
        payload = read_event_payload(environ.get("GITHUB_EVENT_PATH", ""))
    except EventFileError as exc:
        print(f"warning: {exc}: whose commits this {name} run holds is unknown", file=sys.stderr)
    actor, repository = environ.get("GITHUB_ACTOR", ""), environ.get("GITHUB_REPOSITORY", "")
    return event_facts(name, payload, actor=actor, repository=repository)


def execute(plan: RunPlan) -> Outcome:
    """Run as ``plan`` says: check the outputs, load and select the suites, run every case and trial
    (and the base side), conclude once, write the outputs and print the summary. Raises
    ``InputError`` (and the ``GateError``s of the run) for the CLI to report."""
    from gate.files.outputs import check_output, check_outputs, clear_outputs
    from gate.git.tracked import is_tracked
    from gate.trust.facts import ci_variable

    # Every output path is checked before any work: none can fail after the paid requests. In CI
    # none is written through a symlink of the repository (a pull request can commit one). First of
    # all, a file the checkout brought to an output path (git tracks it) is removed.
    no_links_below = _root(plan) if ci_variable(os.environ) else None
    written = (plan.json, plan.junit, plan.markdown, plan.html, plan.baseline_json, plan.fix_patch)
    inputs = (plan.rerun_failed, plan.baseline if plan.baseline != "auto" else None)
    clear_outputs(written, keep=inputs, brought=is_tracked)
    outputs = check_outputs(plan, no_links_below=no_links_below)
    base_output = patch_output = None
    try:
        if plan.baseline_json and plan.baseline != "auto":
            raise InputError("--baseline-json writes the base side of --baseline auto: add --baseline auto")
        _check_fix_options(plan)
        base_output = check_output(plan.baseline_json, no_links_below) if plan.baseline_json else None
        patch_output = check_output(plan.fix_patch, no_links_below) if plan.fix_patch else None
        return _execute_checked(plan, outputs, base_output, patch_output)
    finally:
        outputs.close()
        for output in (base_output, patch_output):
            if output is not None:
                output.close()
        if "gate.containment.users" in sys.modules:  # commands ran as users of their own: their reaper
            sys.modules["gate.containment.users"].POOL.close()


def _check_fix_options(plan: RunPlan) -> None:
    """The --fix-* options go with --suggest-fixes, which needs the whole run (not a shard)."""
    given = [
        flag
        for flag, value in (
            ("--fix-model", plan.fix_model),
            ("--fix-budget", plan.fix_budget),
            ("--fix-patch", plan.fix_patch),
            ("--fix-candidates", plan.fix_candidates != RunPlan.fix_candidates),
        )
        if value
    ]
    if given and not plan.suggest_fixes:
        raise InputError(f"{given[0]} goes with --suggest-fixes: add --suggest-fixes")
    if plan.suggest_fixes and plan.shard:
        raise InputError(
            "--suggest-fixes verifies a fix against every case it may break, which a shard does not hold: "
            "drop --shard (or --suggest-fixes)"
        )


@dataclass(frozen=True)
class _Chosen:
    """The cases this run evaluates (``suites``: selected, and this shard's), the suites the change
    affects with all their cases (``affected``), what triggered each under --changed-since, and the
    selection and shard that made the choice (the base side of --baseline auto makes the same one)."""

    suites: list[Suite]
    affected: list[Suite]
    triggered: dict[str, dict[str, str]]
    selection: Selection
    shard: tuple[int, int] | None


@dataclass(frozen=True)
class _Prepared:
    """What the run needs, loaded and checked before any request: the suites with the selected cases,
    the base side (``--baseline auto``) or the baseline results (``--baseline FILE``), the gate policy,
    the response cache and the runner's options."""

    suites: list[Suite]
    base_side: BaseSide | None
    baseline: RunResults | None
    policy: GatePolicy
    cache: ResponseCache | None
    options: RunOptions
    trust: Trust


def _execute_checked(
    plan: RunPlan, outputs: OutputPlan, base_output: OutputTarget | None, patch_output: OutputTarget | None
) -> Outcome:
    prepared = _prepare(plan)
    if isinstance(prepared, Outcome):
        return prepared
    if plan.changed_since and not prepared.suites:
        print(f"no suite is affected by the changes since {plan.changed_since}", file=sys.stderr)
    control = prepared.options.control
    assert control is not None
    with _StopOnSignal(control) as signals:
        results, base_results = asyncio.run(_run(plan, prepared, signals))
        results = _shown_to_the_model(prepared, results, base_results)
        results, baseline = _with_baseline(prepared, results, base_results, base_output)
        return _report(plan, prepared, results, baseline, outputs, signals, patch_output)


def _root(plan: RunPlan) -> Path:
    from gate.files.suite_loader import default_root

    if not plan.root:
        return default_root(list(plan.paths))
    root = Path(plan.root)
    if not root.is_dir():
        raise InputError(f"--root {plan.root}: not a directory")
    return root


def _prepare(plan: RunPlan) -> _Prepared | Outcome:
    """What the run needs, or the outcome when there is nothing to run (or the input is refused)."""
    root = _root(plan)
    chosen = _suites_to_run(plan, root)
    if isinstance(chosen, Outcome):
        return chosen
    suites, triggered = chosen.suites, chosen.triggered
    baseline = None
    base_side = None
    if plan.baseline == "auto":
        base_side = _load_base_side(plan, root, chosen)
    elif plan.baseline:
        from gate.files.results_file import load_results

        baseline = load_results(plan.baseline)
    trust = _trust(plan, root, suites, base_side)
    cache = _cache(plan, root, trust)  # opened (what it holds fixed) before any command
    _contain_commands(root, suites, base_side, cache)
    suites, base_side = _with_listed_tools(root, suites, base_side, quiet=plan.quiet)
    fail_on_rule: FailOn = plan.fail_on or ("regression_or_threshold" if plan.baseline else "threshold")
    prices = _load_prices(plan.prices)
    if plan.max_cost is not None and not plan.replay and _unpriced(suites, prices):
        return Outcome(EXIT_INVALID_INPUT)
    from gate.verdict.policy import GatePolicy

    policy = GatePolicy(
        threshold=plan.threshold,
        errors_count=plan.errors == "count",
        fail_on=fail_on_rule,
        max_error_rate=plan.max_error_rate,
    )
    options = _run_options(plan, suites, prices, cache, triggered, fail_on_rule)
    settings = dataclasses.replace(options.settings, made_for=_made_for(plan, root))
    options = dataclasses.replace(options, root=str(root), settings=settings)  # where programs run
    if base_side is not None:  # each case the budget starts must be able to run at the merge base too
        options = dataclasses.replace(options, reserve_base_for=frozenset(s.path for s in base_side.suites))
    if plan.trials_policy == "curtailed":
        from gate.run.curtailing import head_curtailer

        base_suites = base_side.suites if base_side is not None else ()
        curtailer = head_curtailer(suites, plan.trials, base_suites, baseline)
        options = dataclasses.replace(options, curtailer=curtailer)
    return _Prepared(suites, base_side, baseline, policy, cache, options, trust)


def _suites_to_run(plan: RunPlan, root: Path) -> _Chosen | Outcome:
    """The suites (with only the selected cases) this run evaluates, and what triggered each under
    --changed-since; or the outcome when the suites do not load or nothing is left to run."""
    from gate.files.suite_loader import load_suites

    shard: tuple[int, int] | None = None
    if plan.shard:
        from gate.selection.sharding import parse_shard

        shard = parse_shard(plan.shard)
    loaded = load_suites(list(plan.paths) or [root], root=root, skip_unreferenced=plan.skip_unreferenced)
    if loaded.problems:
        problems = sorted(loaded.problems, key=lambda p: (p.path, p.line, p.column, p.message))
        for problem in problems:
            print(problem.render(), file=sys.stderr)
        print(
            f"tool-eval-gate run: {len(problems)} problem(s) in the suites; nothing was run", file=sys.stderr
        )
        return Outcome(EXIT_INVALID_INPUT, problems=tuple(problems))
    suites = _chosen_models(plan, loaded.suites)
    if not suites and plan.skip_unreferenced:
        print("tool-eval-gate run: no suite uses these files; nothing to run")
        return Outcome(EXIT_PASSED)
    if not suites:
        where = ", ".join(plan.paths) if plan.paths else str(root)
        raise InputError(f"no suite files (*.suite.yaml) found in {where}; nothing to run")
    _require_sdks(suites)
    triggered: dict[str, dict[str, str]] = {}
    if plan.changed_since:
        from gate.git.detection import affected_since

        triggered = affected_since(plan.changed_since, root, suites)
        suites = [s for s in suites if s.path in triggered]
    selection = _selection(plan)
    if selection is None:
        print(f"tool-eval-gate run: no case failed in {plan.rerun_failed}; nothing to rerun")
        return Outcome(EXIT_PASSED)
    selected = _select_cases(plan, suites, selection)
    if shard is not None:
        from gate.selection.sharding import shard_suites

        selected = list(shard_suites(selected, shard[0], shard[1]))
    _check_trials(plan.trials, selected)
    return _Chosen(selected, suites, triggered, selection, shard)


def _check_trials(trials: int | None, suites: Sequence[Suite]) -> None:
    """``--trials N`` below a case's ``at_least`` would fail the case whatever the agent does (validate
    refuses the same written in a file): refused before any request, at each such case."""
    from gate.errors import Problem

    short = [
        Problem(
            case.source.path or suite.path,
            case.source.line,
            case.source.column,
            f"--trials {trials}: case {case.id} needs at_least {case.at_least} passing trials "
            f"(reducer at_least); raise --trials to {case.at_least} or lower at_least",
        )
        for suite in suites
        for case in suite.cases
        if trials is not None and not case.skip and case.reducer == "at_least" and case.at_least > trials
    ]
    if short:
        raise InputError(short)


def _chosen_models(plan: RunPlan, suites: Sequence[Suite]) -> list[Suite]:
    """The suites with the models of ``--model`` / ``--judge-model`` (as loaded without them); the
    parameters a new provider has no place for are refused (exit 2) before any request."""
    if plan.model is None and plan.judge_model is None:
        return list(suites)
    from gate.suite.model_choice import ModelChoice, ModelChoiceError, with_models

    try:  # the command line's are checked as options; the action's inputs come here as they are
        model = ModelChoice.parse(plan.model) if plan.model is not None else None
    except ModelChoiceError as exc:
        raise InputError([Problem("--model", 0, 0, str(exc))]) from None
    try:
        judge = ModelChoice.parse(plan.judge_model) if plan.judge_model is not None else None
    except ModelChoiceError as exc:
        raise InputError([Problem("--judge-model", 0, 0, str(exc))]) from None
    chosen, problems = with_models(suites, model, judge)
    if problems:
        raise InputError("\n".join(problems))
    return chosen


def _trust(plan: RunPlan, root: Path, suites: Sequence[Suite], base_side: BaseSide | None) -> Trust:
    """The run's trust (``gate.trust.decision``), from what its environment, event, checkout and cache
    say; raises what stops the run before anything starts: the commands it may not start (exit 2 at
    their lines), ``Refused`` (exit 2), ``NotVerified`` (exit 3)."""
    from gate.git.checkout import checkout_facts
    from gate.suite.model import KEY_VARIABLES
    from gate.trust.decision import NotVerified, Refused, decide
    from gate.trust.facts import CheckoutFacts, TrustFacts, ci_variable

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
    from gate.run.cache import DEFAULT_DIRECTORY

    return Path(plan.cache) if plan.cache else root / DEFAULT_DIRECTORY


def _cache_facts(plan: RunPlan, root: Path, base_side: bool) -> CacheFacts | None:
    """The response cache directory (checked before the run) and who could have written it; None when
    the run uses no cache."""
    if not (plan.cache or plan.record or plan.replay or base_side):
        return None
    from gate.files.outputs import check_directory
    from gate.run.cache import provenance
    from gate.trust.facts import CacheFacts, ci_variable

    directory = _cache_directory(plan, root)
    check_directory(directory, "--cache", writable=not plan.replay)
    if ci_variable(os.environ) or plan.replay or directory.exists():
        return provenance(directory, root)
    return CacheFacts(str(directory))  # nothing there yet: only the gate will write it


def _contain_commands(
    root: Path, suites: Sequence[Suite], base_side: BaseSide | None, cache: ResponseCache | None
) -> None:
    """Before the first command starts: check that the user commands run as can run them (exit 2),
    make the gate process unreadable to them (gate.containment), and see that whatever they could
    write into the response cache is stamped later than what the run reads from it."""
    from gate.containment.preflight import contain_commands
    from gate.containment.users import command_user

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
    from gate.run.tool_listing import base_with_listed_tools, with_listed_tools

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


def _unpriced(suites: Sequence[Suite], prices: PriceTable) -> bool:
    """Whether --max-cost must refuse to run: a model without a price (said on stderr)."""
    from gate.suite.pricing import unpriced_models

    refused = unpriced_models(suites, prices)
    for line in refused:
        print(line, file=sys.stderr)
    if refused:
        print(
            "tool-eval-gate run: --max-cost needs a price for every model; nothing was run", file=sys.stderr
        )
    return bool(refused)


def _made_for(plan: RunPlan, root: Path) -> MadeFor:
    """The commit and CI run the results are for (``gate.trust.made_for``), which a job that merges
    or publishes them checks."""
    from gate.git.checkout import checkout_facts
    from gate.trust.made_for import made_for

    return made_for(plan.event, checkout_facts(root, plan.event.head), os.environ.get("GITHUB_RUN_ID", ""))


def _cache(plan: RunPlan, root: Path, trust: Trust) -> ResponseCache | None:
    """The response cache, used as the trust decision says; None when the run uses none."""
    if trust.cache == "none":
        return None
    from gate.run.cache import CacheMode, open_cache

    mode: CacheMode = "record" if plan.record else "replay" if plan.replay else "use"
    cache = open_cache(_cache_directory(plan, root), mode, root, trust.cache, trust.note)
    if cache.note:
        print(cache.note, file=sys.stderr)
    return cache


def _run_options(
    plan: RunPlan,
    suites: Sequence[Suite],
    prices: PriceTable,
    cache: ResponseCache | None,
    triggered: dict[str, dict[str, str]],
    fail_on_rule: FailOn,
) -> RunOptions:
    from gate.providers.concurrency import RetryPolicy
    from gate.results.settings import RunSettings
    from gate.run.runner import RunControl, RunOptions
    from gate.suite.pricing import prices_used

    settings = RunSettings(
        errors=plan.errors,
        max_error_rate=plan.max_error_rate,
        fail_on=fail_on_rule,
        threshold=plan.threshold,
        changed_since=plan.changed_since or None,
        model=plan.model or None,
        judge_model=plan.judge_model or None,
        trials=plan.trials,
        trials_policy=plan.trials_policy,
        cases=tuple(plan.cases),
        tags=tuple(plan.tags),
        prices=prices_used(suites, prices),
    )
    return RunOptions(
        concurrency=plan.concurrency,
        trials=plan.trials,
        max_requests=plan.max_requests,
        max_cost_usd=plan.max_cost,
        prices=prices,
        cache=cache,
        retry=RetryPolicy(timeout=plan.timeout + 5.0),  # the SDK enforces --timeout; this is a backstop
        triggered_by=triggered,
        shard=plan.shard or "",
        settings=settings,
        control=RunControl(),
    )


async def _run(
    plan: RunPlan, prepared: _Prepared, signals: _StopOnSignal
) -> tuple[RunResults, RunResults | None]:
    """Run the head side, then (with --baseline auto, unless stopped) the base side."""
    from gate.run.progress import Progress
    from gate.run.runner import run_suites

    control = signals.control
    signals.loop = asyncio.get_running_loop()
    if signals.received:  # a signal came before the loop ran
        control.stop(signals.received[0])
    try:
        make_provider = _make_provider_factory(plan.timeout)
        head = await run_suites(
            prepared.suites, prepared.options, make_provider, Progress(enabled=not plan.quiet)
        )
        if prepared.base_side is None or control.stopped:
            return head, None
        from gate.run.base_side import run_base_side

        side = prepared.base_side
        progress = Progress(enabled=not plan.quiet, label=f"base side ({side.commit[:12]})")
        return head, await run_base_side(side, head, prepared.options, make_provider, progress)
    finally:
        signals.loop = None


def _shown_to_the_model(
    prepared: _Prepared, results: RunResults, base_results: RunResults | None
) -> RunResults:
    """``results``, not verified (``unverified``: exit 3, never a pass) when an agent program showed its
    model tool definitions its code does not hold, or the same definition on both sides of a change to
    the code's (``gate.run.program_tools.unshown``): the verdict would be about a text the change does
    not ship."""
    if not any(s.agent.program is not None for s in prepared.suites):
        return results
    from gate.run.program_tools import not_shown_reason

    side = prepared.base_side
    why = not_shown_reason(
        results,
        prepared.suites,
        Path(prepared.options.root or "."),
        base_results,
        side.suites if side is not None else (),
        Path(side.directory.name) if side is not None else None,
    )
    if not why:
        return results
    joined = f"{results.unverified}; {why}" if results.unverified else why
    return dataclasses.replace(results, unverified=joined)


def _with_baseline(
    prepared: _Prepared,
    results: RunResults,
    base_results: RunResults | None,
    base_output: OutputTarget | None,
) -> tuple[RunResults, RunResults | None]:
    """The head's results and the baseline to compare with, both with every secret masked (model
    output, tool arguments and provider errors can echo a key); --baseline-json written."""
    from gate.util.redact import Redactor

    baseline = prepared.baseline
    if prepared.base_side is not None:
        from gate.run.base_side import record

        base_results = base_results or _base_not_run()
        results, baseline = record(prepared.base_side, results, base_results), base_results
        prepared.base_side.directory.cleanup()
    redactor = Redactor.from_env(os.environ)
    results = redactor.redact_results(results)
    if prepared.base_side is not None and baseline is not None:
        baseline = redactor.redact_results(baseline)
        if base_output is not None:
            from gate.results_json.codec import to_json

            base_output.write(to_json(baseline))
        results = dataclasses.replace(results, base=baseline)  # the results file keeps its base side
    return results, baseline


def _report(
    plan: RunPlan,
    prepared: _Prepared,
    results: RunResults,
    baseline: RunResults | None,
    outputs: OutputPlan,
    signals: _StopOnSignal,
    patch_output: OutputTarget | None,
) -> Outcome:
    """Conclude the run once (then search for verified fixes, which the verdict never reads), write
    the outputs and print the summary."""
    from gate.files.outputs import OutputsNotWritten, write_outputs
    from gate.results_json.codec import gc_paused
    from gate.verdict.conclusion import conclude

    with gc_paused():
        conclusion = conclude(results, baseline, prepared.policy)
    if plan.suggest_fixes and not signals.received:
        conclusion = _with_fixes(plan, prepared, conclusion, signals)
    if patch_output is not None:
        fixes = conclusion.results.fixes
        patch_output.write(fixes.patch if fixes is not None else "")
    not_written: OutputsNotWritten | None = None
    try:
        write_outputs(
            conclusion,
            json_path=outputs.json,
            junit_path=outputs.junit,
            markdown_path=outputs.markdown,
            html_path=outputs.html,
        )
    except OutputsNotWritten as exc:
        not_written = exc
    _print_summary(conclusion, prepared, plan.report_paths)
    if not_written is not None:
        print(f"tool-eval-gate run: {not_written}", file=sys.stderr)
        return Outcome(not_written.exit_code, conclusion, trust=prepared.trust)
    if not results.complete:
        return Outcome(EXIT_INCOMPLETE, conclusion, trust=prepared.trust)
    return Outcome(conclusion.verdict.exit_code, conclusion, trust=prepared.trust)


def _with_fixes(
    plan: RunPlan, prepared: _Prepared, conclusion: Conclusion, signals: _StopOnSignal
) -> Conclusion:
    """The conclusion with what the search for verified fixes found (gate.run.fix_search) in its
    results, every secret masked; its verdict stays as it was drawn."""
    from gate.fixes.verification import parse_budget
    from gate.results.fixes import FixSearch
    from gate.run.fix_search import FixOptions, search_fixes
    from gate.util.redact import Redactor

    fix = FixOptions(
        model=plan.fix_model,
        candidates=plan.fix_candidates,
        budget=parse_budget(plan.fix_budget) if plan.fix_budget else None,
        budget_text=plan.fix_budget or "",
        quiet=plan.quiet,
    )

    async def search() -> FixSearch | None:
        signals.loop = asyncio.get_running_loop()
        try:
            root = Path(prepared.options.root or ".")
            make_provider = _make_provider_factory(plan.timeout)
            return await search_fixes(
                fix, conclusion, prepared.suites, prepared.options, make_provider, root, os.environ
            )
        finally:
            signals.loop = None

    if not conclusion.verdict.verified:  # DESIGN section 11: never on a run that is not verified
        return _fixes_skipped(conclusion, "the run is not verified: a replay could not answer every request")
    try:
        fixes = asyncio.run(search())
    except Exception as exc:  # noqa: BLE001 - a fault of the search never loses the run's outputs
        print(
            f"tool-eval-gate run: the search for fixes failed: {type(exc).__name__}: {exc}", file=sys.stderr
        )
        fixes = FixSearch(skipped=f"the search failed ({type(exc).__name__}: {exc})")
    results = Redactor.from_env(os.environ).redact_results(
        dataclasses.replace(conclusion.results, fixes=fixes)
    )
    return dataclasses.replace(conclusion, results=results)


def _fixes_skipped(conclusion: Conclusion, why: str) -> Conclusion:
    from gate.results.fixes import FixSearch

    results = dataclasses.replace(conclusion.results, fixes=FixSearch(skipped=why))
    return dataclasses.replace(conclusion, results=results)


def _load_base_side(plan: RunPlan, root: Path, chosen: _Chosen) -> BaseSide:
    """The base side: the affected suites as they are at the merge base, with the cases that go with
    the head cases this run evaluates (the same selection; with --shard, this shard's)."""
    if not plan.changed_since:
        raise InputError(
            "--baseline auto compares with the merge base of --changed-since REF: add --changed-since "
            "(e.g. --changed-since origin/main)"
        )
    from gate.run.base_side import load_base_side
    from gate.selection.filters import base_cases

    side = load_base_side(plan.changed_since, root, chosen.affected, chosen.triggered)
    for problem in side.problems:
        print(f"warning: {problem} (this suite has no base side)", file=sys.stderr)
    suites = base_cases(side.suites, chosen.affected, chosen.suites, chosen.selection, chosen.shard)
    return dataclasses.replace(side, suites=tuple(_chosen_models(plan, suites)))


def _base_not_run() -> RunResults:
    from gate.results.outcomes import RunResults

    return RunResults(suites=(), started_at="", finished_at="", complete=False, incomplete_reason="not run")


def _print_summary(conclusion: Conclusion, prepared: _Prepared, report_paths: Sequence[str]) -> None:
    from gate.reports.console import closing_lines
    from gate.util.redact import Redactor

    cache = prepared.cache
    cache_lines = []
    if cache is not None and prepared.base_side is None:  # with a base side, the requests line says it
        cache_lines.append(f"cache ({cache.mode}): {cache.hits} hits, {cache.misses} misses")
    if cache is not None and cache.store_errors:
        cache_lines.append(
            f"cache: {len(cache.store_errors)} answer(s) could not be stored, e.g. {cache.store_errors[0]}"
        )
    text = "\n".join(closing_lines(conclusion, report_paths, cache_lines))
    print(Redactor.from_env(os.environ).redact(text))
    sys.stdout.flush()


__all__ = ["EXIT_PASSED", "build_parser", "execute", "main"]
