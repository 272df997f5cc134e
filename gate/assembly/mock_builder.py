"""The builder's mocks part: ``mocks`` of a suite, of a case or of a mock file -> :class:`Mocks`, with
their semantic checks (mocks for tools the agent does not define, conditions on parameters the tool
does not have, state paths and templates, matchers). Pure.
"""

from __future__ import annotations

from typing import Any

from gate.assembly.checks import cannot_work, state_shapes
from gate.assembly.checks import state as state_checks
from gate.assembly.context import BuildContext, SuiteDocument
from gate.suite import mock_state
from gate.suite.model import MockRule, Mocks, MockStep, Source, ToolDef
from gate.util.json_types import JsonObject, PathKey

_SHAPE_HINT = "declare the state with the shape the rule needs, or change the rule's path"


class MockReader:
    """Builds :class:`Mocks` from a mapping found in ``doc`` (the suite or a mock file)."""

    def __init__(self, context: BuildContext, doc: SuiteDocument):
        self.context, self.doc = context, doc

    def read(self, raw: JsonObject, at: PathKey) -> Mocks:
        tools: dict[str, tuple[MockRule, ...]] = {}
        for name, rules in raw.get("tools", {}).items():
            self.check_tool(name, (*at, "tools", name))
            written = [(i, rule) for i, rule in enumerate(rules) if isinstance(rule, dict)]  # None: damaged
            tool = self.context.tools.get(name)
            tools[name] = tuple(self.rule(rule, (*at, "tools", name, i), tool) for i, rule in written)
            self.check_rules(name, written, tools[name], (*at, "tools", name))
        unmocked = self.rule(raw["unmocked"], (*at, "unmocked")) if "unmocked" in raw else None
        line, column = self.doc.position(at)
        return Mocks(tools=tools, unmocked=unmocked, source=Source(self.doc.file_of(at), line, column))

    def check_tool(self, name: str, at: PathKey) -> None:
        context = self.context
        if context.tools_known and name not in context.tool_names:
            hint = context.unknown_tool_hint(name)
            context.err(at, f"mocks for unknown tool {name!r}", hint, at_key=True, doc=self.doc)

    def check_rules(
        self, name: str, rules: list[tuple[int, JsonObject]], built: tuple[MockRule, ...], at: PathKey
    ) -> None:
        """State paths and templates of the rules (``rules`` as written, ``built`` as read), and their
        conditions against the tool's parameters."""
        context = self.context
        tool = context.tools.get(name)
        parameters = None if tool is None else tool.parameters
        for read in built:
            context.report(state_checks.condition_findings(read), self.doc)
        if context.state_known:
            for i, rule in rules:
                found = state_checks.rule_findings(rule, (*at, i), parameters, context.state_keys)
                context.report(found, self.doc)
            context.changed_paths |= state_shapes.changed_paths([rule for _, rule in rules])
            for i, rule in rules:
                self.check_shapes(rule, (*at, i))
        for (i, _), read in zip(rules, built, strict=True):
            if tool is not None and read.when is not None:
                found = cannot_work.unknown_when_parameters(
                    name, tool.parameters, read.when, (*at, i, "when")
                )
                context.report(found, self.doc)

    def check_shapes(self, rule: JsonObject, at: PathKey) -> None:
        """The rule's set / append paths against every state it can start from: at the rule when the
        suite's (or its own case's) state refuses them, else at the case state that does."""
        context = self.context
        for state_at, state, own in context.states:
            for where, why in state_shapes.rule_shape_findings(rule, at, state, context.changed_paths):
                first = mock_state.split_path(str(where[-1]))[0]
                if state_at is None:
                    context.err(where, why, _SHAPE_HINT, doc=self.doc)
                elif first in own:
                    line = self.doc.position(at)[0]
                    context.err(
                        (*state_at, first),
                        f"this case's state cannot take the rule at {self.doc.path}:{line} "
                        f"({where[-2]} {where[-1]!r}): {why}",
                        _SHAPE_HINT,
                    )

    def rule(self, raw: JsonObject, at: PathKey, tool: ToolDef | None = None) -> MockRule:
        when = None
        if raw.get("when") is not None:
            when = self.context.read_matchers(
                raw["when"],
                (*at, "when"),
                True,
                self.doc,
                parameters=tool.parameters if tool is not None else None,
                tool=tool.name if tool is not None else "",
                never_judged="a mock rule",
            )
        line, column = self.doc.position(at)
        state_when = None
        if raw.get("state_when") is not None:
            state_when = self.context.read_matchers(
                raw["state_when"], (*at, "state_when"), True, self.doc, never_judged="a mock rule"
            )
        return MockRule(
            when=when,
            returns=raw.get("returns"),
            error=raw.get("error"),
            source=Source(self.doc.file_of(at), line, column),
            state_when=state_when,
            set=tuple(raw.get("set", {}).items()),
            append=tuple(raw.get("append", {}).items()),
            remove=tuple(raw.get("remove", ())),
            sequence=tuple(MockStep(s.get("returns"), s.get("error")) for s in raw.get("sequence", ())),
        )


def state_keys(*states: Any) -> frozenset[str] | None:
    """The top-level keys of the declared states (None when none is declared)."""
    declared = [s for s in states if isinstance(s, dict)]
    return frozenset(k for s in declared for k in s) if declared else None
