"""An agent program's offered definitions read against its source (gate.run.program_tools), on a
repository on disk: the tools its results carry, and why its run is not verified."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gate.results.outcomes import CaseResult
from gate.results.run_record import OfferedTool
from gate.run.program_tools import not_shown_reason, shown_tools
from gate.suite.model import Command, Source, Suite, ToolDef
from tests.builders import suite
from tests.results_factory import case, record, run
from tests.results_factory import suite as suite_result

GOOD = "Where a customer's parcel is now. Use it when they ask where their package is."
SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string"}}}
AGENT = '''\
def track_shipment(order_id):
    """DOC"""


def refund(order_id):
    """Refund an order in full."""
'''


def program_suite(root: Path, doc: str) -> Suite:
    (root / "agent").mkdir(parents=True, exist_ok=True)
    (root / "agent" / "desk.py").write_text(AGENT.replace("DOC", doc))
    (root / "tools.json").write_text(f'[{{"name": "track_shipment", "description": "{GOOD}"}}]\n')
    declared = (
        ToolDef("track_shipment", GOOD, SCHEMA, Source("tools.json", 1, 1), description_line=1),
        ToolDef("cancel_order", "Cancel an order.", SCHEMA, Source("tools.json", 1, 1)),
    )
    base = suite(tools=declared)
    command = Command(
        ("python3", "agent/desk.py"), "agent program", watch=("agent/**",), source=Source(base.path, 4, 12)
    )
    agent = dataclasses.replace(base.agent, provider="", model="", program=command)
    return dataclasses.replace(base, agent=agent)


def trial_offering(*tools: OfferedTool) -> CaseResult:
    return case("c", rec=dataclasses.replace(record("q"), offered=(tuple(tools),)))


def test_the_results_carry_what_the_requests_offered_placed_in_the_program_s_source(tmp_path: Path) -> None:
    program = program_suite(tmp_path, "Shipment lookup.")
    offered = [
        trial_offering(
            OfferedTool("track_shipment", "Shipment lookup.", SCHEMA), OfferedTool("refund", "", {})
        ),
        trial_offering(OfferedTool("track_shipment", "Another text, later.", SCHEMA)),
    ]
    tools = {t.name: t for t in shown_tools(program, offered, tmp_path)}
    assert list(tools) == ["track_shipment", "refund", "cancel_order"]
    # The first definition offered, at the docstring that holds it (not the suite's copy).
    assert (tools["track_shipment"].description, tools["track_shipment"].source.path) == (
        "Shipment lookup.",
        "agent/desk.py",
    )
    assert tools["track_shipment"].description_line == 2
    assert (tools["refund"].source.path, tools["refund"].source.line) == ("agent/desk.py", 5)  # by its name
    assert tools["cancel_order"] is program.tool("cancel_order")  # never offered: the suite's own


def test_the_suite_s_own_definition_keeps_its_place_unless_the_program_s_code_holds_the_text(
    tmp_path: Path,
) -> None:
    program = program_suite(tmp_path, "Something else entirely, for the code.")
    [served] = [
        t
        for t in shown_tools(program, [trial_offering(OfferedTool("track_shipment", GOOD, SCHEMA))], tmp_path)
        if t.name == "track_shipment"
    ]
    assert served is program.tool("track_shipment")
    program = program_suite(tmp_path, GOOD)
    [own] = [
        t
        for t in shown_tools(program, [trial_offering(OfferedTool("track_shipment", GOOD, SCHEMA))], tmp_path)
        if t.name == "track_shipment"
    ]
    assert (own.source.path, own.description_line) == ("agent/desk.py", 2)


def test_a_run_is_not_verified_when_the_model_was_shown_the_suite_s_copy_of_an_in_code_tool(
    tmp_path: Path,
) -> None:
    program = program_suite(tmp_path, "Shipment lookup.")
    head = run(
        suite_result(
            program.name, [trial_offering(OfferedTool("track_shipment", GOOD, SCHEMA))], path=program.path
        )
    )
    why = not_shown_reason(head, [program], tmp_path)
    assert why.startswith(
        "not verified: suite 'weather': the model was shown a description of track_shipment"
    )
    assert "the suite's copy at tools.json:1, which the mock MCP server lists" in why
    assert 'the program\'s code gives it at agent/desk.py:2 ("Shipment lookup.")' in why
    # The base side: the same program at the merge base held the suite's text; the model saw the same.
    base_root = tmp_path / "base"
    base = program_suite(base_root, GOOD)
    assert not_shown_reason(head, [program], tmp_path, head, [base], base_root).count("track_shipment") == 1
    shown_code_s = run(
        suite_result(
            program.name,
            [trial_offering(OfferedTool("track_shipment", "Shipment lookup.", SCHEMA))],
            path=program.path,
        )
    )
    assert not_shown_reason(shown_code_s, [program], tmp_path) == ""
