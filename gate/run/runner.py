"""Runs every (case, trial) of the suites with bounded, adaptive concurrency.

Each trial is one asyncio task: the agent loop (``gate.run.agent_loop``), then its judge requests
(``gate.run.judge_client``), then scoring (``gate.scoring.trial.score_trial``). Every model request goes
through the response cache (if any), then ``call_with_retries`` under one ``AdaptiveLimiter``, so
that never more than ``concurrency`` requests are in flight and 429s shrink the window.

The request budget (``max_requests``) finishes what it starts: cases start in order, all their
trials together, only as ``gate.run.request_budget`` admits them; the cases it cannot start are errors
("not run: the request budget ran out ...") and the results are marked incomplete. The cost budget
(``max_cost_usd``) stops new requests once reached ("not run: budget reached: ... (--max-cost)"). A fatal
provider error stops only what it concerns: an authentication error (a missing or refused key) every
request to that provider, an unknown model or endpoint every request to that provider's model; the
suites of other providers and models run on. Their trials end as errors "not run: <the error>" and
the results are incomplete. An interrupt (``RunControl.stop``) cancels every trial in flight; what
completed is kept.
Results come back in a deterministic order: suites as given, cases in file order, trials by index.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gate.episode.episode import BUDGET_MESSAGE
from gate.limits import CONCURRENCY
from gate.providers.base import BudgetReached, ModelReply, ModelRequest, Provider, ProviderError
from gate.providers.concurrency import (
    AdaptiveLimiter,
    Attempt,
    AttemptTimeout,
    RetryPolicy,
    call_with_retries,
)
from gate.results.messages import UserMessage
from gate.results.outcomes import (
    CaseResult,
    Failure,
    RequestStats,
    RunResults,
    SourceRef,
    SuiteResult,
    ToolInfo,
    TrialResult,
)
from gate.results.run_record import RunRecord, StopReason
from gate.results.settings import CacheCounts, RunSettings
from gate.run.agent_loop import run_trial
from gate.run.cache import ResponseCache
from gate.run.curtailing import Curtailer
from gate.run.judge_client import JudgeClient
from gate.run.progress import Progress
from gate.run.request_budget import Account, RequestBudget, case_need
from gate.run.trial_slots import TrialSlots
from gate.scoring.judge_requests import collect_requests
from gate.scoring.reducers import case_result, skipped_result
from gate.scoring.trial import score_trial
from gate.suite.judging import JudgeVerdict
from gate.suite.model import Case, Command, Suite, ToolDef
from gate.suite.pricing import BUILT_IN, PRICES_HINT, PriceTable, served_prices
from gate.tool_servers.live import LiveTools
from gate.util.escape import truncate
from gate.util.json_types import JsonObject

if TYPE_CHECKING:  # pragma: no cover
    from gate.programs.host import ProgramHost
    from gate.programs.pool import ProgramPool

# The started case a request is for (set in each trial's task; judge tasks inherit it).
_ACCOUNT: ContextVar[Account | None] = ContextVar("budget_account", default=None)
# The suite (its path) a request is for, whose request counts it adds to (set like ``_ACCOUNT``).
_SUITE: ContextVar[str] = ContextVar("suite_path", default="")
# The case a request is for, as reports name it (``suite/case``): what a replay could not answer.
_CASE: ContextVar[str] = ContextVar("case_name", default="")


class RunControl:
    """Stops a run from outside (a signal handler): ``stop(reason)`` cancels the trials in flight.
    Call it from the event loop's thread (``loop.add_signal_handler`` does)."""

    def __init__(self) -> None:
        self.reason = ""
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def stopped(self) -> bool:
        return bool(self.reason)

    def stop(self, reason: str) -> None:
        if not self.reason:
            self.reason = reason
        current = asyncio.current_task() if _loop_running() else None
        for task in list(self._tasks):
            if task is not current:
                task.cancel()

    def _register(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if self.reason:
            task.cancel()


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@dataclass(frozen=True)
class RunOptions:
    concurrency: int = CONCURRENCY
    trials: int | None = None  # overrides every case's trial count
    max_requests: int | None = None  # model requests (cache hits are free)
    # How errors name the request budget (default "--max-requests N"; the base side says what is left).
    budget_text: str = ""
    max_cost_usd: float | None = None  # estimated cost; requests in flight may overshoot a little
    prices: PriceTable = BUILT_IN  # the built-in table, extended and overridden by --prices
    cache: ResponseCache | None = None
    retry: RetryPolicy | None = None
    # Suite path -> {file: reason} from change detection, copied into the results.
    triggered_by: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    shard: str = ""
    settings: RunSettings = field(default_factory=RunSettings)  # recorded in the results
    control: RunControl | None = None
    # --baseline auto, head side: the suites (paths) whose cases reserve budget for their base side too.
    reserve_base_for: frozenset[str] = frozenset()
    # --baseline auto, base side: the cases (suite path, case id) the budget did not run on the head side.
    refused: frozenset[tuple[str, str]] = frozenset()
    # --trials-policy curtailed: decides which trials still need to start (None: every trial runs).
    curtailer: Curtailer | None = None
    # Where agent programs run: the repository root (the base tree's copy for the base side); "" = cwd.
    root: str = ""
    # What an agent program's requests become before they are answered (``run --suggest-fixes``: the
    # definitions it sends, reworded in memory); None: as the program sent them.
    program_requests: Callable[[ModelRequest], ModelRequest] | None = None


def _stamp(ends: dict[str, float], key: str) -> Callable[[asyncio.Task[TrialResult | None]], None]:
    """A done callback noting when a trial of suite ``key`` ended (the last one wins)."""

    def stamp(_task: asyncio.Task[TrialResult | None]) -> None:
        ends[key] = time.monotonic()

    return stamp


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def not_run_record(
    suite: Suite, case: Case, reason: str, stop_reason: StopReason = "provider_error"
) -> RunRecord:
    text = next((m.content for m in reversed(case.conversation) if isinstance(m, UserMessage)), "")
    return RunRecord(
        input=text,
        messages=(),
        calls=(),
        output="",
        turns=0,
        latency_ms=0.0,
        error=reason,
        stop_reason=stop_reason,
        model=suite.agent.model,
    )


class _Run:
    def __init__(
        self, options: RunOptions, make_provider: Callable[[str], Provider], progress: Progress | None
    ):
        self.options = options
        self.make_provider = make_provider
        self.progress = progress
        self.control = options.control or RunControl()
        # Regrow one slot per two successes: with the default of eight, a steady trickle of 429s
        # (bench: every 10th request) held concurrency near 2 of 32 and doubled the wall time.
        self.limiter = AdaptiveLimiter(max(1, options.concurrency), regrow_after=2)
        self.trial_slots = TrialSlots(options.concurrency)
        self.policy = options.retry or RetryPolicy()
        self.providers: dict[str, Provider] = {}
        self.budget = RequestBudget(options.max_requests)
        self.released = asyncio.Event()  # set whenever a started case ends (its reservation comes back)
        self.cost = 0.0
        self.unpriced = ""  # the first model that answered without a known price
        self.served: dict[tuple[str, str], set[str]] = {}  # (provider, asked model) -> models that answered
        self.budget_reason = ""  # --max-requests left cases unrun or unfinished
        self.cost_reason = ""  # --max-cost was reached
        # Fatal errors by what they stop: a provider ("openai") or one of its models ("openai gpt-x").
        self.fatal: dict[str, ProviderError] = {}
        self.judge = JudgeClient(self._judge_call, on_task=self.control._register)
        self.requests_of: dict[str, RequestStats] = {}  # suite path -> its model requests so far
        self.host: ProgramHost | None = None  # the agent programs' loopback server, from the first one
        self.pools: dict[str, ProgramPool] = {}  # suite path -> its program's long-lived processes
        self.sdk_missing: dict[str, bool] = {}  # provider -> its SDK is not installed (asked once a run)
        self.unanswered: dict[str, int] = {}  # case -> its requests a replay could not answer

    # ---- model calls ----

    def _provider(self, name: str) -> Provider:
        provider = self.providers.get(name)
        if provider is None:
            provider = self.providers[name] = self.make_provider(name)
        return provider

    @property
    def requests(self) -> int:
        return self.budget.sent

    def _take_request(self) -> None:
        """Count one request about to be sent, or raise ``BudgetReached`` when none may be."""
        opts = self.options
        if opts.max_cost_usd is not None and self.unpriced and not self.cost_reason:
            self.cost_reason = (
                f"--max-cost cannot cap the cost: the server answered with model {self.unpriced!r}, "
                "which has no known price; " + PRICES_HINT.format(model=self.unpriced)
            )
        if opts.max_cost_usd is not None and self.cost >= opts.max_cost_usd and not self.cost_reason:
            self.cost_reason = f"budget reached: ${self.cost:.4f} of ${opts.max_cost_usd:g} (--max-cost)"
        if self.cost_reason:
            raise BudgetReached(f"not run: {self.cost_reason}")
        account = _ACCOUNT.get()
        if not self.budget.take(account):
            self._note_budget()
            raise BudgetReached(_budget_error(self._budget_text, account))

    @property
    def _budget_text(self) -> str:
        return self.options.budget_text or f"--max-requests {self.options.max_requests}"

    def _note_budget(self) -> None:
        if not self.budget_reason:
            self.budget_reason = f"request budget ran out ({self._budget_text})"

    def _stopped(self, request: ModelRequest) -> ProviderError | None:
        return self.fatal.get(request.provider) or self.fatal.get(f"{request.provider} {request.model}")

    async def _live(self, request: ModelRequest) -> ModelReply:
        stopped = self._stopped(request)
        if stopped is not None:
            raise stopped
        provider = self._provider(request.provider)
        attempts: list[Attempt] = []
        sent = 0

        async def attempt() -> ModelReply:
            nonlocal sent
            self._take_request()  # for every attempt: a retry is a request too
            sent += 1
            return await provider.complete(request)

        try:
            reply = await call_with_retries(
                attempt,
                limiter=self.limiter,
                policy=self.policy,
                classify=provider.classify,
                on_attempt=attempts.append,
            )
        except ProviderError as exc:
            self._count(attempts[:sent])  # the last one may have been refused by a budget, unsent
            if exc.fatal:
                scope = request.provider if exc.kind == "auth" else f"{request.provider} {request.model}"
                self.fatal.setdefault(scope, exc)
            raise
        except AttemptTimeout as exc:
            self._count(attempts[:sent])
            raise ProviderError(
                "timeout", f"{request.provider}: {exc} (after {self.policy.max_attempts} attempts)"
            ) from None
        except BaseException:
            self._count(attempts[:sent])
            raise
        step = self.options.prices.cost(
            request.provider, request.model, reply.usage, reply.cached_input_tokens, reply.model
        )
        self.served.setdefault((request.provider, request.model), set()).add(reply.model)
        if step is None:
            self.unpriced = self.unpriced or (reply.model or request.model)
        else:
            self.cost += step
        self._count(attempts, RequestStats(cost_usd=step or 0.0, unpriced=int(step is None)))
        return reply

    def _count(self, attempts: Sequence[Attempt], priced: RequestStats | None = None) -> None:
        """Add one request's attempts (and its cost, when answered) to its suite's counts."""
        if not attempts:
            return
        suite = _SUITE.get()
        stats = self.requests_of.get(suite, RequestStats()) + attempt_stats(attempts)
        if priced is not None:
            stats += priced
        self.requests_of[suite] = stats

    async def call_model(self, request: ModelRequest, trial: int) -> ModelReply:
        account = _ACCOUNT.get()
        if account is not None:
            account.asked += 1
        cache = self.options.cache
        if cache is None:
            return await self._live(request)
        try:
            return await cache.fetch(request, trial, self._live)
        except ProviderError as exc:
            if exc.kind == "replay_miss":  # the run cannot be verified (``_unverified``)
                case = _CASE.get()
                self.unanswered[case] = self.unanswered.get(case, 0) + 1
            raise

    async def _judge_call(self, request: ModelRequest) -> ModelReply:
        return await self.call_model(request, 0)  # a judge's answer does not depend on the trial

    # ---- trials ----

    async def trial(
        self, suite: Suite, case: Case, index: int, account: Account, order: int
    ) -> TrialResult | None:
        """One trial, or None when curtailing found its case decided before it could start."""
        # Trials hold a slot from start to finish, so that started trials finish before new ones
        # begin: an interrupt then leaves whole trials done rather than many half done, and only
        # ``concurrency`` transcripts are in memory at a time. Every case's first trial goes before
        # any case's second (``gate.run.trial_slots``), so that a case is decided before its later
        # trials would start.
        curtailer = self.options.curtailer
        async with self.trial_slots.slot((index, order)):
            if curtailer is not None and not curtailer.may_start(suite, case):
                return None
            _ACCOUNT.set(account)  # this task's requests (and its judge's) draw on its case's account
            _SUITE.set(suite.path)
            _CASE.set(f"{suite.name}/{case.id}")
            result = await self._trial(suite, case, index)
            if curtailer is not None:
                curtailer.finished(suite, case, result)
            return result

    async def _program_trial(
        self, suite: Suite, case: Case, index: int, live: LiveTools | None
    ) -> tuple[RunRecord, Suite]:
        """A trial of the suite's agent program (gate.programs.trial), and the suite to score it
        with: its tools are those the program's requests offered the model, not the suite's (a call
        is checked against those of the request it answered: ``RunRecord.offered``). ``live``
        answers its MCP calls to the tools of ``calls: live`` servers."""
        from gate.programs.host import ProgramHost
        from gate.programs.trial import run_program_trial

        if self.host is None:  # what it relays to programs carries none of the run's credentials
            from gate.util.redact import Redactor

            self.host = ProgramHost(Redactor.from_env(os.environ))
        account, name = _ACCOUNT.get(), _CASE.get()

        async def call(request: ModelRequest) -> ModelReply:
            _ACCOUNT.set(account)  # the proxy serves it in its connection's task: same case account,
            _SUITE.set(suite.path)  # same suite's request counts, same case
            _CASE.set(name)
            self._check_program_request(request)
            if self.options.program_requests is not None:
                request = self.options.program_requests(request)
            return await self.call_model(request, index)

        root = Path(self.options.root or ".")
        program = suite.agent.program
        assert program is not None
        label = f"`{truncate(shlex.join(program.argv), 60, brief=True)}` ({suite.name})"
        if self.progress is not None:  # its imports can take seconds: say so
            self.progress.starting(suite.path, f"the agent program {label}")
        pool = self._pool(suite.path, program, root, label) if program.reuse else None
        record, proxy = await run_program_trial(
            self.host, suite, case, index, call, root=root, prices=self.options.prices, live=live, pool=pool
        )
        if self.progress is not None:
            self.progress.started(suite.path)
        if proxy.fatal is not None:
            raise proxy.fatal
        tools: dict[str, ToolDef] = {}  # what its requests offered, the first definition of each name
        for exchange in proxy.exchanges:
            for tool in exchange.request.tools:
                tools.setdefault(tool.name, tool)
        agent = dataclasses.replace(suite.agent, tools=tuple(tools.values()))
        return record, dataclasses.replace(suite, agent=agent)

    def _pool(self, path: str, program: Command, root: Path, label: str) -> ProgramPool:
        """The long-lived processes of the suite at ``path`` (``reuse: true``), made at its first trial."""
        from gate.programs.pool import ProgramPool

        pool = self.pools.get(path)
        if pool is None:
            assert self.host is not None
            most = self.options.concurrency
            pool = self.pools[path] = ProgramPool(self.host, program, root, most=most, label=label)
        return pool

    async def _close_programs(self) -> None:
        """End the long-lived program processes (saying what was replaced, and why), then the host."""
        for pool in self.pools.values():
            await pool.close()
            if pool.summary() and self.progress is not None:
                self.progress.note(pool.summary())
        if self.host is not None:
            await self.host.close()

    def _check_program_request(self, request: ModelRequest) -> None:
        """What a program's request needs that a suite could not say beforehand: the provider's SDK,
        and under --max-cost a price for the model it chose (else the cap could not count it)."""
        from gate.providers import SDK_PACKAGES, missing_sdks

        missing = self.sdk_missing.get(request.provider)
        if missing is None:
            missing = self.sdk_missing[request.provider] = bool(missing_sdks([request.provider]))
        if missing:
            package = SDK_PACKAGES[request.provider]
            raise ProviderError(
                "bad_request",
                f"the agent program asked {request.provider}, and the {package} package is not installed "
                f"(fix: pip install 'tool-eval-gate[{package}]')",
            )
        if (
            self.options.max_cost_usd is not None
            and self.options.prices.lookup(request.provider, request.model) is None
        ):
            raise ProviderError(
                "bad_request",
                f"--max-cost: the agent program's model {request.model!r} ({request.provider}) has no known "
                "price, so the budget could not cap it; " + PRICES_HINT.format(model=request.model),
            )

    async def _trial(self, suite: Suite, case: Case, index: int) -> TrialResult:
        live = LiveTools(suite) if any(s.calls == "live" for s in suite.agent.tool_servers) else None
        try:
            if suite.agent.program is not None:
                record, suite = await self._program_trial(suite, case, index, live)
            else:
                record = await run_trial(
                    suite,
                    case,
                    index,
                    lambda req: self.call_model(req, index),
                    prices=self.options.prices,
                    live=live,
                )
        except ProviderError as exc:  # fatal for its provider or model: other suites run on
            record = not_run_record(suite, case, f"not run: {exc}")
        finally:
            if live is not None:  # the trial's own servers end with it
                await live.close()
        answers: JsonObject = {}
        if record.error is None:
            requests = collect_requests(suite, case, record, index)
            if requests:
                try:
                    answers = await self.judge.answers(suite, requests)
                except ProviderError as exc:
                    answers = {r.key: f"judge not run: {exc}" for r in requests}
        verdicts = {key: value for key, value in answers.items() if isinstance(value, JudgeVerdict)}
        result = score_trial(suite, case, record, index, verdicts)
        if record.stop_reason == "budget" and result.status == "error":  # failed: a hard condition says why
            return budget_result(result)
        problems = sorted({value for value in answers.values() if isinstance(value, str)})
        return with_judge_reasons(result, problems) if problems else result

    async def close_providers(self) -> None:
        for provider in self.providers.values():
            try:
                await provider.aclose()
            except Exception:  # noqa: S110 - closing is best effort
                pass

    def _done(self, task: asyncio.Task[TrialResult | None]) -> None:
        if self.progress is not None and not task.cancelled() and task.exception() is None:
            self.progress.trial_done()

    # ---- admission (the request budget) ----

    async def _admit(self, work: Sequence[_CaseWork], ends: dict[str, float]) -> None:
        """Start the cases in order, each once the budget covers it (gate.run.request_budget)."""
        for order, item in enumerate(work):
            if item.case.skip:
                continue
            account = await self._account(item)
            if account is None:
                if self.progress is not None:
                    self.progress.case_done("error")
                    for _ in range(item.trials):
                        self.progress.trial_done()
                continue
            countdown = _Countdown(item.trials, functools.partial(self._case_finished, item, account))
            item.tasks = []
            for index in range(item.trials):
                task = asyncio.ensure_future(self.trial(item.suite, item.case, index, account, order))
                task.add_done_callback(countdown)  # first: the case counts in its last trial's line
                task.add_done_callback(self._done)
                task.add_done_callback(_stamp(ends, item.suite.path))
                self.control._register(task)
                item.tasks.append(task)

    async def _account(self, item: _CaseWork) -> Account | None:
        """The case's share of the budget once it may start (waiting for started cases to give back
        what they did not use); for a case the budget has run out for, a cache-only account when
        there is a cache, else None with ``item.refused`` saying why."""
        budget, opts = self.budget, self.options
        need = case_need(item.suite, item.case, item.trials)
        keep = need if item.suite.path in opts.reserve_base_for else 0  # for its base side
        if (item.suite.path, item.case.id) not in opts.refused:
            account = budget.admit(need, item.trials, keep)
            while account is None and budget.started:
                self.released.clear()
                await self.released.wait()
                account = budget.admit(need, item.trials, keep)
            if account is not None:
                return account
            item.refused = (
                f"not run: the request budget ran out ({self._budget_text}; "
                f"{budget.free} left, not enough to start this case)"
            )
        else:
            item.refused = "not run: the request budget ran out before this case ran on the head side"
        if opts.cache is not None:  # it may still run from the cache, for free
            return budget.cache_only(item.refused)
        self._note_budget()
        return None

    def _case_finished(self, item: _CaseWork, account: Account) -> None:
        """The last of a case's trials is done: its reservation goes back, its status to the progress."""
        self.budget.close(account)
        self.released.set()
        if self.progress is not None:
            self.progress.case_done(self._case_result(item).status)

    # ---- the run ----

    async def run(self, suites: Sequence[Suite]) -> RunResults:
        started_at = _now()
        start = time.monotonic()
        ends: dict[str, float] = {}  # suite path -> when its last trial ended (callbacks run in order)
        work = self._work(suites)
        ticker: asyncio.Task[None] | None = None
        if self.progress is not None:
            self.progress.start([item.trials for item in work if not item.case.skip])
            ticker = asyncio.ensure_future(_tick(self.progress))
        try:
            admission = asyncio.ensure_future(self._admit(work, ends))
            self.control._register(admission)
            await asyncio.gather(admission, return_exceptions=True)
            tasks = [task for item in work for task in item.tasks or ()]
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            if ticker is not None:
                ticker.cancel()
            if self.progress is not None:
                self.progress.finish()
            await self._close_programs()
            await self.close_providers()
        suite_results = []
        for suite in suites:
            cases = tuple(self._case_result(item) for item in work if item.suite is suite)
            shown = suite
            if suite.agent.program is not None:  # the definitions its requests offered, in its source
                from gate.run.program_tools import shown_tools

                tools = shown_tools(suite, cases, Path(self.options.root or "."))
                shown = dataclasses.replace(suite, agent=dataclasses.replace(suite.agent, tools=tools))
            result = suite_result(shown, cases, self.options.triggered_by.get(suite.path, {}))
            wall_ms = (ends.get(suite.path, start) - start) * 1000
            requests = self.requests_of.get(suite.path, RequestStats())
            suite_results.append(dataclasses.replace(result, wall_ms=round(wall_ms, 3), requests=requests))
        return self._results(tuple(suite_results), started_at)

    def _work(self, suites: Sequence[Suite]) -> list[_CaseWork]:
        """Every case of ``suites`` in order, with ``--trials`` applied."""
        work = []
        for suite in suites:
            for case in suite.cases:
                if self.options.trials is not None and not case.skip:
                    case = dataclasses.replace(case, trials=self.options.trials)
                work.append(_CaseWork(suite, case, max(1, case.trials)))
        return work

    def _case_result(self, item: _CaseWork) -> CaseResult:
        suite, case = item.suite, item.case
        if case.skip:
            return skipped_result(suite, case)
        if item.tasks is None:  # never started: refused by the budget, or the run was stopped first
            reason = item.refused or f"not run: {self.control.reason or 'cancelled'}"
            stop: StopReason = "budget" if item.refused else "provider_error"
            record = not_run_record(suite, case, reason, stop)
            trials = [score_trial(suite, case, record, index, {}) for index in range(item.trials)]
            return case_result(suite, case, tuple(budget_result(t) if item.refused else t for t in trials))
        outcomes = [self._outcome(suite, case, i, task) for i, task in enumerate(item.tasks)]
        ran = tuple(outcome for outcome in outcomes if outcome is not None)
        return dataclasses.replace(case_result(suite, case, ran), planned_trials=item.trials)

    def _results(self, suites: tuple[SuiteResult, ...], started_at: str) -> RunResults:
        reasons = [f"stopped {scope}: {exc}" for scope, exc in self.fatal.items()]
        reasons += [r for r in (self.control.reason, self.budget_reason, self.cost_reason) if r]
        cache = self.options.cache
        settings = self.options.settings.counted(
            requests=self.requests,
            estimated_cost_usd=round(self.cost, 6),
            cost_incomplete=bool(self.unpriced),  # some model has no known price
        )
        if settings.prices is not None:
            prices = served_prices(settings.prices, self.served, self.options.prices)
            settings = dataclasses.replace(settings, prices=prices)
        if cache is not None and settings.cache is None:
            settings = dataclasses.replace(settings, cache=CacheCounts(cache.hits, cache.misses))
        return RunResults(
            suites=suites,
            started_at=started_at,
            finished_at=_now(),
            complete=not reasons,
            incomplete_reason="; ".join(reasons),
            unverified=self._unverified(),
            shard=self.options.shard,
            settings=settings,
        )

    def _unverified(self) -> str:
        """Why the run is not verified: the requests a replay could not answer ("" when it answered
        every one). They are not in the cache, so the model never answered those cases: an error the
        error budget would absorb would let a pull request that changed a case pass (DESIGN §6)."""
        if not self.unanswered:
            return ""
        requests = sum(self.unanswered.values())
        cases = sorted(self.unanswered)
        named = ", ".join(cases[:10]) + (f" and {len(cases) - 10} more" if len(cases) > 10 else "")
        return (
            f"not verified: a replay could not answer {requests} request(s) of {len(cases)} case(s) "
            f"({named}): they are not in the response cache (a change to what a case sends changes its "
            "requests), and a replay has no other answers"
        )

    def _outcome(
        self, suite: Suite, case: Case, index: int, task: asyncio.Task[TrialResult | None]
    ) -> TrialResult | None:
        if task.cancelled():
            reason = f"not run: {self.control.reason or 'cancelled'}"
            return score_trial(suite, case, not_run_record(suite, case, reason), index, {})
        exc = task.exception()
        if exc is not None:  # a bug, not a provider failure: keep the run going, report it on the trial
            reason = f"internal error: {type(exc).__name__}: {exc}"
            return score_trial(suite, case, not_run_record(suite, case, reason), index, {})
        return task.result()


@dataclass
class _CaseWork:
    """One case of the run: its trials' tasks once the budget let it start (None before), or why
    the budget did not (``refused``)."""

    suite: Suite
    case: Case
    trials: int
    tasks: list[asyncio.Task[TrialResult | None]] | None = None
    refused: str = ""


class _Countdown:
    """A done callback that calls ``then`` when the last of ``count`` tasks is done."""

    def __init__(self, count: int, then: Callable[[], None]) -> None:
        self.left = count
        self.then = then

    def __call__(self, _task: asyncio.Task[TrialResult | None]) -> None:
        self.left -= 1
        if self.left == 0:
            self.then()


async def _tick(progress: Progress) -> None:
    """The progress's clock while the run goes (``Progress.tick``, every second)."""
    while True:
        await asyncio.sleep(1.0)
        progress.tick()


def attempt_stats(attempts: Sequence[Attempt]) -> RequestStats:
    """One request's attempts, counted: how each ended and where its time went (ms)."""
    kinds = [a.kind for a in attempts]
    spent = {kind: sum(a.seconds for a in attempts if a.kind == kind) * 1000 for kind in set(kinds)}
    return RequestStats(
        requests=1,
        attempts=len(attempts),
        timeouts=kinds.count("timeout"),
        rate_limited=kinds.count("rate_limited"),
        failed=kinds.count("failed"),
        answered_ms=spent.get("answered", 0.0),
        timeout_ms=spent.get("timeout", 0.0),
        failed_ms=spent.get("rate_limited", 0.0) + spent.get("failed", 0.0),
        backoff_ms=sum(a.backoff for a in attempts) * 1000,
    )


def _budget_error(budget_text: str, account: Account | None) -> str:
    """Why a trial got no request from ``--max-requests``."""
    if account is not None and not account.borrow:
        return f"{account.why} and the cache does not hold this request"
    return f"stopped: the request budget ran out during this trial ({budget_text})"


def budget_result(result: TrialResult) -> TrialResult:
    """A trial the budget stopped or never ran: an error that says so (not "the provider failed")."""
    why = result.record.error or BUDGET_MESSAGE
    return dataclasses.replace(result, failures=(Failure("provider_error", why, actual=why),))


def with_judge_reasons(result: TrialResult, reasons: Sequence[str]) -> TrialResult:
    """``result`` with why the judge gave no verdict added to its ``judge_failed`` failures."""
    why = "; ".join(reasons)
    failures = tuple(
        dataclasses.replace(f, message=f"{f.message}: {why}", actual=why) if f.reason == "judge_failed" else f
        for f in result.failures
    )
    return dataclasses.replace(result, failures=failures)


def suite_result(suite: Suite, cases: tuple[CaseResult, ...], triggered_by: Mapping[str, str]) -> SuiteResult:
    prompt = suite.agent.system_prompt
    return SuiteResult(
        name=suite.name,
        path=suite.path,
        threshold=suite.threshold,
        cases=cases,
        tools=tuple(
            ToolInfo(
                name=t.name,
                description=t.description,
                file=t.source.path,
                line=t.source.line,
                description_line=t.description_line,
                parameter_lines=dict(t.parameter_lines),
                parameters=t.parameters,
            )
            for t in suite.agent.tools
        ),
        prompt=SourceRef(prompt.source.path, prompt.source.line) if prompt is not None else None,
        provider=suite.agent.provider,
        model=suite.agent.model or _models_asked_for(cases),
        triggered_by=dict(triggered_by),
    )


def _models_asked_for(cases: Sequence[CaseResult]) -> str:
    """The models an agent program asked for (its suite names none: the program picks its own), in
    the order its trials first asked for them; a record lists a trial's models joined by ', '."""
    asked = (
        model for case in cases for trial in case.trials for model in trial.record.model.split(", ") if model
    )
    return ", ".join(dict.fromkeys(asked))


async def run_suites(
    suites: Sequence[Suite],
    options: RunOptions,
    make_provider: Callable[[str], Provider],
    progress: Progress | None = None,
) -> RunResults:
    """Run every case and trial of ``suites``; never raises for provider failures (see module doc)."""
    return await _Run(options, make_provider, progress).run(suites)


async def ask(
    request: ModelRequest, options: RunOptions, make_provider: Callable[[str], Provider]
) -> tuple[ModelReply, int, float]:
    """One request outside any suite (the fix model's), through the same cache, retries, limiter and
    budgets as a run's: its reply, the requests it sent (0 from the cache) and their cost."""
    run = _Run(options, make_provider, None)
    try:
        reply = await run.call_model(request, 0)
    finally:
        await run.close_providers()
    return reply, run.requests, run.cost


__all__ = ["BUDGET_MESSAGE", "RunControl", "RunOptions", "ask", "run_suites", "suite_result"]
