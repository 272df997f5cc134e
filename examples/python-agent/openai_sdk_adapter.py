"""The adapter between tool-eval-gate and the plain-code concierge: the gate's messages in
(``gate_protocol.turns``), the concierge's answers out. A trial's first message builds the trial's
client (one process may run many trials: ``reuse: true``) and brings the case's earlier turns as Chat
Completions messages, the concierge's own form; later messages (a simulated user's) continue the
conversation."""

from __future__ import annotations

from typing import Any

import gate_protocol
from openai_sdk_agent import Concierge


def main() -> None:
    for turn in gate_protocol.turns():
        if turn.starts_trial:  # the trial's own client, then its earlier turns
            concierge = Concierge()
            messages: list[dict[str, Any]] = gate_protocol.chat_messages(turn.history)
        gate_protocol.answer(concierge.reply(messages, turn.content))


if __name__ == "__main__":
    main()
