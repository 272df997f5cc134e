"""The team's own agent program under test, and what the gate serves it on loopback (DESIGN section
10): one trial of a program (``trial``: its process, environment and JSON-lines protocol), the run's
loopback HTTP server and its routes (``loopback_http``, ``host``), the recording model proxy
(``model_proxy``), the suite's mocks as an MCP server (``mock_mcp_server``), and the trial's run record
built from what they saw (``record``, pure)."""

__all__ = ["host", "trial"]
