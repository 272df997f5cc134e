"""The messages sent to the agent for one trial of one case.

Templates (the system prompt and every message) are filled from the case's variables (the loader has
already merged the suite's ``vars`` into them). A multiple-choice case gets its options appended to
the last user message, shuffled per trial with a fixed seed so that a run is reproducible while the
position of the correct answer varies across trials.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from gate.errors import InputError
from gate.results.messages import AssistantMessage, Message, ToolResult, UserMessage
from gate.suite.model import Case, Suite
from gate.suite.templating import render
from gate.util.json_types import JsonObject

CHOICE_INSTRUCTION = "Answer with the letter of the correct option only ({letters})."


@dataclass(frozen=True)
class Prepared:
    """What a trial starts from: the rendered system prompt (None: none), the case's conversation (its
    earlier assistant turns and tool results marked ``given``), and ``extra`` facts for scoring
    (``choice_letters``)."""

    system: str | None
    messages: tuple[Message, ...]
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


def _given(message: Message, content: str) -> Message:
    """A conversation message with its text rendered; the assistant's earlier turns and the results of
    their calls are history given to the trial (``given``), not its own doing."""
    if isinstance(message, (AssistantMessage, ToolResult)):
        return replace(message, content=content, given=True)
    return replace(message, content=content)


def build(suite: Suite, case: Case, trial_index: int) -> Prepared:
    """The system prompt and messages of trial ``trial_index`` of ``case``."""
    prompt = suite.agent.system_prompt
    system = _render(prompt.template, case, "the system prompt") if prompt is not None else None
    messages = [
        _given(m, _render(m.content, case, f"message {i + 1}")) for i, m in enumerate(case.conversation)
    ]
    extra: JsonObject = {}
    letters = choice_letters(suite, case, trial_index)
    if letters:
        names = list(letters)
        listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
        block = "\n".join(f"{key}) {text}" for key, text in letters.items())
        addition = f"\n\nOptions:\n{block}\n\n" + CHOICE_INSTRUCTION.format(letters=listed)
        last = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=None)
        if last is None:
            messages.append(UserMessage(addition.strip()))
        else:
            messages[last] = UserMessage(messages[last].content + addition)
        extra["choice_letters"] = letters
    return Prepared(system=system, messages=tuple(messages), extra=extra)
