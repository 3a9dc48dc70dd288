"""A page's windows made from its leaves' tokens (pieces cut at window edges, an ASCII
piece's rest taken from its token list) are the windows of the joined text: the same texts,
terms in the same order, weights, roles and whole-text tokens."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ir.analysis import Analyzer
from ir.blocks import window_blocks, word_weights
from ir.pipeline import PageTokens

WORDS = st.sampled_from(["bridge", "the", "Bridges", "café", "’s", "Ωmega", "x1", "and",
                         "Москва", "в", "ΚΑΙ", "Łódź", "2026", "it's", "“quoted”", "A-B"])
PIECES = st.lists(st.lists(WORDS, min_size=1, max_size=12).map(" ".join), max_size=14)


def _rows(blocks):
    return [(b.text, list(b.terms.items()), b.seg, b.rank, b.weight, b.role) for b in blocks]


@settings(max_examples=300, deadline=None)
@given(PIECES, st.integers(min_value=1, max_value=9),
       st.lists(st.sampled_from([0.1, 0.5, 0.9, 0.25]), min_size=14, max_size=14),
       st.sampled_from([{}, {"latin": "pl"}, {"stemmer": "none"}]))
def test_windows_from_leaf_tokens_are_the_texts_windows(pieces, size, probs, kw):
    an = Analyzer(**kw)
    text = " ".join(pieces)
    ww = word_weights(pieces, probs[:len(pieces)])
    want_toks: list[str] = []
    want = window_blocks(text, an, size=size, word_weights=ww, text_tokens=want_toks)
    got_toks: list[str] = []
    got = window_blocks(text, PageTokens(an), size=size, word_weights=ww,
                        text_tokens=got_toks, pieces=pieces, whole_words=True,
                        piece_tokens=[an.tokens(p) for p in pieces])
    assert _rows(got) == _rows(want)
    assert got_toks == want_toks == an.tokens(text)
