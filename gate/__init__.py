"""tool-eval-gate: a CI gate that evaluates an LLM agent's tool calls against suites of test cases."""

__version__ = "0.1.0"
