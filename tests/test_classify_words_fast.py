""":func:`classify.text.words` takes a regular-expression path for ASCII text: it must give
the tokens of the analysis it skips, the analyzer's tokens without one-character ones."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from classify.text import _analyzer, _inert, _spaced_out, _unspaced, words


def by_analysis(text: str) -> list[str]:
    """The tokens through the analyzer, token by token (the rule the fast path skips)."""
    if not text:
        return []
    return [t for t in _analyzer().tokens(_spaced_out(text)) if len(t) > 1 or _unspaced(t)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ09 _-.'\n\t’—é\u00a0x"), max_size=120))
def test_words_equal_the_analysis(text: str) -> None:
    assert words(text) == by_analysis(text)


def test_words_drop_one_character_and_over_long_tokens() -> None:
    long = "x" * 64
    text = f"a bb {long} {long}y C3 it’s — Ok_go"
    assert words(text) == by_analysis(text) == ["bb", long, "c3", "it", "ok", "go"]


def _spaced_out_by_definition(text: str) -> str:
    """The rule: every non-ASCII character inert -> each becomes a space; else unchanged."""
    odd = [c for c in set(text) if c > "\x7f"]
    if not all(map(_inert, odd)):
        return text
    return text.translate(dict.fromkeys(map(ord, odd), " "))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab ’—\u00a0é©™ж中\u2028\n."), max_size=80))
def test_spaced_out_follows_its_definition(text: str) -> None:
    assert _spaced_out(text) == _spaced_out_by_definition(text)


_LATIN_MIX = "aZ09 -.'’—éÉßŉﬁ™½łØ\u0301\u0308\u00ad\u200d¨Åİ\u00a0ǅ\u2e80Σж中๑٢ー"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from(_LATIN_MIX), max_size=60))
def test_latin_words_equal_the_analysis(text: str) -> None:
    """The whole-text path for Latin-script words gives the script runs' tokens, or declines
    (None) for a text with any other script's letter or a non-ASCII digit."""
    from classify.text import _latin_words

    got = _latin_words(text)
    want = [t for t in _analyzer().tokens(text) if len(t) > 1 or _unspaced(t)]
    if got is not None:
        assert got == want
    assert words(text) == by_analysis(text)


def test_latin_words_examples() -> None:
    from classify.text import _latin_words

    text = "Café “Łódź” — naïve\u00adcoöperation ﬁne ™ x’y Straße"
    assert _latin_words(text) == by_analysis(text) == [
        "cafe", "lodz", "naive", "cooperation", "fine", "tm", "strasse"]
    assert _latin_words("Москва café") is None
    assert _latin_words("٢٠١٢ café") is None


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ09 -.'’—éÉßﬁ™½łØ\u0301\u0308\u00ad\u200d¨Åİ\u00a0ǅ"),
               max_size=60))
def test_latin_words_take_every_latin_text(text: str) -> None:
    from classify.text import _latin_words

    got = _latin_words(text)
    assert got is not None
    assert got == [t for t in _analyzer().tokens(text) if len(t) > 1 or _unspaced(t)]


def test_quick_latin_test_lets_through_no_character_the_script_test_refuses() -> None:
    """:data:`classify.text._MAYBE_BEYOND_LATIN` passes a text to the whole-text path
    without the script test only when every character is one that test would let through."""
    from classify.text import _MAYBE_BEYOND_LATIN, _NON_ASCII_DIGIT, _latin_patterns

    beyond, _ = _latin_patterns()
    chars = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    passed = _MAYBE_BEYOND_LATIN.sub("", chars)
    assert len(passed) > 5_000
    assert beyond.search(passed) is None
    assert _NON_ASCII_DIGIT.search(passed) is None


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200)
       | st.lists(st.sampled_from(["ab", "Z", "x" * 64, "y" * 65, " ", "-", "\x1f", "9"]),
                  max_size=40).map("".join))
def test_ascii_words_equal_the_regular_expression(text: str) -> None:
    from classify.text import _ASCII_WORD, _ascii_words

    assert _ascii_words(text) == _ASCII_WORD.findall(text.lower())
