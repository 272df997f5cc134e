"""Results of an evaluation: the failure taxonomy, per-trial scores, per-case and per-suite results.

This is the contract between the evaluator (which produces it), the reports (which render it) and
the JSON results file (``schemas/results.schema.json``, which serialises it losslessly so that
reports can be re-rendered, shards merged and baselines compared). Pure data.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

from gate.results.fixes import FixSearch
from gate.results.run_record import RunRecord
from gate.results.settings import RunSettings
from gate.util.json_types import JsonObject

MAX_QUOTED_CHARS = 300  # how much of an answer, a provider error or raw arguments a failure quotes
# 3: an agent program's standard error is its record's ``log``, no longer a ``program`` message (so
# ``messages[-1]`` is what was last said); 2: system prompts stored once per suite (``system_prompts``).
# 1 and 2 are still read.
RESULTS_VERSION = 3

# The failure taxonomy of DESIGN.md section 3. The value is the stable identifier used in JSON.
Reason = Literal[
    "wrong_tool",
    "missing_call",
    "extra_call",
    "hallucinated_tool",
    "wrong_count",
    "missing_argument",
    "unexpected_argument",
    "type_error",
    "value_error",
    "order_violation",
    "forbidden_call",
    "invalid_arguments",
    "schema_violation",
    "over_call_budget",
    "latency_exceeded",
    "output_check_failed",
    "judge_failed",
    "provider_error",
    "reply_cut",
    "below_pass_score",
    "state_mismatch",
    "trajectory_failed",
    "agent_crashed",
]

# The reasons an expected argument of a paired call fails for.
ARGUMENT_REASONS: frozenset[Reason] = frozenset(
    {"missing_argument", "unexpected_argument", "type_error", "value_error"}
)

REASON_TITLES: dict[str, str] = {
    "wrong_tool": "wrong tool",
    "missing_call": "missing call",
    "extra_call": "extra call",
    "hallucinated_tool": "hallucinated tool",
    "wrong_count": "wrong count",
    "missing_argument": "missing required argument",
    "unexpected_argument": "unexpected argument",
    "type_error": "type error",
    "value_error": "value error",
    "order_violation": "order violation",
    "forbidden_call": "called when forbidden",
    "invalid_arguments": "invalid arguments JSON",
    "schema_violation": "schema violation",
    "over_call_budget": "over call budget",
    "latency_exceeded": "latency exceeded",
    "below_pass_score": "below pass score",
    "output_check_failed": "output check failed",
    "judge_failed": "judge failed",
    "provider_error": "provider error",
    "reply_cut": "reply cut at the token limit",
    "state_mismatch": "final state mismatch",
    "trajectory_failed": "trajectory judged unreasonable",
    "agent_crashed": "agent program crashed",
}

CaseStatus = Literal["passed", "failed", "error", "skipped"]

# What a check score scores: the calls and their arguments; the final answer ("output" for the string
# checks, the judged checks by name); a path assertion; the latency; the final state; the trajectory.
CheckKind = Literal[
    "calls",
    "arguments",
    "output",
    "criteria",
    "semantic_contains",
    "ranking",
    "choice",
    "clarification",
    "path",
    "latency",
    "final_state",
    "trajectory",
]


@dataclass(frozen=True)
class Failure:
    """Why a trial failed: one reason of the taxonomy, with the tool, argument, expected and actual
    value where they apply, and a one-line human message."""

    reason: Reason
    message: str
    tool: str | None = None
    argument: str | None = None
    expected: Any = None
    actual: Any = None
    # For wrong_tool: the tool that was expected and the one called (confusion table).
    expected_tool: str | None = None


@dataclass(frozen=True)
class CheckScore:
    """The score of one check (its ``kind``: see ``CheckKind``)."""

    kind: CheckKind
    score: float
    passed: bool
    detail: str = ""
    rationale: str = ""  # the judge's rationale for judged checks


@dataclass(frozen=True)
class Metrics:
    precision: float = 1.0
    recall: float = 1.0
    f1: float = 1.0
    argument_accuracy: float = 1.0
    output_score: float = 1.0
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True)
class TrialResult:
    index: int
    status: CaseStatus  # passed | failed | error
    score: float  # weighted score in [0, 1]
    failures: tuple[Failure, ...]
    checks: tuple[CheckScore, ...]
    metrics: Metrics
    record: RunRecord
    # Expected call i -> index of the actual call it was paired with (None: missing).
    pairing: tuple[int | None, ...] = ()
    alternative: int | None = None  # which alternative expectation was used, if any


@dataclass(frozen=True)
class CaseResult:
    suite: str
    case_id: str
    file: str
    line: int
    status: CaseStatus
    score: float
    flaky: bool
    trials: tuple[TrialResult, ...]
    metrics: Metrics  # mean over trials
    tags: tuple[str, ...] = ()
    # A readable form of the expectation (expected calls with matchers), for "expected vs actual".
    expected: JsonObject = field(default_factory=dict)
    skip_reason: str | None = None
    # Why the case is known flaky: reported, never counted in the pass rate or the baseline verdict.
    non_gating: str | None = None
    # The reducer's own reason for a failed case none of whose trials failed (reducer ``mean``: every
    # trial passed on its own, their mean score is under ``mean_pass_score``).
    reason: Failure | None = None
    # The trials it would have run (0: as many as it ran); more than it ran when curtailed trials
    # stopped it once its verdict (and comparison call) was decided.
    planned_trials: int = 0

    @property
    def curtailed(self) -> bool:
        """Whether curtailed trials stopped the case before it ran every trial it planned."""
        return self.planned_trials > len(self.trials)

    @property
    def failures(self) -> tuple[Failure, ...]:
        """Why the case did not pass: the failures of the first trial of the case's own status (failed
        or errored), else of the first failing or errored one (what the reports show first: why the
        agent failed, or why the case could not be evaluated); for a failed case no trial failed in, the
        reducer's ``reason``. Every output (JSON, Markdown, console, JUnit) shows these."""
        statuses = {"error": ("error", "failed"), "failed": ("failed",)}.get(self.status, ("failed", "error"))
        for status in statuses:
            for trial in self.trials:
                if trial.status == status:
                    return trial.failures
        if self.status != "failed":
            return ()
        if self.reason is not None:
            return (self.reason,)
        return (  # results written before the reducer stored its reason
            Failure(
                "below_pass_score",
                f"mean trial score {self.score:.3f} is under the case's mean_pass_score "
                "(every trial passed on its own)",
                actual=self.score,
            ),
        )


@dataclass(frozen=True)
class SourceRef:
    """A definition a recommendation can point at."""

    file: str
    line: int


@dataclass(frozen=True)
class ToolInfo:
    """What the reports need to know of a tool definition, to point at the line to change."""

    name: str
    description: str
    file: str
    line: int
    description_line: int
    parameter_lines: dict[str, int] = field(default_factory=dict)
    # The tool's parameter JSON Schema, so that advice can say what the definition already says;
    # None: not recorded (results written before it was).
    parameters: JsonObject | None = None


@dataclass(frozen=True)
class RequestStats:
    """The model requests sent for a suite (the agent's, its judge's and its simulated user's; cache
    hits are none), how their attempts ended, where their time went and what they cost. Times are
    summed over the requests in flight together, so they can exceed the wall time."""

    requests: int = 0  # requests made: each answered, or given up after its last attempt
    attempts: int = 0  # attempts sent: first tries and retries
    timeouts: int = 0  # attempts with no answer within the time limit (--timeout)
    rate_limited: int = 0  # attempts refused with 429
    failed: int = 0  # other failed attempts: 5xx, a dropped connection, a malformed or refused reply
    answered_ms: float = 0.0  # in attempts that were answered
    timeout_ms: float = 0.0  # in attempts that timed out
    failed_ms: float = 0.0  # in attempts refused or failed otherwise
    backoff_ms: float = 0.0  # waiting between an attempt and the next
    cost_usd: float = 0.0  # the estimated cost of the answered requests that have a price
    unpriced: int = 0  # answered requests whose model has no known price (their cost is unknown)

    @property
    def retries(self) -> int:
        """Attempts beyond the first of each request."""
        return self.attempts - self.requests

    @property
    def request_ms(self) -> float:
        """All the time of the attempts and of the waits between them."""
        return self.answered_ms + self.timeout_ms + self.failed_ms + self.backoff_ms

    def __add__(self, other: RequestStats) -> RequestStats:
        return RequestStats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(RequestStats)))


@dataclass(frozen=True)
class SuiteResult:
    name: str
    path: str
    threshold: float
    cases: tuple[CaseResult, ...]
    tools: tuple[ToolInfo, ...] = ()
    prompt: SourceRef | None = None
    provider: str = ""
    model: str = ""
    # Files that made this suite run under change detection (file -> reason), empty otherwise.
    triggered_by: dict[str, str] = field(default_factory=dict)
    # Wall time from the start of the run to the end of the suite's last trial (its trials run
    # concurrently with other suites'); 0: unknown (results written before it was recorded).
    wall_ms: float = 0.0
    # The model requests the suite's evaluation sent (empty: none, or results written before).
    requests: RequestStats = RequestStats()


@dataclass(frozen=True)
class RunResults:
    """One run (or one shard of a run, or a merge of shards)."""

    suites: tuple[SuiteResult, ...]
    started_at: str  # ISO 8601
    finished_at: str
    complete: bool = True  # False when interrupted or a budget stopped the run
    incomplete_reason: str = ""
    # Why the run is not verified ("" when it is): a replay could not answer some requests (they are
    # not in the response cache), so the model never answered those cases (DESIGN section 6).
    unverified: str = ""
    shard: str = ""  # "INDEX/COUNT" when this is a shard
    settings: RunSettings = field(default_factory=RunSettings)  # the policy asked for, what it spent
    version: int = RESULTS_VERSION
    # --baseline auto: the base side's results, evaluated in the same run (compared with these).
    base: RunResults | None = None
    # run --suggest-fixes: what the search for verified fixes found (None: no search was asked for).
    fixes: FixSearch | None = None

    @property
    def requests(self) -> RequestStats:
        """The model requests of these results: every suite's."""
        return sum((s.requests for s in self.suites), RequestStats())

    @property
    def total_requests(self) -> RequestStats:
        """The model requests of the whole run: the head's and, with --baseline auto, the base side's."""
        return self.requests + self.base.requests if self.base is not None else self.requests
