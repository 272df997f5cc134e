"""The simulated user: a model plays the user from the case's goal and persona, turn after turn,
until the agent has finished (the simulator answers ``###STOP###``) or the user turn limit is reached.

Its requests are ordinary ``ModelRequest``s sent through the same call path as the agent's (cache,
concurrency, retries), with the suite's ``user_simulator`` settings made as the judge's are
(``gate.suite.model_family.judge_params``: temperature 0 where the model family takes one), so an episode
replays from the cache with no request. The simulator sees the conversation with the roles swapped
(the agent's answers are its "user" messages); tool traffic is not shown to it, as a real user does
not see it. Pure: building the request and reading the answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.providers.base import ModelRequest
from gate.results.messages import AssistantMessage, Message, UserMessage
from gate.suite.model import Judge, SimulatedUser
from gate.suite.model_family import judge_params

STOP = "###STOP###"

_SYSTEM = """You are playing a user who talks to a customer-service assistant. Stay in character.

Your goal: {goal}
{persona}
Rules:
- Write only the user's next message: short, natural, one message at a time.
- Reveal what the assistant needs only when it asks for it; never invent details your goal does not give.
- When your goal is met, or it clearly cannot be met, or the assistant has finished, answer exactly {stop}
  (alone, nothing else)."""


def simulator_request(simulator: Judge, user: SimulatedUser, transcript: Sequence[Message]) -> ModelRequest:
    """The request for the user's next message after ``transcript`` (the record's messages so far)."""
    persona = f"Your persona: {user.persona}\n" if user.persona else ""
    system = _SYSTEM.format(goal=user.goal, persona=persona, stop=STOP)
    messages: list[Message] = [UserMessage("(The conversation begins. Write your first message.)")]
    for message in transcript:
        if not isinstance(message, (UserMessage, AssistantMessage)) or not message.content:
            continue
        # The roles swapped: the user's messages are the simulator's own, the agent's its user's.
        said = message.content
        last = messages[-1]
        mine = isinstance(message, UserMessage)
        if mine == isinstance(last, AssistantMessage):  # the same speaker again: one message
            said = last.content + "\n\n" + said
            messages.pop()
        messages.append(AssistantMessage(said) if mine else UserMessage(said))
    return ModelRequest(
        provider=simulator.provider,
        model=simulator.model,
        system=system,
        messages=tuple(messages),
        tools=(),
        params=judge_params(
            simulator.provider, simulator.model, simulator.max_tokens, simulator.reasoning_effort
        ),
        api=simulator.api,
    )


def next_message(reply_text: str) -> str | None:
    """The user's next message, or None when the simulator says the episode is over (or says nothing)."""
    text = reply_text.strip()
    if not text or STOP in text:
        return None
    return text
