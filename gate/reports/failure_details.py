"""What a failure's details add to its message, so that no output says a thing twice. Pure.

Every output shows a failure as its reason's title, its message and its details (the expected tool,
the tool, the argument, the expected and the actual value), said by ``details_text`` with the
output's own escaping (``describe_failure``: the plain-text line of JUnit, the transcript and the
HTML report). A detail the message already states is left out: ``state ok: expected true, got
false``, not ``... (expected true, actual false)``; a tool or argument the message names is not
named again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gate.results.outcomes import REASON_TITLES, Failure
from gate.util.escape import json_text, truncate
from gate.util.wording import mentions

_POSITION = re.compile(r"\bcall \d+")
_NAMES = ("expected tool", "tool", "argument")  # details that are names, not JSON values


def _states(message: str, value: Any) -> bool:
    """Whether ``message`` already gives ``value``: its JSON text (a string also as itself; a number
    also as written with three decimals, as scores are) standing as a whole token."""
    forms = {json_text(value)}
    if isinstance(value, str):
        forms.add(value)
    elif isinstance(value, float):
        forms.add(f"{value:.3f}")
    return any(
        form and re.search(rf"(?<![\w.]){re.escape(form)}(?![\w])", message) is not None for form in forms
    )


def unstated_details(failure: Failure) -> tuple[tuple[str, Any], ...]:
    """``(label, value)`` of each detail that is set and that the message does not state already, in
    the order expected tool, tool, argument, expected, actual."""
    message = _POSITION.sub("", failure.message)  # "(call 5)" says which call, not a value
    names = (("expected tool", failure.expected_tool), ("tool", failure.tool), ("argument", failure.argument))
    found: list[tuple[str, Any]] = [
        (label, name) for label, name in names if name and not mentions(message, name)
    ]
    for label, value in (("expected", failure.expected), ("actual", failure.actual)):
        if value is not None and not _states(message, value):
            found.append((label, value))
    return tuple(found)


def details_text(failure: Failure, name: Callable[[str], str], value: Callable[[Any], str]) -> str:
    """`` (expected tool get_weather, expected 3)``: the details the message does not state, each
    name through ``name`` and each value through ``value`` (every output escapes in its own way);
    "" when there are none. JUnit, Markdown and the console all say a failure's details with it."""
    shown = [f"{label} {name(v) if label in _NAMES else value(v)}" for label, v in unstated_details(failure)]
    return f" ({', '.join(shown)})" if shown else ""


def describe_failure(f: Failure) -> str:
    """One failure as one plain-text line: ``[title] message (details)``, the details cut to 500
    characters each."""
    details = details_text(f, str, lambda value: truncate(json_text(value), 500))
    return f"[{REASON_TITLES.get(f.reason, f.reason)}] {f.message}{details}"
