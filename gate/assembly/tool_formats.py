"""Tool definitions in the OpenAI, Anthropic and MCP formats: parse, validate, convert.

Accepted shapes of one tool (JSON or YAML):

- OpenAI: ``{"type": "function", "function": {"name", "description", "parameters", "strict"?}}``
- OpenAI, bare function: ``{"name", "description", "parameters"}``
- Anthropic: ``{"name", "description", "input_schema", "type": "custom"?, "cache_control"?}``
- MCP: ``{"name", "description", "inputSchema", "title"?, "outputSchema"?, "annotations"?, ...}``

A tool file holds a list of tools or ``{"tools": [...]}`` (also a saved MCP ``tools/list`` result,
with its ``nextCursor``, and the whole JSON-RPC response around it: ``{"jsonrpc", "id", "result":
{"tools": [...]}}``). Everything is turned into the
provider-neutral :class:`gate.suite.model.ToolDef`, with the lines where the tool, its description and
each of its parameters are written (the analysis points review comments at them), and converted back
with :func:`to_openai` / :func:`to_anthropic` for whichever provider runs the suite.

Pure: positions come from a ``Positions`` object (a :class:`gate.files.yaml_source.YamlDocument`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from gate.assembly.checks import cannot_work
from gate.errors import Problem
from gate.suite.model import Source, ToolDef
from gate.util.escape import truncate
from gate.util.json_types import JsonObject, PathKey
from gate.util.schema_check import is_valid_schema
from gate.util.wording import closest, did_you_mean

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

OPENAI_KEYS = ("type", "function")
FUNCTION_KEYS = ("name", "description", "parameters", "strict")
ANTHROPIC_KEYS = ("name", "description", "input_schema", "type", "cache_control")
MCP_KEYS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "_meta")
# Beside "tools" in a saved MCP tools/list result, and around it in a JSON-RPC response.
_LIST_RESULT_KEYS = ("tools", "nextCursor", "_meta")
_JSONRPC_KEYS = ("jsonrpc", "id", "result")

KEYS = "allowed keys"  # how a hint lists the keys a definition allows
UNIQUE_NAMES_HINT = "tool names must be unique; rename or remove one"


class Positions(Protocol):
    @property
    def path(self) -> str: ...

    def position(self, path: PathKey) -> tuple[int, int]: ...

    def key_position(self, path: PathKey) -> tuple[int, int]: ...


_META_VALIDATOR: Any = None


def meta_validator() -> Any:
    """A validator of JSON Schemas themselves (the 2020-12 meta-schema), built once per process."""
    global _META_VALIDATOR
    if _META_VALIDATOR is None:
        from jsonschema import Draft202012Validator

        _META_VALIDATOR = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    return _META_VALIDATOR


def _problem(doc: Positions, path: PathKey, message: str, hint: str = "", *, at_key: bool = False) -> Problem:
    line, column = doc.key_position(path) if at_key else doc.position(path)
    return Problem(doc.path, line, column, message, hint)


# References a schema may hold: inside itself, or to the JSON Schema meta-schemas (which ship with
# jsonschema). Anything else would have to be fetched, and the gate never fetches a schema.
_LOCAL_REF_PREFIXES = ("#", "https://json-schema.org/", "http://json-schema.org/")
REMOTE_REF_HINT = 'the gate never fetches schemas: put the definition under "$defs" and use "#/$defs/NAME"'


def remote_refs(schema: Any, path: PathKey = ()) -> list[tuple[PathKey, str]]:
    """Every ``$ref`` / ``$dynamicRef`` in ``schema`` that points outside it (with its path)."""
    found: list[tuple[PathKey, str]] = []
    stack: list[tuple[PathKey, Any]] = [(path, schema)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if (
                    key in ("$ref", "$dynamicRef")
                    and isinstance(value, str)
                    and not value.startswith(_LOCAL_REF_PREFIXES)
                ):
                    found.append(((*where, key), value))
                else:
                    stack.append(((*where, key), value))
        elif isinstance(node, list):
            stack.extend(((*where, i), item) for i, item in enumerate(node))
    return sorted(found, key=lambda item: [str(p) for p in item[0]])


def tool_file_items(doc: Positions, data: Any) -> tuple[list[Any], PathKey, list[Problem]]:
    """The tool items of a tool file (a list, or a mapping with a ``tools`` list) and their base path."""
    if isinstance(data, list):
        return data, (), []
    base: PathKey = ()
    problems: list[Problem] = []
    result = data.get("result") if isinstance(data, dict) else None
    if isinstance(data, dict) and "jsonrpc" in data and isinstance(result, dict):  # a JSON-RPC response
        problems += _unknown_keys(data, _JSONRPC_KEYS, doc, (), "JSON-RPC response")
        data, base = result, ("result",)
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        problems += [
            _problem(
                doc,
                (*base, k),
                f"unknown key {k!r} in tool file",
                "a tool file holds only 'tools: [...]' (and an MCP tools/list result's nextCursor)",
                at_key=True,
            )
            for k in data
            if k not in _LIST_RESULT_KEYS
        ]
        return data["tools"], (*base, "tools"), problems
    return (
        [],
        (),
        [
            _problem(
                doc,
                (),
                "a tool file must hold a list of tools or a mapping {tools: [...]}",
                "write a list of tool definitions (OpenAI, Anthropic or MCP format)",
            )
        ],
    )


def parse_tools(
    items: Sequence[Any], doc: Positions, base: PathKey = (), *, seen: dict[str, Source] | None = None
) -> tuple[list[ToolDef], list[Problem]]:
    """Parse and validate tools ``items`` found at ``base`` in ``doc``. ``seen`` (name -> source)
    spans several calls, to find duplicate names across the files of one agent."""
    seen = {} if seen is None else seen
    tools: list[ToolDef] = []
    problems: list[Problem] = []
    for index, item in enumerate(items):
        tool, item_problems = parse_tool(item, doc, (*base, index))
        problems.extend(item_problems)
        if tool is None:
            continue
        if tool.name in seen:
            first = seen[tool.name].seen_from(tool.source.path)
            problems.append(
                _problem(
                    doc,
                    (*base, index),
                    f"duplicate tool name {tool.name!r} (first defined at {first})",
                    UNIQUE_NAMES_HINT,
                )
            )
            continue
        seen[tool.name] = tool.source
        tools.append(tool)
    return tools, problems


def parse_tool(item: Any, doc: Positions, path: PathKey) -> tuple[ToolDef | None, list[Problem]]:
    """Parse one tool in either format; (None, problems) when it is not a usable definition."""
    if not isinstance(item, dict):
        return None, [
            _problem(
                doc,
                path,
                f"a tool must be a mapping, got {_type_name(item)}",
                "write {name, description, parameters} or the OpenAI/Anthropic form",
            )
        ]
    problems: list[Problem] = []
    if "function" in item or item.get("type") == "function":
        problems += _unknown_keys(item, OPENAI_KEYS, doc, path, "OpenAI tool")
        if item.get("type") != "function":
            problems.append(
                _problem(
                    doc,
                    (*path, "type") if "type" in item else path,
                    "an OpenAI tool needs type: function",
                    "add type: function",
                )
            )
        function = item.get("function")
        if not isinstance(function, dict):
            problems.append(
                _problem(
                    doc,
                    (*path, "function") if "function" in item else path,
                    "an OpenAI tool needs a 'function' mapping",
                    "write function: {name, description, parameters}",
                )
            )
            return None, problems
        fpath = (*path, "function")
        problems += _unknown_keys(function, FUNCTION_KEYS, doc, fpath, "function")
        return _finish(function, doc, path, fpath, "parameters", problems, FUNCTION_KEYS)
    if "input_schema" in item:
        problems += _unknown_keys(item, ANTHROPIC_KEYS, doc, path, "Anthropic tool")
        if "type" in item and item["type"] != "custom":
            problems.append(
                _problem(
                    doc,
                    (*path, "type"),
                    f"unsupported Anthropic tool type {item['type']!r}",
                    "only custom tools (with input_schema) can be evaluated",
                )
            )
        return _finish(item, doc, path, path, "input_schema", problems, ANTHROPIC_KEYS)
    if "inputSchema" in item:
        problems += _unknown_keys(item, MCP_KEYS, doc, path, "MCP tool")
        for key in ("annotations", "outputSchema"):
            if key in item and not isinstance(item[key], dict):
                problems.append(_problem(doc, (*path, key), f"the MCP tool's {key!r} must be a mapping"))
        return _finish(item, doc, path, path, "inputSchema", problems, MCP_KEYS)
    problems += _unknown_keys(item, FUNCTION_KEYS, doc, path, "tool")
    return _finish(item, doc, path, path, "parameters", problems, FUNCTION_KEYS)


def _finish(
    spec: JsonObject,
    doc: Positions,
    item_path: PathKey,
    spec_path: PathKey,
    schema_key: str,
    problems: list[Problem],
    allowed: Sequence[str],
) -> tuple[ToolDef | None, list[Problem]]:
    name = spec.get("name")
    if "name" not in spec:
        # A misspelt name (``nam:``) is already an unknown key whose hint says "did you mean 'name'?".
        if not any(k not in allowed and closest(str(k), allowed) == "name" for k in spec):
            problems.append(_problem(doc, spec_path, "a tool needs a 'name'", "add name: <tool_name>"))
    elif not isinstance(name, str) or not NAME_PATTERN.match(name):
        problems.append(
            _problem(
                doc,
                (*spec_path, "name"),
                f"invalid tool name {name!r}",
                "1 to 64 letters, digits, '_' or '-' (^[a-zA-Z0-9_-]{1,64}$)",
            )
        )
    description = spec.get("description", "")
    if not isinstance(description, str):
        problems.append(_problem(doc, (*spec_path, "description"), "the tool description must be a string"))
        description = ""
    if "strict" in spec and not isinstance(spec["strict"], bool):
        problems.append(_problem(doc, (*spec_path, "strict"), "'strict' must be true or false"))
    schema_path = (*spec_path, schema_key)
    # Only an OpenAI function may leave its parameters out (the other formats are told apart by theirs).
    parameters = spec.get(schema_key, {"type": "object", "properties": {}})
    if schema_key in spec:
        problems += check_parameters(parameters, doc, schema_path, str(name))
    if problems or not isinstance(name, str):
        return None, problems
    line, column = doc.position(item_path)
    parameter_lines: dict[str, int] = {}
    properties = parameters.get("properties", {}) if isinstance(parameters, dict) else {}
    for pname in properties if isinstance(properties, dict) else ():
        parameter_lines[pname] = doc.key_position((*schema_path, "properties", pname))[0]
    description_line = doc.position((*spec_path, "description"))[0] if "description" in spec else 0
    return (
        ToolDef(
            name=name,
            description=description,
            parameters=parameters,
            source=Source(doc.path, line, column),
            description_line=description_line,
            parameter_lines=parameter_lines,
        ),
        problems,
    )


def check_parameters(parameters: Any, doc: Positions, path: PathKey, tool: str) -> list[Problem]:
    """A tool's parameters must be a valid JSON Schema of type object whose ``required`` names are
    all declared in ``properties``."""
    if not isinstance(parameters, dict):
        return [
            _problem(
                doc,
                path,
                f"the parameters of tool {tool!r} must be a JSON Schema mapping, "
                f"got {_type_name(parameters)}",
                "write {type: object, properties: {...}}",
            )
        ]
    problems: list[Problem] = []
    if parameters.get("type") != "object":
        problems.append(
            _problem(
                doc,
                (*path, "type") if "type" in parameters else path,
                f"the parameters of tool {tool!r} must be a schema of type object",
                "set type: object (arguments are always a JSON object)",
            )
        )
    valid_schema = is_valid_schema(parameters)  # jsonschema only explains a schema that is not
    for error in () if valid_schema else meta_validator().iter_errors(parameters):
        if tuple(error.absolute_path) == ("type",):
            continue  # its type is not "object": said above, with the fix
        where = (*path, *error.absolute_path)
        pointer = "/".join(str(p) for p in error.absolute_path)
        problems.append(
            _problem(
                doc,
                where,
                f"the parameters of tool {tool!r} are not a valid JSON Schema"
                + (f" at {pointer}" if pointer else "")
                + f": {truncate(error.message, 160, brief=True)}",
                "see https://json-schema.org/understanding-json-schema/",
            )
        )
    if valid_schema:  # patterns the run cannot use, $refs that point at nothing or loop
        for where, message, hint in cannot_work.schema_problems(parameters, path):
            problems.append(_problem(doc, where, f"the parameters of tool {tool!r}: {message}", hint))
    for where, ref in remote_refs(parameters, path):
        problems.append(
            _problem(
                doc,
                where,
                f"the parameters of tool {tool!r} refer to a remote schema {ref!r}",
                REMOTE_REF_HINT,
            )
        )
    properties = parameters.get("properties", {})
    required = parameters.get("required", [])
    if isinstance(properties, dict) and isinstance(required, list):
        for index, rname in enumerate(required):
            if isinstance(rname, str) and rname not in properties:
                close = closest(rname, list(properties))
                declared = f" (declared: {', '.join(properties)})" if properties else ""
                hint = f"did you mean {close!r}?" if close else f"declare it under properties{declared}"
                problems.append(
                    _problem(
                        doc,
                        (*path, "required", index),
                        f"required parameter {rname!r} of tool {tool!r} is not in properties",
                        hint,
                    )
                )
    return problems


def _unknown_keys(
    spec: JsonObject, allowed: Sequence[str], doc: Positions, path: PathKey, what: str
) -> list[Problem]:
    return [
        _problem(
            doc,
            (*path, key),
            f"unknown key {key!r} in {what}",
            did_you_mean(str(key), allowed, KEYS),
            at_key=True,
        )
        for key in spec
        if key not in allowed
    ]


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number"
    )


def to_openai(tool: ToolDef) -> JsonObject:
    """The tool in OpenAI Chat Completions form."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }


def to_anthropic(tool: ToolDef) -> JsonObject:
    """The tool in Anthropic Messages form."""
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
