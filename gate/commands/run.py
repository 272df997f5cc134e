"""``tool-eval-gate run``: run the agent over the suites' cases and gate on the pass rate.

Loads and validates the suites (exit 2 with every ``path:line:column`` problem), keeps the suites
affected by ``--changed-since`` and this ``--shard``, runs every case and trial against the model
(``gate.runner``), writes the requested outputs and prints a summary and the verdict line.

Exit codes: 0 the gate passed; 1 the gate failed; 2 invalid input; 3 the evaluation could not be
completed (authentication or another fatal provider error, a budget reached, errors beyond the
policy, or an interrupt). On SIGINT / SIGTERM the trials in flight are cancelled, the outputs are
written with what completed (marked incomplete) and the exit code is 3.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gate.commands.arguments import (
    Parser,
    fail_on,
    positive_float,
    positive_int,
    rate,
    suite_lines,
    trial_count,
)
from gate.errors import EXIT_INCOMPLETE, EXIT_INVALID_INPUT, EXIT_PASSED, InputError

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
    parser.add_argument("--threshold", type=rate, metavar="RATE", help="minimum pass rate for every suite")
    parser.add_argument(
        "--trials", type=trial_count, metavar="N", help="trials per case (overrides the suites)"
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
    parser.add_argument(
        "--shard", metavar="INDEX/COUNT", help="run only this deterministic share of the cases (1-based)"
    )
    parser.add_argument(
        "--max-requests",
        type=positive_int,
        metavar="N",
        help="stop starting model requests after N (the rest become errors; exit 3)",
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
    return parser


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
    """The cases --case, --tag and --rerun-failed select (see gate.selection); None when the
    --rerun-failed results hold no failed case (nothing to do is a pass). Selecting nothing from
    suites that exist is an input error."""
    from gate.selection import Selection, failed_cases, select

    rerun = None
    if args.rerun_failed:
        from gate.report_json import load_results

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
    from gate.pricing import suite_models
    from gate.providers import missing_sdks

    missing = missing_sdks({provider for suite in suites for _, provider, _ in suite_models(suite)})
    if missing:
        extras = ",".join(missing)
        raise InputError(
            f"the suites need the {' and '.join(missing)} package(s), which are not installed "
            f"(fix: pip install 'tool-eval-gate[{extras}]', or 'tool-eval-gate[all]' for every provider)"
        )


def _load_prices(path: str | None, root: Path) -> Any:
    """The price table: built in, extended by ``--prices FILE`` (its problems: exit 2)."""
    from gate.pricing import BUILT_IN, price_table

    if not path:
        return BUILT_IN
    from gate.yaml_source import YamlError, load_file

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
    from gate.outputs import check_output, check_outputs

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


def _main(args: argparse.Namespace, outputs: Any, base_output: Any = None) -> int:
    from gate.suite_loader import default_root, load_suites

    if args.root:
        root = Path(args.root)
        if not root.is_dir():
            raise InputError(f"--root {args.root}: not a directory")
    else:
        root = default_root(args.paths)
    shard: tuple[int, int] | None = None
    if args.shard:
        from gate.sharding import parse_shard

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
        from gate.changes import affected_suites, changed_files

        changed = changed_files(args.changed_since, root)
        triggered = affected_suites(suites, changed)
        suites = [s for s in suites if s.path in triggered]
    selected = _select_cases(args, suites)
    if selected is None:
        print(f"tool-eval-gate run: no case failed in {args.rerun_failed}; nothing to rerun")
        return EXIT_PASSED
    suites = selected
    if shard is not None:
        from gate.sharding import shard_suites

        suites = list(shard_suites(suites, shard[0], shard[1]))

    baseline = None
    base_side = None
    if args.baseline == "auto":
        base_side = _load_base_side(args, root, suites, triggered)
    elif args.baseline:
        from gate.report_json import load_results

        baseline = load_results(args.baseline)
    fail_on_rule: Any = args.fail_on or ("regression_or_threshold" if args.baseline else "threshold")

    prices = _load_prices(args.prices, root)
    if args.max_cost is not None and not args.replay:
        from gate.pricing import unpriced_models

        refused = unpriced_models(suites, prices)
        if refused:
            for line in refused:
                print(line, file=sys.stderr)
            print(
                "tool-eval-gate run: --max-cost needs a price for every model; nothing was run",
                file=sys.stderr,
            )
            return EXIT_INVALID_INPUT

    from gate.cache import DEFAULT_DIRECTORY, ResponseCache
    from gate.concurrency import RetryPolicy
    from gate.progress import Progress
    from gate.runner import RunControl, RunOptions, run_suites
    from gate.verdict import GatePolicy

    cache = None
    if args.cache or args.record or args.replay or base_side is not None:
        directory = Path(args.cache) if args.cache else root / DEFAULT_DIRECTORY
        from gate.outputs import check_directory

        check_directory(directory, "--cache", writable=not args.replay)
        cache = ResponseCache(directory, "record" if args.record else "replay" if args.replay else "use")

    settings: dict[str, Any] = {"errors": args.errors, "fail_on": fail_on_rule}
    if args.threshold is not None:
        settings["threshold"] = args.threshold
    if args.changed_since:
        settings["changed_since"] = args.changed_since
    from gate.pricing import prices_used

    settings["prices"] = prices_used(suites, prices)
    control = RunControl()
    options = RunOptions(
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
        control=control,
    )
    progress = Progress(enabled=not args.quiet)

    if args.changed_since and not suites:
        print(f"no suite is affected by the changes since {args.changed_since}", file=sys.stderr)

    with _StopOnSignal(control) as signals:

        async def go() -> Any:
            signals.loop = asyncio.get_running_loop()
            if signals.received:  # a signal came before the loop ran
                control.stop(signals.received[0])
            try:
                head = await run_suites(suites, options, _make_provider_factory(args.timeout), progress)
                if base_side is None:
                    return head, None
                from gate.base_run import run_base_side

                if control.stopped:
                    return head, None
                base = await run_base_side(base_side, head, options, _make_provider_factory(args.timeout))
                return head, base
            finally:
                signals.loop = None

        results, base_results = asyncio.run(go())
        if base_side is not None:
            from gate.base_run import record

            base_results = base_results or _base_not_run()
            results, baseline = record(base_side, results, base_results), base_results
            base_side.directory.cleanup()
        # Model output, tool arguments and provider errors can echo a key: mask every secret before
        # anything is written (reports, summary, and the PR comment rendered from the JSON).
        from gate.redact import Redactor

        redactor = Redactor.from_env(os.environ)
        results = redactor.redact_results(results)
        if base_side is not None and baseline is not None:
            baseline = redactor.redact_results(baseline)
            if base_output is not None:
                from gate.report_json import to_json

                base_output.write(to_json(baseline))

        policy = GatePolicy(
            threshold=args.threshold, errors_count=args.errors == "count", fail_on=fail_on_rule
        )
        from gate.outputs import OutputsNotWritten, write_outputs

        not_written: OutputsNotWritten | None = None
        try:
            verdict = write_outputs(
                results,
                json_path=outputs.json,
                junit_path=outputs.junit,
                markdown_path=outputs.markdown,
                baseline=baseline,
                policy=policy,
            )
        except OutputsNotWritten as exc:
            verdict, not_written = exc.verdict, exc
        _print_summary(results, verdict, cache, [p for p in (args.json, args.junit, args.markdown) if p])
    if not_written is not None:
        print(f"tool-eval-gate run: {not_written}", file=sys.stderr)
        return not_written.exit_code
    if not results.complete:
        return EXIT_INCOMPLETE
    return int(verdict.exit_code)


def _load_base_side(
    args: argparse.Namespace, root: Path, suites: list[Any], triggered: dict[str, dict[str, str]]
) -> Any:
    if not args.changed_since:
        raise InputError(
            "--baseline auto compares with the merge base of --changed-since REF: add --changed-since "
            "(e.g. --changed-since origin/main)"
        )
    from gate.base_run import load_base_side

    side = load_base_side(args.changed_since, root, suites, triggered)
    for problem in side.problems:
        print(f"warning: {problem} (this suite has no base side)", file=sys.stderr)
    return side


def _base_not_run() -> Any:
    from gate.results import RunResults

    return RunResults(suites=(), started_at="", finished_at="", complete=False, incomplete_reason="not run")


def _print_summary(results: Any, verdict: Any, cache: Any, report_paths: Sequence[str]) -> None:
    from gate.console_summary import failure_lines
    from gate.redact import Redactor

    redactor = Redactor.from_env(os.environ)
    out = suite_lines(verdict)
    settings = results.settings
    requests = settings.get("requests", 0)
    cost = settings.get("estimated_cost_usd")
    line = f"model requests: {requests}"
    prices = settings.get("prices") or {}
    if cost is not None and requests:
        unknown = [name for name, p in prices.items() if "input" not in p]
        line += f", estimated cost ${cost:.4f}" + (
            f" (no price for {', '.join(unknown) or 'some models'}: give it with --prices FILE)"
            if settings.get("cost_incomplete")
            else ""
        )
    if requests:  # nothing was sent (replay, every case skipped): no line about it
        out.append(line)
    sources = sorted({str(p.get("source")) for p in prices.values() if "input" in p})
    if sources and requests:
        out.append("prices from: " + ", ".join(sources))
    if isinstance(settings.get("baseline"), dict):
        from gate.baseline import requests_line

        out.append(requests_line(settings))
    elif cache is not None:
        out.append(f"cache ({cache.mode}): {cache.hits} hits, {cache.misses} misses")
    if cache is not None and cache.store_errors:
        out.append(
            f"cache: {len(cache.store_errors)} answer(s) could not be stored, e.g. {cache.store_errors[0]}"
        )
    for reason in verdict.reasons:
        out.append(f"  - {reason}")
    out.extend(failure_lines(results, report_paths))
    out.append(verdict.summary_line)
    print(redactor.redact("\n".join(out)))
    sys.stdout.flush()


__all__ = ["EXIT_PASSED", "build_parser", "main"]
