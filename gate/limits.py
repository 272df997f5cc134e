"""The bounds that keep hostile or unlucky input from hanging or exhausting the gate, in one place.

Every file the gate reads has a size bound checked before reading (``stat``, and a bounded read for
devices and pipes, which have no size); nesting is bounded wherever JSON-like data comes in (suite
files, tool-call arguments a model sent, results files); every user-supplied regular expression runs
with a time limit (``gate.util.bounded_regex``); trials per case are bounded on the command line as in
the suite schema; a run sends at most so many model requests at once, each within a time limit.
"""

from __future__ import annotations

MAX_FILE_BYTES = 1024 * 1024  # 1 MiB per suite, prompt, tool or mock file
MAX_CASES_FILE_BYTES = 64 * 1024 * 1024  # a data file of cases (JSON lines or CSV): 10,000s of cases
MAX_RESULTS_BYTES = 128 * 1024 * 1024  # a results or baseline file (10,000 cases take about 20 MB)
MAX_EVENT_BYTES = 64 * 1024 * 1024  # the GitHub Actions event file (GitHub's webhooks stop at 25 MB)
MAX_CACHE_ENTRY_BYTES = 32 * 1024 * 1024  # one response cache entry (a reply and its request, for debugging)
# A results file is read whole: its memory is held within this multiple of its size by refusing, before
# decoding, a file denser in objects and lists than any the gate writes (gate.files.results_file).
RESULTS_MEMORY_FACTOR = 12
MAX_NESTING = 64  # levels of objects / arrays in a suite document or in a tool call's arguments
# A program's request to the recording proxy or the mock MCP server (32 MiB at most, Anthropic's own
# bound): objects and lists in it, and their nesting. A decoded object costs about 550 bytes however
# short its text, so 5 MB of empty messages took the gate to 515 MB; a conversation that fills the
# largest context window holds far fewer (a container costs a model at least a few tokens).
MAX_REQUEST_CONTAINERS = 100_000
MAX_REQUEST_NESTING = 128
MAX_SHARDS = 10_000  # --shard INDEX/COUNT (a GitHub Actions matrix has at most 256 jobs)
MAX_TRIALS = 100  # trials per case (the suite schema's ``trials`` maximum says the same)
REGEX_TIMEOUT_SECONDS = 0.25  # one search of one user-supplied regular expression in one text
# What a run allows the model, unless --concurrency / --timeout (the action's inputs) say otherwise.
CONCURRENCY = 8  # model requests in flight at most (cut on 429s, never raised above it)
REQUEST_TIMEOUT_SECONDS = 60.0  # one model request


def nested_deeper_than(value: object, limit: int = MAX_NESTING) -> bool:
    """Whether JSON-like ``value`` nests objects / arrays more than ``limit`` levels (iterative: no
    recursion, whatever the depth)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
