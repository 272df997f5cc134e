"""The response cache: the key covers everything that changes an answer and nothing else, entries
survive a round trip on disk, the three modes call the model exactly when they should, and a run
reads only entries that were there, unchanged, when it opened the cache, or its own answers."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os

import pytest

from gate.providers.base import ModelReply, ModelRequest, ProviderError
from gate.results.messages import AssistantMessage, ToolCall, ToolResult, UserMessage
from gate.results.run_record import Usage
from gate.run.cache import ResponseCache, cache_key
from gate.suite.model import ModelParams, Source
from tests.builders import WEATHER_TOOLS

BASE = ModelRequest(
    provider="openai",
    model="gpt-4o-mini",
    system="You are a weather assistant.",
    messages=(UserMessage("Weather in Paris?"),),
    tools=WEATHER_TOOLS,
    params=ModelParams(temperature=0, max_tokens=200),
)
REPLY = ModelReply(
    text="",
    tool_calls=(ToolCall("call_1", "get_weather", '{"city": "Paris"}'),),
    usage=Usage(120, 12),
    stop_reason="tool_calls",
    request_id="req_1",
    latency_ms=321.5,
)


def test_key_ignores_mapping_order():
    reordered_tool = dataclasses.replace(
        WEATHER_TOOLS[0], parameters=dict(reversed(list(WEATHER_TOOLS[0].parameters.items())))
    )
    reordered = dataclasses.replace(BASE, tools=(reordered_tool, *WEATHER_TOOLS[1:]))
    assert cache_key(reordered, 0) == cache_key(BASE, 0)


def test_key_ignores_where_a_tool_was_written_and_never_holds_credentials(monkeypatch):
    moved = dataclasses.replace(WEATHER_TOOLS[0], source=Source("elsewhere.json", 99, 3), description_line=7)
    assert cache_key(dataclasses.replace(BASE, tools=(moved, *WEATHER_TOOLS[1:])), 0) == cache_key(BASE, 0)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-first-key-aaaaaaaa")
    first = cache_key(BASE, 0)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-second-key-bbbbbbbb")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    assert cache_key(BASE, 0) == first
    assert "sk-" not in json.dumps(BASE.cache_key_material())


@pytest.mark.parametrize(
    "change",
    [
        {"model": "gpt-4o"},
        {"provider": "anthropic"},
        {"system": "You are terse."},
        {"params": ModelParams(temperature=0.7, max_tokens=200)},
        {"params": ModelParams(temperature=0, max_tokens=200, seed=1)},
        {"params": ModelParams(temperature=0, max_tokens=200, tool_choice="required")},
        {"messages": (UserMessage("Weather in Rome?"),)},
        {"tools": WEATHER_TOOLS[:2]},
        {"tools": (dataclasses.replace(WEATHER_TOOLS[0], description="Weather now."), *WEATHER_TOOLS[1:])},
        {"forced_tool": "get_weather"},
    ],
)
def test_key_changes_with_everything_that_changes_the_answer(change):
    assert cache_key(dataclasses.replace(BASE, **change), 0) != cache_key(BASE, 0)


def test_key_differs_per_trial():
    assert len({cache_key(BASE, trial) for trial in range(5)}) == 5


def test_entry_round_trips_sharded_and_atomic(tmp_path):
    cache = ResponseCache(tmp_path, "use")
    key = cache_key(BASE, 2)
    cache.store(key, BASE, 2, REPLY)
    path = tmp_path / key[:2] / f"{key}.json"
    assert path.is_file()
    assert cache.load(key) == REPLY
    entry = json.loads(path.read_text())
    assert entry["request"]["model"] == "gpt-4o-mini" and entry["trial"] == 2  # kept for debugging
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


def _written_before(tmp_path, key, text):
    """A cache opened after ``text`` was written as ``key``'s entry (so that only its content decides)."""
    path = tmp_path / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return ResponseCache(tmp_path, "use")


def test_corrupt_entry_is_a_miss(tmp_path):
    key = cache_key(BASE, 0)
    assert _written_before(tmp_path, key, "{not json").load(key) is None
    entry = {"format": 1, "key": key, "trial": 0, "reply": REPLY.to_dict()}
    assert _written_before(tmp_path, key, json.dumps(entry)).load(key) == REPLY  # the same, well formed


@pytest.mark.parametrize(
    "hostile",
    [
        '{"reply": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"reply": {"text": "", "usage": ' + "9" * 100_000 + "}}",
    ],
    ids=["nested beyond recursion", "an integer of 100,000 digits"],
)
def test_an_entry_that_would_cost_more_than_its_answer_is_a_miss(tmp_path, hostile):
    key = cache_key(BASE, 0)
    assert (
        _written_before(tmp_path, key, hostile.replace('{"reply"', f'{{"key": "{key}", "reply"')).load(key)
        is None
    )


def test_an_entry_too_big_to_read_back_keeps_the_answer_without_the_request(tmp_path, monkeypatch):
    from gate import limits

    cache = ResponseCache(tmp_path, "use")
    key = cache_key(BASE, 0)
    big = dataclasses.replace(BASE, system="x" * 5000)
    monkeypatch.setattr(limits, "MAX_CACHE_ENTRY_BYTES", 4000)
    cache.store(key, big, 0, REPLY)
    assert cache.load(key) == REPLY and "request" not in json.loads(cache.path_for(key).read_text())
    monkeypatch.setattr(limits, "MAX_CACHE_ENTRY_BYTES", 100)
    cache.store(cache_key(BASE, 1), big, 1, REPLY)
    assert cache.load(cache_key(BASE, 1)) == REPLY  # this run's answer, whether or not it was written
    assert ResponseCache(tmp_path, "use").load(cache_key(BASE, 1)) is None  # a later run has none
    assert cache.store_errors == [f"{cache.path_for(cache_key(BASE, 1))}: larger than 100 bytes"]


class Counter:
    def __init__(self, reply=REPLY, delay=0.0):
        self.calls = 0
        self.reply = reply
        self.delay = delay

    async def __call__(self, request):
        self.calls += 1
        await asyncio.sleep(self.delay)
        return self.reply


def test_use_mode_calls_on_miss_only(tmp_path):
    cache = ResponseCache(tmp_path, "use")
    model = Counter()

    async def go():
        first = await cache.fetch(BASE, 0, model)
        second = await cache.fetch(BASE, 0, model)
        other_trial = await cache.fetch(BASE, 1, model)
        return first, second, other_trial

    first, second, other = asyncio.run(go())
    assert first == second == other == REPLY
    assert model.calls == 2 and (cache.hits, cache.misses) == (1, 2)
    # A new cache object on the same directory (a later run) hits without calling.
    later = ResponseCache(tmp_path, "use")
    assert asyncio.run(later.fetch(BASE, 0, model)) == REPLY and model.calls == 2


def test_record_mode_always_calls_and_refreshes(tmp_path):
    ResponseCache(tmp_path, "use").store(cache_key(BASE, 0), BASE, 0, REPLY)
    fresh = dataclasses.replace(REPLY, text="new answer", tool_calls=())
    model = Counter(fresh)
    recorder = ResponseCache(tmp_path, "record")
    assert asyncio.run(recorder.fetch(BASE, 0, model)) == fresh
    assert model.calls == 1
    assert ResponseCache(tmp_path, "replay").load(cache_key(BASE, 0)) == fresh


def test_replay_mode_never_calls(tmp_path):
    replay = ResponseCache(tmp_path, "replay")
    model = Counter()
    with pytest.raises(ProviderError) as info:
        asyncio.run(replay.fetch(BASE, 0, model))
    assert info.value.kind == "replay_miss" and not info.value.fatal and not info.value.retryable
    assert "run with --record" in str(info.value)
    assert model.calls == 0
    ResponseCache(tmp_path, "record").store(cache_key(BASE, 0), BASE, 0, REPLY)
    later = ResponseCache(tmp_path, "replay")
    assert asyncio.run(later.fetch(BASE, 0, model)) == REPLY and model.calls == 0


def test_concurrent_identical_requests_share_one_call(tmp_path):
    cache = ResponseCache(tmp_path, "use")
    model = Counter(delay=0.05)

    async def go():
        return await asyncio.gather(*(cache.fetch(BASE, 0, model) for _ in range(10)))

    replies = asyncio.run(go())
    assert replies == [REPLY] * 10 and model.calls == 1


def test_failed_call_stores_nothing(tmp_path):
    cache = ResponseCache(tmp_path, "use")

    async def failing(request):
        raise ProviderError("server", "boom", retryable=True)

    with pytest.raises(ProviderError):
        asyncio.run(cache.fetch(BASE, 0, failing))
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_concurrent_writers_from_threads_leave_a_valid_entry(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    cache = ResponseCache(tmp_path, "use")
    key = cache_key(BASE, 0)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: cache.store(key, BASE, 0, REPLY), range(40)))
    assert cache.load(key) == REPLY
    assert os.listdir(cache.path_for(key).parent) == [f"{key}.json"]


def test_who_could_have_written_the_cache_directory(tmp_path):
    import subprocess

    from gate.run.cache import provenance

    root = tmp_path / "repo"
    (root / "cache" / "ab").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert provenance(root / "cache", root).distrust == ""
    assert provenance(tmp_path / "outside", root).distrust == ""  # outside the checkout: the gate's own
    (root / "cache" / "ab" / "k.json").write_text("{}")
    subprocess.run(["git", "-C", str(root), "add", "-f", "cache"], check=True)
    tracked = provenance(root / "cache", root)
    assert (tracked.distrust, tracked.committed) == (
        "holds files tracked by git (e.g. cache/ab/k.json)",
        True,
    )
    os.symlink(root / "cache", root / "linked")
    linked = provenance(root / "linked", root)
    assert (linked.distrust, linked.committed) == (f"is reached through the symlink {root / 'linked'}", False)
    os.symlink(root / "cache", tmp_path / "leads-in")
    assert provenance(tmp_path / "leads-in", root).distrust == (
        f"is reached through the symlink {tmp_path / 'leads-in'}"
    )


def test_a_private_cache_never_reads_nor_writes_the_directory(tmp_path):
    from gate.run.cache import open_cache

    root = tmp_path / "repo"
    cache_dir = root / "cache"
    key = cache_key(BASE, 0)
    ResponseCache(cache_dir, "use").store(key, BASE, 0, REPLY)
    assert open_cache(cache_dir, "replay", root, "shared").load(key) == REPLY
    private = open_cache(cache_dir, "use", root, "private", "warning: why")
    assert private.directory != cache_dir and private.load(key) is None and private.note == "warning: why"
    private.store(key, BASE, 0, REPLY)
    assert len(list(cache_dir.rglob("*.json"))) == 1  # nothing written into the directory


def _entry_text(key, reply):
    return json.dumps({"format": 1, "key": key, "trial": 0, "reply": reply.to_dict()})


PLANTED = dataclasses.replace(REPLY, tool_calls=(ToolCall("call_9", "get_weather", '{"city": "Rome"}'),))


def test_an_entry_written_after_the_cache_was_opened_is_never_read(tmp_path):
    """What a command started by the run writes into the cache (it can compute the keys of the requests
    it makes) is not an answer: only what was there when the run opened the cache, and the run's own."""
    key = cache_key(BASE, 0)
    cache = ResponseCache(tmp_path, "replay")
    cache.settle()  # as run does before it starts the first command
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / f"{key}.json").write_text(_entry_text(key, PLANTED))
    assert cache.load(key) is None
    with pytest.raises(ProviderError):
        asyncio.run(cache.fetch(BASE, 0, Counter()))
    assert ResponseCache(tmp_path, "replay").load(key) == PLANTED  # a later run finds it there


def test_an_entry_changed_after_the_cache_was_opened_is_never_read(tmp_path):
    key = cache_key(BASE, 0)
    ResponseCache(tmp_path, "use").store(key, BASE, 0, REPLY)
    cache = ResponseCache(tmp_path, "use")
    cache.settle()
    assert cache.load(key) == REPLY
    path = cache.path_for(key)
    stamp = os.stat(path)
    path.write_text(_entry_text(key, PLANTED))
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # mtime set back; ctime cannot be
    assert cache.load(key) is None
    model = Counter()
    assert asyncio.run(cache.fetch(BASE, 0, model)) == REPLY and model.calls == 1  # asked, not read
    assert cache.load(key) == REPLY  # its own answer from now on, whatever the file says
    path.write_text(_entry_text(key, PLANTED))
    assert cache.load(key) == REPLY


def test_old_entries_moved_into_place_are_never_read(tmp_path):
    """Old files moved (renamed, linked) to an entry's path, a whole old directory renamed into the
    cache, or another key's entry: none is an answer."""
    key, other = cache_key(BASE, 0), cache_key(BASE, 1)
    cache_dir, stash = tmp_path / "cache", tmp_path / "stash"
    (stash / key[:2]).mkdir(parents=True)
    (stash / key[:2] / f"{key}.json").write_text(_entry_text(key, PLANTED))  # made before the run
    ResponseCache(cache_dir, "use").store(other, BASE, 1, REPLY)
    cache = ResponseCache(cache_dir, "use")
    cache.settle()
    assert cache.load(other) == REPLY
    os.rename(stash / key[:2], cache_dir / key[:2])  # a directory of old files renamed into the cache
    assert cache.load(key) is None
    os.rename(cache_dir / key[:2], stash / key[:2])
    target = cache.path_for(key)
    target.parent.mkdir(exist_ok=True)
    os.link(stash / key[:2] / f"{key}.json", target)
    assert cache.load(key) is None
    os.unlink(target)
    os.rename(stash / key[:2] / f"{key}.json", target)
    assert cache.load(key) is None
    assert _written_before(tmp_path / "fresh", key, _entry_text(other, PLANTED)).load(key) is None


def test_a_cache_directory_swapped_for_another_is_not_read(tmp_path):
    key = cache_key(BASE, 0)
    ResponseCache(tmp_path / "cache", "use").store(key, BASE, 0, REPLY)
    ResponseCache(tmp_path / "forged", "use").store(key, BASE, 0, PLANTED)
    cache = ResponseCache(tmp_path / "cache", "use")
    os.rename(tmp_path / "cache", tmp_path / "away")
    os.rename(tmp_path / "forged", tmp_path / "cache")
    assert cache.load(key) == REPLY  # the directory opened, not what now bears its name


def test_the_base_side_shares_what_the_run_may_read_and_its_answers(tmp_path):
    key = cache_key(BASE, 0)
    head = ResponseCache(tmp_path, "use")
    head.store(key, BASE, 0, REPLY)
    base = head.counted_apart()
    assert base.load(key) == REPLY and (base.hits, base.misses) == (0, 0)


def test_keys_of_typed_messages_are_the_keys_answers_were_recorded_under():
    """Each key below was computed before messages were typed (from the neutral dicts the agent loop
    sent): answers recorded then (committed cassettes, a CI cache) keep answering."""
    conversation = (
        UserMessage("Weather in Paris?"),
        AssistantMessage("", (ToolCall("call_1", "get_weather", '{"city": "Paris"}'),), given=True),
        ToolResult("call_1", "get_weather", '{"temp_c": 18}', given=True),
        UserMessage("And Rome?"),
        AssistantMessage(
            "Let me look \ud800",  # a lone surrogate the model wrote: sent as U+FFFD
            (ToolCall("c2", "get_weather", '{"city": "Rome"}'),),
            thinking="hm",
            reasoning=({"type": "thinking", "thinking": "hm", "signature": "sig"},),
        ),
        ToolResult("c2", "get_weather", {"temp_c": 25, "sky": "clear"}, is_error=True, state="{}"),
        AssistantMessage("It is 25 °C in Rome."),
        UserMessage("Thanks!", simulated=True),
    )
    request = dataclasses.replace(BASE, messages=conversation)
    assert cache_key(request, 0) == "7d0c90892b181642ab2860f7404c9ee4a714d3ddf002cd7d600315436c997472"
    assert cache_key(BASE, 0) == "06341ae4e08ac99232dc677cca4a38b24129efd897cb260e5c54f3731972c325"
    assert request.messages[4].content == "Let me look \ufffd"  # what goes out is encodable
