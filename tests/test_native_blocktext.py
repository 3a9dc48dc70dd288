"""Block fusion's compiled text work (``webseg/_native/blocktext.c``: tag flags, leaf tokens,
block texts, block roots) gives what the Python code gives, on real pages of every
collection and language and on made-up pages with every kind of white space; bad input
raises instead of reading outside the arrays."""

import gzip
from itertools import chain
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import boilerplate_spread, sample_page
from webseg import _native as native
from webseg.parse import parse
from webseg.segmentation import words_of
from webseg.segmenters.blockfusion import BlockFusion, _boundaries, block_roots

bt = native.load("blocktext")
pytestmark = pytest.mark.skipif(bt is None or native.load("fusion") is None,
                                reason="webseg's C extensions are not built")

PARAMS = [{}, {"mode": "plain"}, {"theta_max": 0.0}, {"theta_max": 1.0}, {"wrap_width": 1},
          {"wrap_width": 7, "mode": "plain", "theta_max": 0.5}, {"enforcing_tags": {"p"}},
          {"mode": "smoothed"}]
#: white space of every kind str.split() knows, and characters it does not split at
SPACES = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u1680",
          "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
NOT_SPACES = ["\u200b", "\ufeff", "\u180e", "a", "é", "ж", "中", "😀", "\U00010400"]


def both(page, monkeypatch, **kw):
    bf = BlockFusion(**kw)
    fast = bf.segment_flat(page)
    with monkeypatch.context() as mp:
        mp.setenv("WEBSEG_PURE_PYTHON", "1")
        slow = bf.segment_flat(page)
        slow_bounds = _boundaries(page, bf.boundaries, bf.enforcing_tags)
    fast_bounds = _boundaries(page, bf.boundaries, bf.enforcing_tags)
    assert [words_of(s) for s in fast.segments] == [len(s.text.split()) for s in fast.segments]
    for x, y in zip(fast_bounds, slow_bounds, strict=True):
        assert np.array_equal(x, y) and x.dtype == y.dtype
    return ([(s.id, s.nodes, s.parent, s.text, s.box, s.attrs) for s in fast.segments],
            [(s.id, s.nodes, s.parent, s.text, s.box, s.attrs) for s in slow.segments])


def test_real_pages_every_collection_and_language(monkeypatch):
    picked = boilerplate_spread(12)
    if not picked:
        pytest.skip("the boilerplate collections are not here")
    for path in picked:
        page = parse(gzip.decompress(path.read_bytes()))
        for kw in PARAMS[:3]:
            fast, slow = both(page, monkeypatch, **kw)
            assert fast == slow, (path.name, kw)


def test_a_rendered_page(monkeypatch):
    page = sample_page()
    for kw in PARAMS:
        fast, slow = both(page, monkeypatch, **kw)
        assert fast == slow, kw


PIECES = st.sampled_from(["<p>", "</p>", "<div>", "</div>", "<br>", "<br><br>", "<b>", "</b>",
                          "<h2>", "</h2>", "<ul><li>", "</li></ul>", "<script>x</script>",
                          "<span hidden>", "</span>", "<td>", "<hr>", "<img src=x>"])
TEXT = st.text(st.sampled_from(SPACES + NOT_SPACES), max_size=30)
#: the page parser refuses control bytes as binary input: page text without them
PAGE_TEXT = st.text(st.sampled_from([c for c in SPACES if c >= " " or c in "\t\n\r"]
                                    + NOT_SPACES), max_size=30)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(PIECES, PAGE_TEXT), max_size=40), st.sampled_from(PARAMS))
def test_made_up_pages(parts, kw):
    html = "<html><body>" + "".join(parts) + "</body></html>"
    page = parse(html.encode("utf-8"))
    with pytest.MonkeyPatch.context() as mp:
        fast, slow = both(page, mp, **kw)
    assert fast == slow


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=12), st.data())
def test_tokens_and_texts_equal_split_and_join(texts, data):
    leaves = np.arange(len(texts), dtype=np.int32)
    cum, starts = bt.leaf_tokens(texts, leaves)
    toks = [t.split() for t in texts]
    flat = list(chain.from_iterable(toks))
    want_cum = np.concatenate([[0], np.cumsum([len(w) + 1 for w in flat])]).astype(np.int64)
    assert np.frombuffer(cum, dtype=np.int64).tolist() == want_cum.tolist()
    want_starts = np.concatenate([[0], np.cumsum([len(t) for t in toks])]).astype(np.int64)
    assert np.frombuffer(starts, dtype=np.int64).tolist() == want_starts.tolist()
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(texts) - 1), max_size=5))
                      if len(texts) > 1 else []))
    bounds = [0, *cuts, len(texts)]
    fused = [(a, b, 0.0) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    got = bt.block_texts(texts, leaves, fused)
    assert got == [" ".join(chain.from_iterable(toks[a:b])) for a, b, _ in fused]


def test_bad_input_raises():
    texts = ["a b", "c"]
    with pytest.raises(ValueError):
        bt.leaf_tokens(texts, np.array([0, 5], dtype=np.int32))
    with pytest.raises(ValueError):
        bt.leaf_tokens(texts, np.array([-1], dtype=np.int32))
    with pytest.raises(TypeError):
        bt.leaf_tokens(["a", 3], np.array([1], dtype=np.int32))
    with pytest.raises(ValueError):
        bt.leaf_tokens(texts, b"\x00\x00\x00")
    leaves = np.array([0, 1], dtype=np.int32)
    with pytest.raises(ValueError):
        bt.block_texts(texts, leaves, [(0, 3, 0.0)])
    with pytest.raises(ValueError):
        bt.block_texts(texts, leaves, [(1, 1, 0.0)])
    with pytest.raises(TypeError):
        bt.block_texts(texts, leaves, [[0, 1]])
    parent = np.array([-1, 0, 0], dtype=np.int32)
    lo = np.array([0, 0, 1], dtype=np.int64)
    hi = np.array([2, 1, 2], dtype=np.int64)
    leaves = np.array([1, 2], dtype=np.int32)
    for body in (-1, 0, 1, 2):
        fake = SimpleNamespace(text_leaves=leaves, parent=parent, body=body)
        want = [tuple(sorted(block_roots(fake, lo.tolist(), hi.tolist(), a, b)))
                for a, b in ((0, 2), (0, 1), (1, 2))]
        assert bt.block_roots(parent, leaves, lo, hi, body,
                              [(0, 2, 0.0), (0, 1, 0.5), (1, 2, 1.0)]) == want, body
    with pytest.raises(ValueError):  # a leaf range that does not move on: no endless loop
        bt.block_roots(parent, leaves, lo, np.array([2, 0, 2], dtype=np.int64), 1,
                       [(0, 2, 0.0)])
    with pytest.raises(ValueError):
        bt.block_roots(parent, np.array([7], dtype=np.int32), lo, hi, 0, [(0, 1, 0.0)])
    with pytest.raises(ValueError):
        bt.block_roots(np.array([-1, 9, 0], dtype=np.int32), leaves, lo, hi, -1,
                       [(0, 2, 0.0)])
    with pytest.raises(ValueError):
        bt.block_roots(parent, leaves, lo[:2], hi, 0, [(0, 2, 0.0)])
    assert bt.tag_flags(["p", "x", "br"], {"p": 1, "br": 4}) == bytes([1, 0, 4])
    with pytest.raises(ValueError):
        bt.tag_flags(["p"], {"p": 300})
    with pytest.raises(TypeError):
        bt.tag_flags(["p"], [("p", 1)])
