"""The provider-neutral record of one trial of one case (DESIGN.md section 3).

The agent loop produces it; scoring, path assertions and reports read it. Pure data: it travels
inside the JSON results (``gate.results_json.codec`` writes it, ``gate.results_json.read_back``
reads it back).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from gate import limits
from gate.results.messages import Message, message_json
from gate.util.json_types import JSON_SCALARS, JsonObject

# How a call was answered: by a matched rule, a tool's fallback rule, an error rule, the suite's
# ``unmocked`` default (a defined tool without a rule), the unknown-tool error (a tool the definitions
# do not have), the tool's own MCP server (``live``, ``calls: live``); "program": an agent program's
# own code (not the mock server); "none": not answered (the call of a reply cut at its token limit).
MockKind = Literal["matched", "fallback", "error", "unmocked", "unknown_tool", "live", "program", "none"]
# Why a trial's episode ended: the agent's final answer; the simulated user said it was done; the
# agent's turn or tool-call budget; a reply (the agent's or the simulated user's) cut at its
# output-token limit; the provider failed (or the trial was not run, see ``error``); the run's
# request or cost budget left no request for it; the agent program failed (exited, timed out, or
# wrote a line off the protocol: ``extra["agent_crashed"]`` says how).
StopReason = Literal[
    "final_answer",
    "user_done",
    "max_turns",
    "max_tool_calls",
    "max_tokens",
    "provider_error",
    "budget",
    "agent_crashed",
]
STOP_REASONS: tuple[StopReason, ...] = get_args(StopReason)
# The stop reasons of an episode that ended on the agent's final answer (the only ones with one).
ANSWERED: frozenset[StopReason] = frozenset({"final_answer", "user_done"})


def stop_reason(value: object) -> StopReason:
    """``value`` as a ``StopReason`` (ValueError when it is none)."""
    for reason in STOP_REASONS:
        if value == reason:
            return reason
    raise ValueError(f"unknown stop_reason {value!r} (one of: {', '.join(STOP_REASONS)})")


def copy_value(value: Any) -> Any:
    """A copy of a JSON-like value the way ``dataclasses.asdict`` copies field values: dicts, lists
    and tuples are rebuilt (keeping their type), scalars shared, anything else deep-copied."""
    kind = type(value)
    if kind in JSON_SCALARS:
        return value
    if kind is dict:
        return {copy_value(k): copy_value(v) for k, v in value.items()}
    if kind is list:
        return [copy_value(v) for v in value]
    if kind is tuple:
        return tuple(copy_value(v) for v in value)
    if isinstance(value, dict):
        return kind((copy_value(k), copy_value(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return kind(copy_value(v) for v in value)
    return deepcopy(value)


def parse_arguments(raw: str) -> tuple[JsonObject | None, str | None]:
    """The arguments object of a call, or None and the reason it is not one."""
    if raw is None or raw.strip() == "":
        return {}, None  # no arguments at all: an empty object, as every SDK treats it
    too_deep = f"arguments are nested deeper than {limits.MAX_NESTING} levels"
    try:
        value = json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        return None, too_deep
    except ValueError as exc:
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"arguments are a JSON {type(value).__name__}, not an object"
    if limits.nested_deeper_than(value):
        return None, too_deep
    return value, None


def _not_json(constant: str) -> Any:
    """``NaN`` and ``Infinity``, which Python's JSON parser accepts and JSON does not: no number a tool
    receives, so no range, tolerance or schema ``maximum`` may judge them."""
    raise ValueError(f"{constant} is not a JSON value")


@dataclass(frozen=True)
class RecordedCall:
    """One tool call the agent made.

    ``raw_arguments`` is the argument text exactly as the model sent it; ``arguments`` its parsed
    JSON object, or None when it is not valid JSON / not an object (then ``arguments_error`` says why).
    """

    id: str
    name: str
    raw_arguments: str
    arguments: JsonObject | None
    arguments_error: str | None
    turn: int
    result: Any = None
    mock: MockKind = "none"
    is_error: bool = False
    # The mock backend's state after this call (None when the case's mocks are stateless).
    state: Any = None


@dataclass(frozen=True)
class OfferedTool:
    """A tool definition as a model request offered it: what the model was shown (an agent program's
    request, read by the recording proxy)."""

    name: str
    description: str
    parameters: JsonObject


def tool_key(tool: OfferedTool) -> str:
    """What tells two offered definitions apart: name, description and parameters."""
    return json.dumps([tool.name, tool.description, tool.parameters], sort_keys=True, ensure_ascii=False)


def distinct_tools(tools: Iterable[OfferedTool]) -> tuple[OfferedTool, ...]:
    """``tools`` without repeats (the first of equal definitions kept, in order)."""
    seen: dict[str, OfferedTool] = {}
    for tool in tools:
        seen.setdefault(tool_key(tool), tool)
    return tuple(seen.values())


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@dataclass(frozen=True)
class RunRecord:
    """What happened in one trial.

    ``messages`` is the provider-neutral transcript (``gate.results.messages``): what the system
    prompt, the user, the assistant and the tools said, nothing else. ``output`` is the final answer,
    "" when the episode ended without one (``answered``). ``error`` is set when the trial could not be
    evaluated: the provider failed, a budget left it without a request, or a reply was cut at its
    token limit (``stop_reason`` says which; the trial is then an *error*, not a failure). ``log`` is
    an agent program's standard error (its last part, secrets masked), kept apart from what was said:
    "" for the model agent.
    """

    input: str
    messages: tuple[Message, ...]
    calls: tuple[RecordedCall, ...]
    output: str
    turns: int
    latency_ms: float
    usage: Usage = Usage()
    cost_usd: float | None = None
    error: str | None = None
    stop_reason: StopReason = "final_answer"
    model: str = ""
    extra: JsonObject = field(default_factory=dict)  # e.g. the multiple-choice letter order shown
    state: Any = None  # the mock backend's state after the episode (None: stateless mocks)
    # An agent program's trial: the tools each of its model requests offered, in request order (a
    # call's ``turn`` is the request it answered). Empty for the model agent: its requests offer the
    # suite's tools.
    offered: tuple[tuple[OfferedTool, ...], ...] = ()
    log: str = ""

    @property
    def answered(self) -> bool:
        """Whether the episode ended on the agent's final answer (else there is none to check)."""
        return self.stop_reason in ANSWERED

    def offered_at(self, turn: int) -> tuple[OfferedTool, ...] | None:
        """The tools the request answered by reply ``turn`` (1-based) offered; None for the model
        agent, whose requests offer the suite's tools."""
        if not self.offered:
            return None
        return self.offered[turn - 1] if 0 < turn <= len(self.offered) else ()

    @property
    def offered_tools(self) -> tuple[OfferedTool, ...]:
        """Every distinct definition the trial's requests offered, in the order first offered."""
        return distinct_tools(tool for tools in self.offered for tool in tools)

    def as_path_root(self) -> JsonObject:  # its shape: PATH_ROOT_SHAPE below
        """The object path assertions walk: ``calls[0].name``, ``calls[*].args.city``, ``output``,
        ``messages[-1].content``, ``turns``, ``latency_ms``, ``usage.input_tokens``."""
        return {
            "input": self.input,
            "messages": [message_json(m) for m in self.messages],
            "calls": [
                {
                    "name": c.name,
                    "args": c.arguments,
                    "raw_args": c.raw_arguments,
                    "result": c.result,
                    "turn": c.turn,
                    "state": c.state,
                }
                for c in self.calls
            ],
            "output": self.output if self.answered else None,  # no final answer: the path selects nothing
            "turns": self.turns,
            "latency_ms": self.latency_ms,
            "usage": {"input_tokens": self.usage.input_tokens, "output_tokens": self.usage.output_tokens},
            "cost_usd": self.cost_usd,
            "error": self.error,
            "state": self.state,
        }


# What ``RunRecord.as_path_root`` holds, for ``validate`` to refuse a path no record ever has: a
# mapping lists its keys, a one-item list its elements' shape, "value" a leaf (text, number, null),
# "any" a JSON value the run decides (arguments, results, messages, the mock state).
PATH_ROOT_SHAPE: JsonObject = {
    "input": "value",
    "messages": ["any"],
    "calls": [
        {
            "name": "value",
            "args": "any",
            "raw_args": "value",
            "result": "any",
            "turn": "value",
            "state": "any",
        }
    ],
    "output": "value",
    "turns": "value",
    "latency_ms": "value",
    "usage": {"input_tokens": "value", "output_tokens": "value"},
    "cost_usd": "value",
    "error": "value",
    "state": "any",
}
