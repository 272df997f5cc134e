"""A scripted OpenAI- and Anthropic-compatible model server on 127.0.0.1, for tests and the benchmark.

The real ``openai`` and ``anthropic`` SDKs talk to it: ``POST /v1/chat/completions`` (OpenAI chat
completions), ``POST /v1/responses`` (the OpenAI Responses API: input items, ``function_call`` /
``function_call_output``, reasoning items) and ``POST /v1/messages`` (Anthropic messages),
non-streaming JSON.

It refuses, with the status and error body the real APIs send, the parameters they refuse (see
``refused_parameter``): ``temperature``/``top_p`` other than 1 and ``max_tokens`` for OpenAI reasoning
models (o-series, gpt-5), reasoning controls for models without reasoning, ``max_tokens``/``stop`` on
the Responses API, and for Anthropic extended thinking a temperature other than 1, ``top_k``, a
budget under 1,024 or not below ``max_tokens``, a forced tool, and a tool-use turn sent back without
its (signed, unaltered) thinking block. With thinking on, Anthropic answers start with a thinking
block; OpenAI reasoning models on the Responses API start with a reasoning item. What it answers is
decided by a *script*: rules tried in order against a provider-neutral view of the request.

Script (a dict, JSON or YAML; or built in Python with :class:`Rule` / :class:`Script`)::

    rules:
      - when: {last_user: "weather in (?P<city>[A-Za-z ]+)", turn: 1}
        tool_calls: [{name: get_weather, arguments: {city: "{city}"}}]
      - when: {after_tool: get_weather}
        text: "It is {result.temp_c} degrees in {result.city}."
      - when: {forced_tool: grade}          # the judge: answer with the forced tool's arguments
        tool_calls: [{arguments: {verdict: "yes", rationale: "fine"}}]
      - when: {last_user: flaky}
        times: 2                            # this rule answers at most twice, then falls through
        fault: {kind: status, status: 503}
    default: {text: "I cannot help with that."}

``when`` keys (all optional, all must hold): ``last_user`` / ``system`` / ``model`` (regexes searched
in the last user text, the system text and the model name; named groups become ``{name}``
placeholders), ``after_tool`` (the last message holds a result of that tool), ``forced_tool`` (the
request forces that tool), ``offered`` (a tool of that name is offered), ``described`` (a regex
searched in the offered tools' ``name: description`` lines, one per tool, so that answers can depend
on how a tool is described; a line ``name.param: description`` too for each parameter described;
every API's tools alike), ``turn`` (1 + the number of assistant messages in the request).

Replies: ``tool_calls`` (list of ``{name, arguments}``; ``name`` defaults to the forced tool;
``raw_arguments`` sends a literal argument string, e.g. invalid JSON), ``text``, or ``fault``. String
values may hold ``{group}``, ``{result}``, ``{result.field.sub}``, ``{turn}``, ``{model}``, and what a
gateway that echoes its request would: ``{authorization}`` (the ``Authorization`` header as received)
and ``{credential}`` (the key it carries, or ``x-api-key``'s); a string that is exactly one placeholder
keeps the value's JSON type, and ``{name|int}`` / ``{name|float}`` convert.

Faults (in a rule, or scheduled server-wide with ``every`` N-th / ``first`` K requests):
``status`` (any HTTP status, ``retry_after`` seconds sent as ``retry-after`` or, with
``retry_after_ms: true``, as ``retry-after-ms``; ``message`` and ``param`` fill the error body, with
placeholders), ``delay`` (sleep ``seconds`` then answer),
``drop`` (close the connection without answering), ``empty_body``, ``truncated_json``,
``invalid_arguments`` (tool-call arguments that are not JSON), ``unknown_tool`` (tool calls renamed to
a tool that is not offered), ``huge_text`` (``size`` characters of text).

Behaviour of real servers (constructor keywords, all off by default; ``LLAMA_CPP`` turns on what a
llama.cpp ``llama-server`` does): ``cut_at_limit`` cuts a reply at the request's output-token limit
(``max_tokens`` / ``max_completion_tokens`` / ``max_output_tokens``; a token is 4 characters here)
with the finish reason each API sends (``length``; ``max_tokens``, a cut ``tool_use`` input arriving
as ``{}``; an ``incomplete`` response with ``max_output_tokens``); ``refuse_invalid_history``
answers HTTP 500 to a request whose history holds tool-call arguments that are not JSON;
``ignore_named_tool_choice`` treats an object ``tool_choice`` (a named tool) as ``auto``;
``refuse_required_tool_choice`` answers 400 to ``tool_choice: required``; ``served_model`` is the
model every reply names (the model file the server loaded), whatever the request asked for;
``responses_cut_unmarked`` reports a cut Responses reply as ``completed`` (llama.cpp does: only its
``output_tokens`` reaching ``max_output_tokens`` tells).

Run standalone (the benchmark does)::

    python tests/support/model_server.py --script FILE --latency 0.3 [--rate-limit-every N
        --retry-after S] [--fault JSON ...] --port 0

prints ``READY <port>`` and serves until killed; ``GET /_stats`` returns the counters as JSON and
``POST /_reset`` zeroes them.

Self-contained on purpose (standard library, plus PyYAML for YAML scripts) so that it runs as a
separate process without the project installed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

FaultKind = Literal[
    "status",
    "delay",
    "drop",
    "empty_body",
    "truncated_json",
    "invalid_arguments",
    "unknown_tool",
    "huge_text",
]
Api = Literal["openai", "anthropic", "responses"]

_HIDDEN_HEADERS = {"authorization", "x-api-key", "api-key", "proxy-authorization", "cookie"}
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    413: "Payload Too Large",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    529: "Overloaded",
}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


# --------------------------------------------------------------------------------------------------
# The script
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    """Something going wrong instead of (or on top of) a normal answer."""

    kind: FaultKind
    status: int = 500
    retry_after: float | None = None
    retry_after_ms: bool = False
    seconds: float = 0.0  # for "delay"
    size: int = 1_000_000  # for "huge_text"
    message: str = ""
    param: str | None = None  # for "status": the error body's ``param``

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fault:
        return cls(
            kind=data["kind"],
            status=int(data.get("status", 500)),
            retry_after=None if data.get("retry_after") is None else float(data["retry_after"]),
            retry_after_ms=bool(data.get("retry_after_ms", False)),
            seconds=float(data.get("seconds", 0.0)),
            size=int(data.get("size", 1_000_000)),
            message=str(data.get("message", "")),
            param=None if data.get("param") is None else str(data["param"]),
        )


@dataclass(frozen=True)
class FaultSchedule:
    """A server-wide fault on a schedule over model requests (numbered from 1): every ``every``-th
    request, and/or the first ``first`` requests. Several schedules: the first that applies wins."""

    fault: Fault
    every: int | None = None
    first: int | None = None

    def applies(self, number: int) -> bool:
        if self.first is not None and number <= self.first:
            return True
        return bool(self.every) and number % self.every == 0  # type: ignore[operator]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FaultSchedule:
        fault = data.get("fault")
        fault_data = (
            fault
            if isinstance(fault, Mapping)
            else {k: v for k, v in data.items() if k not in ("every", "first")}
        )
        return cls(fault=Fault.from_dict(fault_data), every=data.get("every"), first=data.get("first"))


@dataclass(frozen=True)
class ScriptedCall:
    name: str | None = None  # None: the forced tool
    arguments: Any = None
    raw_arguments: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScriptedCall:
        return cls(
            name=data.get("name"),
            arguments=data.get("arguments", {}),
            raw_arguments=data.get("raw_arguments"),
        )


@dataclass(frozen=True)
class Rule:
    # Conditions (None = no condition).
    last_user: str | None = None
    system: str | None = None
    model: str | None = None
    after_tool: str | None = None
    forced_tool: str | None = None
    offered: str | None = None
    described: str | None = None
    turn: int | None = None
    # Reply.
    tool_calls: tuple[ScriptedCall, ...] = ()
    text: str | None = None
    fault: Fault | None = None
    delay: float = 0.0  # extra latency for this rule
    times: int | None = None  # answer at most this many times, then fall through

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        when = dict(data.get("when") or {})
        unknown = set(when) - {
            "last_user",
            "system",
            "model",
            "after_tool",
            "forced_tool",
            "offered",
            "described",
            "turn",
        }
        if unknown:
            raise ValueError(f"unknown rule condition(s): {sorted(unknown)}")
        reply = data.get("reply") or data
        fault = reply.get("fault")
        return cls(
            last_user=when.get("last_user"),
            system=when.get("system"),
            model=when.get("model"),
            after_tool=when.get("after_tool"),
            forced_tool=when.get("forced_tool"),
            offered=when.get("offered"),
            described=when.get("described"),
            turn=when.get("turn"),
            tool_calls=tuple(ScriptedCall.from_dict(c) for c in reply.get("tool_calls") or ()),
            text=reply.get("text"),
            fault=Fault.from_dict(fault) if fault else None,
            delay=float(reply.get("delay", 0.0)),
            times=data.get("times"),
        )


@dataclass(frozen=True)
class Script:
    rules: tuple[Rule, ...] = ()
    default: Rule = Rule(text="OK")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Script:
        default = data.get("default")
        return cls(
            rules=tuple(Rule.from_dict(r) for r in data.get("rules") or ()),
            default=Rule.from_dict(default) if default else Rule(text="OK"),
        )

    @classmethod
    def load(cls, path: str) -> Script:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if path.endswith((".yaml", ".yml")):
            import yaml

            return cls.from_dict(yaml.safe_load(text) or {})
        return cls.from_dict(json.loads(text))


def as_script(script: Script | Mapping[str, Any] | Iterable[Rule] | str | None) -> Script:
    if script is None:
        return Script()
    if isinstance(script, Script):
        return script
    if isinstance(script, str):
        return Script.load(script)
    if isinstance(script, Mapping):
        return Script.from_dict(script)
    return Script(rules=tuple(script))


# --------------------------------------------------------------------------------------------------
# The provider-neutral view of a request
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolResult:
    name: str
    content: str
    value: Any  # content parsed as JSON when it is JSON, else the text
    is_error: bool = False


@dataclass(frozen=True)
class RequestView:
    api: Api
    model: str
    system: str
    messages: tuple[dict[str, Any], ...]
    last_user: str
    tool_results: tuple[ToolResult, ...]
    tools: tuple[str, ...]
    forced_tool: str | None
    turn: int
    descriptions: str = ""  # "name: description" of every offered tool, one line each


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and block.get("type") in ("text", "input_text"):
                parts.append(str(block.get("text", "")))
        return "\n".join(parts)
    return str(content)


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return text


def described_tools(tools: Iterable[Mapping[str, Any]]) -> str:
    """What a ``described`` condition searches: a line ``name: description`` per offered tool, and a
    line ``name.parameter: description`` per parameter that has a description (so a rule can hold
    only while one tool, or one of its parameters, is described in certain words)."""
    lines = []
    for tool in tools:
        name = tool.get("name", "")
        lines.append(f"{name}: {tool.get('description', '')}")
        schema = tool.get("parameters") if isinstance(tool.get("parameters"), Mapping) else {}
        properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
        for parameter, spec in properties.items():
            if isinstance(spec, Mapping) and isinstance(spec.get("description"), str):
                lines.append(f"{name}.{parameter}: {spec['description']}")
    return "\n".join(lines)


def view_openai(body: Mapping[str, Any]) -> RequestView:
    messages = list(body.get("messages") or [])
    system = "\n".join(
        _text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    call_names: dict[str, str] = {}
    last_user = ""
    assistants = 0
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            assistants += 1
            for call in message.get("tool_calls") or []:
                call_names[call.get("id", "")] = (call.get("function") or {}).get("name", "")
        elif role == "user":
            last_user = _text_of(message.get("content"))
    results: list[ToolResult] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        content = _text_of(message.get("content"))
        name = call_names.get(message.get("tool_call_id", ""), message.get("name", ""))
        results.insert(0, ToolResult(name=name, content=content, value=_parse_value(content)))
    tools = tuple(
        (t.get("function") or {}).get("name", "") for t in body.get("tools") or [] if isinstance(t, Mapping)
    )
    descriptions = described_tools(
        (t.get("function") or {}) for t in body.get("tools") or [] if isinstance(t, Mapping)
    )
    choice = body.get("tool_choice")
    forced = None
    if isinstance(choice, Mapping):
        forced = (choice.get("function") or {}).get("name") or choice.get("name")
    elif choice == "required" and len(tools) == 1:  # one tool offered: required forces it
        forced = tools[0]
    return RequestView(
        api="openai",
        model=str(body.get("model", "")),
        system=system,
        messages=tuple(messages),
        last_user=last_user,
        tool_results=tuple(results),
        tools=tools,
        forced_tool=forced,
        turn=assistants + 1,
        descriptions=descriptions,
    )


def view_responses(body: Mapping[str, Any]) -> RequestView:
    raw_input = body.get("input")
    items = [{"role": "user", "content": raw_input}] if isinstance(raw_input, str) else list(raw_input or [])
    call_names: dict[str, str] = {}
    last_user = ""
    turns = 0
    in_assistant = False
    for item in items:
        kind = item.get("type", "message")
        assistant_like = kind in ("function_call", "reasoning") or item.get("role") == "assistant"
        if assistant_like and not in_assistant:
            turns += 1
        in_assistant = assistant_like
        if kind == "function_call":
            call_names[item.get("call_id", "")] = item.get("name", "")
        elif item.get("role") == "user":
            last_user = _text_of(item.get("content"))
    results: list[ToolResult] = []
    for item in reversed(items):
        if item.get("type") != "function_call_output":
            break
        content = _text_of(item.get("output"))
        name = call_names.get(item.get("call_id", ""), "")
        results.insert(0, ToolResult(name=name, content=content, value=_parse_value(content)))
    tools = tuple(str(t.get("name", "")) for t in body.get("tools") or [] if isinstance(t, Mapping))
    choice = body.get("tool_choice")
    forced = choice.get("name") if isinstance(choice, Mapping) and choice.get("type") == "function" else None
    if choice == "required" and len(tools) == 1:
        forced = tools[0]
    return RequestView(
        descriptions=described_tools(t for t in body.get("tools") or [] if isinstance(t, Mapping)),
        api="responses",
        model=str(body.get("model", "")),
        system=_text_of(body.get("instructions")),
        messages=tuple(items),
        last_user=last_user,
        tool_results=tuple(results),
        tools=tools,
        forced_tool=forced,
        turn=turns + 1,
    )


def view_anthropic(body: Mapping[str, Any]) -> RequestView:
    messages = list(body.get("messages") or [])
    system = _text_of(body.get("system"))
    call_names: dict[str, str] = {}
    last_user = ""
    assistants = 0
    for message in messages:
        content = message.get("content")
        if message.get("role") == "assistant":
            assistants += 1
            if isinstance(content, list):
                for block in content:
                    if isinstance(block, Mapping) and block.get("type") == "tool_use":
                        call_names[block.get("id", "")] = block.get("name", "")
        elif message.get("role") == "user":
            text = _text_of(content)
            if text or isinstance(content, str):
                last_user = text
    results: list[ToolResult] = []
    if messages and messages[-1].get("role") == "user" and isinstance(messages[-1].get("content"), list):
        for block in messages[-1]["content"]:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                content = _text_of(block.get("content"))
                results.append(
                    ToolResult(
                        name=call_names.get(block.get("tool_use_id", ""), ""),
                        content=content,
                        value=_parse_value(content),
                        is_error=bool(block.get("is_error", False)),
                    )
                )
    tools = tuple(str(t.get("name", "")) for t in body.get("tools") or [] if isinstance(t, Mapping))
    choice = body.get("tool_choice")
    forced = choice.get("name") if isinstance(choice, Mapping) and choice.get("type") == "tool" else None
    if isinstance(choice, Mapping) and choice.get("type") == "any" and len(tools) == 1:
        forced = tools[0]
    descriptions = described_tools(
        {**t, "parameters": t.get("input_schema")} for t in body.get("tools") or [] if isinstance(t, Mapping)
    )
    return RequestView(
        api="anthropic",
        model=str(body.get("model", "")),
        system=system,
        messages=tuple(messages),
        last_user=last_user,
        tool_results=tuple(results),
        tools=tools,
        forced_tool=forced,
        turn=assistants + 1,
        descriptions=descriptions,
    )


# --------------------------------------------------------------------------------------------------
# Matching and filling
# --------------------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)(?:\|(int|float|json|str))?\}")
_MISSING = object()


def _echoed(headers: Mapping[str, str]) -> dict[str, str]:
    """What a gateway that echoes its request could put into an answer: the ``Authorization`` header
    and the credential of the request (``{authorization}``, ``{credential}``)."""
    authorization = headers.get("authorization", "")
    credential = authorization.split(" ", 1)[1] if " " in authorization else headers.get("x-api-key", "")
    return {"authorization": authorization, "credential": credential}


def match_rule(rule: Rule, view: RequestView) -> dict[str, Any] | None:
    """The placeholder values when ``rule`` applies to ``view``, else None."""
    values: dict[str, Any] = {}
    for pattern, text in (
        (rule.last_user, view.last_user),
        (rule.system, view.system),
        (rule.model, view.model),
        (rule.described, view.descriptions),
    ):
        if pattern is None:
            continue
        found = re.search(pattern, text)
        if not found:
            return None
        values.update({k: v for k, v in found.groupdict().items() if v is not None})
    if rule.after_tool is not None and not any(r.name == rule.after_tool for r in view.tool_results):
        return None
    if rule.forced_tool is not None and view.forced_tool != rule.forced_tool:
        return None
    if rule.offered is not None and rule.offered not in view.tools:
        return None
    if rule.turn is not None and view.turn != rule.turn:
        return None
    results = view.tool_results
    if rule.after_tool is not None:
        results = tuple(r for r in results if r.name == rule.after_tool)
    if results:
        values["result"] = results[0].value
    values.setdefault("turn", view.turn)
    values.setdefault("model", view.model)
    return values


def _lookup(values: Mapping[str, Any], dotted: str) -> Any:
    head, *rest = dotted.split(".")
    value: Any = values.get(head, _MISSING)
    for part in rest:
        if isinstance(value, Mapping):
            value = value.get(part, _MISSING)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _convert(value: Any, how: str | None) -> Any:
    if how == "int":
        return int(float(value))
    if how == "float":
        return float(value)
    if how == "json":
        return json.dumps(value)
    if how == "str":
        return value if isinstance(value, str) else json.dumps(value)
    return value


def fill(template: Any, values: Mapping[str, Any]) -> Any:
    """Substitute placeholders in every string of ``template`` (recursively). Unknown placeholders
    are left as written, so scripts can contain literal braces."""
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            value = _lookup(values, whole.group(1))
            return template if value is _MISSING else _convert(value, whole.group(2))

        def one(match: re.Match[str]) -> str:
            value = _lookup(values, match.group(1))
            if value is _MISSING:
                return match.group(0)
            value = _convert(value, match.group(2))
            return value if isinstance(value, str) else json.dumps(value)

        return _PLACEHOLDER.sub(one, template)
    if isinstance(template, Mapping):
        return {k: fill(v, values) for k, v in template.items()}
    if isinstance(template, list | tuple):
        return [fill(v, values) for v in template]
    return template


# --------------------------------------------------------------------------------------------------
# Responses
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """A filled-in answer: text and tool calls (arguments already as the string to send)."""

    text: str | None
    calls: tuple[tuple[str, str, Any], ...]  # (name, raw arguments string, arguments value)
    cut: bool = False  # cut at the request's output-token limit (``cut_at_limit``)


def build_reply(rule: Rule, view: RequestView, values: Mapping[str, Any]) -> Reply:
    calls = []
    for call in rule.tool_calls:
        name = call.name or view.forced_tool or "unnamed_tool"
        if call.raw_arguments is not None:
            raw = str(fill(call.raw_arguments, values))
            calls.append((name, raw, raw))
        else:
            arguments = fill(call.arguments if call.arguments is not None else {}, values)
            calls.append((name, json.dumps(arguments), arguments))
    text = fill(rule.text, values) if rule.text is not None else None
    if text is not None and not isinstance(text, str):
        text = json.dumps(text)
    if text is None and not calls:
        text = ""
    return Reply(text=text, calls=tuple(calls))


def apply_content_fault(reply: Reply, fault: Fault, view: RequestView) -> Reply:
    if fault.kind == "huge_text":
        return Reply(text=("lorem ipsum " * (fault.size // 12 + 1))[: fault.size], calls=reply.calls)
    calls = reply.calls or ((view.forced_tool or (view.tools[0] if view.tools else "some_tool"), "{}", {}),)
    if fault.kind == "invalid_arguments":
        broken = tuple(
            (name, raw[: max(1, len(raw) // 2)] + ' "unterminated', raw[:1] + "bad") for name, raw, _ in calls
        )
        return Reply(text=reply.text, calls=broken)
    if fault.kind == "unknown_tool":
        return Reply(
            text=reply.text, calls=tuple((f"{name}_that_does_not_exist", raw, v) for name, raw, v in calls)
        )
    return reply


CHARS_PER_TOKEN = 4  # how this server counts tokens (``_usage_numbers``)
# Arguments a cut tool call keeps: llama.cpp sends what was generated; Anthropic's SDK sees ``{}``.
_CUT = object()


def output_limit(api: Api, body: Mapping[str, Any]) -> int | None:
    """The request's output-token limit, under the name its API uses."""
    names = ("max_output_tokens",) if api == "responses" else ("max_tokens", "max_completion_tokens")
    for name in names:
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def cut_reply(reply: Reply, limit: int) -> Reply:
    """``reply`` as a server generating at most ``limit`` tokens sends it: the text first, then the
    calls in order; the call the limit falls in keeps the start of its arguments (at least ``{``),
    the calls after it are never generated."""
    budget = limit * CHARS_PER_TOKEN
    text = reply.text or ""
    if len(text) + sum(len(name) + len(raw) for name, raw, _ in reply.calls) <= budget:
        return reply
    if len(text) >= budget:
        return Reply(text=text[:budget], calls=(), cut=True)
    budget -= len(text)
    calls: list[tuple[str, str, Any]] = []
    for name, raw, value in reply.calls:
        if len(name) + len(raw) <= budget:
            calls.append((name, raw, value))
            budget -= len(name) + len(raw)
            continue
        room = budget - len(name)
        if room >= 1:
            calls.append((name, raw[:room], _CUT))
        break
    return Reply(text=reply.text, calls=tuple(calls), cut=True)


def invalid_history_arguments(api: Api, body: Mapping[str, Any]) -> str | None:
    """The first tool-call arguments in the request's history that are not JSON (llama.cpp parses
    them to render its chat template, and answers 500 when it cannot)."""
    if api == "openai":
        raw = [
            (call.get("function") or {}).get("arguments")
            for message in body.get("messages") or []
            if isinstance(message, Mapping) and message.get("role") == "assistant"
            for call in message.get("tool_calls") or []
            if isinstance(call, Mapping)
        ]
    elif api == "responses":
        items = body.get("input")
        raw = [
            item.get("arguments")
            for item in (items if isinstance(items, list) else [])
            if isinstance(item, Mapping) and item.get("type") == "function_call"
        ]
    else:
        return None
    for text in raw:
        if not isinstance(text, str):
            continue
        try:
            json.loads(text)
        except ValueError:
            return text
    return None


def _usage_numbers(body_size: int, reply: Reply) -> tuple[int, int]:
    out = len(reply.text or "") + sum(len(name) + len(raw) for name, raw, _ in reply.calls)
    return max(1, body_size // 4), max(1, out // 4)


def openai_response(reply: Reply, view: RequestView, number: int, body_size: int) -> dict[str, Any]:
    prompt_tokens, completion_tokens = _usage_numbers(body_size, reply)
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.calls:
        message["tool_calls"] = [
            {"id": f"call_{number}_{i}", "type": "function", "function": {"name": name, "arguments": raw}}
            for i, (name, raw, _) in enumerate(reply.calls)
        ]
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": view.model or "scripted-model",
        "system_fingerprint": "fp_scripted",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "length" if reply.cut else "tool_calls" if reply.calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def anthropic_response(reply: Reply, view: RequestView, number: int, body_size: int) -> dict[str, Any]:
    input_tokens, output_tokens = _usage_numbers(body_size, reply)
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for i, (name, _raw, value) in enumerate(reply.calls):
        shown = {} if value is _CUT else value
        content.append({"type": "tool_use", "id": f"toolu_{number}_{i}", "name": name, "input": shown})
    return {
        "id": f"msg_scripted_{number}",
        "type": "message",
        "role": "assistant",
        "model": view.model or "scripted-model",
        "content": content,
        "stop_reason": "max_tokens" if reply.cut else "tool_use" if reply.calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _thinking_signature(text: str) -> str:
    import hashlib

    return "sig_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def thinking_block(view: RequestView) -> dict[str, Any]:
    text = f"The user asks: {view.last_user[:80]}. I should decide which tool fits."
    return {"type": "thinking", "thinking": text, "signature": _thinking_signature(text)}


def responses_response(reply: Reply, view: RequestView, number: int, body_size: int) -> dict[str, Any]:
    input_tokens, output_tokens = _usage_numbers(body_size, reply)
    output: list[dict[str, Any]] = []
    reasoning_tokens = 0
    if is_openai_reasoning(view.model):
        reasoning_tokens = 8
        output.append(
            {
                "type": "reasoning",
                "id": f"rs_scripted_{number}",
                "summary": [{"type": "summary_text", "text": "Deciding which tool answers the request."}],
            }
        )
    if reply.text:
        output.append(
            {
                "type": "message",
                "id": f"msg_scripted_{number}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for i, (name, raw, value) in enumerate(reply.calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_scripted_{number}_{i}",
                "call_id": f"call_{number}_{i}",
                "name": name,
                "arguments": raw,
                "status": "incomplete" if value is _CUT else "completed",
            }
        )
    return {
        "id": f"resp_scripted_{number}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if reply.cut else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if reply.cut else None,
        "instructions": view.system or None,
        "model": view.model or "scripted-model",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "temperature": 1.0,
        "top_p": 1.0,
        "metadata": {},
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens + reasoning_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": input_tokens + output_tokens + reasoning_tokens,
        },
    }


_OPENAI_REASONING = re.compile(r"^(o\d+(?![a-z])|gpt-5(?!-chat))")


def is_openai_reasoning(model: str) -> bool:
    """o-series and gpt-5 models (not gpt-5-chat): the models that refuse sampling parameters."""
    return bool(_OPENAI_REASONING.match(model.rsplit("/", 1)[-1].lower()))


def _unsupported(param: str, detail: str = "is not supported with this model.") -> tuple[str, str]:
    return param, f"Unsupported parameter: '{param}' {detail}"


def _refused_openai(api: Api, body: Mapping[str, Any]) -> tuple[str, str] | None:
    reasoning = is_openai_reasoning(str(body.get("model", "")))
    # OpenAI's own chat models (gpt-4o, gpt-4.1...) refuse reasoning controls; other servers'
    # models behind an OpenAI-compatible endpoint (Gemini, vLLM) may take them.
    chat_model = not reasoning and str(body.get("model", "")).startswith("gpt-")
    if reasoning:
        for name in ("temperature", "top_p"):
            if name in body and body[name] != 1:
                value = body[name]
                return name, (
                    f"Unsupported value: '{name}' does not support {value} with this model. "
                    "Only the default (1) value is supported."
                )
    if api == "responses":
        for name in ("max_tokens", "max_completion_tokens"):
            if name in body:
                return _unsupported(
                    name, "In the Responses API, this parameter has moved to 'max_output_tokens'."
                )
        for name in ("stop", "seed", "reasoning_effort", "verbosity", "messages"):
            if name in body:
                return name, f"Unknown parameter: '{name}'."
        if chat_model and isinstance(body.get("reasoning"), Mapping) and body["reasoning"].get("effort"):
            return _unsupported("reasoning.effort")
        text = body.get("text")
        if (
            isinstance(text, Mapping)
            and "verbosity" in text
            and not str(body.get("model", "")).startswith("gpt-5")
        ):
            return _unsupported("text.verbosity")
        return None
    if reasoning and "max_tokens" in body:
        return _unsupported(
            "max_tokens", "is not supported with this model. Use 'max_completion_tokens' instead."
        )
    if chat_model and "reasoning_effort" in body:
        return _unsupported("reasoning_effort")
    if "verbosity" in body and not str(body.get("model", "")).startswith("gpt-5"):
        return _unsupported("verbosity")
    return None


def _refused_anthropic(body: Mapping[str, Any]) -> tuple[str, str] | None:
    thinking = body.get("thinking")
    if not isinstance(thinking, Mapping) or thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int) or budget < 1024:
        return "thinking", "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    if int(body.get("max_tokens") or 0) <= budget:
        return "max_tokens", "`max_tokens` must be greater than `thinking.budget_tokens`."
    if "temperature" in body and body["temperature"] != 1:
        return "temperature", "`temperature` may only be set to 1 when thinking is enabled."
    if "top_k" in body:
        return "top_k", "`top_k` cannot be set when thinking is enabled."
    if "top_p" in body and body["top_p"] < 0.95:
        return "top_p", "`top_p` must be greater than or equal to 0.95 when thinking is enabled."
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("type") in ("any", "tool"):
        return "tool_choice", "Thinking may not be enabled when tool_choice forces tool use."
    return _refused_thinking_history(list(body.get("messages") or []))


def _current_tool_cycle(messages: list[Any]) -> int | None:
    """The index of the assistant message whose tool results the request ends with (the tool-use
    cycle in progress, whose thinking the API needs back); None when the request ends otherwise."""
    last = messages[-1] if messages else None
    content = last.get("content") if isinstance(last, Mapping) else None
    if not isinstance(content, list) or not any(
        isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content
    ):
        return None
    return len(messages) - 2 if len(messages) >= 2 else None


def _refused_thinking_history(messages: list[Any]) -> tuple[str, str] | None:
    cycle = _current_tool_cycle(messages)
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, Mapping) else None
        if message.get("role") != "assistant" or not isinstance(content, list) or not content:
            continue
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "thinking":
                if block.get("signature") != _thinking_signature(str(block.get("thinking", ""))):
                    return "messages", f"messages.{index}.content: Invalid `signature` in `thinking` block"
        uses_tools = any(isinstance(b, Mapping) and b.get("type") == "tool_use" for b in content)
        first = content[0].get("type") if isinstance(content[0], Mapping) else None
        if uses_tools and index == cycle and first not in ("thinking", "redacted_thinking"):
            return "messages", (
                f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                f"`{first}`. When `thinking` is enabled, a final `assistant` message must start with a "
                "thinking block."
            )
    return None


def refused_parameter(api: Api, body: Mapping[str, Any]) -> tuple[str, str] | None:
    """(parameter, message) when the real API would refuse this request with a 400, else None."""
    return _refused_anthropic(body) if api == "anthropic" else _refused_openai(api, body)


def error_body(api: Api, status: int, message: str, param: str | None = None) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    message = message or f"scripted {status} {_REASONS.get(status, '')}".strip()
    if api == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    code = "unsupported_parameter" if param else kind
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


# --------------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------------


@dataclass
class _Stats:
    request_count: int = 0  # model requests (OpenAI + Anthropic)
    in_flight: int = 0
    max_in_flight: int = 0
    status_counts: dict[str, int] = field(default_factory=dict)
    paths: dict[str, int] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)


class _Respond(Exception):
    def __init__(self, status: int, body: bytes, headers: dict[str, str] | None = None):
        self.status, self.body, self.headers = status, body, headers or {}


class _Drop(Exception):
    pass


# What a llama.cpp ``llama-server`` does that the scripted server does not by default.
LLAMA_CPP: dict[str, Any] = {
    "cut_at_limit": True,
    "refuse_invalid_history": True,
    "ignore_named_tool_choice": True,
    "served_model": "gemma-3-270m-it-Q4_K_M.gguf",
    "responses_cut_unmarked": True,
}


class ScriptedModelServer:
    """The scripted server, in a background thread (``with ScriptedModelServer(script) as server:``)
    or in the foreground (``serve_forever``).

    ``latency`` is slept before every model answer; ``faults`` are :class:`FaultSchedule` objects (or
    dicts for :meth:`FaultSchedule.from_dict`) applied server-wide by request number;
    ``record=False`` keeps no request bodies (for long benchmark runs)."""

    def __init__(
        self,
        script: Script | Mapping[str, Any] | Iterable[Rule] | str | None = None,
        latency: float = 0.0,
        faults: Iterable[FaultSchedule | Mapping[str, Any]] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        record: bool = True,
        cut_at_limit: bool = False,
        refuse_invalid_history: bool = False,
        ignore_named_tool_choice: bool = False,
        refuse_required_tool_choice: bool = False,
        served_model: str | None = None,
        responses_cut_unmarked: bool = False,
    ):
        self.cut_at_limit = cut_at_limit
        self.refuse_invalid_history = refuse_invalid_history
        self.ignore_named_tool_choice = ignore_named_tool_choice
        self.refuse_required_tool_choice = refuse_required_tool_choice
        self.served_model = served_model
        self.responses_cut_unmarked = responses_cut_unmarked
        self.script = as_script(script)
        self.latency = latency
        self.faults = tuple(f if isinstance(f, FaultSchedule) else FaultSchedule.from_dict(f) for f in faults)
        self.host = host
        self.port = port
        self.record = record
        self._stats = _Stats()
        self._lock = threading.Lock()
        self._rule_uses = [0] * len(self.script.rules)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None

    # ---- public surface ----

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.base_url

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Received model requests: ``{"path", "headers", "body"}`` (auth headers removed)."""
        with self._lock:
            return list(self._stats.requests)

    @property
    def request_count(self) -> int:
        return self._stats.request_count

    @property
    def max_in_flight(self) -> int:
        return self._stats.max_in_flight

    @property
    def in_flight(self) -> int:
        return self._stats.in_flight

    @property
    def status_counts(self) -> dict[int | str, int]:
        """HTTP status -> count of model requests answered with it (``"dropped"``: no answer)."""
        with self._lock:
            return {int(k) if k.isdigit() else k: v for k, v in self._stats.status_counts.items()}

    def stats(self) -> dict[str, Any]:
        with self._lock:
            s = self._stats
            return {
                "request_count": s.request_count,
                "in_flight": s.in_flight,
                "max_in_flight": s.max_in_flight,
                "status_counts": dict(s.status_counts),
                "paths": dict(s.paths),
                "faults": dict(s.faults),
            }

    def reset_stats(self) -> None:
        with self._lock:
            in_flight = self._stats.in_flight
            self._stats = _Stats(in_flight=in_flight, max_in_flight=in_flight)
            self._rule_uses = [0] * len(self.script.rules)

    def __enter__(self) -> ScriptedModelServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run_thread, name="scripted-model-server", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise RuntimeError("scripted model server failed to start") from self._error

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)
            self._thread = None

    async def serve_forever(self, on_ready: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            self._server = await asyncio.start_server(self._connection, self.host, self.port, backlog=1024)
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            raise
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        if on_ready is not None:
            on_ready(self.port)
        try:
            await self._stop.wait()
        finally:
            self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)
            await self._server.wait_closed()

    # ---- internals ----

    def _run_thread(self) -> None:
        with contextlib.suppress(BaseException):
            asyncio.run(self.serve_forever())
        self._ready.set()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                method, path, headers, body = request
                keep_alive = headers.get("connection", "").lower() != "close"
                try:
                    status, payload, extra = await self._dispatch(method, path, headers, body)
                except _Respond as answer:
                    status, payload, extra = answer.status, answer.body, answer.headers
                except _Drop:
                    break
                head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
                extra.setdefault("content-type", "application/json")
                extra["content-length"] = str(len(payload))
                extra["connection"] = "keep-alive" if keep_alive else "close"
                head += [f"{k}: {v}" for k, v in extra.items()]
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
                await writer.drain()
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:  # the server is stopping
            pass
        finally:
            self._connections.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _read_request(
        self, reader: asyncio.StreamReader
    ) -> tuple[str, str, dict[str, str], bytes] | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, path, _version = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                key, value = line.split(":", 1)
                headers[key.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")
                    break
                chunks.append(await reader.readexactly(size))
                await reader.readexactly(2)
            body = b"".join(chunks)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
        return method, path, headers, body

    async def _dispatch(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, bytes, dict[str, str]]:
        route = path.split("?", 1)[0].rstrip("/")
        if method == "GET" and route == "/_stats":
            return 200, json.dumps(self.stats()).encode(), {}
        if method == "POST" and route == "/_reset":
            self.reset_stats()
            return 200, b"{}", {}
        # Any prefix, as OpenAI-compatible endpoints have (Azure /openai/v1, Gemini /v1beta/openai).
        if method == "POST" and route.endswith("/chat/completions"):
            return await self._model_request("openai", route, headers, body)
        if method == "POST" and route.endswith("/responses"):
            return await self._model_request("responses", route, headers, body)
        if method == "POST" and route.endswith("/messages"):
            return await self._model_request("anthropic", route, headers, body)
        return 404, json.dumps({"error": {"message": f"no route {method} {route}"}}).encode(), {}

    def _count(self, key: str, table: str = "status_counts") -> None:
        with self._lock:
            counts = getattr(self._stats, table)
            counts[key] = counts.get(key, 0) + 1

    async def _model_request(
        self, api: Api, route: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, bytes, dict[str, str]]:
        with self._lock:
            stats = self._stats
            stats.request_count += 1
            number = stats.request_count
            stats.in_flight += 1
            stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
            stats.paths[route] = stats.paths.get(route, 0) + 1
        status = 0
        try:
            status, payload, extra = await self._answer(api, route, headers, raw, number)
            return status, payload, extra
        finally:
            with self._lock:
                self._stats.in_flight -= 1
            self._count(str(status) if status else "dropped")

    async def _answer(
        self, api: Api, route: str, headers: dict[str, str], raw: bytes, number: int
    ) -> tuple[int, bytes, dict[str, str]]:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return 400, json.dumps(error_body(api, 400, "request body is not JSON")).encode(), {}
        if self.record:
            shown = {k: v for k, v in headers.items() if k not in _HIDDEN_HEADERS}
            with self._lock:
                self._stats.requests.append({"path": route, "headers": shown, "body": body})
        refused = refused_parameter(api, body)
        refusal = (400, *refused) if refused is not None else self._refused_like_a_real_server(api, body)
        if refusal is not None:
            await asyncio.sleep(self.latency)
            status, param, message = refusal
            return status, json.dumps(error_body(api, status, message, param)).encode(), {}
        view = {"openai": view_openai, "anthropic": view_anthropic, "responses": view_responses}[api](body)
        if self.ignore_named_tool_choice and isinstance(body.get("tool_choice"), Mapping):
            if body["tool_choice"].get("type") in ("function", "tool"):  # logged and treated as auto
                view = replace(view, forced_tool=None)
        rule, values = self._choose(view)
        values = {**values, **_echoed(headers)}
        fault = rule.fault
        for schedule in self.faults:
            if schedule.applies(number):
                fault = schedule.fault
                break
        await asyncio.sleep(self.latency + rule.delay)
        reply = build_reply(rule, view, values)
        if fault is not None:
            self._count(fault.kind, "faults")
            if fault.kind == "status":
                extra: dict[str, str] = {}
                if fault.retry_after is not None:
                    if fault.retry_after_ms:
                        extra["retry-after-ms"] = str(int(fault.retry_after * 1000))
                    else:
                        extra["retry-after"] = f"{fault.retry_after:g}"
                message, param = fill(fault.message, values), fill(fault.param, values)
                return fault.status, json.dumps(error_body(api, fault.status, message, param)).encode(), extra
            if fault.kind == "delay":
                await asyncio.sleep(fault.seconds)
            elif fault.kind == "drop":
                raise _Drop()
            elif fault.kind == "empty_body":
                return 200, b"", {}
            elif fault.kind in ("invalid_arguments", "unknown_tool", "huge_text"):
                reply = apply_content_fault(reply, fault, view)
        limit = output_limit(api, body) if self.cut_at_limit else None
        if limit is not None:
            reply = cut_reply(reply, limit)
            if api == "responses" and self.responses_cut_unmarked:  # said "completed", only usage tells
                reply = replace(reply, cut=False)
        make = {"openai": openai_response, "anthropic": anthropic_response, "responses": responses_response}[
            api
        ]
        answer = make(reply, view, number, len(raw))
        if self.served_model is not None:
            answer["model"] = self.served_model
        thinking = body.get("thinking")
        if api == "anthropic" and isinstance(thinking, Mapping) and thinking.get("type") == "enabled":
            answer["content"].insert(0, thinking_block(view))
        payload = json.dumps(answer).encode()
        if fault is not None and fault.kind == "truncated_json":
            payload = payload[: max(1, len(payload) // 2)]
        return 200, payload, {"x-request-id": f"req_scripted_{number}"}

    def _refused_like_a_real_server(
        self, api: Api, body: Mapping[str, Any]
    ) -> tuple[int, str | None, str] | None:
        """(status, parameter, message) of what the behaviours switched on refuse: ``tool_choice:
        required`` (400), or tool-call arguments in the history that are not JSON (500, as
        llama.cpp answers)."""
        if self.refuse_required_tool_choice and body.get("tool_choice") == "required":
            return 400, "tool_choice", '`tool_choice` must either be a named tool, "auto", or "none".'
        if self.refuse_invalid_history:
            broken = invalid_history_arguments(api, body)
            if broken is not None:
                return (
                    500,
                    None,
                    (
                        f"Failed to parse tool call arguments as JSON: {broken[:40]!r}: "
                        "[json.exception.parse_error.101] parse error: syntax error while parsing value"
                    ),
                )
        return None

    def _choose(self, view: RequestView) -> tuple[Rule, dict[str, Any]]:
        for index, rule in enumerate(self.script.rules):
            values = match_rule(rule, view)
            if values is None:
                continue
            with self._lock:
                if rule.times is not None and self._rule_uses[index] >= rule.times:
                    continue
                self._rule_uses[index] += 1
            return rule, values
        values = match_rule(self.script.default, view) or {"turn": view.turn, "model": view.model}
        return self.script.default, values


# --------------------------------------------------------------------------------------------------
# Command line (separate process for the benchmark)
# --------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted OpenAI/Anthropic-compatible model server.")
    parser.add_argument("--script", help="rules file (JSON or YAML); default: answer 'OK'")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds slept before every answer")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--rate-limit-every", type=int, default=0, help="answer every N-th request with 429")
    parser.add_argument("--retry-after", type=float, default=None, help="retry-after seconds sent with 429s")
    parser.add_argument("--fault", action="append", default=[], help="a FaultSchedule as JSON (repeatable)")
    parser.add_argument("--record", action="store_true", help="keep request bodies (memory grows)")
    args = parser.parse_args(argv)
    faults: list[FaultSchedule] = [FaultSchedule.from_dict(json.loads(text)) for text in args.fault]
    if args.rate_limit_every:
        faults.append(
            FaultSchedule(
                Fault(kind="status", status=429, retry_after=args.retry_after), every=args.rate_limit_every
            )
        )
    server = ScriptedModelServer(
        args.script, args.latency, faults, host=args.host, port=args.port, record=args.record
    )

    def ready(port: int) -> None:
        print(f"READY {port}", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve_forever(ready))
    return 0


if __name__ == "__main__":
    sys.exit(main())
