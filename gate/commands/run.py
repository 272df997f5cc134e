"""``tool-eval-gate run``: run the agent over the suites' cases and gate on the pass rate.

Loads and validates the suites (exit 2 with every ``path:line:column`` problem), keeps the suites
affected by ``--changed-since`` and this ``--shard``, runs every case and trial against the model
(``gate.run.runner``), writes the requested outputs and prints a summary and the verdict line.

Exit codes: 0 the gate passed; 1 the gate failed; 2 invalid input; 3 the evaluation could not be
completed (authentication or another fatal provider error, a budget reached, errors beyond the
policy, or an interrupt). On SIGINT / SIGTERM the trials in flight are cancelled, the outputs are
written with what completed (marked incomplete) and the exit code is 3.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.commands.arguments import Parser, fail_on, positive_float, positive_int, rate, trial_count
from gate.errors import EXIT_INCOMPLETE, EXIT_INVALID_INPUT, EXIT_PASSED, InputError
from gate.verdict.curtailment import TRIALS_POLICIES

EPILOG = """\
exit codes:
  0  the gate passed
  1  the gate failed (a pass rate under its threshold, or per --fail-on)
  2  invalid input (usage, or a suite / prompt / tool file that fails validation)
  3  the evaluation could not be completed: authentication or another fatal provider error,
     a --max-requests / --max-cost budget reached, errors beyond the policy, or an interrupt.
     On Ctrl-C / SIGTERM the trials in flight are cancelled and the outputs are still written,
     with what completed, marked incomplete.

environment:
  OPENAI_API_KEY, OPENAI_BASE_URL        OpenAI and OpenAI-compatible servers
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  Anthropic
  (a suite can never choose where requests or keys are sent; --replay needs no key)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tool-eval-gate run",
        description="Run the agent's model over the suites' cases with mocked tools, score every tool call "
        "and gate on the pass rate.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_selection(parser)
    _add_execution(parser)
    _add_outputs(parser)
    _add_cache(parser)
    _add_budgets(parser)
    _add_policy(parser)
    return parser


def _add_selection(parser: argparse.ArgumentParser) -> None:
    """What to run: the suites (paths, root, changed files) and the cases (ids, tags, failures)."""
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="suite files or directories searched for *.suite.yaml (default: the repository root)",
    )
    parser.add_argument(
        "--root", metavar="DIR", help="repository root (default: nearest directory with .git)"
    )
    parser.add_argument(
        "--changed-since",
        metavar="REF",
        help="run only the suites affected by files changed since the merge base with REF",
    )
    parser.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="run only this case (ID, or SUITE/ID; repeatable)",
    )
    parser.add_argument(
        "--tag", action="append", default=[], metavar="TAG", help="run only cases with this tag (repeatable)"
    )
    parser.add_argument(
        "--rerun-failed",
        metavar="RESULTS.json",
        help="run only the cases that failed or errored in these results",
    )


def _add_execution(parser: argparse.ArgumentParser) -> None:
    """How to run: threshold, trials, concurrency, the request time limit."""
    parser.add_argument("--threshold", type=rate, metavar="RATE", help="minimum pass rate for every suite")
    parser.add_argument(
        "--trials", type=trial_count, metavar="N", help="trials per case (overrides the suites)"
    )
    parser.add_argument(
        "--trials-policy",
        choices=TRIALS_POLICIES,
        default=TRIALS_POLICIES[0],
        help="curtailed (default): a case stops starting trials once its verdict (and, with a baseline, "
        "its comparison) is decided, exactly as the full run would decide it; full: run every trial",
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=8,
        metavar="N",
        help="model requests in flight at most (default 8; reduced automatically on 429s)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=60.0,
        metavar="SECONDS",
        help="time limit of one model request (default 60)",
    )
    parser.add_argument(
        "--allow-commands",
        action="store_true",
        help="run the programs the suites name (an agent program, an MCP server); without it such a "
        "suite is refused (exit 2). Never on pull_request_target",
    )


def _add_outputs(parser: argparse.ArgumentParser) -> None:
    """The reports, and the base side to compare against."""
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML here")
    parser.add_argument("--json", metavar="FILE", help="write the JSON results here")
    parser.add_argument("--markdown", metavar="FILE", help="write the Markdown report here")
    parser.add_argument(
        "--baseline",
        metavar="RESULTS.json|auto",
        help="the base branch's results to compare against, or 'auto': evaluate the affected suites "
        "as they were at the merge base with --changed-since REF too, in this run (unchanged requests "
        "come from the cache)",
    )
    parser.add_argument(
        "--baseline-json",
        metavar="FILE",
        help="with --baseline auto: write the base side's results here too "
        "(re-render later with: report RESULTS.json --baseline FILE)",
    )


def _add_cache(parser: argparse.ArgumentParser) -> None:
    """The response cache and its modes."""
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="response cache directory: answers are reused, new ones stored "
        "(default with --record/--replay/--baseline auto: .tool-eval-gate/cache under the root)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--record", action="store_true", help="call the model for every request and (re)store the answers"
    )
    mode.add_argument(
        "--replay",
        action="store_true",
        help="answer only from the cache, never call a model (no API key needed); "
        "a request not in the cache is an error for its case",
    )


def _add_budgets(parser: argparse.ArgumentParser) -> None:
    """Sharding, and the request and cost budgets."""
    parser.add_argument(
        "--shard", metavar="INDEX/COUNT", help="run only this deterministic share of the cases (1-based)"
    )
    parser.add_argument(
        "--max-requests",
        type=positive_int,
        metavar="N",
        help="send at most N model requests (cache hits are free) and finish the cases started: "
        "cases start in order, all their trials together, when what is neither sent nor reserved "
        "covers the most they can need (max_turns per trial, the simulated user's turns, one per "
        "judged check; with --baseline auto both sides), or alone when nothing else runs and what is "
        "left covers what a trial has needed so far; the cases left are errors saying the request "
        "budget ran out (exit 3)",
    )
    parser.add_argument(
        "--max-cost",
        type=positive_float,
        metavar="USD",
        help="stop starting model requests once the estimated cost reaches USD (exit 3)",
    )
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="model prices in USD per million tokens (YAML/JSON: 'MODEL: {input, output, cached_input}'), "
        "extending and overriding the built-in table; with --max-cost every model needs a price",
    )


def _add_policy(parser: argparse.ArgumentParser) -> None:
    """What counts against the gate; the console; pre-commit's file lists."""
    parser.add_argument(
        "--errors",
        choices=("count", "ignore"),
        default="count",
        help="whether cases that could not be evaluated count against the gate (default count)",
    )
    parser.add_argument(
        "--fail-on",
        type=fail_on,
        metavar="{threshold,regression,regression-or-threshold,any-failure}",
        help="what fails the gate (default: regression-or-threshold with a baseline, else threshold)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    parser.add_argument(
        "--skip-unreferenced",
        action="store_true",
        help="pass over PATHs that are neither suites nor used by one; nothing left to run is a pass "
        "(the manual pre-commit hook hands over every staged file)",
    )


def _make_provider_factory(timeout: float) -> Callable[[str], Any]:
    def make(name: str) -> Any:
        from gate.providers import make_provider

        return make_provider(name, timeout=timeout)

    return make


class _StopOnSignal:
    """SIGINT / SIGTERM stop the run (``RunControl.stop``) instead of raising: the trials in flight
    are cancelled, and the outputs are still written. Further signals (an impatient second Ctrl-C)
    are absorbed until the outputs are on disk; the previous handlers come back afterwards."""

    SIGNALS = ((signal.SIGINT, "interrupted (SIGINT)"), (signal.SIGTERM, "terminated (SIGTERM)"))

    def __init__(self, control: Any):
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

    def _handle(self, signum: int, frame: Any) -> None:
        names: dict[int, str] = {int(number): text for number, text in self.SIGNALS}
        name = names.get(signum, f"signal {signum}")
        self.received.append(name)
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.control.stop, name)


def _select_cases(args: argparse.Namespace, suites: list[Any]) -> list[Any] | None:
    """The cases --case, --tag and --rerun-failed select (see gate.verdict.selection); None when the
    --rerun-failed results hold no failed case (nothing to do is a pass). Selecting nothing from
    suites that exist is an input error."""
    from gate.verdict.selection import Selection, failed_cases, select

    rerun = None
    if args.rerun_failed:
        from gate.files.results_file import load_results

        rerun = failed_cases(load_results(args.rerun_failed))
        if not rerun:
            return None
    chosen = select(suites, Selection(tuple(args.case), tuple(args.tag), rerun))
    if not chosen and suites:
        asked = " ".join([*(f"--case {c}" for c in args.case), *(f"--tag {t}" for t in args.tag)])
        if rerun is not None:
            asked += f" --rerun-failed {args.rerun_failed}"
        raise InputError(f"{asked.strip()}: selects no case of the suites to run")
    return chosen


def _require_sdks(suites: Sequence[Any]) -> None:
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


def _load_prices(path: str | None, root: Path) -> Any:
    """The price table: built in, extended by ``--prices FILE`` (its problems: exit 2)."""
    from gate.suite.pricing import BUILT_IN, price_table

    if not path:
        return BUILT_IN
    from gate.files.yaml_source import YamlError, load_file

    try:
        doc = load_file(Path(path), path)
    except YamlError as exc:
        raise InputError(exc.problems) from None
    table, problems = price_table(doc.data, path, lambda at: doc.position(at)[0])
    if problems:
        raise InputError(problems)
    return table


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from gate.files.outputs import check_output, check_outputs

    # Every output path is checked before any work: none can fail after the paid requests.
    outputs = check_outputs(json=args.json, junit=args.junit, markdown=args.markdown)
    if args.baseline_json and args.baseline != "auto":
        raise InputError("--baseline-json writes the base side of --baseline auto: add --baseline auto")
    base_output = check_output(args.baseline_json) if args.baseline_json else None
    try:
        return _main(args, outputs, base_output)
    finally:
        outputs.close()
        if base_output is not None:
            base_output.close()


@dataclass(frozen=True)
class _Plan:
    """What ``run`` will do, decided before any request: the suites and cases, the comparison, the
    gate policy and the runner's options."""

    suites: list[Any]
    base_side: Any  # BaseSide for --baseline auto, else None
    baseline: Any  # RunResults of --baseline FILE, else None
    policy: Any  # GatePolicy
    cache: Any  # ResponseCache or None
    options: Any  # RunOptions


def _main(args: argparse.Namespace, outputs: Any, base_output: Any = None) -> int:
    planned = _plan(args)
    if isinstance(planned, int):
        return planned
    if args.changed_since and not planned.suites:
        print(f"no suite is affected by the changes since {args.changed_since}", file=sys.stderr)
    with _StopOnSignal(planned.options.control) as signals:
        results, base_results = asyncio.run(_execute(args, planned, signals))
        results, baseline = _with_baseline(planned, results, base_results, base_output)
        code = _report(args, planned, results, baseline, outputs)
    return code


def _root(args: argparse.Namespace) -> Path:
    from gate.files.suite_loader import default_root

    if not args.root:
        return default_root(args.paths)
    root = Path(args.root)
    if not root.is_dir():
        raise InputError(f"--root {args.root}: not a directory")
    return root


def _plan(args: argparse.Namespace) -> _Plan | int:
    """The run's plan, or the exit code when there is nothing to run (or the input is refused)."""
    root = _root(args)
    chosen = _suites_to_run(args, root)
    if isinstance(chosen, int):
        return chosen
    suites, triggered = chosen
    baseline = None
    base_side = None
    if args.baseline == "auto":
        base_side = _load_base_side(args, root, suites, triggered)
    elif args.baseline:
        from gate.files.results_file import load_results

        baseline = load_results(args.baseline)
    _check_commands(args, [*suites, *(base_side.suites if base_side is not None else ())])
    fail_on_rule: Any = args.fail_on or ("regression_or_threshold" if args.baseline else "threshold")
    prices = _load_prices(args.prices, root)
    if args.max_cost is not None and not args.replay and _unpriced(suites, prices):
        return EXIT_INVALID_INPUT
    from gate.verdict.policy import GatePolicy

    cache = _cache(args, root, base_side is not None)
    policy = GatePolicy(threshold=args.threshold, errors_count=args.errors == "count", fail_on=fail_on_rule)
    options = _run_options(args, suites, prices, cache, triggered, fail_on_rule)
    if base_side is not None:  # each case the budget starts must be able to run at the merge base too
        options = dataclasses.replace(options, reserve_base_for=frozenset(s.path for s in base_side.suites))
    if args.trials_policy == "curtailed":
        from gate.run.curtailing import head_curtailer

        base_suites = base_side.suites if base_side is not None else ()
        curtailer = head_curtailer(suites, args.trials, base_suites, baseline)
        options = dataclasses.replace(options, curtailer=curtailer)
    return _Plan(suites, base_side, baseline, policy, cache, options)


def _suites_to_run(args: argparse.Namespace, root: Path) -> tuple[list[Any], dict[str, dict[str, str]]] | int:
    """The suites (with only the selected cases) this run evaluates, and what triggered each under
    --changed-since; or the exit code when the suites do not load or nothing is left to run."""
    from gate.files.suite_loader import load_suites

    shard: tuple[int, int] | None = None
    if args.shard:
        from gate.verdict.sharding import parse_shard

        shard = parse_shard(args.shard)
    loaded = load_suites(args.paths or [root], root=root, skip_unreferenced=args.skip_unreferenced)
    if loaded.problems:
        problems = sorted(loaded.problems, key=lambda p: (p.path, p.line, p.column, p.message))
        for problem in problems:
            print(problem.render(), file=sys.stderr)
        print(
            f"tool-eval-gate run: {len(problems)} problem(s) in the suites; nothing was run", file=sys.stderr
        )
        return EXIT_INVALID_INPUT
    suites = list(loaded.suites)
    if not suites and args.skip_unreferenced:
        print("tool-eval-gate run: no suite uses these files; nothing to run")
        return EXIT_PASSED
    if not suites:
        where = ", ".join(args.paths) if args.paths else str(root)
        raise InputError(f"no suite files (*.suite.yaml) found in {where}; nothing to run")
    _require_sdks(suites)
    triggered: dict[str, dict[str, str]] = {}
    if args.changed_since:
        from gate.git.changes import affected_suites, changed_files

        triggered = affected_suites(suites, changed_files(args.changed_since, root))
        suites = [s for s in suites if s.path in triggered]
    selected = _select_cases(args, suites)
    if selected is None:
        print(f"tool-eval-gate run: no case failed in {args.rerun_failed}; nothing to rerun")
        return EXIT_PASSED
    if shard is not None:
        from gate.verdict.sharding import shard_suites

        selected = list(shard_suites(selected, shard[0], shard[1]))
    return selected, triggered


def _check_commands(args: argparse.Namespace, suites: Sequence[Any]) -> None:
    """Refuse (exit 2) the suites whose commands the run may not start: not allowed with
    --allow-commands, or on pull_request_target (gate.run.command_trust)."""
    from gate.run.command_trust import command_refusals

    refusals = command_refusals(
        suites, allowed=args.allow_commands, event_name=os.environ.get("GITHUB_EVENT_NAME", "")
    )
    if refusals:
        raise InputError(refusals)


def _unpriced(suites: Sequence[Any], prices: Any) -> bool:
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


def _cache(args: argparse.Namespace, root: Path, base_side: bool) -> Any:
    """The response cache (checked before the run), or None when the run uses none."""
    if not (args.cache or args.record or args.replay or base_side):
        return None
    from gate.files.outputs import check_directory
    from gate.run.cache import DEFAULT_DIRECTORY, ResponseCache

    directory = Path(args.cache) if args.cache else root / DEFAULT_DIRECTORY
    check_directory(directory, "--cache", writable=not args.replay)
    return ResponseCache(directory, "record" if args.record else "replay" if args.replay else "use")


def _run_options(
    args: argparse.Namespace,
    suites: Sequence[Any],
    prices: Any,
    cache: Any,
    triggered: dict[str, dict[str, str]],
    fail_on_rule: Any,
) -> Any:
    from gate.providers.concurrency import RetryPolicy
    from gate.run.runner import RunControl, RunOptions
    from gate.suite.pricing import prices_used

    settings: dict[str, Any] = {"errors": args.errors, "fail_on": fail_on_rule}
    if args.threshold is not None:
        settings["threshold"] = args.threshold
    if args.changed_since:
        settings["changed_since"] = args.changed_since
    settings["prices"] = prices_used(suites, prices)
    return RunOptions(
        concurrency=args.concurrency,
        trials=args.trials,
        max_requests=args.max_requests,
        max_cost_usd=args.max_cost,
        prices=prices,
        cache=cache,
        retry=RetryPolicy(timeout=args.timeout + 5.0),  # the SDK enforces --timeout; this is a backstop
        triggered_by=triggered,
        shard=args.shard or "",
        settings=settings,
        control=RunControl(),
    )


async def _execute(args: argparse.Namespace, plan: _Plan, signals: _StopOnSignal) -> tuple[Any, Any]:
    """Run the head side, then (with --baseline auto, unless stopped) the base side."""
    from gate.run.progress import Progress
    from gate.run.runner import run_suites

    control = plan.options.control
    signals.loop = asyncio.get_running_loop()
    if signals.received:  # a signal came before the loop ran
        control.stop(signals.received[0])
    try:
        make_provider = _make_provider_factory(args.timeout)
        head = await run_suites(plan.suites, plan.options, make_provider, Progress(enabled=not args.quiet))
        if plan.base_side is None or control.stopped:
            return head, None
        from gate.run.base_side import run_base_side

        return head, await run_base_side(plan.base_side, head, plan.options, make_provider)
    finally:
        signals.loop = None


def _with_baseline(plan: _Plan, results: Any, base_results: Any, base_output: Any) -> tuple[Any, Any]:
    """The head's results and the baseline to compare with, both with every secret masked (model
    output, tool arguments and provider errors can echo a key); --baseline-json written."""
    from gate.util.redact import Redactor

    baseline = plan.baseline
    if plan.base_side is not None:
        from gate.run.base_side import record

        base_results = base_results or _base_not_run()
        results, baseline = record(plan.base_side, results, base_results), base_results
        plan.base_side.directory.cleanup()
    redactor = Redactor.from_env(os.environ)
    results = redactor.redact_results(results)
    if plan.base_side is not None and baseline is not None:
        baseline = redactor.redact_results(baseline)
        if base_output is not None:
            from gate.reports.json_codec import to_json

            base_output.write(to_json(baseline))
    return results, baseline


def _report(args: argparse.Namespace, plan: _Plan, results: Any, baseline: Any, outputs: Any) -> int:
    """Conclude the run once, write the outputs and print the summary; the exit code."""
    from gate.files.outputs import OutputsNotWritten, write_outputs
    from gate.reports.json_codec import gc_paused
    from gate.verdict.conclusion import conclude

    with gc_paused():
        conclusion = conclude(results, baseline, plan.policy)
    not_written: OutputsNotWritten | None = None
    try:
        write_outputs(
            conclusion, json_path=outputs.json, junit_path=outputs.junit, markdown_path=outputs.markdown
        )
    except OutputsNotWritten as exc:
        not_written = exc
    _print_summary(conclusion, plan, [p for p in (args.json, args.junit, args.markdown) if p])
    if not_written is not None:
        print(f"tool-eval-gate run: {not_written}", file=sys.stderr)
        return not_written.exit_code
    if not results.complete:
        return EXIT_INCOMPLETE
    return int(conclusion.verdict.exit_code)


def _load_base_side(
    args: argparse.Namespace, root: Path, suites: list[Any], triggered: dict[str, dict[str, str]]
) -> Any:
    if not args.changed_since:
        raise InputError(
            "--baseline auto compares with the merge base of --changed-since REF: add --changed-since "
            "(e.g. --changed-since origin/main)"
        )
    from gate.run.base_side import load_base_side

    side = load_base_side(args.changed_since, root, suites, triggered)
    for problem in side.problems:
        print(f"warning: {problem} (this suite has no base side)", file=sys.stderr)
    return side


def _base_not_run() -> Any:
    from gate.results.outcomes import RunResults

    return RunResults(suites=(), started_at="", finished_at="", complete=False, incomplete_reason="not run")


def _print_summary(conclusion: Any, plan: _Plan, report_paths: Sequence[str]) -> None:
    from gate.reports.console import closing_lines
    from gate.util.redact import Redactor

    cache = plan.cache
    cache_lines = []
    if cache is not None and plan.base_side is None:  # with a base side, the requests line says it
        cache_lines.append(f"cache ({cache.mode}): {cache.hits} hits, {cache.misses} misses")
    if cache is not None and cache.store_errors:
        cache_lines.append(
            f"cache: {len(cache.store_errors)} answer(s) could not be stored, e.g. {cache.store_errors[0]}"
        )
    text = "\n".join(closing_lines(conclusion, report_paths, cache_lines))
    print(Redactor.from_env(os.environ).redact(text))
    sys.stdout.flush()


__all__ = ["EXIT_PASSED", "build_parser", "main"]
