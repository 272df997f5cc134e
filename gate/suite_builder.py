"""The builder: a schema-valid suite document -> :class:`gate.suite_model.Suite`, with the semantic
checks the schema cannot express.

Duplicate case ids and tool names, tools that are not defined (in expectations, mocks, tool_choice),
template variables without values, judged checks without a judge, simulated users without a
simulator, regexes that do not compile, schemas that are not JSON Schemas, literals and mock
conditions that contradict a tool's schema, state paths, reducers that cannot pass, parameters the
model family refuses. Each problem is located at the offending node of the suite, or of the mock
file it sits in.

Pure: the referenced prompt, tool and mock files come from a :class:`ReferencedFiles` (the
repository side is :class:`gate.file_references.SuiteFiles`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from gate import bounded_regex, cannot_work, matcher_specs, mock_state, schema_check, state_checks, templating
from gate.errors import Problem
from gate.escape import truncate
from gate.model_family import provider_problems
from gate.schema_messages import QUOTED_CHARS, Document, did_you_mean, render_path
from gate.suite_model import (
    DEFAULT_THRESHOLD,
    MATCHER_KEYS,
    Agent,
    Api,
    CallExpectation,
    Case,
    Choice,
    Defaults,
    Expectation,
    ExpectedCall,
    Judge,
    Message,
    MockRule,
    Mocks,
    MockStep,
    ModelParams,
    OutputChecks,
    PathAssertion,
    Prompt,
    Ranking,
    Scoring,
    SimulatedUser,
    Source,
    Suite,
    Times,
    ToolDef,
)
from gate.tool_formats import parse_tool

PathKey = tuple[Any, ...]
TOOL_CHOICE_MODES = ("auto", "required", "none")
JUDGED_OUTPUT_KEYS = ("criteria", "semantic_contains", "ranking", "choice", "asks_clarification")
# Counts of the suite language: an integral float (``trials: 2.0``) passes JSON Schema's integer check.
_COUNTS = ("trials", "at_least", "max_tool_calls", "max_turns")


class SuiteDocument(Document, Protocol):
    """A parsed suite or mock file: its data and where each value was written."""

    @property
    def data(self) -> Any: ...

    def position(self, path: PathKey) -> tuple[int, int]: ...

    def key_position(self, path: PathKey) -> tuple[int, int]: ...


class ReferencedFiles(Protocol):
    """The files a suite refers to, each reference checked (problems at the reference) and each file
    checked (problems under its own path)."""

    @property
    def dependencies(self) -> list[str]: ...

    def tool_file(self, ref: str, at: PathKey) -> tuple[list[ToolDef] | None, list[Problem]]: ...

    def prompt_file(self, ref: str, at: PathKey) -> tuple[Prompt | None, list[Problem]]: ...

    def mock_file(self, ref: str, at: PathKey) -> tuple[SuiteDocument | None, list[Problem]]: ...


def build_suite(doc: SuiteDocument, files: ReferencedFiles) -> tuple[Suite, list[Problem]]:
    """The suite of a schema-valid document and every semantic problem of it (the suite is usable
    only when there are none)."""
    builder = _SuiteBuilder(doc, files)
    suite = builder.build()
    return suite, builder.problems


def model_params(raw: dict[str, Any]) -> ModelParams:
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
    """Semantic checks and construction of one schema-valid suite document."""

    def __init__(self, doc: SuiteDocument, files: ReferencedFiles):
        self.doc, self.files = doc, files
        self.data: dict[str, Any] = doc.data
        self.problems: list[Problem] = []
        self.tool_names: set[str] = set()
        self.tools: dict[str, ToolDef] = {}
        self.tools_ok = True
        # The state keys mock rules may refer to where they are being read (None: no state declared).
        self.state_keys: frozenset[str] | None = None

    def err(
        self,
        path: PathKey,
        message: str,
        hint: str = "",
        *,
        at_key: bool = False,
        doc: SuiteDocument | None = None,
    ) -> None:
        where = render_path(path)
        doc = doc or self.doc
        self.problems.append(
            doc.problem(path, f"{where}: {message}" if where else message, hint, at_key=at_key)
        )

    def report(self, found: list[tuple[PathKey, str, str]], doc: SuiteDocument | None = None) -> None:
        """Report what ``gate.cannot_work`` found, each at its path."""
        for path, message, hint in found:
            self.err(path, message, hint, doc=doc)

    # -- the whole suite ------------------------------------------------------------------------

    def build(self) -> Suite:
        data = self.data
        agent = self.agent(data["agent"])
        judge = self.judge_like("judge")
        simulator = self.judge_like("user_simulator")
        for index, raw in enumerate(data["cases"]):
            if "user" in raw and simulator is None:
                self.err(
                    ("cases", index, "user"),
                    "a simulated user needs the suite's user_simulator",
                    "add user_simulator: {provider: openai, model: gpt-4o-mini} at the top of the suite",
                )
        suite_vars = _vars(data.get("vars", {}))
        suite_state = data.get("state")
        self.state_keys = _state_keys(suite_state, *(c.get("state") for c in data["cases"]))
        suite_mocks = self.mocks(data["mocks"], ("mocks",)) if "mocks" in data else Mocks()
        defaults = self.defaults(data.get("defaults", {}))
        cases = []
        seen: dict[str, int] = {}
        for index, raw in enumerate(data["cases"]):
            self.state_keys = _state_keys(suite_state, raw.get("state"))
            case = self.case(raw, index, agent, suite_vars, suite_mocks, defaults, judge is not None)
            if case.id in seen:
                self.err(
                    ("cases", index, "id"),
                    f"duplicate case id {case.id!r} (first at line {seen[case.id]})",
                    "case ids must be unique in the suite",
                )
            else:
                seen[case.id] = case.source.line
            cases.append(case)
        self.check_prompt_vars(agent, suite_vars)
        return Suite(
            name=data["name"],
            path=self.doc.path,
            description=data.get("description", ""),
            tags=tuple(data.get("tags", ())),
            agent=agent,
            judge=judge,
            mocks=suite_mocks,
            defaults=defaults,
            threshold=float(data.get("threshold", DEFAULT_THRESHOLD)),
            cases=tuple(cases),
            dependencies=tuple(self.files.dependencies),
            source=Source(self.doc.path, 1, 1),
            user_simulator=simulator,
        )

    def judge_like(self, key: str) -> Judge | None:
        """The suite's ``judge`` or ``user_simulator`` (both configured the same way), if written."""
        if key not in self.data:
            return None
        j = self.data[key]
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

    def source(self, path: PathKey) -> Source:
        line, column = self.doc.position(path)
        return Source(self.doc.path, line, column)

    # -- agent ----------------------------------------------------------------------------------

    def check_params(self, provider: str, api: Api, params: ModelParams, at: PathKey, given: Any) -> None:
        """Parameters the provider, the API or extended thinking refuse, each at its line (``given``
        is the mapping the parameters were written in, under ``at``)."""
        given = given if isinstance(given, dict) else {}
        top = self.data.get(at[0], {})
        for name, message in provider_problems(provider, api, params):
            if name in given:
                self.err((*at, name), message)
            elif name in top:
                self.err((at[0], name), message)
            else:
                self.err(at, message)

    def agent(self, raw: dict[str, Any]) -> Agent:
        params = model_params(raw.get("params", {}))
        api: Api = raw.get("api", Agent.api)
        at: PathKey = ("agent", "params") if "params" in raw else ("agent",)
        self.check_params(raw["provider"], api, params, at, raw.get("params", raw))
        prompt = None
        if "system_prompt" in raw:
            value = raw["system_prompt"]
            if isinstance(value, str):
                prompt = Prompt(value, self.source(("agent", "system_prompt")))
            else:
                prompt, problems = self.files.prompt_file(value["file"], ("agent", "system_prompt", "file"))
                self.problems.extend(problems)
        tools: list[ToolDef] = []
        seen: dict[str, Source] = {}
        for index, item in enumerate(raw.get("tools", [])):
            at = ("agent", "tools", index)
            if "file" in item:
                file_tools, file_problems = self.files.tool_file(item["file"], (*at, "file"))
                self.problems.extend(file_problems)
                if file_tools is None:
                    self.tools_ok = False
                    continue
                self.tools_ok = self.tools_ok and not file_problems
                for tool in file_tools:
                    if tool.name in seen:
                        first = seen[tool.name]
                        self.err(
                            at,
                            f"duplicate tool name {tool.name!r} ({tool.source.path}:{tool.source.line} "
                            f"and {first.path}:{first.line})",
                            "tool names must be unique",
                        )
                        continue
                    seen[tool.name] = tool.source
                    tools.append(tool)
            else:
                parsed, tool_problems = parse_tool(item, self.doc, at)
                self.problems.extend(tool_problems)
                if parsed is None:
                    self.tools_ok = False
                    continue
                if parsed.name in seen:
                    first = seen[parsed.name]
                    self.err(
                        at,
                        f"duplicate tool name {parsed.name!r} (first defined at {first.path}:{first.line})",
                        "tool names must be unique",
                    )
                    continue
                seen[parsed.name] = parsed.source
                tools.append(parsed)
        self.tool_names = {t.name for t in tools}
        self.tools = {t.name: t for t in tools}
        choice = params.tool_choice
        if choice is not None and choice not in TOOL_CHOICE_MODES:
            self.check_tool(choice, ("agent", "params", "tool_choice"), extra=TOOL_CHOICE_MODES)
        return Agent(
            provider=raw["provider"],
            model=raw["model"],
            params=params,
            system_prompt=prompt,
            tools=tuple(tools),
            api=api,
        )

    def check_tool(self, name: str, at: PathKey, extra: Sequence[str] = ()) -> None:
        if not self.tools_ok or name in self.tool_names:
            return
        names = sorted(self.tool_names)
        close = difflib.get_close_matches(name, names + list(extra), n=1, cutoff=0.6)
        hint = (
            f"did you mean {close[0]!r}?"
            if close
            else ("defined tools: " + ", ".join(names) if names else "the agent defines no tools")
        )
        self.err(at, f"unknown tool {name!r}", hint)

    # -- mocks ----------------------------------------------------------------------------------

    def mocks(self, raw: dict[str, Any], at: PathKey) -> Mocks:
        if "file" in raw:
            doc, problems = self.files.mock_file(raw["file"], (*at, "file"))
            self.problems.extend(problems)
            if doc is None:
                return Mocks()
            return _MockReader(self, doc).read(doc.data, ())
        return _MockReader(self, self.doc).read(raw, at)

    # -- defaults and cases ---------------------------------------------------------------------

    def defaults(self, raw: dict[str, Any]) -> Defaults:
        self.report(cannot_work.whole_number_problems(raw, _COUNTS, ("defaults",)))
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

    def scoring(self, raw: dict[str, Any], at: PathKey) -> Scoring:
        base = Scoring()
        weights = dict(base.weights)
        weights.update({k: float(v) for k, v in raw.get("weights", {}).items()})
        if raw.get("mode", base.mode) == "weighted" and sum(weights.values()) <= 0:
            self.err((*at, "weights"), "the weights sum to 0", "give at least one metric a positive weight")
        return Scoring(
            mode=raw.get("mode", base.mode),
            pass_score=float(raw.get("pass_score", base.pass_score)),
            weights=weights,
        )

    def case(
        self,
        raw: dict[str, Any],
        index: int,
        agent: Agent,
        suite_vars: dict[str, str],
        suite_mocks: Mocks,
        defaults: Defaults,
        has_judge: bool,
    ) -> Case:
        at: PathKey = ("cases", index)
        case_vars = {**suite_vars, **_vars(raw.get("vars", {}))}
        if "input" in raw:
            conversation: tuple[Message, ...] = (Message("user", raw["input"]),)
            texts = [(raw["input"], (*at, "input"))]
        else:
            conversation = tuple(Message(m["role"], m["content"]) for m in raw["conversation"])
            texts = [
                (m["content"], (*at, "conversation", i, "content")) for i, m in enumerate(raw["conversation"])
            ]
            if conversation[-1].role != "user":
                self.err(
                    (*at, "conversation", len(conversation) - 1),
                    "the conversation must end with a user message",
                    "add the user's next message",
                )
        for text, path in texts:
            for name in templating.missing(text, case_vars):
                self.err(
                    path,
                    f"no value for template variable {{{{ {name} }}}}",
                    f"add {name} to the vars of the case or the suite",
                )
        self.report(cannot_work.whole_number_problems(raw, _COUNTS, at))
        trials = raw.get("trials", defaults.trials)
        reducer = raw.get("reducer", defaults.reducer)
        at_least = raw.get("at_least", defaults.at_least)
        if reducer == "at_least" and at_least > trials:
            where = (*at, "at_least") if "at_least" in raw else (*at, "trials") if "trials" in raw else None
            where = where or ("defaults", "at_least")  # both from the defaults: reported once, there
            self.err(
                where,
                f"reducer at_least needs {at_least} passing trials but the case runs only {trials}",
                "lower at_least or raise trials",
            )
        scoring = self.scoring(raw["scoring"], (*at, "scoring")) if "scoring" in raw else defaults.scoring
        mocks = suite_mocks
        if "mocks" in raw:
            mocks = _merge_mocks(self.mocks(raw["mocks"], (*at, "mocks")), suite_mocks)
        expect = self.expectation(raw.get("expect", {}), (*at, "expect"), defaults, has_judge)
        return Case(
            id=raw["id"],
            conversation=conversation,
            vars=case_vars,
            tags=tuple(raw.get("tags", ())),
            expect=expect,
            trials=trials,
            reducer=reducer,
            at_least=at_least,
            mean_pass_score=float(raw.get("mean_pass_score", defaults.mean_pass_score)),
            max_tool_calls=raw.get("max_tool_calls", defaults.max_tool_calls),
            max_turns=raw.get("max_turns", defaults.max_turns),
            scoring=scoring,
            mocks=mocks,
            source=self.source(at),
            skip=raw.get("skip"),
            state=mock_state.initial_state(self.data.get("state"), raw.get("state")),
            non_gating=raw.get("non_gating"),
            user=SimulatedUser(**raw["user"]) if "user" in raw else None,
        )

    def check_prompt_vars(self, agent: Agent, suite_vars: dict[str, str]) -> None:
        prompt = agent.system_prompt
        if prompt is None:
            return
        cases = self.data["cases"]
        for name in templating.missing(prompt.template, suite_vars):
            lacking = [i for i, c in enumerate(cases) if name not in c.get("vars", {})]
            if not lacking:
                continue
            where = (
                f" ({prompt.source.path}:{_placeholder_line(prompt.template, name)})"
                if prompt.from_file
                else ""
            )
            if len(lacking) == len(cases):
                self.err(
                    ("agent", "system_prompt"),
                    f"the system prompt uses {{{{ {name} }}}}{where} but no value is given",
                    f"add {name} to the suite's vars (or to every case's vars)",
                )
            else:
                for i in lacking:
                    self.err(
                        ("cases", i),
                        f"case {cases[i]['id']!r} gives no value for {{{{ {name} }}}} of the system prompt",
                        f"add {name} to the vars of this case or of the suite",
                    )

    # -- expectations ---------------------------------------------------------------------------

    def expectation(
        self, raw: dict[str, Any], at: PathKey, defaults: Defaults, has_judge: bool
    ) -> Expectation:
        calls = self.call_expectation(raw, at, has_judge)
        alternatives = tuple(
            self.call_expectation(alt, (*at, "alternatives", i), has_judge)
            for i, alt in enumerate(raw.get("alternatives", ()))
        )
        output = self.output(raw.get("output", {}), (*at, "output"), has_judge)
        asserts = tuple(
            self.path_assertion(a, (*at, "assert", i), has_judge) for i, a in enumerate(raw.get("assert", ()))
        )
        trajectory = raw["trajectory"]["criteria"] if "trajectory" in raw else None
        if trajectory is not None and not has_judge:
            self.need_judge((*at, "trajectory"), "a trajectory judgement")
        final_state = raw.get("final_state")
        if final_state is not None:
            self.check_matchers(final_state, (*at, "final_state"), has_judge, never_judged="the final state")
            self.report(state_checks.final_state_findings(final_state, (*at, "final_state"), self.state_keys))
        return Expectation(
            calls=calls,
            alternatives=alternatives,
            output=output,
            latency_ms=raw.get("latency_ms", defaults.latency_ms),
            asserts=asserts,
            final_state=final_state,
            trajectory=trajectory,
        )

    def call_expectation(self, raw: dict[str, Any], at: PathKey, has_judge: bool) -> CallExpectation:
        calls = []
        for i, call in enumerate(raw.get("calls", ())):
            cat = (*at, "calls", i)
            self.check_tool(call["tool"], (*cat, "tool"))
            args = call.get("args", {})
            tool = self.tools.get(call["tool"])
            params = tool.parameters if tool is not None else None
            self.check_matchers(args, (*cat, "args"), has_judge, parameters=params)
            self.check_arg_names(call["tool"], args, (*cat, "args"))
            self.report(cannot_work.whole_number_problems(call, ("times",), cat))
            self.report(cannot_work.placeholder_problems(args, (*cat, "args")))
            if tool is not None and isinstance(args, dict):
                self.report(cannot_work.literal_problems(tool.name, tool.parameters, args, (*cat, "args")))
            times = call.get("times", ExpectedCall.times.min)
            if isinstance(times, int):
                parsed = Times(times, times)
            else:
                parsed = Times(times.get("min", Times.min), times.get("max"))
                if parsed.max is not None and parsed.min > parsed.max:
                    self.err(
                        (*cat, "times"), f"times.min ({parsed.min}) is greater than times.max ({parsed.max})"
                    )
            calls.append(
                ExpectedCall(
                    tool=call["tool"],
                    args=args,
                    times=parsed,
                    # `args` left out means any arguments; `args: {}` means none (DESIGN.md section 2).
                    allow_extra_args=call.get(
                        "allow_extra_args", "args" not in call or ExpectedCall.allow_extra_args
                    ),
                    source=self.source(cat),
                )
            )
        for i, name in enumerate(raw.get("forbidden_tools", ())):
            self.check_tool(name, (*at, "forbidden_tools", i))
        if raw.get("no_calls") and raw.get("calls"):
            self.err(
                (*at, "no_calls"),
                "no_calls: true contradicts the expected calls",
                "remove no_calls or the calls",
            )
        self.report(cannot_work.whole_number_problems(raw, ("max_calls",), at))
        return CallExpectation(
            calls=tuple(calls),
            order=raw.get("order", CallExpectation.order),
            extra_calls=raw.get("extra_calls", CallExpectation.extra_calls),
            forbidden_tools=tuple(raw.get("forbidden_tools", ())),
            # `calls: []` written out means "expected none" (DESIGN.md section 3), as no_calls does.
            no_calls=bool(raw.get("no_calls", False)) or raw.get("calls", None) == [],
            max_calls=raw.get("max_calls"),
        )

    def check_arg_names(self, tool_name: str, args: dict[str, Any], at: PathKey) -> None:
        tool = self.tools.get(tool_name)
        properties = tool.parameters.get("properties") if tool else None
        if not isinstance(properties, dict):
            return
        for name, matcher in args.items():
            if name in properties or (isinstance(matcher, dict) and matcher.keys() == {"absent"}):
                continue
            self.err(
                (*at, name),
                f"tool {tool_name!r} has no parameter {name!r}",
                did_you_mean(name, list(properties)) or "the tool declares no parameters",
                at_key=True,
            )

    def check_matchers(
        self,
        value: Any,
        at: PathKey,
        has_judge: bool,
        doc: SuiteDocument | None = None,
        *,
        parameters: dict[str, Any] | None = None,
        never_judged: str = "",
    ) -> None:
        """Matchers under ``value`` (name -> matcher): specs no one can mean (gate.matcher_specs, with the
        tool's ``parameters`` schema), patterns, schemas, ranges, and judge matchers where no judge is
        configured or, ``never_judged`` naming the place, where none is ever asked."""
        self.report(matcher_specs.arguments_problems(value, at, parameters), doc)
        for path, key, operand in _matcher_ops(value, at):
            if key == "judge" and never_judged:
                self.err(path, *matcher_specs.never_judged(never_judged), doc=doc)
            elif key == "judge" and not has_judge:
                self.need_judge(path, "a judge matcher")
            elif key == "regex":
                self.check_regex(operand, (*path, "regex"), doc)
            elif key == "schema":
                self.check_schema(operand, (*path, "schema"), doc)
            elif key == "range" and "min" in operand and "max" in operand and operand["min"] > operand["max"]:
                self.err(
                    (*path, "range"),
                    f"range.min ({operand['min']}) is greater than range.max ({operand['max']})",
                    doc=doc,
                )

    def check_regex(self, pattern: str, at: PathKey, doc: SuiteDocument | None = None) -> None:
        problem = bounded_regex.regex_problem(pattern)  # the engine the run uses
        if problem is not None:
            self.err(
                at,
                f"invalid regular expression {pattern!r}: {problem}",
                "check the escaping (in YAML, prefer single quotes)",
                doc=doc,
            )

    def check_schema(self, schema: Any, at: PathKey, doc: SuiteDocument | None = None) -> None:
        from gate.tool_formats import REMOTE_REF_HINT, remote_refs

        for where, ref in remote_refs(schema, at):
            self.err(where, f"a remote schema reference {ref!r} is not allowed", REMOTE_REF_HINT, doc=doc)
        self.report(cannot_work.schema_problems(schema, at), doc)
        if schema_check.is_valid_schema(schema):
            return
        from gate.tool_formats import _meta_validator

        for error in _meta_validator().iter_errors(schema):
            self.err(
                (*at, *error.absolute_path),
                f"not a valid JSON Schema: {truncate(error.message, QUOTED_CHARS, brief=True)}",
                doc=doc,
            )

    def need_judge(self, at: PathKey, what: str) -> None:
        self.err(
            at,
            f"{what} needs a judge, but the suite has none",
            "add judge: {provider: openai, model: gpt-4o-mini} at the top of the suite",
        )

    def output(self, raw: dict[str, Any], at: PathKey, has_judge: bool) -> OutputChecks:
        if not has_judge:
            for key in JUDGED_OUTPUT_KEYS:
                if key in raw:
                    self.need_judge((*at, key), f"the judged check {key!r}")
        for i, pattern in enumerate(_strings(raw.get("regex"))):
            self.check_regex(pattern, (*at, "regex") if isinstance(raw["regex"], str) else (*at, "regex", i))
        ranking = choice = None
        if "ranking" in raw:
            r = raw["ranking"]
            ranking = Ranking(
                reference=r["reference"],
                wrong=r["wrong"],
                irrelevant=r["irrelevant"],
                threshold=float(r.get("threshold", Ranking.threshold)),
            )
        if "choice" in raw:
            c = raw["choice"]
            if c["correct"] not in c["options"]:
                self.err(
                    (*at, "choice", "correct"),
                    f"the correct answer {c['correct']!r} is not among the options",
                    did_you_mean(c["correct"], c["options"]).replace("allowed:", "options:"),
                )
            choice = Choice(options=tuple(c["options"]), correct=c["correct"])
        return OutputChecks(
            contains=_strings(raw.get("contains")),
            not_contains=_strings(raw.get("not_contains")),
            regex=_strings(raw.get("regex")),
            equals=raw.get("equals"),
            criteria=_strings(raw.get("criteria")),
            semantic_contains=_strings(raw.get("semantic_contains")),
            ranking=ranking,
            choice=choice,
            asks_clarification=raw.get("asks_clarification"),
            ignore_case=raw.get("ignore_case", OutputChecks.ignore_case),
        )

    def path_assertion(self, raw: dict[str, Any], at: PathKey, has_judge: bool) -> PathAssertion:
        check_key = next(k for k in raw if k not in ("path", "aggregate", "threshold"))
        operand = raw[check_key]
        from gate.path_assertions import PathError, parse

        try:
            parse(raw["path"])
        except PathError as exc:
            self.err((*at, "path"), str(exc), "e.g. calls[0].name, calls[*].args.city, output")
        if check_key in ("criteria", "semantic_contains") and not has_judge:
            self.need_judge((*at, check_key), f"the judged path check {check_key!r}")
        elif check_key == "matches":
            self.check_regex(operand, (*at, "matches"))
        elif check_key == "match":
            self.check_matchers({"match": operand}, at, has_judge)
        return PathAssertion(
            path=raw["path"],
            check={check_key: operand},
            aggregate=raw.get("aggregate", PathAssertion.aggregate),
            threshold=float(raw.get("threshold", PathAssertion.threshold)),
            source=self.source(at),
        )


class _MockReader:
    """Builds :class:`Mocks` from a schema-valid mapping found in ``doc`` (the suite or a mock file)."""

    def __init__(self, builder: _SuiteBuilder, doc: SuiteDocument):
        self.builder, self.doc = builder, doc

    def read(self, raw: dict[str, Any], at: PathKey) -> Mocks:
        tools: dict[str, tuple[MockRule, ...]] = {}
        for name, rules in raw.get("tools", {}).items():
            if self.builder.tools_ok and name not in self.builder.tool_names:
                names = sorted(self.builder.tool_names)
                hint = did_you_mean(name, names).replace("allowed:", "defined tools:")
                self.builder.err(
                    (*at, "tools", name), f"mocks for unknown tool {name!r}", hint, at_key=True, doc=self.doc
                )
            tool = self.builder.tools.get(name)
            params = tool.parameters if tool is not None else None
            tools[name] = tuple(
                self.rule(rule, (*at, "tools", name, i), params) for i, rule in enumerate(rules)
            )
            parameters = None if tool is None else tuple(tool.parameters.get("properties", {}))
            for i, rule in enumerate(rules):
                found = state_checks.rule_findings(
                    rule, (*at, "tools", name, i), parameters, self.builder.state_keys
                )
                self.builder.report(found, self.doc)
            for i, rule in enumerate(rules):
                if tool is not None and isinstance(rule.get("when"), dict):
                    found = cannot_work.unknown_when_parameters(
                        name, tool.parameters, rule["when"], (*at, "tools", name, i, "when")
                    )
                    self.builder.report(found, self.doc)
        unmocked = self.rule(raw["unmocked"], (*at, "unmocked")) if "unmocked" in raw else None
        line, column = self.doc.position(at)
        return Mocks(tools=tools, unmocked=unmocked, source=Source(self.doc.path, line, column))

    def rule(self, raw: dict[str, Any], at: PathKey, parameters: dict[str, Any] | None = None) -> MockRule:
        when = raw.get("when")
        if when is not None:
            where = "a mock rule"
            self.builder.check_matchers(
                when, (*at, "when"), True, self.doc, parameters=parameters, never_judged=where
            )
        line, column = self.doc.position(at)
        state_when = raw.get("state_when")
        if state_when is not None:
            self.builder.check_matchers(
                state_when, (*at, "state_when"), True, self.doc, never_judged="a mock rule"
            )
        return MockRule(
            when=when,
            returns=raw.get("returns"),
            error=raw.get("error"),
            source=Source(self.doc.path, line, column),
            state_when=state_when,
            set=tuple(raw.get("set", {}).items()),
            append=tuple(raw.get("append", {}).items()),
            remove=tuple(raw.get("remove", ())),
            sequence=tuple(MockStep(s.get("returns"), s.get("error")) for s in raw.get("sequence", ())),
        )


def _state_keys(*states: Any) -> frozenset[str] | None:
    """The top-level keys of the declared states (None when none is declared)."""
    declared = [s for s in states if isinstance(s, dict)]
    return frozenset(k for s in declared for k in s) if declared else None


def _merge_mocks(case: Mocks, suite: Mocks) -> Mocks:
    """Case rules are tried before the suite's rules of the same tool."""
    tools = dict(suite.tools)
    for name, rules in case.tools.items():
        tools[name] = rules + suite.tools.get(name, ())
    return Mocks(tools=tools, unmocked=case.unmocked or suite.unmocked, source=case.source or suite.source)


def _matcher_ops(value: Any, at: PathKey) -> Iterator[tuple[PathKey, str, Any]]:
    """Every matcher operation inside an ``args`` mapping: (path of the matcher mapping, key, operand)."""
    stack: list[tuple[Any, PathKey]] = []
    if isinstance(value, dict):
        stack.extend((v, (*at, k)) for k, v in value.items())
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            keys = set(node)
            if (len(keys) == 1 and keys <= MATCHER_KEYS) or keys == {"object", "extra_keys"}:
                for key, operand in node.items():
                    if key == "extra_keys":
                        continue
                    yield path, key, operand
                    if key in ("optional", "not"):
                        stack.append((operand, (*path, key)))
                    elif key in ("unordered", "any_of", "all_of") and isinstance(operand, list):
                        stack.extend((v, (*path, key, i)) for i, v in enumerate(operand))
                    elif key == "contains" and isinstance(operand, (dict, list)):
                        stack.append((operand, (*path, key)))
                    elif key == "object" and isinstance(operand, dict):
                        stack.extend((v, (*path, key, k)) for k, v in operand.items())
            else:
                stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))


def _placeholder_line(template: str, name: str) -> int:
    """The line of the first ``{{ name }}`` in ``template`` (1-based)."""
    for match in templating.PLACEHOLDER.finditer(template):
        if match.group(1) == name:
            return template.count("\n", 0, match.start()) + 1
    return 1


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _vars(raw: dict[str, Any]) -> dict[str, str]:
    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return {k: text(v) for k, v in raw.items()}
