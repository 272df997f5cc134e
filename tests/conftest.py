"""Shared fixtures. ``model_server`` starts scripted OpenAI/Anthropic-compatible servers on loopback:

def test_x(model_server):
    server = model_server({"rules": [...]}, latency=0.0)
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # makes ``tests.support`` importable however pytest is started
    sys.path.insert(0, str(ROOT))

from tests.support.model_server import ScriptedModelServer  # noqa: E402

# The programs the tests' suites start (``python3``, ``pre-commit``) are what PATH finds, as in the
# product: the interpreter running the tests goes first, so they run with the packages it has whether
# or not its environment was activated (``.venv/bin/python -m pytest`` as well as ``pytest``).
_INTERPRETER_DIR = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _INTERPRETER_DIR:
    os.environ["PATH"] = _INTERPRETER_DIR + os.pathsep + os.environ.get("PATH", "")

SCRIPTS = ROOT / "tests" / "support" / "scripts"


@pytest.fixture(autouse=True)
def _outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts outside CI and outside any GitHub Actions event, wherever the suite runs (CI=true
    changes what the response cache trusts; the event, whose commits a run holds): a test about CI or
    an event sets the variables itself."""
    from gate.trust.facts import CI_VARIABLES

    for name in (
        *CI_VARIABLES,
        "GITHUB_EVENT_NAME",
        "GITHUB_EVENT_PATH",
        "GITHUB_ACTOR",
        "GITHUB_REPOSITORY",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _commands_as_the_gate_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' suites start their programs with the interpreter running the tests, which a user of
    its own cannot always reach (under a home only root may enter): where the tests run as root,
    commands run as the gate's own user (``TOOL_EVAL_GATE_COMMAND_USER=gate``, what a CLI not run as
    root gets), under the supervisor. ``tests/end_to_end/test_contained.py`` runs both ways."""
    from gate.containment.users import COMMAND_USER_VARIABLE

    monkeypatch.setenv(COMMAND_USER_VARIABLE, "gate")


@pytest.fixture
def model_server() -> Iterator[Callable[..., ScriptedModelServer]]:
    """A factory: ``model_server(script, latency=0.0, faults=())`` returns a started server; every
    server it made is stopped when the test ends. ``script`` may be a dict, a Script, rules, or the
    name of a file in ``tests/support/scripts`` (e.g. ``"weather.yaml"``)."""
    started: list[ScriptedModelServer] = []

    def make(
        script: Any = None, latency: float = 0.0, faults: Any = (), **kwargs: Any
    ) -> ScriptedModelServer:
        if isinstance(script, str) and not Path(script).is_absolute() and (SCRIPTS / script).exists():
            script = str(SCRIPTS / script)
        server = ScriptedModelServer(script, latency, faults, **kwargs)
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the retry loop (6 attempts, real timeouts) but shorten its back-off between attempts."""
    import dataclasses

    import gate.commands.run_prepare
    import gate.providers.concurrency

    policy = gate.providers.concurrency.RetryPolicy

    def quick(**kwargs: Any) -> Any:
        return dataclasses.replace(policy(**kwargs), base_delay=0.01, max_delay=0.05)

    monkeypatch.setattr(gate.providers.concurrency, "RetryPolicy", quick)
    # run's preparation names it at its import: patched where the run's options are made too
    monkeypatch.setattr(gate.commands.run_prepare, "RetryPolicy", quick)
