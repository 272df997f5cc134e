"""A server the workflow started, reached at its loopback URL over Streamable HTTP: the example's MCP
server (the official SDK's MCPServer) listed and called, a new session per trial."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from gate.errors import GateError
from gate.suite.model import Source, ToolServer
from gate.tool_servers.listing import list_server_tools
from gate.tool_servers.live import LiveTools
from tests.builders import suite
from tests.conftest import ROOT

ENTRY = Source("suites/weather.suite.yaml", 8, 9)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    port = _free_port()
    server = ROOT / "examples" / "mcp_weather" / "server.py"
    process = subprocess.Popen(
        [sys.executable, str(server), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_tools_of_a_server_at_a_url_are_listed(url):
    tools = list_server_tools(ToolServer(url=url, source=ENTRY))
    assert [t["name"] for t in tools] == ["get_weather", "get_forecast"]
    assert tools[1]["inputSchema"]["properties"]["days"]["maximum"] == 7


def test_live_calls_reach_a_server_at_a_url(url):
    listed = ToolServer(url=url, source=ENTRY, calls="live", tools=("get_weather", "get_forecast"))
    base = suite()
    weather = dataclasses.replace(base, agent=dataclasses.replace(base.agent, tool_servers=(listed,)))

    async def call() -> object:
        live = LiveTools(weather)
        try:
            return (await live.call("get_weather", {"city": "Munich"})).value
        finally:
            await live.close()

    assert asyncio.run(call()) == {"city": "Munich", "temp": 9, "units": "metric", "sky": "rain"}


def test_nothing_listening_at_the_url_is_a_failure_naming_it():
    gone = ToolServer(url=f"http://127.0.0.1:{_free_port()}/mcp", source=ENTRY, timeout_s=5)
    with pytest.raises(GateError, match=r"the MCP server http://127\.0\.0\.1:\d+/mcp \(suites/weather"):
        list_server_tools(gone)
