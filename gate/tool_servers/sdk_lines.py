"""What differs between the MCP SDK's two lines the gate supports, 1.x (what LangChain's and other
frameworks' MCP adapters require, ``mcp<2``) and 2.x, and nothing else: the session code is one path
for both, reading every answer in its wire form (``model_dump(by_alias=True)``: ``nextCursor``,
``isError``, ``structuredContent`` on both lines, where the Python attributes are camelCase in 1.x and
snake_case in 2.x).

- the protocol error a request raises: ``McpError`` in 1.x, ``MCPError`` in 2.x (both carry the
  JSON-RPC ``ErrorData`` as ``.error``);
- a read timeout: a ``timedelta`` in 1.x, seconds (a float) in 2.x;
- the Streamable HTTP transport yields three values in 1.x (the third reads the session id), two in 2.x.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache
from importlib import import_module
from importlib.metadata import version
from typing import Any


@cache
def major() -> int:
    """The installed SDK's major version (1 or 2; ``pyproject.toml``'s ``mcp`` extra allows no other)."""
    return int(version("mcp").split(".", 1)[0])


def protocol_error() -> type[Exception]:
    """The exception class of an error answer to a request (``.error.code``, ``.error.message``)."""
    exceptions = import_module("mcp.shared.exceptions")
    found: type[Exception] = getattr(exceptions, "McpError" if major() == 1 else "MCPError")
    return found


def timeout(seconds: float) -> Any:
    """``seconds`` as the SDK takes a read timeout."""
    return timedelta(seconds=seconds) if major() == 1 else seconds


def wire(answer: Any) -> dict[str, Any]:
    """An SDK result as the JSON the server sent (camelCase keys, no absent fields)."""
    dumped: dict[str, Any] = answer.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped
