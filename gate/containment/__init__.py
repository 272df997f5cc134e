"""What the gate starts is contained (DESIGN section 10, "Contained"): the user each command runs as
(``users``: a user of its own where the gate runs as root), how a command starts and how everything
it started ends (``scope``, with ``supervisor.py`` and ``reaper.py``, small scripts run by the gate's
interpreter), what such a user can reach (``reach``), the processes a scope holds besides its command
(``processes``), the checks before the first command and the gate process made unreadable to
commands (``preflight``, ``gate_process``)."""

__all__ = ["preflight", "scope", "users"]
