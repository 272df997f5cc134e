"""The JSON results codec: encode and decode (schema-validated). Pure: reading the file is
:mod:`gate.files.results_file`'s, its bytes and documents read back :mod:`gate.results_json.read_back`'s,
merging the shards of one run :mod:`gate.results_json.shard_merge`'s.

``to_json`` is stable: object keys are sorted, list order (suites, cases, trials, calls, messages)
is kept because it is meaningful, and the same results always give the same bytes.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from gate.errors import InputError, Problem
from gate.results.messages import Message, SystemMessage, message_json
from gate.results.outcomes import (
    RESULTS_VERSION,
    CaseResult,
    CheckScore,
    Failure,
    Metrics,
    RequestStats,
    RunResults,
    SuiteResult,
    ToolInfo,
    TrialResult,
)
from gate.results.run_record import OfferedTool, RecordedCall, RunRecord, tool_key
from gate.results_json.read_back import results_from_dict
from gate.scoring.suite_metrics import check_scores, suite_metrics
from gate.util import schema_check
from gate.util.json_types import JsonObject
from gate.verdict.baseline import Comparison, headline
from gate.verdict.policy import Verdict, verdict_mood
from gate.verdict.view import summary_line

SCHEMA_FILE = "results.schema.json"


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return repr(value)


def _finite(value: Any) -> Any:
    """Replace NaN / infinities (not JSON) by None, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


# --- encoding -------------------------------------------------------------------------------------
# ``to_json`` builds the document from the dataclasses with plain dict literals and hands JSON values
# (arguments, tool results, messages, expectations, settings) to the C encoder as they are: nothing is
# copied (the encoder writes tuples as arrays), which is what makes a 10,000-case file fast. The
# keys are the dataclass fields, exactly as ``dataclasses.asdict`` names them
# (tests/results_json/test_codec_serialisation.py holds the file equal to dumping ``asdict``).


def _metrics(m: Metrics) -> JsonObject:
    return {
        "argument_accuracy": m.argument_accuracy,
        "cost_usd": m.cost_usd,
        "f1": m.f1,
        "input_tokens": m.input_tokens,
        "latency_ms": m.latency_ms,
        "output_score": m.output_score,
        "output_tokens": m.output_tokens,
        "precision": m.precision,
        "recall": m.recall,
    }


def _call(c: RecordedCall) -> JsonObject:
    return {
        "arguments": c.arguments,
        "arguments_error": c.arguments_error,
        "id": c.id,
        "is_error": c.is_error,
        "mock": c.mock,
        "name": c.name,
        "raw_arguments": c.raw_arguments,
        "result": c.result,
        "turn": c.turn,
        **({"state": c.state} if c.state is not None else {}),
    }


def _messages(messages: tuple[Message, ...], prompts: dict[str, int]) -> list[JsonObject]:
    """The transcript (``message_json``) with each system prompt replaced by its index in the suite's
    ``system_prompts`` (a 100 kB prompt is written once per suite, not once per trial)."""
    return [
        {"prompt": prompts.setdefault(m.content, len(prompts)), "role": "system"}
        if isinstance(m, SystemMessage)
        else message_json(m)
        for m in messages
    ]


class _Offered:
    """A suite's distinct offered tool definitions, stored once (``offered_tools``); a record's
    ``offered`` lists, per request, their indexes."""

    def __init__(self) -> None:
        self.tools: dict[str, tuple[int, OfferedTool]] = {}

    def index(self, tool: OfferedTool) -> int:
        return self.tools.setdefault(tool_key(tool), (len(self.tools), tool))[0]

    def json(self) -> list[JsonObject]:
        return [
            {"description": t.description, "name": t.name, "parameters": t.parameters}
            for _, t in self.tools.values()
        ]


def _record(r: RunRecord, prompts: dict[str, int], offered: _Offered) -> JsonObject:
    usage = r.usage
    return {
        "calls": [_call(c) for c in r.calls],
        "cost_usd": r.cost_usd,
        "error": r.error,
        "extra": r.extra,
        "input": r.input,
        "latency_ms": r.latency_ms,
        **({"log": r.log} if r.log else {}),
        "messages": _messages(r.messages, prompts),
        "model": r.model,
        "output": r.output,
        "stop_reason": r.stop_reason,
        "turns": r.turns,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        **({"state": r.state} if r.state is not None else {}),
        **({"offered": [[offered.index(t) for t in tools] for tools in r.offered]} if r.offered else {}),
    }


def _failure(f: Failure) -> JsonObject:
    return {
        "actual": f.actual,
        "argument": f.argument,
        "expected": f.expected,
        "expected_tool": f.expected_tool,
        "message": f.message,
        "reason": f.reason,
        "tool": f.tool,
    }


def _check(c: CheckScore) -> JsonObject:
    return {
        "detail": c.detail,
        "kind": c.kind,
        "passed": c.passed,
        "rationale": c.rationale,
        "score": c.score,
    }


def _trial(t: TrialResult, prompts: dict[str, int], offered: _Offered) -> JsonObject:
    return {
        "alternative": t.alternative,
        "checks": [_check(c) for c in t.checks],
        "failures": [_failure(f) for f in t.failures],
        "index": t.index,
        "metrics": _metrics(t.metrics),
        "pairing": t.pairing,
        "record": _record(t.record, prompts, offered),
        "score": t.score,
        "status": t.status,
    }


def _case(c: CaseResult, prompts: dict[str, int], offered: _Offered) -> JsonObject:
    return {
        "case_id": c.case_id,
        "check_scores": check_scores(c.trials),
        "expected": c.expected,
        "failures": [_failure(f) for f in c.failures] if c.status in ("failed", "error") else [],
        "file": c.file,
        "flaky": c.flaky,
        "line": c.line,
        "metrics": _metrics(c.metrics),
        "score": c.score,
        "skip_reason": c.skip_reason,
        "status": c.status,
        "suite": c.suite,
        "tags": c.tags,
        "trials": [_trial(t, prompts, offered) for t in c.trials],
        **({"non_gating": c.non_gating} if c.non_gating is not None else {}),
        **({"planned_trials": c.planned_trials} if c.curtailed else {}),
    }


def _tool(t: ToolInfo) -> JsonObject:
    tool = {
        "description": t.description,
        "description_line": t.description_line,
        "file": t.file,
        "line": t.line,
        "name": t.name,
        "parameter_lines": t.parameter_lines,
    }
    if t.parameters is not None:
        tool["parameters"] = t.parameters
    return tool


def _suite(s: SuiteResult) -> JsonObject:
    prompt = s.prompt
    prompts: dict[str, int] = {}
    offered = _Offered()
    cases = [_case(c, prompts, offered) for c in s.cases]
    return {
        "cases": cases,
        "metrics": dataclasses.asdict(suite_metrics(s.cases)),
        "model": s.model,
        "name": s.name,
        "path": s.path,
        "prompt": {"file": prompt.file, "line": prompt.line} if prompt is not None else None,
        "provider": s.provider,
        "system_prompts": list(prompts),  # filled while the cases above were built
        "threshold": s.threshold,
        "tools": [_tool(t) for t in s.tools],
        "triggered_by": s.triggered_by,
        "wall_ms": s.wall_ms,
        **({"requests": _requests(s.requests)} if s.requests != RequestStats() else {}),
        **({"offered_tools": offered.json()} if offered.tools else {}),  # filled by the cases above
    }


def _requests(r: RequestStats) -> dict[str, Any]:
    return {
        "answered_ms": r.answered_ms,
        "attempts": r.attempts,
        "backoff_ms": r.backoff_ms,
        "cost_usd": r.cost_usd,
        "failed": r.failed,
        "failed_ms": r.failed_ms,
        "rate_limited": r.rate_limited,
        "requests": r.requests,
        "timeout_ms": r.timeout_ms,
        "timeouts": r.timeouts,
        "unpriced": r.unpriced,
    }


def _document(results: RunResults) -> JsonObject:
    base = {"base": _document(results.base)} if results.base is not None else {}
    fixes = {"fixes": results.fixes.to_dict()} if results.fixes is not None else {}
    return {
        **base,
        **fixes,
        "complete": results.complete,
        "finished_at": results.finished_at,
        "incomplete_reason": results.incomplete_reason,
        **({"unverified": results.unverified} if results.unverified else {}),
        "settings": results.settings.to_dict(),
        "shard": results.shard,
        "started_at": results.started_at,
        "suites": [_suite(s) for s in results.suites],
        "version": results.version,
    }


def comparison_to_dict(comparison: Comparison) -> JsonObject:
    """The baseline comparison as the results file stores it (``comparison``): written for readers
    (dashboards, scripts); re-rendering compares the results again."""
    return {
        "headline": list(headline(comparison)),
        "counts": dict(comparison.counts),
        "base_pass_rate": comparison.base_pass_rate,
        "head_pass_rate": comparison.head_pass_rate,
        "cases": [dataclasses.asdict(c) for c in comparison.changes],
        "suites": [dataclasses.asdict(d) for d in comparison.suites],
        "overall": dataclasses.asdict(comparison.overall) if comparison.overall is not None else None,
    }


def verdict_to_dict(verdict: Verdict) -> JsonObject:
    """The verdict as the results file stores it (``verdict``): written for readers; re-rendering
    decides again."""
    return {
        "outcome": verdict_mood(verdict),
        "exit_code": verdict.exit_code,
        "summary": summary_line(verdict),
        "reasons": list(verdict.reasons),
        "suites_without_verdict": [s.name for s in verdict.suites if s.undecided],
    }


def to_json(results: RunResults, comparison: Comparison | None = None, verdict: Verdict | None = None) -> str:
    """The results as JSON text: UTF-8, compact, keys sorted, a newline at the end; a system prompt
    is stored once per suite (``system_prompts``, each transcript's system message pointing at its
    index); with a baseline, the comparison (``comparison``); with a verdict, the verdict
    (``verdict``)."""
    data = _document(results)
    if comparison is not None:
        data["comparison"] = comparison_to_dict(comparison)
    if verdict is not None:
        data["verdict"] = verdict_to_dict(verdict)
    try:
        # Built from frozen dataclasses, the document cannot be circular: skip the encoder's check.
        text = json.dumps(
            data, sort_keys=True, ensure_ascii=False, allow_nan=False, default=_jsonable, check_circular=False
        )
    except ValueError:
        text = json.dumps(
            _finite(json.loads(json.dumps(data, default=_jsonable))),
            sort_keys=True,
            ensure_ascii=False,
            allow_nan=False,
        )
    return text + "\n"


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building or reading a large report.

    Decoding, validating and rendering thousands of case results allocate millions of containers
    and no reference cycles; with the collector running, its repeated full passes over everything
    alive cost as much as the work itself (``json.loads`` of a 20 MB results file: about 3x slower).
    Reference counting still frees everything; the collector is restored (if it was on) at the end."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@lru_cache(maxsize=1)
def results_schema() -> JsonObject:
    """The JSON Schema of the results file, shipped inside the package."""
    from importlib import resources

    text = resources.files("gate").joinpath("schemas").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: JsonObject = json.loads(text)
    return schema


def fast_valid(schema: JsonObject, data: Any) -> bool:
    """Whether ``data`` is valid against ``schema``, decided by :mod:`gate.util.schema_check` (the schema
    compiled once into nested predicates: no error objects, no reference resolver); the slow validator
    runs only to explain a failure. False also for a schema outside the fast subset, which sends every
    document through ``jsonschema``."""
    return schema_check.is_valid(schema, data)


def _error_path(error: Any) -> str:
    where = "$"
    for part in error.absolute_path:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return where


_SHOWN_ERRORS = 20


def parse_results(data: Any, path: str = "") -> RunResults:
    """Validate a decoded JSON document against the results schema and build ``RunResults``."""
    if not isinstance(data, dict) or "suites" not in data or "version" not in data:
        raise InputError(
            [
                Problem(
                    path,
                    0,
                    0,
                    'not a tool-eval-gate results file (expected an object with "version" and "suites")',
                )
            ]
        )
    version = data.get("version")
    if isinstance(version, int) and version > RESULTS_VERSION:
        raise InputError(
            [
                Problem(
                    path,
                    0,
                    0,
                    f"results version {version} was written by a newer tool-eval-gate "
                    f"(this one reads version {RESULTS_VERSION})",
                    hint="upgrade tool-eval-gate",
                )
            ]
        )
    if not fast_valid(results_schema(), data):
        _refuse_schema_errors(data, path)
    _refuse_duplicates(data, path)
    try:
        return results_from_dict(data)
    except (TypeError, KeyError, ValueError) as exc:  # pragma: no cover - the schema should catch these
        raise InputError([Problem(path, 0, 0, f"invalid results file: {exc}")]) from exc


def _refuse_schema_errors(data: Any, path: str) -> None:
    """What the results schema finds wrong in ``data``, said by ``jsonschema`` (the fast check said
    only that something is)."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(results_schema())
    # The first errors only: a hostile file can hold millions, each a heavy object to collect.
    errors = list(itertools.islice(validator.iter_errors(data), _SHOWN_ERRORS + 1))
    if errors:
        problems = [Problem(path, 0, 0, f"{_error_path(e)}: {e.message}") for e in errors[:_SHOWN_ERRORS]]
        if len(errors) > _SHOWN_ERRORS:
            problems.append(
                Problem(path, 0, 0, f"... and more problems (the first {_SHOWN_ERRORS} are shown)")
            )
        raise InputError(problems)


def _refuse_duplicates(data: JsonObject, path: str) -> None:
    """A suite name twice in one file, or a case id twice in one suite: either would be counted twice
    (a shard's results are merged with ``report``, never written twice into one file)."""
    found = []
    for at, document in (("$", data), ("$.base", data.get("base"))):  # the base side's results too
        if isinstance(document, dict):
            found += _twice(document["suites"], "name", f"{at}.suites", "suite")
            for i, suite in enumerate(document["suites"]):
                found += _twice(suite["cases"], "case_id", f"{at}.suites[{i}].cases", "case id")
    if found:
        raise InputError([Problem(path, 0, 0, message) for message in found[:_SHOWN_ERRORS]])


def _twice(items: list[JsonObject], key: str, at: str, what: str) -> list[str]:
    first: dict[str, int] = {}
    found = []
    for index, item in enumerate(items):
        seen = first.setdefault(item[key], index)
        if seen != index:
            found.append(f"{at}[{index}].{key}: duplicate {what} {item[key]!r} (first {at}[{seen}])")
    return found
