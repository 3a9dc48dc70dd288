"""Tree decoders of the block model (webseg.blocks.isotree): leaf-interval tree, isotonic
smoothing of leaf scores, the two-level cut decoder (checked against exhaustive search)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from webseg.blocks.features import leaf_features
from webseg.blocks.isotree import cut_decode, leaf_tree, smooth_leaf_scores
from webseg.parse import parse

HTML = """<html><body><nav><a href="/">Home</a> <a href="/a">About</a> <a href="/b">Blog</a></nav>
<main><article><h1>Title</h1><p>First paragraph with <b>bold</b> words.</p>
<div><p>Second one.</p><p>Third one.</p></div></article>
<aside><ul><li><a href="/x">Related x</a></li><li><a href="/y">Related y</a></li></ul></aside>
</main><footer><p>Copyright</p></footer></body></html>"""


def random_ranges(rng: np.random.Generator, m: int, levels: int = 3) -> np.ndarray:
    """Ranges of a random laminar family over ``m`` leaves: a random tree of intervals, each
    leaf's ``levels`` nearest enclosing intervals."""
    def split(lo: int, hi: int, depth: int, out: list[tuple[int, int]]) -> None:
        out.append((lo, hi))
        if hi - lo <= 1 or depth > 4:
            return
        cuts = sorted(rng.choice(np.arange(lo + 1, hi), size=min(hi - lo - 1, 2),
                             replace=False).tolist())
        for a, b in zip([lo, *cuts], [*cuts, hi], strict=True):
            split(a, b, depth + 1, out)

    ivs: list[tuple[int, int]] = []
    split(0, m, 0, ivs)
    r = np.zeros((m, levels, 2), dtype=np.int64)
    for i in range(m):
        enc = sorted((iv for iv in ivs if iv[0] <= i < iv[1]), key=lambda iv: iv[1] - iv[0])
        enc = [iv for iv in enc if iv[1] - iv[0] > 1] or [(0, m)]
        for k in range(levels):
            r[i, k] = enc[min(k, len(enc) - 1)]
    return r


def brute_cut(s, chars, ranges, thr, c, penalty):
    """Exhaustive search over the dropped sets (downward closed) of the leaf tree."""
    parent, lo, hi = leaf_tree(ranges)
    n = len(parent)
    w = (np.asarray(chars, float) + 1) / (np.asarray(chars, float) + 1).sum()
    cw = np.concatenate([[0.0], np.cumsum(w)])
    share = cw[hi] - cw[lo]
    gamma = c / share if penalty == "share" else np.full(n, c)
    leaf_node = np.flatnonzero(hi - lo == 1)
    best, best_keep = -np.inf, None
    for bits in itertools.product([False, True], repeat=n):
        kept = np.array(bits)
        if any(kept[i] and not kept[parent[i]] for i in range(1, n)):
            continue  # a kept node under a dropped one: not isotonic
        if not kept[0]:
            val = 0.0
        else:
            heads = [i for i in range(1, n) if not kept[i] and kept[parent[i]]]
            val = float((w * (s - thr))[kept[leaf_node]].sum() - gamma[heads].sum())
        if val > best + 1e-12:
            best, best_keep = val, kept[leaf_node]
    return best, best_keep


def cut_value(keep, s, chars, ranges, thr, c, penalty):
    parent, lo, hi = leaf_tree(ranges)
    w = (np.asarray(chars, float) + 1) / (np.asarray(chars, float) + 1).sum()
    cw = np.concatenate([[0.0], np.cumsum(w)])
    share = cw[hi] - cw[lo]
    gamma = c / share if penalty == "share" else np.full(len(parent), c)
    leaf_node = np.flatnonzero(hi - lo == 1)
    if not keep.any():
        return 0.0
    # smallest dropped set consistent with keep: a node is kept when any leaf below it is
    kept = np.array([keep[lo[i]:hi[i]].any() for i in range(len(parent))])
    assert np.array_equal(kept[leaf_node], keep)
    heads = [i for i in range(1, len(parent)) if not kept[i] and kept[parent[i]]]
    return float((w * (s - thr))[keep].sum() - gamma[heads].sum())


def test_leaf_tree_of_a_real_page():
    lf = leaf_features(parse(HTML))
    parent, lo, hi = leaf_tree(lf.ranges)
    m = len(lf.leaves)
    assert parent[0] == -1 and lo[0] == 0 and hi[0] == m
    assert np.all(parent[1:] < np.arange(1, len(parent)))
    # every leaf is a node, in document order, nested in its parent's interval
    assert np.array_equal(lo[hi - lo == 1], np.arange(m))
    assert np.all(lo[parent[1:]] <= lo[1:]) and np.all(hi[1:] <= hi[parent[1:]])
    # every context range is a node
    nodes = set(zip(lo.tolist(), hi.tolist(), strict=True))
    for i in range(m):
        for a, b in lf.ranges[i]:
            assert (int(a), max(int(b), int(a) + 1)) in nodes


def test_leaf_tree_rejects_crossing_ranges():
    r = np.array([[[0, 2]], [[1, 3]], [[1, 3]]])
    with pytest.raises(ValueError, match="overlap"):
        leaf_tree(r)


def test_smoothing_identity_at_zero_and_one_section_at_large_c():
    rng = np.random.default_rng(0)
    r = random_ranges(rng, 12)
    s = rng.random(12)
    chars = rng.integers(1, 50, 12)
    np.testing.assert_array_equal(smooth_leaf_scores(s, chars, r, 0.0), s)
    x = smooth_leaf_scores(s, chars, r, 1e6, "const")
    assert np.ptp(x) == 0  # one section
    with pytest.raises(ValueError):
        smooth_leaf_scores(s, chars, r, -1.0)
    with pytest.raises(ValueError):
        smooth_leaf_scores(s, chars, r, 0.1, "nope")


@pytest.mark.parametrize("seed", range(6))
def test_smoothing_is_tree_consistent(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 30))
    r = random_ranges(rng, m)
    s = rng.random(m)
    x = smooth_leaf_scores(s, rng.integers(1, 50, m), r, 1e-3, "share")
    assert x.shape == (m,) and np.all((x >= 0) & (x <= 1))
    # a section is a subtree: inside any tree node, leaves scoring at most the node's lowest
    # ... equivalently, two leaves with different scores never share a section; check the
    # isotonic property on the leaves: in every node, the minimal-score (most boilerplate)
    # value is reached by a whole child subtree or by the node being one section
    # L1 isotonic regression: every leaf takes the (floored) score of some leaf of the page
    grid = set((np.floor(s * 100 + 1e-9) / 100).round(2).tolist()) | {1.0}
    assert set(x.round(2).tolist()) <= grid
    # sections only merge as c grows: the number of distinct scores does not increase
    sizes = [len(np.unique(smooth_leaf_scores(s, np.ones(m), r, c, "const")))
             for c in (0.0, 1e-3, 1e-2, 1e-1, 1e6)]
    assert sizes[-1] == 1 and sizes[0] >= sizes[-1]


@pytest.mark.parametrize("seed", range(25))
def test_cut_decode_is_optimal(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 8))
    r = random_ranges(rng, m, levels=2)
    # <= 7 leaves over 2 levels keep the tree small enough for the exhaustive search
    assert len(leaf_tree(r)[0]) <= 13, "tree too large for exhaustive search"
    s = rng.random(m)
    chars = rng.integers(0, 40, m)
    thr = float(rng.choice([0.3, 0.5]))
    c = float(rng.choice([1e-3, 1e-2, 0.05]))
    pen = str(rng.choice(["share", "const"]))
    keep = cut_decode(s, chars, r, thr, c, pen)
    best, _ = brute_cut(s, chars, r, thr, c, pen)
    assert cut_value(keep, s, chars, r, thr, c, pen) == pytest.approx(max(best, 0.0), abs=1e-9)


def test_cut_decode_zero_c_is_thresholding_and_large_c_keeps_regions():
    rng = np.random.default_rng(3)
    r = random_ranges(rng, 20)
    s = rng.random(20)
    chars = rng.integers(1, 30, 20)
    np.testing.assert_array_equal(cut_decode(s, chars, r, 0.5, 0.0), s >= 0.5)
    # with an enormous penalty no section can be cut out: all or nothing
    k = cut_decode(s, chars, r, 0.5, 1e9, "const")
    assert k.all() or not k.any()
    assert cut_decode(np.zeros(0), np.zeros(0), np.zeros((0, 2, 2)), 0.5, 0.1).shape == (0,)


def test_choose_tree_decision_smooths_when_it_pays():
    from webseg.blocks.train import PageTable, choose_decision, choose_tree_decision

    # one page: leaves 0-2 form a block (the gold), leaf 3 is boilerplate; leaf 1 (short) of
    # the block scores just below every threshold, so thresholding cannot keep the whole block
    m = 4
    ranges = np.zeros((m, 8, 2), np.int32)
    ranges[:3] = (0, 3)
    ranges[3] = (3, 4)
    t = PageTable(X=np.zeros((m, 1)), y=np.array([1, 1, 1, 0], np.int8), words=np.ones(m),
                  chars=np.array([30.0, 0, 30, 60]), ranges=ranges, off=np.array([0, m]),
                  meta=[{"id": "a", "site": "a", "dataset": "d"}],
                  tok_ids=[np.arange(m, dtype=np.int32)], tok_off=[np.arange(m + 1)],
                  gold_counts=[np.array([1, 1, 1, 0], np.int32)],
                  gold_unmatched=np.zeros(1, np.int64))
    s = np.array([0.3, 0.24, 0.3, 0.2])
    assert choose_decision(t, np.array([0]), s)[2] < 1.0
    trees = {0: leaf_tree(ranges)}
    d = choose_tree_decision(t, np.array([0]), s, "cut", trees)
    assert d["f1"] == 1.0 and d["c"] > 0
    d = choose_tree_decision(t, np.array([0]), s, "isotonic", trees)
    assert d["f1"] == 1.0 and d["c"] > 0
    # already perfect by thresholding: the tie goes to c = 0 (plain thresholding)
    d = choose_tree_decision(t, np.array([0]), np.array([0.9, 0.8, 0.8, 0.1]), "cut", trees)
    assert d["f1"] == 1.0 and d["c"] == 0


def test_shipped_model_decoders_and_cli(tmp_path):
    from click.testing import CliRunner

    from webseg.blocks import block_functions
    from webseg.blocks.gbt import read_model_json
    from webseg.blocks.model import DECODERS, DEFAULT_MODEL, BlockModel, decide, tree_decision
    from webseg.cli import main

    page = parse(HTML)
    d = read_model_json(DEFAULT_MODEL)
    assert set(d["tree_decoders"]) == {"isotonic", "cut", "isotonic-s1"}
    m = BlockModel(d)
    for dec in DECODERS:
        bf = block_functions(page, model=m, decoder=dec)
        assert bf.keep.shape == (page.n,)
    # the decoder changes the decision as the model's choice says it should
    lf = leaf_features(page)
    s = m.raw_scores(lf, "cut")
    cd = m.tree["cut"]
    np.testing.assert_array_equal(m.decode(lf, "cut")[1], tree_decision(
        "cut", s, lf.chars, lf.ranges, cd["c"], cd["penalty"], cd["threshold"], cd["fallback"]))
    np.testing.assert_array_equal(m.decode(lf, "stack")[1], decide(s, m.threshold, m.fallback))
    # a model trained without tree decoders refuses them with a clear error
    old = BlockModel({k: v for k, v in d.items() if k != "tree_decoders"})
    with pytest.raises(ValueError, match="no 'cut' decoder"):
        old.decode(lf, "cut")
    f = tmp_path / "p.html"
    f.write_text(HTML, encoding="utf-8")
    run = CliRunner().invoke
    r = run(main, ["clean", str(f), "--no-render", "--decoder", "cut"])
    assert r.exit_code == 0, r.output
    assert run(main, ["clean", str(f), "--no-render", "--decoder", "nope"]).exit_code == 2
    assert run(main, ["clean", str(f), "-m", "pagelevel", "--decoder", "cut"]).exit_code == 2
