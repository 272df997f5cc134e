"""``normalized``'s options keep both promises in every combination: an option only loosens (texts
equal under some options stay equal with another added) and, under ``punctuation``, punctuation
inside a number counts whatever else is ignored; ``chars`` drops exactly the characters it names."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.util.text_normalization import LOOSER_COMPARISONS, NOTHING_IGNORED, Ignored, normalize_text


def ignored(*kinds: str, chars: str = "") -> Ignored:
    return Ignored(frozenset(kinds), frozenset(chars))  # type: ignore[arg-type]


def same(a: str, b: str, ignore: Ignored) -> bool:
    return normalize_text(a, ignore) == normalize_text(b, ignore)


# Every valid set of options (``chars`` never beside ``punctuation``: validate refuses that).
OPTIONS = [
    ignored(*kinds, chars=chars)
    for n in range(len(LOOSER_COMPARISONS) + 1)
    for kinds in itertools.combinations(LOOSER_COMPARISONS, n)
    for chars in ("", "-", " -", "._", "'", "#/")
    if not (chars and "punctuation" in kinds)
]
LOOSENINGS = [
    (less, more)
    for less, more in itertools.product(OPTIONS, OPTIONS)
    if less != more and less.kinds <= more.kinds and less.chars <= more.chars
]
# Letters (cased, accented, full-width, a ligature), digits, white space of several kinds, the marks
# the options are about, symbols and a lone combining accent.
ALPHABET = "0123456789abxyzAÉéüﬁ１ \t\n\u00a0-–.,:;/_#'+$°()!?\u0301"


@settings(max_examples=1500, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=14), pair=st.sampled_from(LOOSENINGS))
def test_adding_an_option_never_turns_a_pass_into_a_fail(text, pair):
    # What more options make of a text they make of its normal form under fewer: so two texts equal
    # under the fewer options are equal under the more.
    less, more = pair
    assert normalize_text(normalize_text(text, less), more) == normalize_text(text, more)


@settings(max_examples=500, deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, max_size=10),
    edit=st.sampled_from([str.upper, lambda t: t.replace(" ", "  \t"), lambda t: f" {t} "]),
    pair=st.sampled_from(LOOSENINGS),
)
def test_what_the_default_ignores_stays_ignored_under_any_option(text, edit, pair):
    less, more = pair
    if same(text, edit(text), less):
        assert same(text, edit(text), more)


NUMBERS = [
    ("10:30", "1030"),
    ("10 : 30", "1030"),
    ("3 - 1", "31"),
    ("3-1", "31"),
    ("1.5", "15"),
    ("1. 5", "15"),
    ("1,000", "1000"),
    ("-5", "5"),
    ("temperature: -5", "temperature: 5"),
    (".5", "5"),
    ("-.5", ".5"),
    ("covid-19", "covid 19"),  # a hyphen before a number cannot be told from a minus sign
]


@pytest.mark.parametrize(("value", "other"), NUMBERS)
@pytest.mark.parametrize("options", [o for o in OPTIONS if not o.chars], ids=str)
def test_punctuation_inside_a_number_counts_whatever_else_is_ignored(value, other, options):
    assert not same(value, other, options)


@pytest.mark.parametrize(
    ("expected", "actual", "options"),
    [
        ("3x**2 - 2x + 1", "3x**2-2x+1", ignored("punctuation", "whitespace")),
        ("3x**2 - 2x + 1", "3x**2-2x+1", ignored("whitespace")),
        ("April 1, 2024", "April 1,2024", ignored("punctuation", "whitespace")),
        ("New York", "New-York", ignored("punctuation")),
        ("O'Brien", "OBrien", ignored("punctuation")),
        ("São Paulo", "sao-paulo", ignored("accents", "punctuation")),
        ("555-123 4567", "5551234567", ignored(chars=" -")),
        ("New York", "new_york", ignored(chars=" _")),  # a named space stands for all white space
        ("a/b", "ab", ignored(chars="/")),
        ("covid-19", "covid19", ignored(chars="-")),
    ],
)
def test_combinations_that_differ_only_in_what_they_ignore_are_equal(expected, actual, options):
    assert same(expected, actual, options)


@pytest.mark.parametrize(
    ("expected", "actual", "options"),
    [
        ("C#", "C", ignored(chars=" -")),  # chars ignores what it names, nothing else
        ("New York", "New-York", ignored(chars="_")),
        ("a.b", "ab", ignored(chars="-")),
        ("Zürich", "Zurich", ignored(chars=" ")),
        ("1 2", "12", ignored("punctuation")),  # white space counts unless ignored
        ("1, 2", "1 2", ignored("punctuation")),  # with whitespace too this is 1,2, which is not 12
    ],
)
def test_an_option_ignores_only_what_it_says(expected, actual, options):
    assert not same(expected, actual, options)


def test_the_default_ignores_case_compatibility_forms_and_runs_of_white_space_only():
    assert normalize_text("  ＮＥＷ \t york ") == "new york"
    assert not same("New-York", "New York", NOTHING_IGNORED)


@pytest.mark.parametrize(
    ("expected", "actual"), [("10²", "102"), ("2⁵", "25"), ("x²", "x2"), ("10⁻³", "10−3")]
)
def test_an_exponent_is_not_a_digit_whatever_is_ignored(expected, actual):
    # Superscript digits and signs are compatibility forms, but folding them changes a number's value
    # (10² is 100, not 102): they stay as written, under every option.
    for options in (NOTHING_IGNORED, ignored("punctuation", "accents", "whitespace"), ignored(chars=" -")):
        assert not same(expected, actual, options)
    assert same("10²", " 10²", NOTHING_IGNORED)
    # The other compatibility forms still fold: full width, ligatures, subscripts, circled digits.
    assert same("ＣＯ₂ ﬁle ①", "co2 file 1", NOTHING_IGNORED)
    assert str(ignored("whitespace", "accents", chars='" -')) == 'accents, whitespace, the characters " \\"-"'
