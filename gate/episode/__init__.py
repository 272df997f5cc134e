"""What an episode of either agent (the model agent's loop, an agent program) shares: the simulated
user that plays the user from the case's goal and persona (``simulated_user``, pure)."""

__all__ = ["simulated_user"]
