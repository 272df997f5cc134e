"""An MCP server entry (``tools: [{mcp: ...}]``) read offline: what can never be started or reached is
refused at its ``file:line:column`` by ``validate`` (nothing is started here)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.assembly.tool_server_builder import is_loopback_url, url_problem
from gate.files.suite_loader import load_suites


def _problems(root: Path, entry: str) -> list[str]:
    (root / ".git").mkdir(exist_ok=True)
    (root / "server.py").write_text("print('hi')\n")
    (root / "s.suite.yaml").write_text(
        "version: 1\nname: s\nagent:\n  provider: openai\n  model: gpt-4o-mini\n"
        f"  tools:\n    - mcp: {entry}\ncases: [{{id: a, input: hi}}]\n"
    )
    return [p.render() for p in load_suites([root], root=root).problems]


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        (
            '{command: [python3, "a\\0b"]}',
            "s.suite.yaml:7:32: agent.tools[0].mcp.command[1]: the argument holds a NUL",
        ),
        (
            '{command: ["python3\\n", server.py]}',
            "s.suite.yaml:7:23: agent.tools[0].mcp.command[0]: the program name ",
        ),
        (
            "{command: [server.py/]}",
            's.suite.yaml:7:23: agent.tools[0].mcp.command[0]: the program "server.py/" names',
        ),
        (
            "{url: 'http://127.0.0.1:99999/mcp'}",
            "s.suite.yaml:7:18: agent.tools[0].mcp.url: the MCP server URL ",
        ),
        ("{url: 'http://localhost:0/mcp'}", "s.suite.yaml:7:18: agent.tools[0].mcp.url: the MCP server URL "),
        ("{url: 'http://[::1]:x/mcp'}", "s.suite.yaml:7:18: agent.tools[0].mcp.url: the MCP server URL "),
        (
            '{url: "http://127.0.0.1:8000/m\\0cp"}',
            "s.suite.yaml:7:18: agent.tools[0].mcp.url: the MCP server",
        ),
        (
            '{url: "http://127.0.0.1:8000/mcp\\n"}',
            "s.suite.yaml:7:18: agent.tools[0].mcp.url: the MCP server",
        ),
        ('{url: "http://localhost:8000/\\x7f"}', "s.suite.yaml:7:18: agent.tools[0].mcp.url: the MCP server"),
    ],
)
def test_a_server_that_can_never_start_or_be_reached_is_refused_at_its_item(tmp_path, entry, problem):
    found = _problems(tmp_path, entry)
    assert len(found) == 1 and found[0].startswith(problem), found


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/mcp", "https://localhost/mcp", "http://[::1]:65535/"])
def test_a_loopback_url_with_a_real_port_is_accepted(tmp_path, url):
    found = _problems(tmp_path, f"{{url: '{url}'}}")
    assert not [p for p in found if "mcp.url" in p], found


_URL_TEXT = st.text(
    st.sampled_from(
        ["a", "/", ":", "?", "#", "%", "@", "[", "]", " ", "\0", "\t", "\n", "\x7f", "\u2028", "é", "0"]
    ),
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(
    host=st.sampled_from(["127.0.0.1", "localhost", "[::1]", "127.9.9.9", "a.localhost"]),
    port=st.one_of(st.just(""), st.integers(-5, 70_000).map(lambda n: f":{n}"), _URL_TEXT.map(":{}".format)),
    rest=_URL_TEXT,
)
def test_every_url_validate_accepts_is_one_the_client_can_send_to(host, port, rest):
    """What validate accepts as a server's URL, the HTTP client the MCP SDK uses can reach: it parses
    and names a port from 1 to 65535 (a NUL or a line break in it, port 0 or 99999 are refused)."""
    url = f"http://{host}{port}/{rest}"
    if not is_loopback_url(url) or url_problem(url) is not None:
        return
    parsed = httpx.URL(url)
    assert parsed.port is None or 1 <= parsed.port <= 65535


def test_a_server_watch_glob_with_a_reversed_range_is_refused(tmp_path):
    found = _problems(tmp_path, "{command: [python3, server.py], watch: ['src/[9-0]*']}")
    assert found == [
        "s.suite.yaml:7:52: agent.tools[0].mcp.watch[0]: watch glob 'src/[9-0]*': the range [9-0] is "
        "reversed (write [0-9]) (fix: src/server/**/*.py)"
    ]
