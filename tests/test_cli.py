"""The command dispatcher: usage, unknown commands, and interrupts map onto the exit-code contract."""

from __future__ import annotations

import sys
import types

from gate import cli


def test_no_command_is_a_usage_error(capsys):
    assert cli.main([]) == 2
    assert "usage: tool-eval-gate" in capsys.readouterr().out


def test_unknown_command_is_a_usage_error(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_version_and_help_exit_0(capsys):
    assert cli.main(["--version"]) == 0
    assert cli.main(["--help"]) == 0


def test_an_interrupt_outside_a_command_s_own_handling_is_exit_3(monkeypatch, capsys):
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "gate.commands.validate", types.SimpleNamespace(main=interrupted))
    assert cli.main(["validate"]) == 3
    assert "interrupted" in capsys.readouterr().err
