"""The messages sent to the agent for one trial of one case.

Templates (the system prompt and every message) are filled from the case's variables (the loader has
already merged the suite's ``vars`` into them). A multiple-choice case gets its options appended to
the last user message, shuffled per trial with a fixed seed so that a run is reproducible while the
position of the correct answer varies across trials.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from gate.errors import InputError
from gate.suite.model import Case, Message, Suite
from gate.suite.templating import render
from gate.util.json_types import JsonObject

CHOICE_INSTRUCTION = "Answer with the letter of the correct option only ({letters})."


@dataclass(frozen=True)
class Prepared:
    """What the agent loop sends: the rendered system prompt (None: none), the conversation as
    neutral message dicts (``gate.providers.base``), and ``extra`` facts for scoring
    (``choice_letters``)."""

    system: str | None
    messages: tuple[JsonObject, ...]
    extra: JsonObject = field(default_factory=dict)


def letter(index: int) -> str:
    """A, B, ..., Z, AA, AB, ... for 0, 1, ..."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("A") + rest) + text
    return text


def shuffled_options(suite_name: str, case_id: str, trial_index: int, options: Sequence[str]) -> list[str]:
    """The options in the order shown in trial ``trial_index`` (deterministic)."""
    order = list(options)
    random.Random(f"{suite_name}/{case_id}/{trial_index}").shuffle(order)
    return order


def choice_letters(suite: Suite, case: Case, trial_index: int) -> dict[str, str]:
    """Letter -> option text as shown in this trial; empty when the case has no choice check."""
    choice = case.expect.output.choice
    if choice is None:
        return {}
    order = shuffled_options(suite.name, case.id, trial_index, choice.options)
    return {letter(i): text for i, text in enumerate(order)}


def _render(template: str, case: Case, what: str) -> str:
    try:
        return render(template, case.vars)
    except KeyError as exc:
        raise InputError(
            f"case {case.id!r}: {what} uses the variable {exc.args[0]!r}, which has no value"
        ) from None


def _neutral(message: Message, content: str) -> JsonObject:
    """A conversation message as the providers take it (``gate.providers.base``): earlier calls as an
    assistant message's ``tool_calls``, their results as tool messages."""
    if message.role == "tool":
        return {
            "role": "tool",
            "call_id": message.call_id,
            "name": message.name,
            "content": content,
            "is_error": message.is_error,
        }
    if message.tool_calls:
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
        return {"role": message.role, "content": content, "tool_calls": calls}
    return {"role": message.role, "content": content}


def build(suite: Suite, case: Case, trial_index: int) -> Prepared:
    """The system prompt and messages of trial ``trial_index`` of ``case``."""
    prompt = suite.agent.system_prompt
    system = _render(prompt.template, case, "the system prompt") if prompt is not None else None
    messages = [
        _neutral(m, _render(m.content, case, f"message {i + 1}")) for i, m in enumerate(case.conversation)
    ]
    extra: JsonObject = {}
    letters = choice_letters(suite, case, trial_index)
    if letters:
        names = list(letters)
        listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
        block = "\n".join(f"{key}) {text}" for key, text in letters.items())
        addition = f"\n\nOptions:\n{block}\n\n" + CHOICE_INSTRUCTION.format(letters=listed)
        for message in reversed(messages):
            if message["role"] == "user":
                message["content"] = message["content"] + addition
                break
        else:
            messages.append({"role": "user", "content": addition.strip()})
        extra["choice_letters"] = letters
    return Prepared(system=system, messages=tuple(messages), extra=extra)
