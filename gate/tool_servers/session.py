"""One MCP session with one server: started over stdio from its argv (no shell, in the repository root
it was read from) or opened over Streamable HTTP at its loopback URL, initialised, then asked for its
tools (every page of ``tools/list``) or to run a call (``tools/call``).

A server that cannot be started, exits, does not speak MCP or does not answer within its
``timeout_s`` is a :class:`ServerFailed` (exit 3) naming the server, what went wrong and the tail of
its standard error, every secret masked. The server's process (and its children) ends with the session.
Its environment is the gate's without any secret and without the gate's own settings
(``environment_without_secrets``, as for an agent program): a server may be a pull request's code.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import IO, Any, TextIO

from gate.containment.scope import open_scope
from gate.errors import EXIT_INCOMPLETE, GateError, InputError, Problem
from gate.suite.model import ToolServer
from gate.tool_servers import sdk_lines
from gate.util.escape import truncate
from gate.util.redact import Redactor, environment_without_secrets

MAX_PAGES = 100  # tools/list pages read at most
STDERR_TAIL_CHARS = 2000


class ServerFailed(GateError):
    """An MCP server that could not be used: the evaluation cannot be completed (exit 3)."""

    exit_code = EXIT_INCOMPLETE


def listing_refused(server: ToolServer, exc: BaseException) -> InputError:
    """A ``tools/list`` answer the SDK refused (not a valid list of tools): invalid input, exit 2, as a
    tool file that fails validation, at the suite's ``mcp`` entry."""
    where = server.source
    message = f"the MCP server {server.label} lists an invalid tool: {_reason(exc)}"
    return InputError([Problem(where.path, where.line, where.column, message, "fix the tool's definition")])


@dataclass(frozen=True)
class CallAnswer:
    """What one ``tools/call`` returned: the text the model reads, the value recorded on the call (the
    structured content when there is some, else that text), and whether the tool reported an error."""

    text: str
    value: Any
    is_error: bool


class _SdkComplaints(logging.Handler):
    """What the SDK logs while a session is open (e.g. lines on the server's standard output that are
    not JSON-RPC): kept for the failure message, never printed (the gate's output stays its own)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < 5:
            self.messages.append(record.getMessage())


class Session:
    """An initialised MCP client session with one server (see :func:`open_session`)."""

    def __init__(self, server: ToolServer, client: Any, stderr: IO[str] | None):
        self.server, self.client, self.stderr = server, client, stderr
        self.complaints = _SdkComplaints()

    def failed(self, what: str, exc: BaseException | None = None) -> ServerFailed:
        """``ServerFailed`` saying what went wrong, why, what the SDK made of the server's output and
        the server's standard error tail, every secret masked."""
        where = f"{self.server.source.path}:{self.server.source.line}"
        text = f"the MCP server {self.server.label} ({where}) {what}"
        text += f": {_reason(exc)}" if exc is not None else ""
        if self.complaints.messages:
            text += f" (the MCP client said: {'; '.join(dict.fromkeys(self.complaints.messages))})"
        if self.stderr is not None:  # a server at a URL: its standard error is not ours to read
            tail = stderr_tail(self.stderr)
            text += (
                f"; its standard error ends with:\n{tail}"
                if tail
                else " (it wrote nothing to standard error)"
            )
        return ServerFailed(Redactor.from_env(os.environ).redact(text))

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool of every page of ``tools/list``, as the JSON objects the server sent."""
        from mcp import types
        from pydantic import ValidationError

        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            try:
                page = sdk_lines.wire(await self.client.list_tools(params=params))
            except ValidationError as exc:
                raise listing_refused(self.server, exc) from None
            tools += page["tools"]
            cursor = page.get("nextCursor")
            if cursor is None:
                return tools
            if cursor in seen:
                raise self.failed(f"repeats the tools/list cursor {truncate(cursor, 40, brief=True)!r}")
            seen.add(cursor)
        raise self.failed(f"lists more than {MAX_PAGES} pages of tools")

    async def call(self, name: str, arguments: dict[str, Any]) -> CallAnswer:
        """Run one call; a protocol error (unknown tool, invalid parameters) is an error result."""
        from mcp import types

        timeout = sdk_lines.timeout(self.server.timeout_s)
        try:
            result = await self.client.call_tool(name, arguments, read_timeout_seconds=timeout)
        except sdk_lines.protocol_error() as exc:
            error = exc.error  # type: ignore[attr-defined]  # the JSON-RPC ErrorData, on both lines
            if error.code == types.CONNECTION_CLOSED:
                raise self.failed("stopped while answering tools/call", exc) from None
            return CallAnswer(f"MCP error {error.code}: {error.message}", None, True)
        except Exception as exc:  # an answer the SDK refused (e.g. against the tool's outputSchema)
            return CallAnswer(f"the server's answer was refused: {_reason(exc)}", None, True)
        if not isinstance(result, types.CallToolResult):
            return CallAnswer("the server asked for input the gate cannot give", None, True)
        answer = sdk_lines.wire(result)
        content = answer.get("content", [])
        texts = [block.get("text", "") for block in content if block.get("type") == "text"]
        text = "\n".join(texts) if len(texts) == len(content) else _json(content)
        value = answer.get("structuredContent", text)
        return CallAnswer(text, value, bool(answer.get("isError")))


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def stderr_tail(stderr: IO[str] | None) -> str:
    """The last lines the server wrote to its standard error (bounded; empty when none)."""
    if stderr is None:
        return ""
    try:
        stderr.flush()
        size = stderr.seek(0, os.SEEK_END)
        stderr.seek(max(0, size - STDERR_TAIL_CHARS * 4))
        text = stderr.read()
    except (OSError, ValueError):
        return ""
    lines = [line.rstrip() for line in text[-STDERR_TAIL_CHARS:].splitlines() if line.strip()]
    return "\n".join("  " + line for line in lines[-20:])


def innermost(exc: BaseException) -> BaseException:
    """``exc`` without the exception groups around it (the first of each; duck-typed: Python 3.10 has
    groups only through anyio's backport)."""
    inner = getattr(exc, "exceptions", None)
    while isinstance(inner, (list, tuple)) and inner and isinstance(inner[0], BaseException):
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc


def gate_error(exc: BaseException) -> GateError | None:
    """The first ``GateError`` in ``exc`` or the exception groups around it (None: there is none)."""
    stack = [exc]
    while stack:
        current = stack.pop(0)
        if isinstance(current, GateError):
            return current
        inner = getattr(current, "exceptions", None)
        if isinstance(inner, (list, tuple)):
            stack.extend(e for e in inner if isinstance(e, BaseException))
    return None


def _reason(exc: BaseException) -> str:
    """The innermost message of ``exc``, on one line, bounded."""
    exc = innermost(exc)
    text = str(exc) or type(exc).__name__
    return truncate(" ".join(text.split()), 300, brief=True)


@asynccontextmanager
async def open_session(server: ToolServer) -> AsyncIterator[Session]:
    """An initialised session with ``server`` (started here when it has a command), closed after. A
    ``GateError`` comes out as itself, not inside the exception groups of the SDK's task groups, and
    whatever stops the opening (also in the transport's own tasks) is a ``ServerFailed``."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
        session = Session(server, None, stderr if server.command else None)
        opened = False
        try:
            async with AsyncExitStack() as stack:
                await _open(stack, session, stderr)
                opened = True
                yield session
        except BaseException as exc:  # noqa: B036 - unwrapped, then raised again
            inner = gate_error(exc)
            if inner is not None and inner is not exc:
                raise inner from None
            if inner is None and not opened and isinstance(exc, Exception):
                raise session.failed(_start_failure(server, exc), exc) from None
            raise


async def _open(stack: AsyncExitStack, session: Session, stderr: TextIO) -> None:
    server = session.server
    sdk_log = logging.getLogger("mcp")
    sdk_log.propagate = False  # the SDK's log lines are not the gate's output
    sdk_log.addHandler(session.complaints)
    stack.callback(sdk_log.removeHandler, session.complaints)
    try:
        session.client = await _connect(stack, server, stderr)
    except TimeoutError:
        raise session.failed(f"did not answer the MCP initialisation within {server.timeout_s:g} s") from None
    except GateError:
        raise
    except Exception as exc:  # the SDK's and the transport's errors, whatever their kind
        raise session.failed(_start_failure(server, exc), exc) from None


def _start_failure(server: ToolServer, exc: BaseException) -> str:
    exc = innermost(exc)
    if server.url and "Connect" in type(exc).__name__:
        return "could not be reached"
    if isinstance(exc, FileNotFoundError) and server.command:
        return "could not be started (no such program)"
    if isinstance(exc, OSError) and server.command:
        return "could not be started"
    return "did not complete the MCP initialisation (it stopped, or does not speak MCP)"


async def _connect(stack: AsyncExitStack, server: ToolServer, stderr: TextIO) -> Any:
    """The initialised client session; the transport and the session close with ``stack``."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    if server.command:  # in a scope of its own (gate.containment): ended, all of it, after the session
        scope = open_scope(os.environ)
        stack.push_async_callback(scope.aclose)
        cwd = server.directory or os.getcwd()
        env = scope.environment(environment_without_secrets(os.environ))
        command, args = scope.server_command(server.command, cwd, env)
        parameters = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
        read, write = await stack.enter_async_context(stdio_client(parameters, errlog=stderr))
    else:
        from mcp.client.streamable_http import streamable_http_client

        streams = await stack.enter_async_context(streamable_http_client(server.url))
        read, write = streams[0], streams[1]  # 1.x adds a third: the session id's reader
    client = await stack.enter_async_context(
        ClientSession(read, write, read_timeout_seconds=sdk_lines.timeout(server.timeout_s))
    )
    with anyio.fail_after(server.timeout_s):
        await client.initialize()
    return client
