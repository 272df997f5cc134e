"""What ``validate`` checks in stateful mocks and final-state expectations, before any model call.

Every template must be well formed and name something that can exist (an argument the tool has, a
top-level key of the declared state, ``call.index`` / ``call.count``); every state path must be well
formed and start at a key of the declared state (the first segment of a path is always literal
there); and nothing may use a state when the suite and the case declare none. Pure: findings are
``(path in the document, message, hint)`` triples, as ``gate.assembly.checks.cannot_work`` reports them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

from gate.assembly.checks.finding import Finding
from gate.assembly.checks.schema_position import item_schema, property_schema, types
from gate.suite import mock_state
from gate.suite.model import MockRule
from gate.util.escape import show
from gate.util.json_types import PathKey

_STATE_HINT = "declare the key in the suite's or the case's state"


def _first_segment(path: str) -> str:
    return path.split(".", 1)[0]


def _reference_findings(
    text: str, at: PathKey, parameters: Mapping[str, Any] | None, state_keys: Collection[str] | None
) -> Iterator[Finding]:
    if "{{" in mock_state.TEMPLATE.sub("", text):
        yield (
            at,
            f"a template in {show(text, 80)} is opened with {{{{ but never closed with }}}}",
            "close it: {{ args.NAME }}, {{ state.PATH }}, {{ call.index }}, {{ call.count }}",
        )
    for reference in mock_state.template_references(text):
        problem = mock_state.reference_problem(reference)
        if problem is not None:
            yield (
                at,
                problem,
                "templates are {{ args.NAME }}, {{ state.PATH }}, {{ call.index }}, {{ call.count }}",
            )
            continue
        head, _, rest = reference.partition(".")
        first = _first_segment(rest)
        if head == "args" and parameters is not None:
            yield from _argument_findings(reference, rest, at, parameters)
        elif head == "state":
            yield from _state_key_findings(first, f"template {{{{ {reference} }}}}", at, state_keys)


def _argument_findings(
    reference: str, rest: str, at: PathKey, parameters: Mapping[str, Any]
) -> Iterator[Finding]:
    """``{{ args.a.b }}``: the tool must have parameter ``a``, and ``b`` must be able to exist below it
    (a template into an integer argument always renders null)."""
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return
    segments = mock_state.split_path(rest)
    if segments[0] not in properties:
        known = ", ".join(sorted(properties)) or "none"
        yield (
            at,
            f"template {{{{ {reference} }}}}: the tool has no parameter {segments[0]!r}",
            f"parameters: {known}",
        )
        return
    schema: Any = properties[segments[0]]
    for depth, segment in enumerate(segments[1:], start=1):
        kinds = types(schema, parameters)
        numbered = segment.lstrip("-").isdigit()
        if kinds and not kinds & ({"object", "array"} if numbered else {"object"}):
            where = ".".join(segments[:depth])
            yield (
                at,
                f"template {{{{ {reference} }}}}: argument {where!r} is {' or '.join(sorted(kinds))} in the "
                f"tool's schema, so it has no {segment!r} (the template would always be null)",
                f"write {{{{ args.{where} }}}}, or a path the argument's schema has",
            )
            return
        schema = (
            item_schema(schema, 0, parameters) if numbered else property_schema(schema, segment, parameters)
        )
        if schema is None:
            return


def condition_findings(rule: MockRule) -> list[Finding]:
    """Templates in a rule's conditions (``when`` values, ``state_when`` values, as written): conditions
    are matched as written, never rendered, so such a condition compares with the template's text."""
    found: list[Finding] = []
    for conditions in (rule.when, rule.state_when):
        for matcher in (conditions or {}).values():
            for inner, text in mock_state.strings_in(matcher.json()):
                if mock_state.TEMPLATE.search(text) or "{{" in text:
                    found.append(
                        (
                            (*matcher.at, *inner),
                            f"the template in {show(text, 80)} is never filled: mock conditions are "
                            "matched as written",
                            "write the value itself; to compare with the state, use state_when "
                            "on the state's path",
                        )
                    )
    return found


def _state_key_findings(
    key: str, what: str, at: PathKey, state_keys: Collection[str] | None
) -> Iterator[Finding]:
    if state_keys is None:
        yield (
            at,
            f"{what} refers to the state, but neither the suite nor the case declares a state",
            ("add a state: mapping to the suite or the case"),
        )
    elif "{{" not in key and key not in state_keys:
        known = ", ".join(sorted(state_keys)) or "none"
        yield at, f"{what}: the state has no key {key!r} (keys: {known})", _STATE_HINT


def path_findings(
    path: str, at: PathKey, parameters: Mapping[str, Any] | None, state_keys: Collection[str] | None
) -> Iterator[Finding]:
    """Problems of one state path written at ``at`` (a mapping key or a list item)."""
    problem = mock_state.path_problem(path)
    if problem is not None:
        yield at, problem, "e.g. bookings.{{ args.booking_id }}.status"
        return
    yield from _reference_findings(path, at, parameters, state_keys)
    yield from _state_key_findings(_first_segment(path), f"state path {path!r}", at, state_keys)


def value_findings(
    value: Any, at: PathKey, parameters: Mapping[str, Any] | None, state_keys: Collection[str] | None
) -> Iterator[Finding]:
    """Problems of the templates in every string of a JSON value written at ``at``."""
    for inner, text in mock_state.strings_in(value):
        yield from _reference_findings(text, (*at, *inner), parameters, state_keys)


def rule_findings(
    rule: Mapping[str, Any],
    at: PathKey,
    parameters: Mapping[str, Any] | None,
    state_keys: Collection[str] | None,
) -> list[Finding]:
    """Every problem of one mock rule's state paths and templates (``parameters``: the tool's
    parameter schema, None when the tool is unknown; ``state_keys``: None when no state is declared)."""
    found: list[Finding] = []
    for key in ("state_when", "set", "append"):
        for path, value in (rule.get(key) or {}).items():
            found += path_findings(path, (*at, key, path), parameters, state_keys)
            if key != "state_when":
                found += value_findings(value, (*at, key, path), parameters, state_keys)
    for index, path in enumerate(rule.get("remove") or ()):
        found += path_findings(path, (*at, "remove", index), parameters, state_keys)
    for key in ("returns", "error"):
        if key in rule:
            found += value_findings(rule[key], (*at, key), parameters, state_keys)
    for index, step in enumerate(rule.get("sequence") or ()):
        for key in ("returns", "error"):
            if key in step:
                found += value_findings(step[key], (*at, "sequence", index, key), parameters, state_keys)
    return found


def final_state_findings(
    final_state: Mapping[str, Any], at: PathKey, state_keys: Collection[str] | None
) -> list[Finding]:
    """Problems of ``expect.final_state``: its paths take no templates and start at a declared key."""
    found: list[Finding] = []
    for path in final_state:
        where = (*at, path)
        if mock_state.template_references(path):
            found.append((where, f"final_state path {path!r} holds a template", "write the literal path"))
            continue
        found += path_findings(path, where, None, state_keys)
    return found
