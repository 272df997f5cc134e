"""The gate as an MCP client: starting (or reaching) the MCP servers suites take tools from, reading
their ``tools/list``, and sending the model's calls to their ``tools/call``. The only package that
imports the ``mcp`` SDK (the optional ``mcp`` extra), always lazily."""

__all__ = ["listing", "live"]
