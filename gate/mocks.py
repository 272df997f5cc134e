"""Choosing a mock result for a tool call (the suite's and the case's ``mocks``).

Rules of a tool are tried in order; the first whose ``when`` matchers all hold wins. ``when`` only
constrains the arguments it names (other arguments are ignored). A rule without ``when`` always
applies (a fallback). Tools without a matching rule get ``unmocked``, or the built-in default: an
error result explaining that nothing was configured, so the agent sees a failure rather than
invented data, and the report shows the call as unmocked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.matchers import match_arguments
from gate.run_record import MockKind
from gate.suite_model import MockRule, Mocks


@dataclass(frozen=True)
class MockOutcome:
    """What the tool call returns: ``kind`` is recorded on the call; ``is_error`` results are sent back
    to the model as tool errors (``result`` is then the message or error object)."""

    kind: MockKind
    result: Any
    is_error: bool


def default_unmocked_result(tool: str) -> dict[str, str]:
    return {"error": f"no mock configured for tool {tool}"}


def rule_applies(rule: MockRule, arguments: Mapping[str, Any] | None) -> bool:
    """Whether ``rule`` applies to a call with ``arguments`` (None: the arguments did not parse)."""
    if rule.when is None:
        return True
    if arguments is None:
        return False
    return all(outcome.ok for outcome in match_arguments(rule.when, arguments, allow_extra=True))


def resolve(mocks: Mocks, tool: str, arguments: dict[str, Any] | None) -> MockOutcome:
    """The result of calling ``tool`` with ``arguments`` under ``mocks``."""
    for rule in mocks.tools.get(tool, ()):
        if not rule_applies(rule, arguments):
            continue
        if rule.error is not None:
            return MockOutcome(kind="error", result=rule.error, is_error=True)
        return MockOutcome(
            kind="matched" if rule.when is not None else "fallback", result=rule.returns, is_error=False
        )
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
