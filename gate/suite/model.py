"""The suite language as typed, frozen data (DESIGN.md section 2).

The loader (``gate.files.suite_loader``) turns a validated YAML document into these objects; everything
after loading (agent loop, scoring, reports) reads only these. Pure data: no I/O here.

Argument matchers are typed trees (``gate.suite.matcher_tree``), parsed once when the suite is assembled;
``gate.suite.matchers`` says what they match.

A ``Source`` records where something was written (file, line, column), so that every report can
point back at the exact line a user must change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from gate.results.messages import Message
from gate.suite.matcher_tree import Matcher, any_judged
from gate.util.json_types import JsonObject, JsonValue

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = get_args(Provider)
# The variable each provider's key is read from: a key is what makes a run able to call a model (a
# base URL alone is not a secret: forks get a workflow's plain inputs but never its secrets).
KEY_VARIABLES: dict[Provider, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
Api = Literal["chat", "responses"]  # OpenAI: Chat Completions or the Responses API
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high"]
Verbosity = Literal["low", "medium", "high"]
OrderMode = Literal["any", "in_order", "strict"]
ExtraCalls = Literal["allow", "forbid"]
Reducer = Literal["all", "any", "at_least", "majority", "mean"]
ScoringMode = Literal["all", "weighted"]
Aggregate = Literal["all", "any", "mean", "min", "max"]
McpCalls = Literal["mock", "live"]  # who answers the calls to an MCP server's tools: the mocks or the server

# Each default of the suite language is written once, here: as a named constant below or as the default
# of a dataclass field (the loader reads it from the class, e.g. ``CallExpectation.order``). The JSON
# Schema shows the same values as ``default``; tests/suite/test_model_defaults.py keeps the two equal.
DEFAULT_THRESHOLD = 0.9
DEFAULT_RANKING_THRESHOLD = 0.75
DEFAULT_JUDGE_MAX_TOKENS = 1024
DEFAULT_PROGRAM_TIMEOUT_S = 120.0  # a command's time limit per trial (``timeout_s``)

DEFAULT_WEIGHTS = {"precision": 0.3, "recall": 0.3, "arguments": 0.3, "output": 0.1}


@dataclass(frozen=True)
class Source:
    """Where a thing was written: repository-relative path, 1-based line and column (0 = unknown)."""

    path: str
    line: int = 0
    column: int = 0

    def seen_from(self, path: str) -> str:
        """Where this is, as a message about the file ``path`` says it: ``line 12`` in that file,
        ``other.yaml:12`` in another."""
        return f"line {self.line}" if self.path == path else f"{self.path}:{self.line}"


@dataclass(frozen=True)
class ToolDef:
    """A tool in provider-neutral form. ``parameters`` is the tool's JSON Schema (an object schema)."""

    name: str
    description: str
    parameters: JsonObject
    source: Source
    # Line of the description text, where review comments about the description go (0 = unknown).
    description_line: int = 0
    # Per-parameter source lines (parameter name -> line of its definition), for argument advice.
    parameter_lines: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelParams:
    temperature: float | None = None
    max_tokens: int | None = None
    # "auto" | "required" | "none" | a tool name to force.
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    seed: int | None = None
    top_p: float | None = None
    # Reasoning controls and the rest of what current APIs take (see gate.suite.model_family for what is
    # sent to which model family). The three token limits are one setting under the API's names.
    max_completion_tokens: int | None = None
    max_output_tokens: int | None = None
    reasoning_effort: ReasoningEffort | None = None
    verbosity: Verbosity | None = None
    thinking_budget: int | None = None  # Anthropic extended thinking: budget_tokens
    stop: tuple[str, ...] = ()
    extra_body: JsonObject = field(default_factory=dict)  # passed through untouched


@dataclass(frozen=True)
class Prompt:
    """The system prompt template. ``source`` is the prompt file (or the suite line when inline)."""

    template: str
    source: Source
    from_file: bool = False


@dataclass(frozen=True)
class Command:
    """A program a suite makes the gate run: the agent program (DESIGN section 10), an MCP server.

    ``argv`` is run without a shell from the repository root (``argv[0]``: a program found on PATH,
    or a path relative to the root); ``watch`` holds the globs (relative to the root) of the files
    that are its code, so that a change to them affects the suite; ``timeout_s`` bounds one trial;
    ``purpose`` says what it is in messages ("agent program", "MCP server"); ``source`` is where
    the command is written; ``reuse`` (an agent program only): a few long-lived processes run the
    trials one at a time, each told by its first line (``gate.programs.pool``). Running any command
    needs the person running the gate to allow it."""

    argv: tuple[str, ...]
    purpose: str
    watch: tuple[str, ...] = ()
    timeout_s: float = DEFAULT_PROGRAM_TIMEOUT_S
    source: Source | None = None
    reuse: bool = False


@dataclass(frozen=True)
class ToolServer:
    """An MCP server whose ``tools/list`` gives agent tools (``tools: [{mcp: ...}]``): started with
    ``command`` (stdio, no shell) in ``directory``, or reached at ``url`` (on loopback). ``tools`` are the
    names it listed, once listed (a suite read offline by ``validate`` has none)."""

    command: tuple[str, ...] = ()
    url: str = ""
    watch: tuple[str, ...] = ()
    calls: McpCalls = "mock"
    timeout_s: float = 30.0
    source: Source = Source("")
    directory: str = ""  # the repository root the suite was read from (the base tree for the base side)
    tools: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """How reports name the server: its argv (quoted as a shell would) or its URL."""
        if self.url:
            return self.url
        return " ".join(_shell_word(word) for word in self.command)


def _shell_word(word: str) -> str:
    safe = word and all(c.isalnum() or c in "@%+=:,./-_" for c in word)
    return word if safe else "'" + word.replace("'", "'\"'\"'") + "'"


@dataclass(frozen=True)
class Agent:
    provider: Provider | Literal[""]  # "" for an agent program: its requests say which API they use
    model: str
    params: ModelParams
    system_prompt: Prompt | None
    tools: tuple[ToolDef, ...]
    api: Api = "chat"
    tool_servers: tuple[ToolServer, ...] = ()  # the MCP servers some of ``tools`` come from
    # The team's own agent program (DESIGN section 10); then provider, model, params and the system
    # prompt are the program's own business (empty here), and ``tools`` are what its mocks serve.
    program: Command | None = None


@dataclass(frozen=True)
class Judge:
    """The model that grades judged checks; always run at temperature 0 with a forced tool call."""

    provider: Provider
    model: str
    max_tokens: int = DEFAULT_JUDGE_MAX_TOKENS
    api: Api = "chat"
    reasoning_effort: ReasoningEffort | None = None


@dataclass(frozen=True)
class SimulatedUser:
    """A case's simulated user: what it wants, who it is, and at most how many messages it writes
    after the case's own input."""

    goal: str
    persona: str = ""
    max_turns: int = 5


@dataclass(frozen=True)
class MockRule:
    """One rule for a tool: used when ``when`` (argument matchers, None = always) matches the call.

    Exactly one of ``returns`` (any JSON value) or ``error`` (message sent back as a tool error)."""

    when: dict[str, Matcher] | None
    returns: Any = None
    error: str | None = None
    source: Source | None = None
    # Stateful rules (see gate.suite.mock_state): state path -> matcher the state must satisfy; the changes
    # made when the rule applies (set / append: path -> value, remove: paths), in that order; and
    # results used in turn over successive uses of the rule (the last one repeats).
    state_when: dict[str, Matcher] | None = None
    set: tuple[tuple[str, Any], ...] = ()
    append: tuple[tuple[str, Any], ...] = ()
    remove: tuple[str, ...] = ()
    sequence: tuple[MockStep, ...] = ()


@dataclass(frozen=True)
class MockStep:
    """One result of a rule's ``sequence``: ``returns`` (any JSON value) or ``error`` (a tool error)."""

    returns: Any = None
    error: str | None = None


@dataclass(frozen=True)
class Mocks:
    tools: dict[str, tuple[MockRule, ...]] = field(default_factory=dict)
    # What an unmocked tool returns; None means the built-in default (an explanatory error result).
    unmocked: MockRule | None = None
    source: Source | None = None


@dataclass(frozen=True)
class Times:
    """How many times an expected call must occur: between ``min`` and ``max`` (None = no upper bound)."""

    min: int = 1
    max: int | None = 1


@dataclass(frozen=True)
class ExpectedCall:
    tool: str
    # Argument name -> matcher. ``args: {}`` means no arguments.
    args: dict[str, Matcher]
    times: Times = Times()
    # Arguments not named in ``args`` are allowed (otherwise: "unexpected argument"). The loader sets it
    # when ``args`` is left out, which means any arguments.
    allow_extra_args: bool = False
    source: Source | None = None

    @property
    def judged(self) -> bool:
        """Whether a ``judge`` matcher is among the arguments' matchers."""
        return any_judged(self.args)


@dataclass(frozen=True)
class OutputChecks:
    """Checks on the agent's final answer. Judged ones (``JUDGED_OUTPUT_KEYS``) need the suite's
    ``judge``."""

    contains: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()
    regex: tuple[str, ...] = ()
    equals: str | None = None
    # Judged:
    criteria: tuple[str, ...] = ()
    semantic_contains: tuple[str, ...] = ()
    ranking: Ranking | None = None
    choice: Choice | None = None
    asks_clarification: bool | None = None
    ignore_case: bool = False

    @property
    def judged(self) -> int:
        """How many judged checks these are (each asks the judge at least once per trial)."""
        listed = len(self.criteria) + len(self.semantic_contains)
        return listed + sum(x is not None for x in (self.ranking, self.choice, self.asks_clarification))


# The checks of the final answer a judge decides: their keys in a suite, the fields of OutputChecks.
JUDGED_OUTPUT_KEYS = ("criteria", "semantic_contains", "ranking", "choice", "asks_clarification")


@dataclass(frozen=True)
class Ranking:
    """Judge orders (agent answer, wrong, irrelevant) against the verified reference answer."""

    reference: str
    wrong: str
    irrelevant: str
    threshold: float = DEFAULT_RANKING_THRESHOLD


@dataclass(frozen=True)
class Choice:
    """Multiple choice: options are shown to the agent shuffled per trial (fixed seed)."""

    options: tuple[str, ...]
    correct: str


PathCheck = Literal[
    "equals", "exists", "not_exists", "matches", "one_of", "match", "criteria", "semantic_contains"
]
PATH_CHECKS: tuple[PathCheck, ...] = get_args(PathCheck)


@dataclass(frozen=True)
class PathAssertion:
    """An assertion over the run record: ``path`` selects values, ``check`` says how each is checked:
    against ``operand`` as written, or for ``match`` against ``matcher``."""

    path: str
    check: PathCheck
    operand: JsonValue = None
    matcher: Matcher | None = None
    aggregate: Aggregate = "all"
    threshold: float = 1.0
    source: Source | None = None

    @property
    def written(self) -> JsonObject:
        """The check as the suite writes it (``{match: {regex: ...}}``): how results show it."""
        return {self.check: self.operand if self.matcher is None else self.matcher.json()}


@dataclass(frozen=True)
class CallExpectation:
    """The call-related part of an expectation; ``alternatives`` holds several of these."""

    calls: tuple[ExpectedCall, ...] = ()
    order: OrderMode = "any"
    extra_calls: ExtraCalls = "allow"
    forbidden_tools: tuple[str, ...] = ()
    no_calls: bool = False
    max_calls: int | None = None


@dataclass(frozen=True)
class Expectation:
    calls: CallExpectation = CallExpectation()
    # More acceptable call expectations: ``calls`` (when it has calls or no_calls) or any one of these.
    alternatives: tuple[CallExpectation, ...] = ()
    output: OutputChecks = OutputChecks()
    latency_ms: int | None = None
    asserts: tuple[PathAssertion, ...] = ()
    # State path -> argument matcher the mock backend's state must satisfy after the episode.
    final_state: dict[str, Matcher] | None = None
    # Judged: did the agent reach the user's goal by reasonable steps meeting these criteria?
    trajectory: str | None = None


@dataclass(frozen=True)
class Scoring:
    mode: ScoringMode = "all"
    pass_score: float = 0.8
    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))


@dataclass(frozen=True)
class Defaults:
    trials: int = 1
    reducer: Reducer = "all"
    # For reducer "at_least": how many trials must pass. For "mean": the pass score.
    at_least: int = 1
    mean_pass_score: float = 0.5
    max_tool_calls: int = 16
    max_turns: int = 8
    latency_ms: int | None = None
    scoring: Scoring = Scoring()


@dataclass(frozen=True)
class Case:
    id: str
    # The conversation sent to the agent (user messages; earlier assistant turns with the calls they
    # made and the results of those calls); a single ``input`` becomes one user message.
    conversation: tuple[Message, ...]
    vars: dict[str, str]
    tags: tuple[str, ...]
    expect: Expectation
    trials: int
    reducer: Reducer
    at_least: int
    mean_pass_score: float
    max_tool_calls: int
    max_turns: int
    scoring: Scoring
    mocks: Mocks
    source: Source
    skip: str | None = None  # reason, when the case is skipped
    # The mock backend's state at the start (the suite's state with the case's keys); None: stateless.
    state: JsonObject | None = None
    # Why the case is known to be flaky: it runs and is reported, never counted in the pass rate.
    non_gating: str | None = None
    # Played by the suite's user_simulator after the agent answers (None: the conversation is scripted).
    user: SimulatedUser | None = None


@dataclass(frozen=True)
class Suite:
    name: str
    path: str  # repository-relative path of the suite file
    description: str
    tags: tuple[str, ...]
    agent: Agent
    judge: Judge | None
    mocks: Mocks
    defaults: Defaults
    threshold: float  # DEFAULT_THRESHOLD when the suite gives none
    cases: tuple[Case, ...]
    # Every repository-relative file this suite reads (prompt, tool and mock files), for change detection.
    dependencies: tuple[str, ...] = ()
    source: Source | None = None
    # The model that plays the user of cases with a ``user`` (configured like the judge).
    user_simulator: Judge | None = None
    # Every program the suite makes the gate run (the agent program, MCP servers), wherever it is
    # written: the trust rule (``run --allow-commands``) and change detection (``watch``) read these.
    commands: tuple[Command, ...] = ()

    def tool(self, name: str) -> ToolDef | None:
        for tool in self.agent.tools:
            if tool.name == name:
                return tool
        return None
