"""tool-eval-gate: a CI gate that evaluates an LLM agent's tool calls against suites of test cases."""

__version__ = "1.0.0"
# The response cache's directory under the repository root, unless --cache (the action: its cache
# input) names another. The example workflows persist it with actions/cache.
CACHE_DIRECTORY = ".tool-eval-gate/cache"
