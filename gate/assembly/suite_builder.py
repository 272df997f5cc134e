"""The builder: a suite document -> :class:`gate.suite.model.Suite`, with the semantic checks the
schema cannot express.

Duplicate case ids and tool names, tools that are not defined (in expectations, mocks, tool_choice),
template variables without values, judged checks without a judge, simulated users without a
simulator, regexes that do not compile, schemas that are not JSON Schemas, literals and mock
conditions that contradict a tool's schema, state paths, reducers that cannot pass, parameters the
model family refuses. Each problem is located at the offending node of the suite, or of the mock
file it sits in. The suite-level parts live here; expectations in :mod:`gate.assembly.expectation_builder`,
mocks in :mod:`gate.assembly.mock_builder`, what they share in :mod:`gate.assembly.context`.

A schema-invalid document is built too (``validate`` shows everything at once), without the parts
its schema errors damaged (:mod:`gate.assembly.checks.schema_damage`); its suite is never used.

Pure: the referenced prompt, tool and mock files come from a :class:`ReferencedFiles` (the
repository side is :class:`gate.files.file_references.SuiteFiles`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from gate.assembly.checks import agent_params, cannot_work
from gate.assembly.checks.schema_damage import Damage
from gate.assembly.checks.schema_messages import render_path
from gate.assembly.command_rule import check_command
from gate.assembly.context import BuildContext, SuiteDocument
from gate.assembly.conversation_builder import ConversationReader
from gate.assembly.expectation_builder import ExpectationReader, least_calls
from gate.assembly.mock_builder import MockReader, state_keys
from gate.assembly.program_agent import read_program
from gate.assembly.tool_formats import NAME_PATTERN, UNIQUE_NAMES_HINT, parse_tool
from gate.assembly.tool_server_builder import read_server, server_command
from gate.errors import Problem
from gate.results.messages import Message, UserMessage
from gate.suite import mock_state, templating
from gate.suite.mocks import merged
from gate.suite.model import (
    DEFAULT_THRESHOLD,
    Agent,
    Api,
    Case,
    Defaults,
    Expectation,
    Judge,
    Mocks,
    ModelParams,
    Prompt,
    Scoring,
    SimulatedUser,
    Source,
    Suite,
    ToolDef,
    ToolServer,
)
from gate.suite.model_choice import model_name_problem
from gate.suite.model_family import provider_problems
from gate.util.json_types import JsonObject, PathKey

__all__ = ["ReferencedFiles", "SuiteDocument", "ToolFile", "build_suite", "written_tool_name"]

TOOL_CHOICE_MODES = ("auto", "required", "none")
# Counts of the suite language: an integral float (``trials: 2.0``) passes JSON Schema's integer check.
_COUNTS = ("trials", "at_least", "max_tool_calls", "max_turns")
_REDUCER_KEYS = ("trials", "reducer", "at_least")


@dataclass(frozen=True)
class ToolFile:
    """What a referenced tool file gave: its tools (None: the reference was refused), its problems,
    and the name of every tool written in it, parsed or not (None: not known, e.g. not valid JSON)."""

    tools: tuple[ToolDef, ...] | None
    problems: tuple[Problem, ...]
    names: frozenset[str] | None


class ReferencedFiles(Protocol):
    """The files a suite refers to, each reference checked (problems at the reference) and each file
    checked (problems under its own path)."""

    @property
    def dependencies(self) -> list[str]: ...

    def tool_file(self, ref: str, at: PathKey) -> ToolFile: ...

    def prompt_file(self, ref: str, at: PathKey) -> tuple[Prompt | None, list[Problem]]: ...

    def mock_file(self, ref: str, at: PathKey) -> tuple[SuiteDocument | None, list[Problem]]: ...

    def tool_server(self, server: ToolServer, at: PathKey) -> tuple[ToolServer, ToolFile]:
        """The server as it will be started (its directory) and the tools it lists: none, with
        ``names`` None, when servers are not started (``validate``)."""
        ...

    def command_files(self, argv: tuple[str, ...], at: PathKey) -> list[Problem]: ...


def build_suite(
    doc: SuiteDocument, files: ReferencedFiles, damage: Damage | None = None
) -> tuple[Suite, list[Problem]]:
    """The suite of a document and every semantic problem of it. The suite is usable only when there
    are none and the schema found nothing (``damage`` empty); with damage, the parts it damaged are
    skipped."""
    builder = _SuiteBuilder(doc, files, damage or Damage())
    suite = builder.build()
    return suite, builder.context.problems


def written_tool_name(item: Any) -> str | None:
    """The name a tool definition is written with, in any format, even when the rest of the definition
    is broken (None: no valid name: then which tool the definition meant is not known)."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    name = function.get("name") if isinstance(function, dict) else item.get("name")
    return name if isinstance(name, str) and NAME_PATTERN.match(name) else None


def model_params(raw: JsonObject) -> ModelParams:
    """``agent.params`` (schema-valid) as ``ModelParams``: ``thinking: {budget_tokens}`` becomes the
    budget, ``stop`` a tuple of sequences, ``extra_body`` kept as written."""
    values = dict(raw)
    thinking = values.pop("thinking", None)
    stop = values.pop("stop", None)
    return ModelParams(
        **values,
        thinking_budget=thinking["budget_tokens"] if isinstance(thinking, dict) else None,
        stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
    )


class _SuiteBuilder:
    """The suite-level parts: agent and tools, judge and user simulator, defaults, cases."""

    def __init__(self, doc: SuiteDocument, files: ReferencedFiles, damage: Damage):
        self.context = BuildContext(doc, damage)
        self.files = files
        self.data: JsonObject = self.context.data
        self.expectations = ExpectationReader(self.context)
        # Whether the agent uses Anthropic extended thinking (a conversation cannot end with tool results)
        self.thinking = False
        self.program = False  # the agent is the team's program (a conversation ends with the user's message)
        self.servers: list[ToolServer] = []

    def damaged(self, path: PathKey) -> bool:
        return self.context.damaged(path)

    # -- the whole suite ------------------------------------------------------------------------

    def build(self) -> Suite:
        data, context = self.data, self.context
        agent = self.agent(data.get("agent", {}))
        self.thinking = agent.provider == "anthropic" and agent.params.thinking_budget is not None
        self.program = agent.program is not None
        judge = self.judge_like("judge")
        simulator = self.judge_like("user_simulator")
        # A judge (or simulator) written but damaged is still there: no "needs a judge" for it.
        context.has_judge = judge is not None or self.damaged(("judge",))
        cases_written = _written_cases(data.get("cases", ()))
        if simulator is None and not self.damaged(("user_simulator",)):
            self.check_users(cases_written)
        suite_vars = _vars(data.get("vars", {}))
        suite_state = data.get("state")
        context.state_keys = state_keys(suite_state, *(c.get("state") for _, c in cases_written))
        context.state_known = not self.damaged(("state",)) and not any(
            self.damaged(("cases", i, "state")) for i in range(len(data.get("cases", ())))
        )
        context.states = [(None, suite_state, frozenset())] if isinstance(suite_state, dict) else []
        context.states += [
            (("cases", i, "state"), mock_state.initial_state(suite_state, c["state"]), frozenset(c["state"]))
            for i, c in cases_written
            if isinstance(c.get("state"), dict)
        ]
        suite_mocks = self.mocks(data["mocks"], ("mocks",)) if "mocks" in data else Mocks()
        defaults = self.defaults(data.get("defaults", {}))
        cases = self.cases(cases_written, suite_vars, suite_mocks, defaults)
        self.check_prompt_vars(agent, suite_vars)
        return Suite(
            name=data.get("name", ""),
            path=context.doc.path,
            description=data.get("description", ""),
            tags=tuple(data.get("tags", ())),
            agent=agent,
            judge=judge,
            mocks=suite_mocks,
            defaults=defaults,
            threshold=float(data.get("threshold", DEFAULT_THRESHOLD)),
            cases=cases,
            dependencies=tuple(self.files.dependencies),
            source=Source(context.doc.path, 1, 1),
            user_simulator=simulator,
            commands=(
                *((agent.program,) if agent.program is not None else ()),
                *(c for c in map(server_command, agent.tool_servers) if c is not None),
            ),
        )

    def cases(
        self,
        written: list[tuple[int, JsonObject]],
        suite_vars: dict[str, str],
        suite_mocks: Mocks,
        defaults: Defaults,
    ) -> tuple[Case, ...]:
        """The cases, each case id unique (a case whose id is damaged takes no part in that)."""
        context = self.context
        cases = []
        seen: dict[str, Source] = {}
        for index, raw in written:
            context.state_keys = state_keys(self.data.get("state"), raw.get("state"))
            context.state_known = not (self.damaged(("state",)) or self.damaged(("cases", index, "state")))
            initial = mock_state.initial_state(self.data.get("state"), raw.get("state"))
            context.states = [(None, initial, frozenset())] if isinstance(initial, dict) else []
            case = self.case(raw, index, suite_vars, suite_mocks, defaults)
            first = seen.get(case.id)
            if "id" in raw and first is not None:
                context.err(
                    ("cases", index, "id"),
                    f"duplicate case id {case.id!r} (first at {first.seen_from(case.source.path)})",
                    "case ids must be unique in the suite",
                )
            elif "id" in raw:
                seen[case.id] = case.source
            cases.append(case)
        return tuple(cases)

    def check_users(self, cases: list[tuple[int, JsonObject]]) -> None:
        for index, raw in cases:
            if "user" in raw:
                self.context.err(
                    ("cases", index, "user"),
                    "a simulated user needs the suite's user_simulator",
                    "add user_simulator: {provider: openai, model: gpt-4o-mini} at the top of the suite",
                )

    def judge_like(self, key: str) -> Judge | None:
        """The suite's ``judge`` or ``user_simulator`` (both configured the same way), if written."""
        if key not in self.data:
            return None
        j = self.data[key]
        self.check_model_name(j.get("model"), (key, "model"))
        model = Judge(
            provider=j["provider"],
            model=j["model"],
            max_tokens=j.get("max_tokens", Judge.max_tokens),
            api=j.get("api", Judge.api),
            reasoning_effort=j.get("reasoning_effort"),
        )
        self.check_params(
            model.provider, model.api, ModelParams(reasoning_effort=model.reasoning_effort), (key,), j
        )
        return model

    # -- agent ----------------------------------------------------------------------------------

    def check_model_name(self, name: Any, at: PathKey) -> None:
        """A model name no provider can serve (a newline in it, white space around it), at its line."""
        problem = model_name_problem(name) if isinstance(name, str) and name else None
        if problem is not None and not self.damaged(at):
            self.context.err(at, problem, "write the model's name as the provider knows it")

    def check_params(self, provider: str, api: Api, params: ModelParams, at: PathKey, given: Any) -> None:
        """Parameters the provider, the API or extended thinking refuse, each at its line (``given``
        is the mapping the parameters were written in, under ``at``)."""
        given = given if isinstance(given, dict) else {}
        top = self.data.get(at[0], {})
        for name, message in provider_problems(provider, api, params):
            if name in given:
                self.context.err((*at, name), message)
            elif name in top:
                self.context.err((at[0], name), message)
            else:
                self.context.err(at, message)

    def agent(self, raw: JsonObject) -> Agent:
        program = read_program(self.context, raw, self.files)
        if program is not None:  # the program picks its own model: only its tools are the suite's
            tools = self.tools(raw.get("tools", []))  # read first: it collects the MCP servers
            return Agent(
                "", "", ModelParams(), None, tools, program=program, tool_servers=tuple(self.servers)
            )
        self.check_model_name(raw.get("model"), ("agent", "model"))
        params = model_params(raw.get("params", {}))
        api: Api = raw.get("api", Agent.api)
        if not any(self.damaged(("agent", key)) for key in ("provider", "api", "params")):
            at: PathKey = ("agent", "params") if "params" in raw else ("agent",)
            self.check_params(raw["provider"], api, params, at, raw.get("params", raw))
        prompt = self.prompt(raw)  # read before the tool files: the order of the suite's dependencies
        tools = self.tools(raw.get("tools", []))
        choice = params.tool_choice
        if choice is not None and choice not in TOOL_CHOICE_MODES:
            self.context.check_tool(choice, ("agent", "params", "tool_choice"), extra=TOOL_CHOICE_MODES)
        written_tools = bool(raw.get("tools")) or self.damaged(("agent", "tools"))
        problem = agent_params.tool_choice_problem(choice, written_tools)
        if problem is not None:
            self.context.err(("agent", "params", "tool_choice"), *problem)
        if not self.damaged(("agent", "params")):
            extra = agent_params.extra_body_problems(params.extra_body, ("agent", "params", "extra_body"))
            for path, message, hint in extra:
                self.context.err(path, message, hint, at_key=True)
        return Agent(
            provider=raw.get("provider", ""),
            model=raw.get("model", ""),
            params=params,
            system_prompt=prompt,
            tools=tools,
            api=api,
            tool_servers=tuple(self.servers),
        )

    def prompt(self, agent: JsonObject) -> Prompt | None:
        if "system_prompt" not in agent:
            return None
        value = agent["system_prompt"]
        if isinstance(value, str):
            return Prompt(value, self.context.source(("agent", "system_prompt")))
        prompt, problems = self.files.prompt_file(value["file"], ("agent", "system_prompt", "file"))
        self.context.problems.extend(problems)
        return prompt

    def tools(self, items: list[Any]) -> tuple[ToolDef, ...]:
        """The agent's tools, inline or from tool files, each name once. Also what the context knows
        of them: every name written (parsed or not), and whether some name could not be read."""
        context = self.context
        context.tools_known = not self.damaged(("agent", "tools"))
        written = context.doc.data.get("agent", {}).get("tools") if context.tools_known else None
        tools: list[ToolDef] = []
        seen: dict[str, Source] = {}
        for index, item in enumerate(items):
            at = ("agent", "tools", index)
            if item is None:  # damaged: only its name (when readable) is known
                self.know_names(_one_name(written[index] if isinstance(written, list) else None))
            elif "file" in item:
                found = self.files.tool_file(item["file"], (*at, "file"))
                context.problems.extend(found.problems)
                self.know_names(found.names)
                tools.extend(self.unique(found.tools or (), seen, at, in_file=True))
            elif "mcp" in item:
                listed = self.server_tools(item["mcp"], (*at, "mcp"))
                tools.extend(self.unique(listed, seen, at, in_file=True))
            else:
                parsed, tool_problems = parse_tool(item, context.doc, at)
                context.problems.extend(tool_problems)
                if parsed is None:
                    self.know_names(_one_name(item))
                else:
                    tools.extend(self.unique((parsed,), seen, at, in_file=False))
        context.tool_names.update(t.name for t in tools)
        context.tools = {t.name: t for t in tools}
        return tuple(tools)

    def server_tools(self, raw: dict[str, Any], at: PathKey) -> tuple[ToolDef, ...]:
        """The tools an MCP server lists (none until it is started); the server is kept for the run.
        A command the rule of every command refuses is never started, not even to list its tools."""
        server = read_server(self.context, raw, at)
        command = server.command if not self.context.damaged((*at, "command")) else ()
        if command and not check_command(self.context, command, (*at, "command"), self.files):
            self.know_names(None)
            return ()
        server, found = self.files.tool_server(server, at)
        self.context.problems.extend(found.problems)
        self.know_names(found.names)
        self.servers.append(server)
        return found.tools or ()

    def know_names(self, names: frozenset[str] | None) -> None:
        if names is None:
            self.context.tools_known = False
        else:
            self.context.tool_names.update(names)

    def unique(
        self, tools: tuple[ToolDef, ...], seen: dict[str, Source], at: PathKey, *, in_file: bool
    ) -> list[ToolDef]:
        """``tools`` without the names defined before (each reported as a duplicate)."""
        kept = []
        for tool in tools:
            first = seen.get(tool.name)
            if first is None:
                seen[tool.name] = tool.source
                kept.append(tool)
            else:
                # Reported at the suite's tool entry: a tool of a file says where it is.
                again = f" at {tool.source.path}:{tool.source.line}" if in_file else ""
                first_at = first.seen_from(self.context.doc.path)
                message = f"duplicate tool name {tool.name!r}{again} (first defined at {first_at})"
                self.context.err(at, message, UNIQUE_NAMES_HINT)
        return kept

    # -- mocks, defaults ------------------------------------------------------------------------

    def mocks(self, raw: JsonObject, at: PathKey) -> Mocks:
        if "file" in raw:
            doc, problems = self.files.mock_file(raw["file"], (*at, "file"))
            self.context.problems.extend(problems)
            if doc is None:
                return Mocks()
            return MockReader(self.context, doc).read(doc.data, ())
        return MockReader(self.context, self.context.doc).read(raw, at)

    def defaults(self, raw: JsonObject) -> Defaults:
        self.context.report(cannot_work.whole_number_problems(raw, _COUNTS, ("defaults",)))
        base = Defaults()
        return Defaults(
            trials=raw.get("trials", base.trials),
            reducer=raw.get("reducer", base.reducer),
            at_least=raw.get("at_least", base.at_least),
            mean_pass_score=float(raw.get("mean_pass_score", base.mean_pass_score)),
            max_tool_calls=raw.get("max_tool_calls", base.max_tool_calls),
            max_turns=raw.get("max_turns", base.max_turns),
            latency_ms=raw.get("latency_ms", base.latency_ms),
            scoring=self.scoring(raw["scoring"], ("defaults", "scoring"))
            if "scoring" in raw
            else base.scoring,
        )

    def scoring(self, raw: JsonObject, at: PathKey) -> Scoring:
        base = Scoring()
        weights = dict(base.weights)
        weights.update({k: float(v) for k, v in raw.get("weights", {}).items()})
        if raw.get("mode", base.mode) == "weighted" and sum(weights.values()) <= 0:
            self.context.err(
                (*at, "weights"), "the weights sum to 0", "give at least one metric a positive weight"
            )
        return Scoring(
            mode=raw.get("mode", base.mode),
            pass_score=float(raw.get("pass_score", base.pass_score)),
            weights=weights,
        )

    # -- one case -------------------------------------------------------------------------------

    def case(
        self,
        raw: JsonObject,
        index: int,
        suite_vars: dict[str, str],
        suite_mocks: Mocks,
        defaults: Defaults,
    ) -> Case:
        context = self.context
        at: PathKey = ("cases", index)
        case_vars = {**suite_vars, **_vars(raw.get("vars", {}))}
        conversation = self.conversation(raw, at)
        if not (self.damaged(("vars",)) or self.damaged((*at, "vars"))):
            self.check_templates(raw, at, case_vars)
        context.report(cannot_work.whole_number_problems(raw, _COUNTS, at))
        trials = raw.get("trials", defaults.trials)
        reducer = raw.get("reducer", defaults.reducer)
        at_least = raw.get("at_least", defaults.at_least)
        if not any(self.damaged(p) for k in _REDUCER_KEYS for p in (("defaults", k), (*at, k))):
            self.check_reducer(raw, at, trials, reducer, at_least)
        mocks = suite_mocks
        if "mocks" in raw:
            mocks = merged(self.mocks(raw["mocks"], (*at, "mocks")), suite_mocks)
        expect = self.expectations.expectation(raw.get("expect", {}), (*at, "expect"), defaults.latency_ms)
        max_tool_calls = raw.get("max_tool_calls", defaults.max_tool_calls)
        self.check_budget(raw, at, expect, max_tool_calls)
        return Case(
            id=raw.get("id", ""),
            conversation=conversation,
            vars=case_vars,
            tags=tuple(raw.get("tags", ())),
            expect=expect,
            trials=trials,
            reducer=reducer,
            at_least=at_least,
            mean_pass_score=float(raw.get("mean_pass_score", defaults.mean_pass_score)),
            max_tool_calls=max_tool_calls,
            max_turns=raw.get("max_turns", defaults.max_turns),
            scoring=self.scoring(raw["scoring"], (*at, "scoring")) if "scoring" in raw else defaults.scoring,
            mocks=mocks,
            source=context.source(at),
            skip=raw.get("skip"),
            state=mock_state.initial_state(self.data.get("state"), raw.get("state")),
            non_gating=raw.get("non_gating"),
            user=self.user(raw["user"], (*at, "user"), case_vars) if "user" in raw else None,
        )

    def check_budget(self, raw: JsonObject, at: PathKey, expect: Expectation, max_tool_calls: int) -> None:
        """Expected calls the agent can never make: more than its ``max_tool_calls``, or any at all
        under ``tool_choice: none``."""
        least = min(least_calls(e.calls) for e in (expect.calls, *expect.alternatives))
        if not least:
            return
        if least > max_tool_calls:
            written = "max_tool_calls" in self.data.get("defaults", {})
            where = (*at, "max_tool_calls") if "max_tool_calls" in raw else ("defaults", "max_tool_calls")
            self.context.err(
                where if "max_tool_calls" in raw or written else at,
                f"the case expects at least {least} tool calls, but the agent may make only "
                f"{max_tool_calls} (max_tool_calls)",
                "raise max_tool_calls or expect fewer calls",
            )
        if self.data.get("agent", {}).get("params", {}).get("tool_choice") == "none":
            self.context.err(
                (*at, "expect"),
                f"the case expects at least {least} tool calls, but the agent's tool_choice is none",
                "remove tool_choice: none, or expect no calls",
            )

    def user(self, raw: JsonObject, at: PathKey, case_vars: dict[str, str]) -> SimulatedUser:
        """The simulated user, its goal and persona templated with the case's variables (as its input
        is): a variable without a value, or a goal of white space only, is refused."""
        texts = {"goal": raw["goal"], "persona": raw.get("persona", SimulatedUser.persona)}
        if not texts["goal"].strip():
            self.context.err((*at, "goal"), "the simulated user's goal is only white space", _GOAL_HINT)
        if any(templating.missing(text, case_vars) for text in texts.values()):
            if not (self.damaged(("vars",)) or self.damaged((*at[:-1], "vars"))):
                self.check_variables([(text, (*at, key)) for key, text in texts.items()], case_vars)
            return SimulatedUser(**raw)
        filled = {key: templating.render(text, case_vars) for key, text in texts.items()}
        return SimulatedUser(**{**raw, **filled})

    def conversation(self, raw: JsonObject, at: PathKey) -> tuple[Message, ...]:
        """The case's input as one user message, or its conversation (see
        :mod:`gate.assembly.conversation_builder`)."""
        if "input" in raw:
            return (UserMessage(raw["input"]),)
        reader = ConversationReader(
            self.context, (*at, "conversation"), thinking=self.thinking, program=self.program
        )
        return reader.read(list(raw.get("conversation", ())))

    def check_templates(self, raw: JsonObject, at: PathKey, case_vars: dict[str, str]) -> None:
        """Every template variable of the case's input or conversation has a value."""
        if "input" in raw:
            texts = [(raw["input"], (*at, "input"))]
        else:
            conversation = raw.get("conversation", ())
            texts = [
                (m["content"], (*at, "conversation", i, "content"))
                for i, m in enumerate(conversation)
                if m is not None and isinstance(m.get("content"), str)
            ]
        self.check_variables(texts, case_vars)

    def check_variables(self, texts: list[tuple[str, PathKey]], case_vars: dict[str, str]) -> None:
        """Every template variable of each text (at its path) has a value in ``case_vars``."""
        for text, path in texts:
            for name in templating.missing(text, case_vars):
                self.context.err(
                    path,
                    f"no value for template variable {{{{ {name} }}}}",
                    f"add {name} to the vars of the case or the suite",
                )

    def check_reducer(self, raw: JsonObject, at: PathKey, trials: int, reducer: str, at_least: int) -> None:
        defaults = self.data.get("defaults", {})
        if reducer == "at_least" and "at_least" not in raw and "at_least" not in defaults:
            written: PathKey = (*at, "reducer") if "reducer" in raw else ("defaults", "reducer")
            problem = self.context.doc.problem(
                written,
                f"{render_path(written)}: reducer at_least needs at_least: how many trials must pass",
                "add at_least: N beside it (at_least: 1 is reducer any)",
            )
            if problem not in self.context.problems:  # from the defaults: said once
                self.context.problems.append(problem)
            return
        if reducer == "at_least" and at_least > trials:
            where = (*at, "at_least") if "at_least" in raw else (*at, "trials") if "trials" in raw else None
            where = where or ("defaults", "at_least")  # both from the defaults: reported once, there
            self.context.err(
                where,
                f"reducer at_least needs {at_least} passing trials but the case runs only {trials}",
                "lower at_least or raise trials",
            )

    def check_prompt_vars(self, agent: Agent, suite_vars: dict[str, str]) -> None:
        """Every variable of the system prompt has a value in the suite's vars or in each case's."""
        prompt = agent.system_prompt
        if prompt is None or self.damaged(("vars",)):
            return
        cases = self.data.get("cases", [])
        references = [i for i, c in enumerate(cases) if isinstance(c, dict) and "file" in c]
        unknown = [i for i, c in enumerate(cases) if c is None or self.damaged(("cases", i, "vars"))]
        unknown += references
        for name in templating.missing(prompt.template, suite_vars):
            lacking = [i for i, c in enumerate(cases) if i not in unknown and name not in c.get("vars", {})]
            if not lacking:
                continue
            where = (
                f" ({prompt.source.path}:{_placeholder_line(prompt.template, name)})"
                if prompt.from_file
                else ""
            )
            if len(lacking) == len(cases) - len(references):
                self.context.err(
                    ("agent", "system_prompt"),
                    f"the system prompt uses {{{{ {name} }}}}{where} but no value is given",
                    f"add {name} to the suite's vars (or to every case's vars)",
                )
                continue
            for i in lacking:
                case_id = cases[i].get("id", f"#{i + 1}")
                self.context.err(
                    ("cases", i),
                    f"case {case_id!r} gives no value for {{{{ {name} }}}} of the system prompt",
                    f"add {name} to the vars of this case or of the suite",
                )


def _written_cases(cases: Any) -> list[tuple[int, JsonObject]]:
    """The cases written as cases, with their index: not those damaged, nor the references to data
    files whose cases could not be read (their problems are reported at the reference)."""
    return [(i, c) for i, c in enumerate(cases) if isinstance(c, dict) and "file" not in c]


_GOAL_HINT = "write what the user wants, with every detail the user may reveal when asked"


def _one_name(item: Any) -> frozenset[str] | None:
    name = written_tool_name(item)
    return None if name is None else frozenset((name,))


def _placeholder_line(template: str, name: str) -> int:
    """The line of the first ``{{ name }}`` in ``template`` (1-based)."""
    for match in templating.PLACEHOLDER.finditer(template):
        if match.group(1) == name:
            return template.count("\n", 0, match.start()) + 1
    return 1


def _vars(raw: JsonObject) -> dict[str, str]:
    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return {k: text(v) for k, v in raw.items()}
