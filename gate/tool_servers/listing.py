"""Reading a server's tools for the suite loader: the :class:`gate.files.server_tools.ToolLister` that
``run`` hands to ``load_suites`` once commands are allowed."""

from __future__ import annotations

from typing import Any

from gate.errors import GateError
from gate.suite.model import ToolServer
from gate.tool_servers.session import open_session


def list_server_tools(server: ToolServer) -> list[dict[str, Any]]:
    """The tools ``server`` lists (every page), started and stopped here; a ``GateError`` naming the
    server when it cannot be used (exit 3) or lists an invalid tool (exit 2)."""
    import anyio

    return anyio.run(_listed, server)


async def _listed(server: ToolServer) -> list[dict[str, Any]]:
    import anyio

    async with open_session(server) as session:
        try:
            with anyio.fail_after(server.timeout_s):
                return await session.list_tools()
        except TimeoutError:
            raise session.failed(f"did not answer tools/list within {server.timeout_s:g} s") from None
        except GateError:
            raise
        except Exception as exc:  # the SDK's and the transport's errors, whatever their kind
            raise session.failed("failed to answer tools/list", exc) from None
