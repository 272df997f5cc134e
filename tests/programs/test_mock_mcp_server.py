"""The suite's mocks as one trial's MCP server: the official MCP SDK's client lists and calls its tools
(stateful, as the model agent's mocks are); JSON and SSE replies; ended trials refuse."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from gate.episode.episode import Episode
from gate.programs.host import ProgramHost, TrialRoute
from gate.programs.mock_mcp_server import MockMcpSession
from gate.programs.model_proxy import TrialProxy
from gate.suite.mocks import MockSession
from gate.suite.model import MockRule, Mocks, Source
from gate.util.redact import Redactor
from tests.builders import case as make_case
from tests.builders import suite as make_suite
from tests.builders import tool

BOOK = tool("book_table", {"guests": {"type": "integer"}}, ("guests",), description="Book a table.")
LIST = tool("list_bookings", description="List the bookings.")
MOCKS = Mocks(
    tools={
        "book_table": (
            MockRule(
                when=None,
                append=(("bookings", {"guests": "{{ args.guests }}"}),),
                returns={"booked": "{{ args.guests }}"},
                source=Source("s.yaml", 9),
            ),
        ),
        "list_bookings": (MockRule(when=None, returns="{{ state.bookings }}"),),
    }
)


async def _no_model(request: Any) -> Any:
    raise AssertionError("no model request expected")


def serve(test: Callable[[TrialRoute, MockMcpSession, ProgramHost], Awaitable[None]]) -> MockMcpSession:
    async def main() -> MockMcpSession:
        host = ProgramHost(Redactor(()))
        mcp = MockMcpSession(
            (BOOK, LIST), MockSession(MOCKS, ("book_table", "list_bookings"), {"bookings": []}), stateful=True
        )
        episode = Episode(make_suite(), make_case("c1", "hi"), 0, _no_model)
        route = await host.open_trial(TrialProxy("tok", _no_model, episode, host.redactor), mcp)
        try:
            await test(route, mcp, host)
        finally:
            await host.close()
        return mcp

    return asyncio.run(main())


@asynccontextmanager
async def official_client(url: str) -> AsyncIterator[ClientSession]:
    """The official SDK's client session over Streamable HTTP, as its 1.x and 2.x lines both open one."""
    async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


def _wire(answer: Any) -> Any:
    return answer.model_dump(by_alias=True, exclude_none=True, mode="json")


def test_the_official_client_lists_the_suite_tools_and_calls_the_stateful_mocks() -> None:
    async def test(route: TrialRoute, mcp: MockMcpSession, host: ProgramHost) -> None:
        async with official_client(route.mcp_url) as client:
            listed = _wire(await client.list_tools())["tools"]
            assert [(t["name"], t["description"], t["inputSchema"]) for t in listed] == [
                ("book_table", "Book a table.", BOOK.parameters),
                ("list_bookings", "List the bookings.", LIST.parameters),
            ]
            booked = _wire(await client.call_tool("book_table", {"guests": 4}))
            assert not booked.get("isError") and json.loads(booked["content"][0]["text"]) == {"booked": 4}
            listing = _wire(await client.call_tool("list_bookings", {}))
            assert json.loads(listing["content"][0]["text"]) == [{"guests": 4}]

    mcp = serve(test)
    assert [(c.name, c.arguments, c.outcome.kind) for c in mcp.calls] == [
        ("book_table", {"guests": 4}, "fallback"),
        ("list_bookings", {}, "fallback"),
    ]
    assert mcp.calls[0].state == {"bookings": [{"guests": 4}]}  # the state after each call is kept
    assert mcp.mocks.state == {"bookings": [{"guests": 4}]}


async def _post(url: str, body: Any, accept: str, session: str | None = None) -> httpx2.Response:
    headers = {"content-type": "application/json", "accept": accept}
    if session:
        headers["mcp-session-id"] = session
    async with httpx2.AsyncClient() as http:
        return await http.post(url, content=json.dumps(body), headers=headers)


def test_json_or_server_sent_events_as_the_client_accepts_and_notifications_get_202() -> None:
    async def test(route: TrialRoute, mcp: MockMcpSession, host: ProgramHost) -> None:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-03-26"},
        }
        answer = await _post(route.mcp_url, init, "application/json")
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["result"]["protocolVersion"] == "2025-03-26"  # the client's version, known
        session = answer.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await _post(route.mcp_url, note, "application/json", session)).status_code == 202
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "book_table", "arguments": {"guests": 2}},
        }
        streamed = await _post(route.mcp_url, call, "text/event-stream", session)
        assert streamed.headers["content-type"] == "text/event-stream"
        data = [line[5:] for line in streamed.text.splitlines() if line.startswith("data:")]
        assert json.loads(data[0])["result"]["content"][0]["text"] == '{"booked": 2}'
        other = await _post(route.mcp_url, call, "application/json", "not-the-session")
        assert other.status_code == 404
        unknown = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope"}}
        assert (await _post(route.mcp_url, unknown, "application/json", session)).json()["error"][
            "code"
        ] == -32602
        discover = {"jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {}}
        assert (await _post(route.mcp_url, discover, "application/json")).json()["error"]["code"] == -32601

    serve(test)


def test_an_ended_trial_refuses_its_mcp_server_and_model_routes() -> None:
    async def test(route: TrialRoute, mcp: MockMcpSession, host: ProgramHost) -> None:
        host.close_trial(route)
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert (await _post(route.mcp_url, ping, "application/json")).status_code == 403
        async with httpx2.AsyncClient() as http:
            answer = await http.post(route.openai_base_url + "/chat/completions", json={"model": "m"})
        assert answer.status_code == 403 and "no live trial" in answer.text

    serve(test)


def test_the_idle_event_stream_ends_with_the_trial() -> None:
    async def test(route: TrialRoute, mcp: MockMcpSession, host: ProgramHost) -> None:
        async with httpx2.AsyncClient() as http:
            async with http.stream("GET", route.mcp_url, headers={"accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200
                host.close_trial(route)
                body = b"".join([chunk async for chunk in stream.aiter_bytes()])
        assert body == b""

    serve(test)


def test_a_body_denser_or_deeper_than_any_mcp_message_is_refused_before_it_is_read() -> None:
    async def test(route: TrialRoute, mcp: MockMcpSession, host: ProgramHost) -> None:
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book_table"}}
        dense = {**call, "params": {"name": "book_table", "arguments": {"guests": 2, "x": [{}] * 120_000}}}
        answer = await _post(route.mcp_url, dense, "application/json")
        assert answer.status_code == 413 and "120,004 objects and lists" in answer.json()["error"]["message"]
        deep: Any = 1
        for _ in range(300):
            deep = [deep]
        answer = await _post(
            route.mcp_url,
            {**call, "params": {"name": "book_table", "arguments": {"x": deep}}},
            "application/json",
        )
        assert answer.status_code == 413 and "nested deeper than 128" in answer.json()["error"]["message"]

    assert serve(test).calls == []
