"""The JSON results file: serialise, load (schema-validated), and merge the shards of one run.

``to_json`` is stable: object keys are sorted, list order (suites, cases, trials, calls, messages)
is kept because it is meaningful, and the same results always give the same bytes.
"""

from __future__ import annotations

import gc
import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from gate.errors import InputError, Problem
from gate.results import (
    RESULTS_VERSION,
    CaseResult,
    CheckScore,
    Failure,
    Metrics,
    RunResults,
    SuiteResult,
    ToolInfo,
    TrialResult,
)
from gate.run_record import RecordedCall, RunRecord

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


def results_to_dict(results: RunResults) -> dict[str, Any]:
    """The same dictionary as ``RunResults.to_dict()`` (plain dicts and lists, copied)."""
    return results.to_dict()


# --- encoding -------------------------------------------------------------------------------------
# ``to_json`` builds the document from the dataclasses with plain dict literals and hands JSON values
# (arguments, tool results, messages, expectations, settings) to the C encoder as they are: nothing is
# copied (the encoder writes tuples as arrays), which is what makes a 10,000-case file fast. The
# keys are the dataclass fields, exactly as ``RunResults.to_dict()`` has them (a test keeps the two
# equal).


def _metrics(m: Metrics) -> dict[str, Any]:
    return {
        "argument_accuracy": m.argument_accuracy, "cost_usd": m.cost_usd, "f1": m.f1,
        "input_tokens": m.input_tokens, "latency_ms": m.latency_ms, "output_score": m.output_score,
        "output_tokens": m.output_tokens, "precision": m.precision, "recall": m.recall,
    }


def _call(c: RecordedCall) -> dict[str, Any]:
    return {
        "arguments": c.arguments, "arguments_error": c.arguments_error, "id": c.id, "is_error": c.is_error,
        "mock": c.mock, "name": c.name, "raw_arguments": c.raw_arguments, "result": c.result, "turn": c.turn,
    }


def _record(r: RunRecord) -> dict[str, Any]:
    usage = r.usage
    return {
        "calls": [_call(c) for c in r.calls], "cost_usd": r.cost_usd, "error": r.error, "extra": r.extra,
        "input": r.input, "latency_ms": r.latency_ms, "messages": r.messages, "model": r.model,
        "output": r.output, "stop_reason": r.stop_reason, "turns": r.turns,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }


def _failure(f: Failure) -> dict[str, Any]:
    return {
        "actual": f.actual, "argument": f.argument, "expected": f.expected, "expected_tool": f.expected_tool,
        "message": f.message, "reason": f.reason, "tool": f.tool,
    }


def _check(c: CheckScore) -> dict[str, Any]:
    return {"detail": c.detail, "kind": c.kind, "passed": c.passed, "rationale": c.rationale, "score": c.score}


def _trial(t: TrialResult) -> dict[str, Any]:
    return {
        "alternative": t.alternative, "checks": [_check(c) for c in t.checks],
        "failures": [_failure(f) for f in t.failures], "index": t.index, "metrics": _metrics(t.metrics),
        "pairing": t.pairing, "record": _record(t.record), "score": t.score, "status": t.status,
    }


def _case(c: CaseResult) -> dict[str, Any]:
    return {
        "case_id": c.case_id, "expected": c.expected, "file": c.file, "flaky": c.flaky, "line": c.line,
        "metrics": _metrics(c.metrics), "score": c.score, "skip_reason": c.skip_reason, "status": c.status,
        "suite": c.suite, "tags": c.tags, "trials": [_trial(t) for t in c.trials],
    }


def _tool(t: ToolInfo) -> dict[str, Any]:
    return {
        "description": t.description, "description_line": t.description_line, "file": t.file, "line": t.line,
        "name": t.name, "parameter_lines": t.parameter_lines,
    }


def _suite(s: SuiteResult) -> dict[str, Any]:
    prompt = s.prompt
    return {
        "cases": [_case(c) for c in s.cases], "model": s.model, "name": s.name, "path": s.path,
        "prompt": {"file": prompt.file, "line": prompt.line} if prompt is not None else None,
        "provider": s.provider, "threshold": s.threshold, "tools": [_tool(t) for t in s.tools],
        "triggered_by": s.triggered_by,
    }


def _document(results: RunResults) -> dict[str, Any]:
    return {
        "complete": results.complete, "finished_at": results.finished_at,
        "incomplete_reason": results.incomplete_reason, "settings": results.settings, "shard": results.shard,
        "started_at": results.started_at, "suites": [_suite(s) for s in results.suites],
        "version": results.version,
    }


def to_json(results: RunResults) -> str:
    """The results as JSON text: UTF-8, compact, keys sorted, a newline at the end."""
    data = _document(results)
    try:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False, default=_jsonable)
    except ValueError:
        text = json.dumps(_finite(json.loads(json.dumps(data, default=_jsonable))), sort_keys=True,
                          ensure_ascii=False, allow_nan=False)
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
def results_schema() -> dict[str, Any]:
    """The JSON Schema of the results file, shipped inside the package."""
    from importlib import resources

    text = resources.files("gate").joinpath("schemas", SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


_SUPPORTED = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum", "maximum",
    "minLength", "pattern", "oneOf", "$ref", "description", "title", "$schema", "$id", "$defs",
})
_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


def _same(a: Any, b: Any) -> bool:
    """JSON equality: booleans differ from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return bool(a == b)


def _schema_keywords(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key in ("properties", "$defs"):
                for sub in value.values():
                    found |= _schema_keywords(sub)
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                found |= _schema_keywords(value)
            elif key == "oneOf":
                for sub in value:
                    found |= _schema_keywords(sub)
    return found


Check = Callable[[Any], bool]


def _always(value: Any) -> bool:
    return True


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)


# Exact Python types (as ``json.loads`` makes them) that certainly satisfy a JSON type; anything else
# (subclasses, integral floats for "integer") goes through the full check.
_EXACT_TYPES: dict[str, frozenset[type]] = {
    "object": frozenset({dict}), "array": frozenset({list}), "string": frozenset({str}),
    "boolean": frozenset({bool}), "null": frozenset({type(None)}), "number": frozenset({int, float}),
    "integer": frozenset({int}),
}
_ANNOTATIONS = frozenset({"description", "title", "$comment"})
_ANY_TYPE = frozenset({dict, list, str, bool, type(None), int, float})


def _plain_types(node: Any) -> frozenset[type] | None:
    """For a node that only constrains the type (or nothing): the exact types that pass it."""
    if not isinstance(node, dict) or "$ref" in node:
        return None
    keys = node.keys() - _ANNOTATIONS
    if not keys:
        return _ANY_TYPE
    if keys != {"type"}:
        return None
    kind = node["type"]
    kinds = kind if isinstance(kind, list) else [kind]
    if not all(isinstance(k, str) and k in _EXACT_TYPES for k in kinds):
        return None
    return frozenset().union(*(_EXACT_TYPES[k] for k in kinds))


def _compile_node(node: dict[str, Any], defs: dict[str, Any], compiled: dict[str, Check]) -> Check:
    """One schema node as a predicate, with the exact semantics of the interpreter it replaces: a
    ``$ref`` stands for its definition (siblings ignored); ``properties``/``required``/
    ``additionalProperties`` apply to objects, ``items`` to arrays, ``minLength``/``pattern`` to
    strings, ``minimum``/``maximum`` to numbers, whatever ``type`` says."""
    ref = node.get("$ref")
    if ref is not None:
        name = ref.rsplit("/", 1)[-1]
        found = compiled.get(name)
        if found is None:
            target: list[Check] = []
            compiled[name] = lambda value: target[0](value)  # for recursive references
            target.append(_compile_node(defs[name], defs, compiled))
            compiled[name] = found = target[0]
        return found
    checks: list[Check] = []
    kind = node.get("type")
    if kind is not None:
        kinds = [_TYPES[k] for k in (kind if isinstance(kind, list) else [kind])]
        checks.append(kinds[0] if len(kinds) == 1 else lambda value: any(k(value) for k in kinds))
    if "const" in node:
        const = node["const"]
        checks.append(lambda value: _same(const, value))
    if "enum" in node:
        options = node["enum"]
        if all(isinstance(o, str) for o in options):
            names = frozenset(options)
            checks.append(lambda value: isinstance(value, str) and value in names)
        else:
            checks.append(lambda value: any(_same(o, value) for o in options))
    if {"properties", "required", "additionalProperties"} & node.keys():
        properties = node.get("properties", {})
        props = {key: _compile_node(sub, defs, compiled) for key, sub in properties.items()}
        # Properties whose schema is only a type: values of these exact types pass without a call.
        plain = {key: types for key, types in ((k, _plain_types(sub)) for k, sub in properties.items())
                 if types is not None}
        required = tuple(node.get("required", ()))
        extra = node.get("additionalProperties", True)
        closed = extra is False
        extra_check = _compile_node(extra, defs, compiled) if isinstance(extra, dict) else None

        def check_object(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for key in required:
                if key not in value:
                    return False
            for key, item in value.items():
                types = plain.get(key)
                if types is not None and type(item) in types:
                    continue
                sub = props.get(key)
                if sub is not None:
                    if not sub(item):
                        return False
                elif closed or (extra_check is not None and not extra_check(item)):
                    return False
            return True

        checks.append(check_object)
    if node.get("items") is not None:
        item_check = _compile_node(node["items"], defs, compiled)
        checks.append(lambda value: not isinstance(value, list) or all(map(item_check, value)))
    if "minLength" in node or "pattern" in node:
        min_length = node.get("minLength", 0)
        pattern = re.compile(node["pattern"]) if node.get("pattern") is not None else None
        checks.append(lambda value: not isinstance(value, str) or (
            len(value) >= min_length and (pattern is None or pattern.search(value) is not None)))
    if "minimum" in node or "maximum" in node:
        is_number = _TYPES["number"]
        low, high = node.get("minimum"), node.get("maximum")
        checks.append(lambda value: not is_number(value) or not (
            (low is not None and value < low) or (high is not None and value > high)))
    if "oneOf" in node:
        options_checks = [_compile_node(sub, defs, compiled) for sub in node["oneOf"]]
        checks.append(lambda value: sum(1 for check in options_checks if check(value)) == 1)
    return _all_of(checks)


_COMPILED: dict[int, tuple[dict[str, Any], Check | None]] = {}


def _compiled(schema: dict[str, Any]) -> Check | None:
    """The schema compiled to one predicate (cached per schema object); None when it uses keywords
    outside the supported subset."""
    entry = _COMPILED.get(id(schema))
    if entry is None or entry[0] is not schema:
        check = _compile_node(schema, schema.get("$defs", {}), {}) if _schema_keywords(schema) <= _SUPPORTED else None
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        entry = _COMPILED[id(schema)] = (schema, check)
    return entry[1]


def fast_valid(schema: dict[str, Any], data: Any) -> bool:
    """Whether ``data`` is valid against ``schema``, for the keyword subset the results schema uses.

    Much faster than ``jsonschema`` on large files: the schema is compiled once into nested
    predicates (no error objects, no reference resolver); the slow validator runs only to explain a
    failure. Returns False for a schema using other keywords, which sends every document through
    ``jsonschema``."""
    check = _compiled(schema)
    if check is None:
        return False
    try:
        return check(data)
    except RecursionError:
        return False


def _error_path(error: Any) -> str:
    where = "$"
    for part in error.absolute_path:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return where


def parse_results(data: Any, path: str = "") -> RunResults:
    """Validate a decoded JSON document against the results schema and build ``RunResults``."""
    if not isinstance(data, dict) or "suites" not in data or "version" not in data:
        raise InputError([Problem(path, 0, 0, "not a tool-eval-gate results file (expected an object with "
                                  "\"version\" and \"suites\")")])
    version = data.get("version")
    if isinstance(version, int) and version > RESULTS_VERSION:
        raise InputError([Problem(path, 0, 0, f"results version {version} was written by a newer tool-eval-gate "
                                  f"(this one reads version {RESULTS_VERSION})", hint="upgrade tool-eval-gate")])
    if fast_valid(results_schema(), data):
        try:
            return RunResults.from_dict(data)
        except (TypeError, KeyError, ValueError) as exc:  # pragma: no cover - the schema should catch these
            raise InputError([Problem(path, 0, 0, f"invalid results file: {exc}")]) from exc
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(results_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        problems = [Problem(path, 0, 0, f"{_error_path(e)}: {e.message}") for e in errors[:20]]
        if len(errors) > 20:
            problems.append(Problem(path, 0, 0, f"... and {len(errors) - 20} more problems"))
        raise InputError(problems)
    try:
        return RunResults.from_dict(data)
    except (TypeError, KeyError, ValueError) as exc:  # pragma: no cover - the schema should catch these
        raise InputError([Problem(path, 0, 0, f"invalid results file: {exc}")]) from exc


def load_results(path: str | Path) -> RunResults:
    """Read and validate a results file; ``InputError`` (path and what is wrong) when it is not one."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError([Problem(name, 0, 0, "results file not found")]) from None
    except OSError as exc:
        raise InputError([Problem(name, 0, 0, f"cannot read results file: {exc.strerror or exc}")]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError([Problem(name, 0, 0, "not a results file: it is not UTF-8 text")]) from None
    if not text.strip():
        raise InputError([Problem(name, 0, 0, "results file is empty")])
    with gc_paused():
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError([Problem(name, exc.lineno, exc.colno, f"not valid JSON: {exc.msg}")]) from None
        except RecursionError:
            raise InputError([Problem(name, 0, 0, "not a results file: JSON nested too deeply")]) from None
        return parse_results(data, name)


def _parse_shard(shard: str) -> tuple[int, int] | None:
    try:
        index, count = shard.split("/")
        return int(index), int(count)
    except ValueError:
        return None


def _merge_suites(group: list[SuiteResult]) -> SuiteResult:
    first = group[0]
    cases: list[CaseResult] = []
    seen: dict[str, int] = {}
    for suite in group:
        for case in suite.cases:
            if case.case_id in seen:
                raise InputError([Problem(
                    first.path, case.line, 0,
                    f"case {case.case_id!r} of suite {first.name!r} appears in more than one part "
                    "(the same shard given twice?)",
                )])
            seen[case.case_id] = case.line
            cases.append(case)
    cases.sort(key=lambda c: (c.line, c.case_id))
    tools: dict[str, ToolInfo] = {}
    triggered: dict[str, str] = {}
    for suite in group:
        for tool in suite.tools:
            tools.setdefault(tool.name, tool)
        for file, why in suite.triggered_by.items():
            triggered.setdefault(file, why)
    return replace(
        first,
        cases=tuple(cases),
        tools=tuple(tools.values()),
        prompt=next((s.prompt for s in group if s.prompt is not None), None),
        triggered_by=dict(sorted(triggered.items())),
    )


def merge(parts: Sequence[RunResults]) -> RunResults:
    """Merge the shards of one run into one ``RunResults``.

    Suites with the same path are merged case by case in file order (by case line); a case that
    appears twice is rejected with ``InputError``. Suites come out sorted by path, so the order in
    which shard files are given does not matter. The merge is complete only when every part is and,
    when the parts name their shards (``i/n``), every shard 1..n is present. ``shard`` is cleared."""
    if not parts:
        raise InputError("no results to merge")
    groups: dict[str, list[SuiteResult]] = {}
    for part in parts:
        for suite in part.suites:
            groups.setdefault(suite.path, []).append(suite)
    suites = tuple(_merge_suites(groups[path]) for path in sorted(groups))

    reasons: list[str] = []
    for part in parts:
        if not part.complete:
            why = part.incomplete_reason or "incomplete"
            label = f"shard {part.shard}: {why}" if part.shard else why
            if label not in reasons:
                reasons.append(label)
    shards = [_parse_shard(p.shard) for p in parts if p.shard]
    if shards and len(parts) > 1 or (len(parts) == 1 and shards):
        valid = [s for s in shards if s is not None]
        counts = {count for _, count in valid}
        if len(counts) > 1:
            raise InputError(f"the parts come from different shard splits: {sorted(p.shard for p in parts)}")
        indexes = [index for index, _ in valid]
        duplicates = sorted({i for i in indexes if indexes.count(i) > 1})
        if duplicates:
            raise InputError(f"shard(s) {', '.join(map(str, duplicates))} given more than once")
        if counts:
            count = counts.pop()
            missing = [i for i in range(1, count + 1) if i not in indexes]
            if missing:
                reasons.append(f"missing shard(s) {', '.join(f'{i}/{count}' for i in missing)}")
    settings: dict[str, Any] = {}
    for part in parts:
        for key, value in part.settings.items():
            settings.setdefault(key, value)
    started = sorted(p.started_at for p in parts if p.started_at)
    finished = sorted(p.finished_at for p in parts if p.finished_at)
    return RunResults(
        suites=suites,
        started_at=started[0] if started else "",
        finished_at=finished[-1] if finished else "",
        complete=not reasons,
        incomplete_reason="; ".join(reasons),
        shard="",
        settings=settings,
        version=RESULTS_VERSION,
    )
