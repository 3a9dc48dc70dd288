"""The index stage's shortcuts give exactly what the plain computations give.

A page's leaves are tokenised once (:meth:`ir.pipeline.PageTokens.leaf_tokens`) and the
fields, the main leaves, the windows and the segment blocks are composed from those tokens;
character-class tests search only the non-ASCII characters; block weights are summed by
``numpy.bincount``. Each is checked here against the direct computation.
"""

from __future__ import annotations

import numpy as np
from helpers import news_page
from hypothesis import given, settings
from hypothesis import strategies as st

from ir.analysis import _NON_ASCII, Analyzer, _wordy_non_ascii
from ir.blocks import segmentation_blocks, spaced, window_blocks
from ir.content import main_leaves, page_fields, weigh_blocks
from ir.pipeline import PageTokens
from webseg.lang import has_unspaced_letter
from webseg.parse import parse

#: ASCII, typographic punctuation, accented Latin, Cyrillic, CJK, kana, Hangul, Thai.
CHARS = st.sampled_from(list("ab Z9 ,.-") + list("’“”—…é¨ßдя中文にカ한ไทย\u3000\xa0"))
TEXTS = st.lists(CHARS, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_spaced_is_the_whole_text_test(text):
    assert spaced(text) == (text.isascii() or not has_unspaced_letter(text))


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_word_characters_are_found_among_the_non_ascii_ones(text):
    wordy = _wordy_non_ascii()
    assert ((wordy.search(text) is None)
            == (wordy.search("".join(_NON_ASCII.findall(text))) is None))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["bridge", "the", "café", "’s", "Ωmega", "x1"]),
                         min_size=1, max_size=8).map(" ".join), max_size=10),
       st.integers(min_value=1, max_value=7))
def test_windows_from_piece_tokens_are_the_same(pieces, size):
    an = Analyzer()
    text = " ".join(pieces)
    want = window_blocks(text, an, size=size)
    got = window_blocks(text, PageTokens(an), size=size, pieces=pieces,
                        piece_tokens=[an.tokens(p) for p in pieces])
    assert [(b.text, b.terms) for b in got] == [(b.text, b.terms) for b in want]


def _pages():
    page = news_page(para1="Engineers closed the old bridge; crews replaced the cables.",
                     para2="The bridge reopens in spring, the council said.")
    cjk = parse("<html><head><title>小型微利企业</title></head><body><div><p>小型微利"
                "<a href=#>企业</a>税收</p><p>The “bridge” reopens.</p></div>"
                "<nav><a href=#>首页</a> <a href=#>News</a></nav></body></html>")
    # segments whose leaves are glued (no space between them) in several runs, every script
    glued = parse("<html><body><div><p>W<b>orld</b> news: <i>Ωm</i>ega café <b>x</b>1 "
                  "и<b>дея</b> 小型<a href=#>企业</a>税收 <b>ไท</b>ย the “br<i>idge</i>”</p>"
                  "<p>The <b>Stop</b>words<i>’s</i> are the\u00a0<b>same</b>.</p></div>"
                  "</body></html>")
    return [page, cjk, glued]


def _probs(page):
    n = len(page.text_leaves)
    return np.asarray([0.9 if k % 3 else 0.2 for k in range(n)], dtype=np.float64)


def test_fields_and_main_leaves_from_leaf_tokens_are_the_same():
    an = Analyzer()
    for page in _pages():
        p = _probs(page)
        assert page_fields(page, p, PageTokens(an)) == page_fields(page, p, an)
        assert main_leaves(page, p, PageTokens(an)) == main_leaves(page, p, an)
        # the order of the terms is stored too
        got, want = page_fields(page, p, PageTokens(an)), page_fields(page, p, an)
        assert [list(f) for f in got.values()] == [list(f) for f in want.values()]


def test_segment_blocks_from_leaf_tokens_are_the_same():
    from webseg.segmenters import get_segmenter

    an = Analyzer()
    for page in _pages():
        seg = get_segmenter("dom").segment(page)
        p = _probs(page)
        got = segmentation_blocks(seg, PageTokens(an), p_main=p)
        want = segmentation_blocks(seg, an, p_main=p)
        assert [(b.text, list(b.terms.items()), b.weight, b.role) for b in got] == \
            [(b.text, list(b.terms.items()), b.weight, b.role) for b in want]


def test_block_weights_are_the_running_sums():
    """``weigh_blocks`` against the per-leaf running sums it replaced."""
    from webseg.segmenters import get_segmenter

    for page in _pages():
        seg = get_segmenter("dom").segment(page)
        p = _probs(page)
        blocks = segmentation_blocks(seg, Analyzer())
        weigh_blocks(blocks, seg, p)
        num: dict[int, float] = {}
        den: dict[int, float] = {}
        for leaf, lab, q in zip(page.text_leaves.tolist(), seg.leaf_labels().tolist(),
                                p.tolist(), strict=True):
            n = float(len(page.text[leaf].strip()))
            if n > 0:
                num[lab] = num.get(lab, 0.0) + n * q
                den[lab] = den.get(lab, 0.0) + n
        for b in blocks:
            w = num.get(b.seg, 0.0) / den[b.seg] if den.get(b.seg) else 0.0
            assert (b.weight, b.role) == (round(w, 4), "main" if w >= 0.5 else "template")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "bb", "中文", "x1"]), min_size=1,
                         max_size=5).map(" ".join), max_size=8),
       st.integers(min_value=-1, max_value=1))
def test_spans_and_word_weights_from_part_sizes_are_the_same(parts, off):
    """The words of each leaf counted once (``part_sizes``) for the weights and the spans."""
    from ir.blocks import _spans, part_sizes, word_weights

    sizes = part_sizes(parts)
    n = sum(sizes) + off  # a wrong word count too: no spans either way
    assert _spans(parts, n, sizes) == _spans(parts, n)
    probs = [0.1 * k for k in range(len(parts))]
    want = [p for t, p in zip(parts, probs, strict=True) for _ in t.split()]
    assert word_weights(parts, probs, sizes) == word_weights(parts, probs) == want
