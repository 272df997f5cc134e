"""The automatic checks every call gets, with no expectation written (DESIGN.md section 2): the tool
exists in the definitions (else *hallucinated tool*), its arguments are a JSON object (else *invalid
arguments*) and they satisfy the tool's own parameter schema (else *schema violation*). Each is a hard
condition. The definitions are those the model was offered: the suite's for the model agent, for an
agent program those of the request the call answered (DESIGN section 10)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gate.results.outcomes import MAX_QUOTED_CHARS, Failure
from gate.results.run_record import OfferedTool, RecordedCall
from gate.suite.matchers import schema_validator
from gate.suite.model import Suite, ToolDef
from gate.util import schema_check
from gate.util.escape import show, truncate
from gate.util.json_types import JsonObject

if TYPE_CHECKING:
    from jsonschema import ValidationError


def automatic_failures(
    suite: Suite, calls: Sequence[RecordedCall], offered: Sequence[Sequence[OfferedTool]] = ()
) -> list[Failure]:
    """Every call's automatic failures, in call order. ``offered`` (an agent program's trial: the
    tools each of its requests offered, ``RunRecord.offered``) decides what a call may name: the tools
    of the request it answered, never the suite's others (DESIGN section 10); without it, the suite's
    tools (the model agent offers those)."""
    failures: list[Failure] = []
    for index, call in enumerate(calls):
        where = f"call {index + 1}"
        tools = _tools_of(suite, offered, call)
        parameters = tools.get(call.name)
        if parameters is None:
            failures.append(_hallucinated(call, where, tools, bool(offered)))
        elif call.arguments is None:
            failures.append(
                Failure(
                    "invalid_arguments",
                    f"{where}: {call.name} arguments are not a JSON object "
                    f"({call.arguments_error or 'unparseable'}): "
                    f"{truncate(call.raw_arguments, 120, brief=True)}",
                    tool=call.name,
                    actual=truncate(call.raw_arguments, MAX_QUOTED_CHARS, brief=True),
                )
            )
        else:
            failures += schema_failures(call.name, parameters, call, where)
    return failures


def _tools_of(
    suite: Suite, offered: Sequence[Sequence[OfferedTool]], call: RecordedCall
) -> dict[str, JsonObject]:
    """Name -> parameter schema of the tools the call could name (the first definition of a name)."""
    tools: Sequence[OfferedTool | ToolDef] = suite.agent.tools
    if offered:
        tools = offered[call.turn - 1] if 0 < call.turn <= len(offered) else ()
    named: dict[str, JsonObject] = {}
    for tool in tools:
        named.setdefault(tool.name, tool.parameters)
    return named


def _hallucinated(call: RecordedCall, where: str, tools: dict[str, JsonObject], program: bool) -> Failure:
    names = ", ".join(tools) or "none"
    why = (
        f"is not a tool its request offered (offered: {names})"
        if program
        else f"is not a defined tool (defined: {names})"
    )
    return Failure("hallucinated_tool", f"{where}: {call.name} {why}", tool=call.name, actual=call.name)


def _schema_check(schema: JsonObject) -> schema_check.Check | None:
    """The compiled yes/no validator of a tool's parameter schema (``gate.util.schema_check``, cached per
    schema object), or None when the schema is outside its subset (then jsonschema decides)."""
    try:
        return schema_check.checker(schema)
    except Exception:  # a malformed tool schema: jsonschema reports it (and it is not the agent's fault)
        return None


def schema_failures(tool: str, schema: JsonObject, call: RecordedCall, where: str) -> list[Failure]:
    """A *schema violation* for every error jsonschema finds in the call's arguments (none when the tool's
    schema itself is invalid or unresolvable: the tool file is at fault, not the agent)."""
    arguments = call.arguments
    check = _schema_check(schema)
    if check is not None and check(arguments):
        return []
    schema_json = json.dumps(schema, sort_keys=True)
    import jsonschema

    try:
        validator = schema_validator(schema_json)
    except (jsonschema.SchemaError, TypeError, ValueError):
        return []  # an invalid tool schema is reported by validate, not blamed on the agent
    from referencing.exceptions import Unresolvable

    try:
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(map(str, e.absolute_path)))
    except Unresolvable:
        return []  # an unresolvable "$ref" (never fetched): the tool file is at fault, not the agent
    return [_schema_failure(tool, error, where) for error in errors]


def _schema_failure(tool: str, error: ValidationError, where: str) -> Failure:
    location = list(error.absolute_path)
    argument = str(location[0]) if location else None
    if argument is None and error.validator in ("required", "additionalProperties"):
        # Name the argument the error is about ("'days' is a required property").
        found = re.findall(r"'([^']+)'", error.message)
        argument = found[0] if found else None
    pointer = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in location).lstrip(".")
    return Failure(
        "schema_violation",
        f"{where}: {tool} arguments{' at ' + pointer if pointer else ''}: {error.message}",
        tool=tool,
        argument=argument,
        expected=f"{error.validator}: {show(error.validator_value, 80)}",
        actual=error.instance if location else None,
    )
