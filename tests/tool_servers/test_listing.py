"""Reading an MCP server's tools: every page, and every way a server can fail to give them, each an
error naming the server and what it said (its standard error's tail, secrets masked)."""

from __future__ import annotations

import sys

import pytest

from gate.errors import EXIT_INCOMPLETE, GateError
from gate.suite.model import Source, ToolServer
from gate.tool_servers.listing import list_server_tools
from tests.conftest import ROOT

SERVER = str(ROOT / "tests" / "support" / "mcp_stdio_server.py")
ENTRY = Source("suites/shop.suite.yaml", 7, 9)


def server(*flags: str, timeout: float = 10.0) -> ToolServer:
    return ToolServer(command=(sys.executable, SERVER, *flags), source=ENTRY, timeout_s=timeout)


def failure(srv: ToolServer) -> GateError:
    with pytest.raises(GateError) as caught:
        list_server_tools(srv)
    assert caught.value.exit_code == EXIT_INCOMPLETE
    assert "suites/shop.suite.yaml:7" in str(caught.value)
    return caught.value


def test_the_tools_come_back_as_the_server_sent_them():
    tools = list_server_tools(server())
    assert [t["name"] for t in tools] == ["get_weather", "add_item", "fail"]
    assert tools[0]["inputSchema"]["required"] == ["city"]
    assert tools[0]["description"].startswith("Current weather for a city.")


def test_every_page_is_read():
    tools = list_server_tools(server("--page-size", "4"))
    assert len(tools) == 28 and tools[-1]["name"] == "tool_24"


def test_a_cursor_that_comes_back_is_refused_instead_of_looping():
    assert "repeats the tools/list cursor 'again'" in str(
        failure(server("--page-size", "4", "--loop-cursor"))
    )


def test_a_program_that_does_not_exist_says_so():
    missing = ToolServer(command=("no-such-mcp-server-program",), source=ENTRY)
    text = str(failure(missing))
    assert "no-such-mcp-server-program" in text and "could not be started (no such program)" in text


def test_a_server_that_crashes_shows_its_stderr_tail_with_secrets_masked(monkeypatch):
    monkeypatch.setenv("SERVER_API_KEY", "db-key-0123456789abcdef")
    text = str(failure(server("--crash", "--leak", "db-key-0123456789abcdef")))
    assert "did not complete the MCP initialisation" in text
    assert "RuntimeError: cannot reach the database with key ***" in text
    assert "db-key-0123456789abcdef" not in text


def test_a_server_that_speaks_no_mcp_is_stopped_at_its_timeout(capfd):
    text = str(failure(server("--garbage", timeout=1.5)))
    assert "did not answer the MCP initialisation within 1.5 s" in text
    assert "Failed to parse JSONRPC message" in text  # what the client made of its output
    assert "Traceback" not in capfd.readouterr().err  # the SDK's log lines are not the gate's output


def test_a_server_that_never_answers_is_stopped_at_its_timeout():
    assert "within 1 s" in str(failure(server("--hang", timeout=1.0)))
