"""Where a program's own code defines a tool (gate.assembly.code_definitions): the forms the frameworks
write, in Python (read with ast) and in other languages, and what is not a definition."""

from __future__ import annotations

from gate.assembly.code_definitions import code_definitions

PYTHON = '''\
from langchain_core.tools import tool


@tool
def track_shipment(order_id: str) -> str:
    """Where a customer's parcel is now.

    Use it when the customer asks where their package is.

    Args:
        order_id: The order number, e.g. A-1001.
    """
    return lookup(order_id)


TOOLS = [
    {"type": "function", "function": {"name": "refund", "description": "Refund an order " "in full."}},
]
server.tool("lookup", "Look an order up.")
StructuredTool.from_function(func=cancel, name="cancel", description="Cancel " + "an order.")
log("track_shipment", "called")   # names it, defines nothing
ALLOWED = ["track_shipment", "refund"]


@function_tool(name_override="hold")
def _hold(order_id: str) -> str:
    "Hold an order before it ships."


def helper(order_id):
    return order_id


def built_at_run_time():
    return {"name": "dynamic", "description": f"Made {NOW}."}
'''

SCRIPT = """\
const tools = [
  {
    type: "function",
    function: {
      name: "track_shipment",
      description: "Where a " +
        "parcel is now.\\nUse it when asked.",
      parameters: { type: "object" },
    },
  },
];
server.tool("lookup", 'Look an order up, it\\'s quick.', {}, async () => {});
server.registerTool("cancel", { title: "Cancel", description: `Cancel an order.` }, handler);
const later = { name: "dynamic", description: `Made ${now}.` };
console.log("track_shipment", "called");
"""


def definitions(name: str) -> list[tuple[str, int, str, int, int]]:
    found = code_definitions(name, {"agent.py": PYTHON, "agent.mjs": SCRIPT}, ["agent.py", "agent.mjs"])
    return [(d.path, d.line, d.text, d.start, d.end) for d in found]


def test_a_python_function_tool_is_its_docstring_as_the_sdks_read_it():
    [python, script] = definitions("track_shipment")
    assert python == (
        "agent.py",
        5,
        "Where a customer's parcel is now.\n\nUse it when the customer asks where their package is.\n\n"
        "Args:\n    order_id: The order number, e.g. A-1001.",
        6,
        12,
    )
    assert script == ("agent.mjs", 5, "Where a parcel is now.\nUse it when asked.", 6, 7)


def test_the_main_text_leaves_out_the_sections_sdks_read_as_parameters():
    [python, _] = code_definitions("track_shipment", {"a.py": PYTHON, "b.mjs": SCRIPT}, ["a.py", "b.mjs"])
    assert (
        python.main_text
        == "Where a customer's parcel is now.\n\nUse it when the customer asks where their package is."
    )


def test_dicts_calls_and_decorators_that_name_a_tool_with_a_description():
    assert definitions("refund") == [("agent.py", 17, "Refund an order in full.", 17, 17)]
    assert definitions("lookup") == [
        ("agent.py", 19, "Look an order up.", 19, 19),
        ("agent.mjs", 12, "Look an order up, it's quick.", 12, 12),
    ]
    assert definitions("cancel") == [
        ("agent.py", 20, "Cancel an order.", 20, 20),
        ("agent.mjs", 13, "Cancel an order.", 13, 13),
    ]
    assert definitions("hold") == [("agent.py", 26, "Hold an order before it ships.", 27, 27)]


def test_what_only_names_a_tool_or_builds_its_text_at_run_time_is_no_definition():
    assert definitions("helper") == []  # a function without a docstring
    assert definitions("dynamic") == []  # an f-string, a template with ${...}
    assert definitions("log") == []
    assert code_definitions("track_shipment", {"a.py": "def track_shipment(:"}, ["a.py"]) == ()  # no syntax
    assert code_definitions("x", {"a.py": PYTHON}, ["b.py"]) == ()  # not among the files


def test_a_description_kept_in_a_name_bound_once_is_read_where_the_string_is_written():
    python = """\
TRACK_DOC = (
    "Where a parcel is now."
)


@tool("track_shipment", description=TRACK_DOC)
def track(order_id: str) -> str:
    return lookup(order_id)


REFUND = {"name": "refund", "description": CHANGING}
CHANGING = "one"
CHANGING = "two"
"""
    script = """\
const TRACK_DOC = "Where a parcel is now.";
server.tool("track_shipment", TRACK_DOC, {}, handler);
const tools = [{ name: "refund", description: maybe }];
let maybe = "one";
maybe = "two";
"""
    sources = {"a.py": python, "b.ts": script}
    found = [
        (d.path, d.line, d.text, d.start, d.end)
        for d in code_definitions("track_shipment", sources, ["a.py", "b.ts"])
    ]
    assert found == [
        ("a.py", 6, "Where a parcel is now.", 2, 2),
        ("b.ts", 2, "Where a parcel is now.", 1, 1),
    ]
    # A name bound twice (Python), or by let (JS: it may change), is not known without running the code.
    assert code_definitions("refund", sources, ["a.py", "b.ts"]) == ()
