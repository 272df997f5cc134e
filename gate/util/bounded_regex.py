"""Every user-supplied regular expression (argument matchers, output checks, path assertions, a
tool's JSON Schema ``pattern`` / ``patternProperties``) is compiled and run here, in bounded time.

Suites are written by pull-request authors and the text is written by a model, so a pattern such as
``^(a|aa)+$`` must not be able to stall the gate. The engine is the ``regex`` package: it reads
Python's ``re`` syntax (its default ``VERSION0`` mode keeps ``re``'s meaning, so every existing
pattern means what it meant), and each search takes a ``timeout``. A linear-time engine (RE2) was
the alternative; it would bound the time without a timeout, but it refuses back-references and
lookaround, which suites already use (``(?i)``, ``(?!...)``), and it is not installed on every
runner. A search that runs out of time raises :class:`RegexTimeout`; callers turn it into a failed
check that says so (never a hang, never a crash). ``validate`` compiles every pattern with this same
engine, so a pattern it accepts is one the run can use.

Pure (no I/O); ``regex`` is imported on first use, so ``validate`` pays for it only when a suite
holds a pattern.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from gate import limits
from gate.util.escape import truncate


class RegexError(ValueError):
    """The pattern does not compile (or uses syntax the engine does not support)."""


class RegexTimeout(Exception):
    """A search did not finish within ``limits.REGEX_TIMEOUT_SECONDS``."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        super().__init__(
            f"the regular expression /{truncate(pattern, 80, brief=True)}/ took longer than "
            f"{limits.REGEX_TIMEOUT_SECONDS} s "
            "on this text (nested quantifiers such as (a+)+ backtrack exponentially)"
        )


# The engine expands counted repetitions when it compiles: ``(?:(?:a{1000}){1000}){1000}`` would
# take minutes and gigabytes. A pattern whose repetition counts multiply past this is refused.
MAX_EXPANDED_SIZE = 100_000
_GROUP_PREFIX = re.compile(r"\?(?:P?<[A-Za-z_]\w*>|<[=!]|[:=!>|]|P=\w+\)|[-a-zA-Z]*[:)])")
_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}\??\+?|[*+?][?+]?")


def expanded_size(pattern: str) -> int:
    """An upper estimate of the pattern's size once counted repetitions are expanded: an atom is 1,
    a group the sum of its items (alternatives added up), a quantified item its size times the
    largest count it names (at least 1)."""
    stack: list[list[int]] = [[]]
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        size = 0
        if char == "\\":
            i += 2
            size = 1
        elif char == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            size = 1
        elif char == "(":
            prefix = _GROUP_PREFIX.match(pattern, i + 1)
            i = prefix.end() if prefix is not None else i + 1
            if prefix is not None and prefix.group(0).endswith(")"):
                continue  # an inline flag group, (?i): no group opens
            stack.append([])
            continue
        elif char == ")":
            inner = sum(stack.pop()) if len(stack) > 1 else 0
            i += 1
            size = max(inner, 1)
        elif char == "|":
            i += 1
            continue
        else:
            i += 1
            size = 1
        quantifier = _QUANTIFIER.match(pattern, i)
        if (
            quantifier is not None
            and quantifier.group(0)[0] == "{"
            and not (quantifier.group(1) or quantifier.group(3))
        ):
            quantifier = None  # "{}" or "{,}" is literal text
        if quantifier is not None:
            counts = [int(c) for c in (quantifier.group(1), quantifier.group(3)) if c]
            size *= max([1, *counts])
            i = quantifier.end()
        stack[-1].append(size)
        if size > MAX_EXPANDED_SIZE:
            return size
    return sum(sum(level) for level in stack)


@functools.lru_cache(maxsize=1024)
def compile_regex(pattern: str) -> Any:
    """The compiled pattern (cached); :class:`RegexError` when it does not compile, or when its
    repetition counts multiply past ``MAX_EXPANDED_SIZE`` (compiling it would not finish)."""
    import regex

    size = expanded_size(pattern)
    if size > MAX_EXPANDED_SIZE:
        raise RegexError(
            f"its repetition counts multiply past {MAX_EXPANDED_SIZE:,}: "
            "use + or * instead of large counts inside counted groups"
        )
    try:
        compiled = regex.compile(pattern)
    except (regex.error, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        raise RegexError(str(exc)) from None
    _refuse_late_global_flags(pattern)
    return compiled


def _refuse_late_global_flags(pattern: str) -> None:
    """Python's ``re`` (the syntax the docs promise) refuses an inline global flag after the start of
    the pattern (``paris(?i)``), where ``regex`` silently reads it as something else: refused the
    way ``re`` does, with the fix."""
    if "(?" not in pattern:
        return
    try:
        re.compile(pattern)
    except re.error as exc:
        if "global flags not at the start" in str(exc):
            raise RegexError(
                f"{exc} (an inline flag such as (?i) applies to the whole pattern only at its start: "
                "move it there, or scope it to a part: (?i:paris))"
            ) from None
    except (ValueError, OverflowError, RecursionError, MemoryError):
        return  # the engine compiled it; only re's own refusal above is the gate's business


def regex_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used (the compiler's message), or None when it can."""
    try:
        compile_regex(pattern)
    except RegexError as exc:
        return str(exc)
    return None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` is found in ``text``. Raises :class:`RegexError` (does not compile) or
    :class:`RegexTimeout` (did not finish in time)."""
    try:
        return compile_regex(pattern).search(text, timeout=limits.REGEX_TIMEOUT_SECONDS) is not None
    except TimeoutError:
        raise RegexTimeout(pattern) from None


def _found(pattern: str, text: str) -> bool | str:
    """True / False, or the message of why the search could not be made."""
    try:
        return search(pattern, text)
    except (RegexError, RegexTimeout) as exc:
        return str(exc)


def bounded_validator(cls: Any) -> Any:
    """``cls`` (a ``jsonschema`` validator class) with ``pattern``, ``patternProperties`` and
    ``additionalProperties`` evaluated by :func:`search`: the same verdicts, in bounded time. A
    pattern that does not compile or runs out of time is a validation error that says so."""
    from jsonschema import ValidationError, validators

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "string"):
            return
        found = _found(patrn, instance)
        if isinstance(found, str):
            yield ValidationError(found)
        elif not found:
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for patrn, subschema in patterns.items():
            for key, value in instance.items():
                found = _found(patrn, key)
                if isinstance(found, str):
                    yield ValidationError(found, path=[key])
                elif found:
                    yield from validator.descend(value, subschema, path=key, schema_path=patrn)

    def additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        known = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        extras = [
            key for key in instance if key not in known and not any(_found(p, key) is True for p in patterns)
        ]
        if validator.is_type(additional, "object"):
            for extra in extras:
                yield from validator.descend(instance[extra], additional, path=extra)
        elif additional is False and extras:
            shown = ", ".join(repr(extra) for extra in sorted(extras, key=str))
            if patterns:
                yield ValidationError(f"{shown} not matched by any of: {', '.join(map(repr, patterns))}")
            else:
                verb = "was" if len(extras) == 1 else "were"
                yield ValidationError(f"Additional properties are not allowed ({shown} {verb} unexpected)")

    # jsonschema's `extend` has no type annotations; it returns a validator class like `cls`.
    return validators.extend(  # type: ignore[no-untyped-call]
        cls,
        {
            "pattern": pattern,
            "patternProperties": pattern_properties,
            "additionalProperties": additional_properties,
        },
    )
