"""``tools: [{mcp: ...}]``: an MCP server entry of the agent's tools -> :class:`gate.suite.model.ToolServer`,
with the checks the schema cannot express.

A server is either started (``command``, an argv run without a shell from the repository root) or
reached (``url``, a server the workflow started). A suite may never choose where the gate sends
anything, so a URL must name a loopback address. ``watch`` globs stay inside the repository
(:func:`gate.util.globs.glob_problem`).

Pure: the tools the server lists come later, from whoever starts it
(:class:`gate.assembly.suite_builder.ReferencedFiles`).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from gate.assembly.context import BuildContext
from gate.suite.model import Command, ToolServer
from gate.util.escape import show
from gate.util.globs import glob_problem
from gate.util.json_types import PathKey

LOOPBACK_HINT = "start the server in the workflow on 127.0.0.1 (or localhost, [::1]) and give that URL"


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` (http or https) names a loopback host: localhost, 127.0.0.0/8 or ::1."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str) -> str | None:
    """Why a loopback ``url`` can never be reached (None: it can): a control character (no HTTP client
    sends one: NUL, a line break, DEL...) or a port that is not 1-65535."""
    control = next((char for char in url if ord(char) < 0x20 or ord(char) == 0x7F), None)
    if control is not None:
        return f"it holds the control character {control!r}, which no HTTP client sends"
    try:
        port = urlsplit(url).port
    except ValueError:
        return "its port is not a number from 1 to 65535"
    return "its port is not a number from 1 to 65535" if port == 0 else None


def read_server(context: BuildContext, raw: dict[str, Any], at: PathKey) -> ToolServer:
    """The server of one ``mcp`` entry (schema-valid), each problem at its line."""
    url = raw.get("url", "")
    if url and not context.damaged((*at, "url")):
        if not is_loopback_url(url):
            context.err(
                (*at, "url"),
                f"the MCP server URL {show(url, 80)} is not on loopback: a suite never chooses where the "
                "gate sends requests",
                LOOPBACK_HINT,
            )
        elif (trouble := url_problem(url)) is not None:
            context.err(
                (*at, "url"), f"the MCP server URL {show(url, 80)}: {trouble}", "http://127.0.0.1:8000/mcp"
            )
    command = tuple(raw.get("command", ()))  # checked by the rule of every command (suite_builder)
    watch = tuple(raw.get("watch", ()))
    for index, glob in enumerate(watch):
        problem = glob_problem(glob)
        if problem is not None:
            context.err((*at, "watch", index), f"watch glob {glob!r}: {problem}", "src/server/**/*.py")
    return ToolServer(
        command=command,
        url=url,
        watch=watch,
        calls=raw.get("calls", ToolServer.calls),
        timeout_s=float(raw.get("timeout_s", ToolServer.timeout_s)),
        source=context.source(at),
    )


def server_command(server: ToolServer) -> Command | None:
    """The command the suite makes the gate run for ``server`` (None for a server at a URL): what the
    trust rule and change detection read (``Suite.commands``)."""
    if not server.command:
        return None
    return Command(
        argv=server.command,
        purpose="MCP server",
        watch=server.watch,
        timeout_s=server.timeout_s,
        source=server.source,
    )
