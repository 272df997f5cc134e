"""Choosing a mock result for a tool call (the suite's and the case's ``mocks``).

Rules of a tool are tried in order; the first whose ``when`` matchers all hold wins. ``when`` only
constrains the arguments it names (other arguments are ignored). A rule without ``when`` always
applies (a fallback). Defined tools without a matching rule get ``unmocked``, or the built-in
default: an error result explaining that nothing was configured, so the agent sees a failure rather
than invented data, and the report shows the call as unmocked. A tool the definitions do not have (a
hallucinated tool) gets what agent frameworks answer: an error result saying the tool is unknown and
naming the tools there are, recorded as ``unknown_tool``; never the ``unmocked`` default, which would
let the agent carry on as if the call had worked.

Stateful rules (``state_when``, ``set``, ``append``, ``remove``, templates in results; see
``gate.suite.mock_state``) need a :class:`MockSession`, which keeps one trial's state and how often each rule
and tool was used (for ``sequence`` and ``{{ call.count }}``). A rule applies when its ``when`` and its
``state_when`` both hold; its changes are made in the order set, append, remove, and its result is
rendered from the changed state. An error result changes nothing. A change the state cannot take is
answered as a tool error naming the rule's line, with the state unchanged.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from gate.results.run_record import MockKind
from gate.suite import mock_state
from gate.suite.matchers import match_arguments, match_value
from gate.suite.model import MockRule, Mocks
from gate.util.json_types import JsonObject


@dataclass(frozen=True)
class MockOutcome:
    """What the tool call returns: ``kind`` is recorded on the call; ``is_error`` results are sent back
    to the model as tool errors (``result`` is then the message or error object)."""

    kind: MockKind
    result: Any
    is_error: bool


def default_unmocked_result(tool: str) -> dict[str, str]:
    return {"error": f"no mock configured for tool {tool}"}


def unknown_tool_outcome(tool: str, defined: Collection[str]) -> MockOutcome:
    """The error result of a call to a tool that is not defined: unknown, and which tools there are."""
    there = f"the available tools are {', '.join(sorted(defined))}" if defined else "no tool is available"
    return MockOutcome(kind="unknown_tool", result=f"Error: unknown tool {tool!r}: {there}.", is_error=True)


def rule_applies(rule: MockRule, arguments: Mapping[str, Any] | None) -> bool:
    """Whether ``rule`` applies to a call with ``arguments`` (None: the arguments did not parse)."""
    if rule.when is None:
        return True
    if arguments is None:
        return False
    return all(outcome.ok for outcome in match_arguments(rule.when, arguments, allow_extra=True))


def state_applies(rule: MockRule, context: mock_state.CallContext) -> bool:
    """Whether the state satisfies every matcher of ``rule.state_when`` (paths rendered for the call)."""
    for path, matcher in (rule.state_when or {}).items():
        present, value = mock_state.lookup(context.state, mock_state.render_path(path, context))
        if not match_value(matcher, present, value).ok:
            return False
    return True


class MockSession:
    """The mocks as one trial sees them: the state and the use counts that successive calls change;
    ``defined`` the names of the tools the agent was given (a call to another is an unknown tool)."""

    def __init__(self, mocks: Mocks, defined: Collection[str], state: Any = None):
        self.mocks = mocks
        self.defined = frozenset(defined)
        self.state = state
        self.calls = 0
        self.tool_calls: dict[str, int] = {}
        self.rule_uses: dict[int, int] = {}

    def call(self, tool: str, arguments: JsonObject | None) -> MockOutcome:
        """The result of calling ``tool`` with ``arguments``; the state changes as the rule says."""
        self.calls += 1
        self.tool_calls[tool] = self.tool_calls.get(tool, 0) + 1
        context = mock_state.CallContext(arguments or {}, self.state, self.calls, self.tool_calls[tool])
        for rule in self.mocks.tools.get(tool, ()):
            if rule_applies(rule, arguments) and state_applies(rule, context):
                return self._use(rule, context)
        if tool not in self.defined:
            return unknown_tool_outcome(tool, self.defined)
        return unmocked_outcome(self.mocks, tool)

    def _use(self, rule: MockRule, context: mock_state.CallContext) -> MockOutcome:
        uses = self.rule_uses[id(rule)] = self.rule_uses.get(id(rule), 0) + 1
        returns, error = rule.returns, rule.error
        if rule.sequence:
            step = rule.sequence[min(uses, len(rule.sequence)) - 1]
            returns, error = step.returns, step.error
        if error is not None:
            return MockOutcome(kind="error", result=mock_state.render_text(error, context), is_error=True)
        try:
            state = self._changed(rule, context)
        except mock_state.StateError as exc:
            where = f" (rule at {rule.source.path}:{rule.source.line})" if rule.source else ""
            return MockOutcome(kind="error", result=f"mock state error{where}: {exc}", is_error=True)
        self.state = state
        after = mock_state.CallContext(context.args, state, context.index, context.count)
        kind: MockKind = "matched" if rule.when is not None or rule.state_when is not None else "fallback"
        return MockOutcome(kind=kind, result=mock_state.render(returns, after), is_error=False)

    def _changed(self, rule: MockRule, context: mock_state.CallContext) -> Any:
        state = self.state
        for path, value in rule.set:
            rendered = mock_state.render_path(path, context)
            state = mock_state.set_value(state, rendered, mock_state.render(value, context))
        for path, value in rule.append:
            rendered = mock_state.render_path(path, context)
            state = mock_state.append_value(state, rendered, mock_state.render(value, context))
        for path in rule.remove:
            state = mock_state.remove_value(state, mock_state.render_path(path, context))
        return state


def unmocked_outcome(mocks: Mocks, tool: str) -> MockOutcome:
    """What a call no rule answers returns: the configured ``unmocked`` result or the built-in error."""
    if mocks.unmocked is not None:
        if mocks.unmocked.error is not None:
            return MockOutcome(kind="unmocked", result=mocks.unmocked.error, is_error=True)
        return MockOutcome(kind="unmocked", result=mocks.unmocked.returns, is_error=False)
    return MockOutcome(kind="unmocked", result=default_unmocked_result(tool), is_error=True)


def merged(first: Mocks, then: Mocks) -> Mocks:
    """Mocks trying ``first``'s rules (e.g. the case's) before ``then``'s (the suite's) for every tool;
    ``first.unmocked`` wins over ``then.unmocked``."""
    tools: dict[str, tuple[MockRule, ...]] = {name: tuple(rules) for name, rules in then.tools.items()}
    for name, rules in first.tools.items():
        tools[name] = tuple(rules) + tools.get(name, ())
    return Mocks(
        tools=tools,
        unmocked=first.unmocked if first.unmocked is not None else then.unmocked,
        source=first.source or then.source,
    )
