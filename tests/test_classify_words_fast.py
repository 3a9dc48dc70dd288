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
