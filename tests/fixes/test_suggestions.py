"""A verified edit as a suggested change on exactly its lines, with its evidence."""

from __future__ import annotations

from gate.fixes.suggestions import suggestions
from gate.results.fixes import Candidate, CandidateCase, DefinitionSearch, Edit, FixSearch

EDIT = Edit(
    "tools/weather.json",
    24,
    24,
    ('      "description": "Forecast data.",',),
    ('      "description": "Forecast <b>@team</b> ```x```",',),
)
CASES = (
    CandidateCase("weather", "tomorrow", "targeted", "fixed", 5, 5, 0, 5),
    CandidateCase("weather", "now", "passing", "kept", 5, 5, 5, 5),
)


def definition(*candidates: Candidate) -> DefinitionSearch:
    return DefinitionSearch(
        "weather",
        "tool_description",
        "tools/weather.json",
        24,
        "Forecast data.",
        "advice",
        ("weather/tomorrow",),
        "get_forecast",
        None,
        "every passing gating case of weather (1)",
        candidates,
    )


def test_only_a_verified_edit_is_suggested_with_its_evidence_and_its_literal_lines() -> None:
    broke = Candidate(1, "Any weather.", "broke", "it breaks weather/now", edit=EDIT)
    verified = Candidate(2, "Forecast.", "verified", cases=CASES, edit=EDIT)
    found = suggestions(FixSearch(definitions=(definition(broke, verified),)))
    assert len(found) == 1
    s = found[0]
    assert (s.file, s.start_line, s.line) == ("tools/weather.json", 24, 24)
    assert "fixes 1 of 1 failing case, breaks 0 of 1 passing (5 trials each" in s.body
    assert '````suggestion\n      "description": "Forecast <b>@team</b> ```x```",\n````' in s.body
    assert "the others: 1 broke a passing case" in s.body
    assert suggestions(FixSearch(definitions=(definition(broke),))) == ()
    assert suggestions(None) == ()
