"""The words messages share (gate.util.wording): counts with their noun, "did you mean" hints."""

from __future__ import annotations

from gate.util.wording import closest, did_you_mean, mentions, plural


def test_a_count_says_its_noun_in_the_right_number():
    assert (plural(1, "call"), plural(0, "call"), plural(2, "call")) == ("1 call", "0 calls", "2 calls")
    assert (plural(1, "fix", "fixes"), plural(3, "fix", "fixes")) == ("1 fix", "3 fixes")


def test_a_misspelt_name_gets_the_close_choice_and_only_a_close_one():
    assert closest("get_wether", ["get_weather", "get_forecast"]) == "get_weather"
    assert closest("book_flight", ["get_weather", "get_forecast"]) is None
    assert closest("get_weather_now", ["get_weather"], cutoff=0.9) is None


def test_did_you_mean_offers_the_close_choice_else_lists_them():
    assert did_you_mean("regexp", ["regex", "range"]) == "did you mean 'regex'?"
    assert did_you_mean("zzz", ["regex", "range"], "keys") == "keys: regex, range"
    assert did_you_mean("zzz", []) == ""


def test_a_text_mentions_a_name_only_as_a_whole_word():
    assert mentions("Use get_weather for today.", "get_weather")
    assert not mentions("Use get_weather_now for today.", "get_weather")
    assert not mentions("anything", "")
