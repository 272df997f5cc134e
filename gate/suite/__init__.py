"""The suite language and what every key means: the suite model, templating, argument matchers,
path assertions, mocks and their state, judged checks, conversations, model families and prices. Pure."""

__all__ = [
    "conversation",
    "judging",
    "matcher_tree",
    "matchers",
    "mock_state",
    "mocks",
    "model",
    "model_choice",
    "model_family",
    "path_assertions",
    "pricing",
    "templating",
]
