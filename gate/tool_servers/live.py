"""``calls: live``: the model's calls to a server's tools go to its ``tools/call``, in a session of the
trial's own, so no state leaks between trials: a server the gate starts (``command``) is started
anew for each trial, at the trial's first call to one of its tools, and ended with the trial; a
server the workflow started (``url``) gets a new session per trial (its state is its own affair).

Each session lives in a task of its own, from its opening to :meth:`LiveTools.close`: the SDK's task
groups must be left by the task that entered them, and the calls can come from any task (an agent
program's calls arrive on the connections of the mock MCP server, while the trial's own task ends the
servers).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from gate import limits
from gate.suite.model import Suite, ToolServer
from gate.tool_servers.session import CallAnswer, ServerFailed, Session, open_session
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
        self._sessions: dict[int, asyncio.Future[Session]] = {}
        self._owners: dict[int, asyncio.Task[None]] = {}
        self._closing = asyncio.Event()

    async def call(self, name: str, arguments: dict[str, Any]) -> CallAnswer:
        """The server's answer to the call (a :class:`ServerFailed` when the server cannot be used)."""
        server = self.servers[name]
        if self._closing.is_set():  # a call that comes as the trial ends: its servers are ending
            raise ServerFailed(f"the MCP server {server.label} was called after its trial had ended")
        opened = self._sessions.get(id(server))
        if opened is None:  # the first call to this server's tools: one opening, whoever asks next
            opened = self._sessions[id(server)] = asyncio.get_running_loop().create_future()
            self._owners[id(server)] = asyncio.ensure_future(self._own(server, opened))
        session = await asyncio.shield(opened)
        return bounded(await session.call(name, arguments))

    async def _own(self, server: ToolServer, opened: asyncio.Future[Session]) -> None:
        """Open the session with ``server`` and keep it open until :meth:`close`."""
        try:
            async with open_session(server) as session:
                opened.set_result(session)
                await self._closing.wait()
        except asyncio.CancelledError:  # the trial ended (or the run is interrupted) while it started
            if not opened.done():
                opened.set_exception(ServerFailed(f"the MCP server {server.label} was still starting"))
            raise
        except Exception as exc:  # noqa: BLE001 - a failed opening is the callers'; a failed closing is no one's
            if not opened.done():
                opened.set_exception(exc)

    async def close(self) -> None:
        """End every server the trial started (their sessions close in their own tasks); one still
        starting is stopped at once rather than waited for (no call of the trial needs it any more)."""
        self._closing.set()
        for key, owner in self._owners.items():
            if not self._sessions[key].done():
                owner.cancel()
        try:
            await asyncio.gather(*self._owners.values(), return_exceptions=True)
        except asyncio.CancelledError:  # the run is being interrupted: end them without waiting
            for owner in self._owners.values():
                owner.cancel()
            raise


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
