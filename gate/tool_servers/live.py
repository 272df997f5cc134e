"""``calls: live``: the model's calls to a server's tools go to its ``tools/call``, in a session of the
trial's own, so no state leaks between trials: a server the gate starts (``command``) is started
anew for each trial, at the trial's first call to one of its tools, and ended with the trial; a
server the workflow started (``url``) gets a new session per trial (its state is its own affair).
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any

from gate import limits
from gate.suite.model import Suite, ToolServer
from gate.tool_servers.session import CallAnswer, Session, open_session
from gate.util.escape import truncate

MAX_RESULT_CHARS = 256 * 1024  # a live result's text, bounded like everything the gate keeps


class LiveTools:
    """One trial's live servers, each opened at its first call; :meth:`close` ends them all."""

    def __init__(self, suite: Suite):
        self.servers: dict[str, ToolServer] = {
            name: server
            for server in suite.agent.tool_servers
            if server.calls == "live"
            for name in server.tools
        }
        self.names = frozenset(self.servers)
        self._stack = AsyncExitStack()
        self._sessions: dict[int, Session] = {}

    async def call(self, name: str, arguments: dict[str, Any]) -> CallAnswer:
        """The server's answer to the call (a :class:`ServerFailed` when the server cannot be used)."""
        server = self.servers[name]
        session = self._sessions.get(id(server))
        if session is None:
            session = self._sessions[id(server)] = await self._stack.enter_async_context(open_session(server))
        return bounded(await session.call(name, arguments))

    async def close(self) -> None:
        await self._stack.aclose()


def bounded(answer: CallAnswer) -> CallAnswer:
    """The answer within the gate's bounds: text cut at ``MAX_RESULT_CHARS``, structured content
    nested too deeply (or too large) kept as its text only."""
    text = truncate(answer.text, MAX_RESULT_CHARS)
    value = answer.value
    if not isinstance(value, str) and (
        limits.nested_deeper_than(value) or len(json.dumps(value, default=str)) > MAX_RESULT_CHARS
    ):
        value = text
    elif isinstance(value, str):
        value = text
    return CallAnswer(text, value, answer.is_error)
