"""Whether an agent program showed its model the definitions its code holds
(gate.assembly.shown_definitions): a stale copy of an in-code tool, a change the model never saw."""

from __future__ import annotations

import json

from gate.assembly.shown_definitions import ProgramCode, not_the_code_s, unchanged_for_the_model
from gate.results.run_record import OfferedTool

AGENT = '''\
@tool
def track_shipment(order_id: str) -> str:
    """{text}

    Args:
        order_id: The order number.
    """
'''
GOOD = "Where a customer's parcel is now. Use it when the customer asks where their package is."
DEGRADED = "Shipment lookup."
EXPORT = json.dumps([{"name": "track_shipment", "description": GOOD, "parameters": {}}])
PARAMETERS = {"type": "object", "properties": {"order_id": {"type": "string"}}}


def code(text: str, *, export: str = EXPORT) -> ProgramCode:
    sources = {"agent/support.py": AGENT.replace("{text}", text), "tools/support.json": export}
    return ProgramCode(
        ("agent/support.py",), sources, frozenset({"support.suite.yaml", "tools/support.json"})
    )


def shown(text: str, parameters: dict | None = None) -> OfferedTool:
    return OfferedTool("track_shipment", text, parameters or PARAMETERS)


def test_a_definition_the_code_holds_is_no_finding_however_the_sdk_cut_it():
    assert not_the_code_s("support", [shown(GOOD)], code(GOOD)) == ()
    # An SDK that reads the docstring whole, sections and all, re-indented: the same text.
    whole = GOOD + "\n\nArgs:\n    order_id: The order number."
    assert not_the_code_s("support", [shown(whole)], code(GOOD)) == ()
    # A tool the code does not define (it comes from an MCP server) is not the code's to hold.
    other = OfferedTool("refund", "Refund an order.", {})
    assert not_the_code_s("support", [other], code(GOOD)) == ()


def test_the_suite_s_stale_copy_shown_instead_of_the_code_s_definition():
    [finding] = not_the_code_s("support", [shown(GOOD), shown(GOOD)], code(DEGRADED))
    assert (finding.code.path, finding.code.start) == ("agent/support.py", 3)
    assert (
        finding.suite_copy and finding.shown_at is not None and finding.shown_at.path == "tools/support.json"
    )
    assert finding.sentence() == (
        "suite 'support': the model was shown a description of track_shipment (\"Where a customer's parcel "
        "is now. Use it when the customer asks where their pac…\", the suite's copy at "
        "tools/support.json:1, which the mock MCP server lists) that is not the one the program's code "
        'gives it at agent/support.py:3 ("Shipment lookup. Args: order_id: The order number.")'
    )


def test_a_text_written_nowhere_or_no_text_at_all_is_a_finding_too():
    [nowhere] = not_the_code_s("support", [shown("Tracks parcels for the desk.")], code(GOOD, export="[]"))
    assert nowhere.shown_at is None and "written nowhere in the repository" in nowhere.sentence()
    [empty] = not_the_code_s("support", [shown("")], code(GOOD))
    assert "description of track_shipment (none, written nowhere" in empty.sentence()


def test_a_change_to_the_code_s_text_the_model_never_saw_on_either_side():
    # The PR appends a sentence: the old text is still inside the new docstring, so the head alone
    # looks fine; the base side shows the model saw the same definition before and after.
    longer = GOOD + " Never use it for refunds."
    assert not_the_code_s("support", [shown(GOOD)], code(longer)) == ()
    [finding] = unchanged_for_the_model("support", [shown(GOOD)], [shown(GOOD)], code(longer), code(GOOD))
    assert finding.changed and finding.sentence().startswith(
        "suite 'support': this change rewrites the description of track_shipment at agent/support.py:3, "
        "but the model was shown the same definition on both sides"
    )


def test_a_change_the_model_saw_or_a_change_of_layout_only_is_no_finding():
    longer = GOOD + " Never use it for refunds."
    assert unchanged_for_the_model("support", [shown(longer)], [shown(GOOD)], code(longer), code(GOOD)) == ()
    reflowed = GOOD.replace(". Use", ".\n    Use")
    assert unchanged_for_the_model("support", [shown(GOOD)], [shown(GOOD)], code(reflowed), code(GOOD)) == ()
    # Only the Args section changed and the SDK reads it into the parameters: they differ, so it was seen.
    args = AGENT.replace("The order number.", "The order number, e.g. A-1001.")
    new = ProgramCode(("agent/support.py",), {"agent/support.py": args.replace("{text}", GOOD)})
    assert unchanged_for_the_model("support", [shown(GOOD)], [shown(GOOD)], new, code(GOOD)) == ()
    described = {
        "type": "object",
        "properties": {"order_id": {"type": "string", "description": "e.g. A-1001"}},
    }
    assert (
        unchanged_for_the_model("support", [shown(GOOD, described)], [shown(GOOD)], code(GOOD), code(GOOD))
        == ()
    )
