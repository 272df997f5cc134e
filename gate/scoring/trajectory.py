"""``expect.trajectory``: the judge reads the user's goal, the tools the agent had (names and
descriptions) and every call with its result, and answers whether the agent reached the goal by
reasonable steps that meet the case's criteria (e.g. a policy the prompt states).

Pure: this module writes the text the judge reads; ``gate.suite.judging`` makes the request of it, builds
the prompt and parses the verdict, as for every other judged check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.results.messages import AssistantMessage, ToolResult, UserMessage
from gate.util.escape import as_text

if TYPE_CHECKING:
    from gate.results.run_record import RecordedCall, RunRecord
    from gate.suite.model import Suite


def goal_text(record: RunRecord, goal: str = "") -> str:
    """The user's goal: the simulated user's goal when there is one, else the user's messages in order."""
    if goal:
        return goal
    said = [m.content for m in record.messages if isinstance(m, UserMessage)]
    return "\n".join(said) or record.input


def trajectory_text(suite: Suite, record: RunRecord) -> str:
    """The tools, then every turn of the episode in order: user messages, calls with results, answers."""
    tools = "\n".join(f"- {t.name}: {t.description}" for t in suite.agent.tools) or "(none)"
    results = {c.id: c for c in record.calls}
    steps: list[str] = []
    for message in record.messages:
        if isinstance(message, UserMessage):
            steps.append(f"USER: {message.content}")
        elif isinstance(message, ToolResult) and message.given:
            outcome = "ERROR" if message.is_error else "RESULT"
            steps.append(f"{outcome} of {message.name}: {message.text}")
        elif isinstance(message, AssistantMessage):
            if message.content:
                steps.append(f"ASSISTANT: {message.content}")
            steps.extend(_call_steps(message, results))
    return f"Available tools:\n{tools}\n\nThe episode, in order:\n" + "\n".join(steps)


def _call_steps(message: AssistantMessage, results: dict[str, RecordedCall]) -> list[str]:
    """The calls of an assistant turn: given ones as written, the trial's own with their results."""
    if message.given:  # calls the case's conversation gave
        return [f"CALL {c.name}({c.arguments}) (before this episode)" for c in message.tool_calls]
    steps = []
    for own in message.tool_calls:
        call = results.get(own.id)
        if call is None:
            continue
        arguments = call.raw_arguments if call.arguments is None else as_text(call.arguments)
        outcome = "ERROR" if call.is_error else "RESULT"
        steps.append(f"CALL {call.name}({arguments}) -> {outcome}: {as_text(call.result)}")
    return steps
