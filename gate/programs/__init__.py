"""The team's own agent program under test, and what the gate serves it on loopback (DESIGN section
10): one trial of a program (``trial``: its JSON-lines protocol and record), the program's process
(``process``: its start, environment, answers and end), the long-lived processes of ``reuse: true``
(``pool``), the run's loopback HTTP server and its routes (``loopback_http``, ``host``), the
recording model proxy (``model_proxy``), the suite's mocks as an MCP server (``mock_mcp_server``), and
the trial's run record built from what they saw (``record``, pure)."""

__all__ = ["host", "pool", "trial"]
