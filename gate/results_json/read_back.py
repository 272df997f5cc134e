"""A results file read back (what :mod:`gate.results_json.codec` wrote): its bytes as a JSON document
within the bounds every results file gets (memory, numbers), and a schema-valid document as
``RunResults``. Pure: reading the file is :mod:`gate.files.results_file`'s.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gate import limits
from gate.errors import InputError, Problem
from gate.results.fixes import FixSearch
from gate.results.messages import AssistantMessage, Message, SystemMessage, ToolCall, ToolResult, UserMessage
from gate.results.outcomes import (
    RESULTS_VERSION,
    CaseResult,
    CheckScore,
    Failure,
    Metrics,
    RequestStats,
    RunResults,
    SourceRef,
    SuiteResult,
    ToolInfo,
    TrialResult,
)
from gate.results.run_record import OfferedTool, RecordedCall, RunRecord, Usage, stop_reason
from gate.results.settings import RunSettings
from gate.util import strict_json
from gate.util.escape import as_text
from gate.util.json_types import JsonObject


def results_text(raw: bytes, name: str) -> str:
    """The text of a results file's bytes ``raw`` (``name`` its path, for errors); ``InputError`` when
    it is too dense to read within the memory bound, not UTF-8, or empty."""
    estimate = _decoded_size(raw)
    if estimate > max(limits.RESULTS_MEMORY_FACTOR * len(raw), _SMALL):
        raise InputError(
            [
                Problem(
                    name,
                    0,
                    0,
                    f"not read: {len(raw):,} bytes this dense in objects, lists and values would take "
                    f"about {estimate // 2**20:,} MiB to read (more than {limits.RESULTS_MEMORY_FACTOR} "
                    "times its size)",
                    "is this the results file written by run --json?",
                )
            ]
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError([Problem(name, 0, 0, "not a results file: it is not UTF-8 text")]) from None
    if not text.strip():
        raise InputError([Problem(name, 0, 0, "results file is empty")])
    return text


def results_document(text: str, name: str) -> Any:
    """The JSON document of a results file's ``text``: ``InputError`` when it is not JSON, or holds a
    number it may not (NaN, an infinity, an integer of too many digits)."""
    try:
        return strict_json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError([Problem(name, exc.lineno, exc.colno, f"not valid JSON: {exc.msg}")]) from None
    except strict_json.RefusedNumber as exc:
        line, column = strict_json.refused_at(text)
        raise InputError([Problem(name, line, column, f"not a results file: {exc}")]) from None
    except RecursionError:
        raise InputError([Problem(name, 0, 0, "not a results file: JSON nested too deeply")]) from None


# What reading a JSON document costs beyond its text, as CPython builds it: an object or a list about
# 200 bytes (an empty dict is 64, one with a few keys 232), every further value a pointer and, for a
# number or a short text, a small object (with some margin). Counted on the raw bytes (brackets and
# commas inside strings too, so an overestimate): a results file the gate writes is mostly text.
_CONTAINER_BYTES = 300
_SMALL = 64 * 2**20  # below this, any file is read (a small file cannot cost much, however dense)
_VALUE_BYTES = 16


def _decoded_size(raw: bytes) -> int:
    containers = raw.count(b"{") + raw.count(b"[")
    return _CONTAINER_BYTES * containers + _VALUE_BYTES * raw.count(b",")


def results_from_dict(data: JsonObject) -> RunResults:
    """The results of a schema-valid results document (any version this gate reads; written back as
    the current one)."""
    return RunResults(
        suites=tuple(_suite(s) for s in data.get("suites", ())),
        started_at=data.get("started_at", ""),
        finished_at=data.get("finished_at", ""),
        complete=data.get("complete", True),
        incomplete_reason=data.get("incomplete_reason", ""),
        unverified=data.get("unverified", ""),
        shard=data.get("shard", ""),
        settings=RunSettings.from_dict(data.get("settings", {})),
        version=RESULTS_VERSION,  # read from any version it supports, written as the current one
        base=results_from_dict(data["base"]) if isinstance(data.get("base"), dict) else None,
        fixes=FixSearch.from_dict(data["fixes"]) if isinstance(data.get("fixes"), dict) else None,
    )


def _suite(d: JsonObject) -> SuiteResult:
    prompt = d.get("prompt")
    prompts = list(d.get("system_prompts", ()))
    offered = [OfferedTool(t["name"], t["description"], t["parameters"]) for t in d.get("offered_tools", ())]
    return SuiteResult(
        name=d["name"],
        path=d["path"],
        threshold=d["threshold"],
        cases=tuple(_case(c, prompts, offered) for c in d.get("cases", ())),
        tools=tuple(ToolInfo(**t) for t in d.get("tools", ())),
        prompt=SourceRef(**prompt) if prompt else None,
        provider=d.get("provider", ""),
        model=d.get("model", ""),
        triggered_by=dict(d.get("triggered_by", {})),
        wall_ms=d.get("wall_ms", 0.0),
        requests=RequestStats(**d.get("requests", {})),
    )


def _case(d: JsonObject, prompts: list[str], offered: list[OfferedTool]) -> CaseResult:
    return CaseResult(
        suite=d["suite"],
        case_id=d["case_id"],
        file=d["file"],
        line=d["line"],
        status=d["status"],
        score=d["score"],
        flaky=d.get("flaky", False),
        trials=tuple(_trial(t, prompts, offered) for t in d.get("trials", ())),
        metrics=Metrics(**d.get("metrics", {})),
        tags=tuple(d.get("tags", ())),
        expected=dict(d.get("expected", {})),
        skip_reason=d.get("skip_reason"),
        non_gating=d.get("non_gating"),
        reason=_reducer_reason(d),
        planned_trials=d.get("planned_trials", 0),
    )


def _trial(d: JsonObject, prompts: list[str], offered: list[OfferedTool]) -> TrialResult:
    return TrialResult(
        index=d["index"],
        status=d["status"],
        score=d["score"],
        failures=tuple(Failure(**f) for f in d.get("failures", ())),
        checks=tuple(CheckScore(**c) for c in d.get("checks", ())),
        metrics=Metrics(**d.get("metrics", {})),
        record=record_from_dict(d["record"], prompts, offered),
        pairing=tuple(d.get("pairing", ())),
        alternative=d.get("alternative"),
    )


def _reducer_reason(case: JsonObject) -> Failure | None:
    """The reducer's reason of a stored case: its first failure when the case failed and no trial did
    (the case's ``failures`` are otherwise its first failed trial's)."""
    stored = case.get("failures")
    if case.get("status") != "failed" or not stored:
        return None
    if any(t.get("status") == "failed" for t in case.get("trials", ())):
        return None
    return Failure(**stored[0])


def record_from_dict(
    data: JsonObject, system_prompts: Sequence[str] = (), offered_tools: Sequence[OfferedTool] = ()
) -> RunRecord:
    """A trial's record as the results file holds it; a system message stored as
    ``{"role": "system", "prompt": i}`` gets its text back from the suite's ``system_prompts``, and
    the tools each request offered (``offered``: indexes) theirs from its ``offered_tools``
    (ValueError when there is none). A ``program`` message (results version 2 and older kept the
    agent program's standard error there) is read as the record's ``log``."""
    calls = tuple(RecordedCall(**c) for c in data.get("calls", ()))
    made: dict[str, ToolCall] = {}
    for call in calls:
        made.setdefault(call.id, ToolCall(call.id, call.name, call.raw_arguments))
    messages: list[Message] = []
    log = data.get("log", "")
    for message in data.get("messages", ()):
        if message["role"] == "program":
            log = log or _older_log(message.get("content") or "")
        else:
            messages.append(_message(message, system_prompts, made))
    return RunRecord(
        input=data["input"],
        messages=tuple(messages),
        calls=calls,
        output=data.get("output", ""),
        turns=data.get("turns", 0),
        latency_ms=data.get("latency_ms", 0.0),
        usage=Usage(**data.get("usage", {})),
        cost_usd=data.get("cost_usd"),
        error=data.get("error"),
        stop_reason=stop_reason(data.get("stop_reason", "final_answer")),
        model=data.get("model", ""),
        extra=dict(data.get("extra", {})),
        state=data.get("state"),
        offered=tuple(tuple(_offered(i, offered_tools) for i in tools) for tools in data.get("offered", ())),
        log=log,
    )


def _offered(index: Any, offered_tools: Sequence[OfferedTool]) -> OfferedTool:
    if not isinstance(index, int) or not 0 <= index < len(offered_tools):
        raise ValueError(
            f"a request offered tool {index!r}; the suite has {len(offered_tools)} (offered_tools)"
        )
    return offered_tools[index]


def _message(data: JsonObject, system_prompts: Sequence[str], made: dict[str, ToolCall]) -> Message:
    """A message of a record (the inverse of ``gate.results.messages.message_json``); an assistant turn
    of the trial gets its calls whole from the record's ``calls``, by id."""
    role, content = data["role"], data.get("content")
    text = content if isinstance(content, str) else ""
    if role == "system":
        return SystemMessage(_system_prompt(data, system_prompts) if "prompt" in data else text)
    if role == "user":
        return UserMessage(text, simulated=bool(data.get("simulated", False)))
    given = bool(data.get("given", False))
    if role == "tool":
        state = data.get("state")
        return ToolResult(
            data.get("call_id", ""),
            data.get("name", ""),
            text,
            is_error=bool(data.get("is_error", False)),
            given=given,
            state=None if state is None else as_text(state),
        )
    if "tool_calls" in data:
        calls = tuple(
            ToolCall(str(c.get("id", "")), str(c.get("name", "")), as_text(c.get("arguments", "")))
            for c in data["tool_calls"]
        )
    else:
        calls = tuple(made.get(i) or ToolCall(i, "", "") for i in data.get("calls", ()))
    return AssistantMessage(
        text,
        tool_calls=calls,
        given=given,
        thinking=data.get("thinking", ""),
        finish_reason=data.get("finish_reason", ""),
    )


def _system_prompt(data: JsonObject, system_prompts: Sequence[str]) -> str:
    index = data["prompt"]
    if not isinstance(index, int) or not 0 <= index < len(system_prompts):
        raise ValueError(f"system message refers to prompt {index!r}; the suite has {len(system_prompts)}")
    return system_prompts[index]


def _older_log(content: str) -> str:
    """The standard error of an older file's ``program`` message (how the program failed is its
    record's ``extra``)."""
    _, marker, stderr = content.partition("standard error:\n")
    return stderr if marker else ""
