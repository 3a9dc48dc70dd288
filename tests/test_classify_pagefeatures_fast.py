"""The page-type views' shortcuts give what the plain rules give: attribute words
(:func:`classify.pagefeatures.split_words`) and the unspaced-script test of the word count."""

from __future__ import annotations

import re

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from classify.pagefeatures import _UNSPACED_LETTER, count_words, split_words
from webseg.lang import _MAYBE_UNSPACED, _unspaced_letter, has_unspaced_letter

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WORD = re.compile(r"[^\W\d_]{2,25}")


def split_words_by_definition(value: str) -> list[str]:
    return _WORD.findall(_CAMEL.sub(" ", value).lower())


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("abzAZ09 -_.:\tÉéßΣσİıǅ中ж"), max_size=60))
def test_split_words_equal_their_definition(value: str) -> None:
    assert split_words(value) == split_words_by_definition(value)


def test_split_words_examples() -> None:
    assert split_words("productCard main-nav__item") == ["product", "card", "main", "nav",
                                                         "item"]
    assert split_words("x" * 30) == ["x" * 25, "x" * 5]
    assert split_words("ΟΔΟΣ καφέΣ") == split_words_by_definition("ΟΔΟΣ καφέΣ")


def test_maybe_unspaced_covers_every_unspaced_letter() -> None:
    """Every character of the unspaced scripts (by the installed ``regex`` module's script
    tables) is in the quick pre-test's ranges, so a text it finds nothing in has none."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    letters = regex.findall(_UNSPACED_LETTER, every)
    assert len(letters) > 90_000
    assert all(_MAYBE_UNSPACED.fullmatch(c) for c in letters)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab ’—é\u00a0ж中の\u0e01한、「」\U00020000."),
               max_size=40))
def test_unspaced_test_and_word_count(text: str) -> None:
    assert has_unspaced_letter(text) == (_unspaced_letter().search(text) is not None)
    n = len(regex.findall(_UNSPACED_LETTER, text))
    assert count_words(text) == n + len(regex.sub(_UNSPACED_LETTER, " ", text).split())


_PRICE_PIECES = ["$", "€", " ", "0", "12", "3", ".", ",", "\u00a0", "kr", "USD", "a", "b",
                 "-", "руб", "\n", "lei", "Kč", "zł", "word ", "x" * 30, "9" * 20]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PRICE_PIECES), max_size=120))
def test_price_count_near_the_marks_equals_the_whole_search(pieces: list[str]) -> None:
    from classify.pagefeatures import _PRICE, _prices

    text = "".join(pieces)
    assert _prices(text) == _PRICE.findall(text)


def test_price_count_examples() -> None:
    from classify.pagefeatures import _PRICE, _price_count, _prices

    long = "word " * 50
    for text in ("", "no price here", f"$ 12.99 {long} 5 kr {long}EUR 1 000,00 and 3 USD",
                 f"{long}$1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6{long}", "kr" * 40 + " 12 kr"):
        assert _prices(text) == _PRICE.findall(text)
    assert _price_count(f"{long}$ 12.99 and 5 kr") == 2
