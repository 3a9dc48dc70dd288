"""Tree cut (webseg.treecut): exact DP against brute force, oracle, model, segmenter, nesting."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import tree_page
from tests.test_gcuts import two_column_page
from webseg.graphseg.features import content_tree
from webseg.graphseg.segments import refine, to_two_level
from webseg.treecut import (
    TreeCutModel,
    best_cut,
    cut_labels,
    fit,
    oracle_gain,
    pair_stats,
    prepare,
    segment,
)


@st.composite
def random_pages(draw: st.DrawFn):
    """html > body > random pre-order tree of divs and text leaves (at least one text)."""
    spec = [(-1, "html", ""), (0, "body", "")]
    path = [0, 1]  # open elements on the rightmost path
    n = draw(st.integers(1, 10))
    for k in range(n):
        depth = draw(st.integers(1, len(path) - 1))
        path = path[:depth + 1]
        is_text = draw(st.booleans()) or k == n - 1
        spec.append((path[-1], "#text" if is_text else "div", f"w{k}" if is_text else ""))
        if not is_text:
            path.append(len(spec) - 1)
    return tree_page(spec)


def all_cuts(tree, v: int):
    if tree.is_leaf[v]:
        yield [v]
        return
    yield [v]
    kids = [u for u in range(v + 1, tree.end[v]) if tree.parent[u] == v]
    for combo in itertools.product(*(list(all_cuts(tree, u)) for u in kids)):
        yield [x for c in combo for x in c]


@settings(max_examples=60, deadline=None)
@given(random_pages(), st.integers(0, 2**31 - 1))
def test_best_cut_is_exact_and_covers_every_leaf_once(page, seed):
    tree = content_tree(page)
    assert tree is not None
    rng = np.random.default_rng(seed)
    gain = rng.normal(size=tree.n)
    cut = best_cut(tree, gain)
    g = np.where(tree.is_leaf, 0.0, gain)
    lab = cut_labels(tree, cut)
    assert (lab >= 0).all()
    cover = np.zeros(len(tree.leaves), dtype=int)
    for v in cut:
        cover[tree.leaf_lo[v]:tree.leaf_hi[v]] += 1
    assert (cover == 1).all()
    best = max(sum(g[v] for v in c) for c in all_cuts(tree, 0))
    assert abs(g[cut].sum() - best) < 1e-9


@settings(max_examples=40, deadline=None)
@given(random_pages(), st.integers(0, 2**31 - 1))
def test_oracle_recovers_a_cut_used_as_gold(page, seed):
    tree = content_tree(page)
    cuts = list(itertools.islice(all_cuts(tree, 0), 50))
    gold_cut = cuts[np.random.default_rng(seed).integers(len(cuts))]
    gold = cut_labels(tree, np.array(sorted(gold_cut)))
    got = cut_labels(tree, best_cut(tree, oracle_gain(tree, gold, 1.0)))
    assert len(np.unique(refine(gold, got))) == len(np.unique(gold)) == len(np.unique(got))


def test_pair_stats_by_hand():
    page = two_column_page()
    tree = content_tree(page)
    pairs, same, cross = pair_stats(tree, np.array([0, 0, 1, 1, 1, 2]))
    root = 0
    assert pairs[root] == 15 and same[root] == 1 + 3 and cross[root] == 0
    # the nav div holds leaves 0-2 (labels 0, 0, 1): one same pair, label 1 crosses out
    v = [u for u in range(tree.n) if tree.leaf_lo[u] == 0 and tree.leaf_hi[u] == 3][0]
    assert (pairs[v], same[v], cross[v]) == (3, 1, 1)


def test_model_roundtrip_and_two_level_segmenter(tmp_path):
    page = two_column_page()
    prep = prepare(page)
    assert prep is not None
    gold1 = np.array([0, 0, 0, 1, 1, 1])
    gold2 = np.array([0, 0, 0, 1, 2, 2])
    model = fit([prep, prep], {1: [gold1, gold1], 2: [gold2, gold2]}, {1: 1.0, 2: 1.0})
    model.save(tmp_path / "m.json")
    m2 = TreeCutModel.load(tmp_path / "m.json")
    assert np.allclose(m2.q[1].coef, model.q[1].coef) and m2.w == model.w
    seg = segment(page, m2)
    l1, l2 = seg.leaf_labels(1), seg.leaf_labels(2)
    assert (l1 >= 0).all()
    # level 2 refines level 1
    assert len(np.unique(refine(l1, l2))) == len(np.unique(l2))


def test_to_two_level_nests_and_keeps_unsplit_segments_childless():
    page = two_column_page()
    tree = content_tree(page)
    l1 = np.array([0, 0, 0, 1, 1, 1])
    l2 = np.array([5, 5, 5, 6, 7, 7])
    seg = to_two_level(page, tree, l1, l2, "x", {})
    assert len(np.unique(seg.leaf_labels(1))) == 2
    assert len(np.unique(seg.leaf_labels(2))) == 3
    top = [s for s in seg.segments if s.parent is None]
    kids = [s for s in seg.segments if s.parent is not None]
    assert len(top) == 2 and len(kids) == 2  # the nav is not split: no children
