"""A scripted MCP server on stdio for the tests: JSON-RPC written by hand (no SDK), so that a test can
make it misbehave exactly: paginate, loop its cursor, list an invalid tool, crash, speak no MCP.

    python mcp_stdio_server.py [--page-size N] [--loop-cursor] [--invalid-tool] [--garbage]
                               [--crash [--leak TEXT]] [--starts FILE] [--environ FILE] [--no-tools]
                               [--hang] [--calls FILE] [--stop-on-call]

Tools: ``get_weather`` (text result), ``add_item`` (appends to this process's list and answers the
count, with structured content: a new process starts from an empty list), ``fail`` (an error result),
and with ``--page-size`` 25 more (``tool_00`` ...), to make several pages. ``--calls FILE`` appends
every ``tools/call`` it receives to FILE (one JSON line: this process's id, the tool, the arguments);
``--stop-on-call`` exits (status 1, a line on standard error) at its first ``tools/call``.
"""

from __future__ import annotations

import json
import os
import sys
import time

TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city. Use it for the weather right now.",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city name, e.g. Paris"}},
            "required": ["city"],
        },
    },
    {
        "name": "add_item",
        "description": "Add an item to the shopping list and say how many items it holds.",
        "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]},
    },
    {
        "name": "fail",
        "description": "Always fails.",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def reply(message_id: object, result: object = None, error: object = None) -> None:
    body: dict[str, object] = {"jsonrpc": "2.0", "id": message_id}
    if error is not None:
        body["error"] = error
    else:
        body["result"] = result
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


def tool_list(args: list[str]) -> list[dict[str, object]]:
    tools = [] if "--no-tools" in args else list(TOOLS)
    if "--page-size" in args:
        tools += [
            {
                "name": f"tool_{i:02d}",
                "description": f"Filler tool number {i}.",
                "inputSchema": {"type": "object"},
            }
            for i in range(25)
        ]
    if "--invalid-tool" in args:
        tools.append({"name": "bad name!", "description": "x", "inputSchema": {"type": "object"}})
    return tools


def page(tools: list[dict[str, object]], cursor: str | None, args: list[str]) -> dict[str, object]:
    if "--page-size" not in args:
        return {"tools": tools}
    size = int(args[args.index("--page-size") + 1])
    start = 0 if cursor in (None, "again") else int(cursor)
    result: dict[str, object] = {"tools": tools[start : start + size]}
    if "--loop-cursor" in args:
        result["nextCursor"] = "again"
    elif start + size < len(tools):
        result["nextCursor"] = str(start + size)
    return result


def call(name: str, arguments: dict[str, object], items: list[object]) -> dict[str, object]:
    if name == "get_weather":
        return {"content": [{"type": "text", "text": f"18 C and cloudy in {arguments.get('city')}"}]}
    if name == "add_item":
        items.append(arguments.get("item"))
        count = {"count": len(items)}
        return {"content": [{"type": "text", "text": json.dumps(count)}], "structuredContent": count}
    return {"content": [{"type": "text", "text": "the tool failed on purpose"}], "isError": True}


def leaked(args: list[str]) -> str:
    """What ``--leak`` says the server found (in a file of its own, say): a server gets no secret of
    the gate's environment, but it may still print one."""
    return args[args.index("--leak") + 1] if "--leak" in args else "(none)"


def received(params: dict[str, object], args: list[str]) -> None:
    """Note the call (``--calls``), or stop at it (``--stop-on-call``)."""
    if "--calls" in args:
        with open(args[args.index("--calls") + 1], "a", encoding="utf-8") as log:
            entry = {"pid": os.getpid(), "name": params.get("name"), "arguments": params.get("arguments")}
            log.write(json.dumps(entry) + "\n")
    if "--stop-on-call" in args:
        sys.stderr.write("the backend went away\n")
        sys.exit(1)


def main(args: list[str]) -> None:
    if "--starts" in args:
        with open(args[args.index("--starts") + 1], "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()}\n")
    if "--environ" in args:  # the names of the variables this process got, one a line
        with open(args[args.index("--environ") + 1], "a", encoding="utf-8") as log:
            log.write("".join(f"{name}\n" for name in sorted(os.environ)))
    if "--crash" in args:
        sys.stderr.write("Traceback (most recent call last):\n")
        sys.stderr.write(f"RuntimeError: cannot reach the database with key {leaked(args)}\n")
        sys.exit(1)
    if "--garbage" in args:
        sys.stdout.write("Hello! I am not an MCP server.\n")
        sys.stdout.flush()
        sys.stdin.read()
        return
    tools = tool_list(args)
    items: list[object] = []
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id, params = message.get("method"), message.get("id"), message.get("params") or {}
        if message_id is None:
            continue  # a notification
        if "--hang" in args:
            time.sleep(3600)
        if method == "initialize":
            reply(
                message_id,
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scripted", "version": "1"},
                },
            )
        elif method == "tools/list":
            reply(message_id, page(tools, params.get("cursor"), args))
        elif method == "tools/call":
            received(params, args)
            reply(message_id, call(params["name"], params.get("arguments") or {}, items))
        elif method == "ping":
            reply(message_id, {})
        else:
            reply(message_id, error={"code": -32601, "message": f"method not found: {method}"})


if __name__ == "__main__":
    main(sys.argv[1:])
