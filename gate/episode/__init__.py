"""One episode for both agents (the model agent's loop, an agent program): the user's turns, the
simulated user, the budgets, why it ended and its run record (``episode``); only how an assistant turn
is obtained is each agent's. The simulated user plays the user from the case's goal and persona
(``simulated_user``, pure)."""

__all__ = ["episode", "simulated_user"]
