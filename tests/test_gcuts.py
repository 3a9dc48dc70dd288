"""GCuts segmenter: features, shipped model, valid segmentations on hand-built pages."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import sample_page, tree_page
from webseg.graphseg.features import (
    NODE_FEATURES,
    PAIR_FEATURES,
    content_tree,
    leaf_adjacency,
    node_attrs,
    node_features,
    pair_features,
)
from webseg.graphseg.model import GCutsModel, select_labels
from webseg.graphseg.segments import maximal_pure_roots
from webseg.segmentation import UNASSIGNED
from webseg.segmenters import available, get_segmenter


def two_column_page():
    """body > [div#nav > 3 links, div#main > (h1 > text, p > text, p > text)] side by side."""
    spec = [(-1, "html", ""), (0, "body", ""),
            (1, "div", ""), (2, "a", ""), (3, "#text", "Home"), (2, "a", ""),
            (5, "#text", "About"), (2, "a", ""), (7, "#text", "Contact"),
            (1, "div", ""), (9, "h1", ""), (10, "#text", "A title"), (9, "p", ""),
            (12, "#text", "First paragraph. It has sentences."), (9, "p", ""),
            (14, "#text", "Second paragraph of the article text.")]
    boxes = [(0, 0, 1280, 800), (0, 0, 1280, 800),
             (0, 0, 200, 90), (0, 0, 200, 30), (0, 0, 60, 20), (0, 30, 200, 30),
             (0, 30, 60, 20), (0, 60, 200, 30), (0, 60, 70, 20),
             (300, 0, 900, 400), (300, 0, 900, 60), (300, 0, 300, 50), (300, 80, 900, 100),
             (300, 80, 800, 90), (300, 200, 900, 100), (300, 200, 800, 90)]
    n = len(spec)
    bg = [(255, 255, 255)] * n
    for i in range(2, 9):
        bg[i] = (20, 40, 120)
    fs = [16.0] * n
    fs[10] = fs[11] = 32.0
    return tree_page(spec, boxes, bg=bg, font_size=fs, width=1280.0, height=800.0)


def test_content_tree_is_the_text_bearing_dom():
    page = sample_page()
    t = content_tree(page)
    assert t is not None
    assert page.tag[t.nodes[0]] == "html"
    assert t.nodes[t.leaves].tolist() == page.text_leaves.tolist()
    assert 1 not in t.nodes  # <head> holds no visible text
    for i in range(1, t.n):  # pre-order, parents first, subtree ranges consistent
        assert 0 <= t.parent[i] < i and t.end[t.parent[i]] >= t.end[i]
    lca = t.lca(np.array([t.leaves[0]]), np.array([t.leaves[1]]))
    assert page.tag[t.nodes[lca[0]]] == "div"


def test_features_are_finite_and_named():
    page = two_column_page()
    t = content_tree(page)
    a = node_attrs(t)
    X = node_features(t, a)
    assert X.shape == (t.n, len(NODE_FEATURES)) and np.isfinite(X).all()
    e = leaf_adjacency(t, a, k=2)
    assert len(e) and (e[:, 0] < e[:, 1]).all() and t.is_leaf[e].all()
    F = pair_features(t, a, e[:, 0], e[:, 1])
    assert F.shape == (len(e), len(PAIR_FEATURES)) and np.isfinite(F).all() and (F >= 0).all()
    # a nav link and its neighbouring link are closer in every visual sense than link vs h1
    home, about, title = (int(np.searchsorted(t.nodes, i)) for i in (4, 6, 11))
    near = pair_features(t, a, np.array([home]), np.array([about]))[0]
    far = pair_features(t, a, np.array([home]), np.array([title]))[0]
    assert near.sum() < far.sum()


def test_maximal_pure_roots():
    page = two_column_page()
    t = content_tree(page)
    roots, lab = maximal_pure_roots(t, np.array([0, 0, 0, 1, 1, 1]))
    assert sorted(page.tag[t.nodes[r]] for r in roots) == ["div", "div"]
    roots, lab = maximal_pure_roots(t, np.array([0, 0, 1, 1, 1, 1]))
    assert len(roots) == 4 and sorted(lab.tolist()) == [0, 0, 1, 1]


def test_registered_variants():
    assert {"gcuts", "gcuts-np", "gcuts-nl"} <= set(available())
    assert get_segmenter("gcuts-np").parent_child is False
    assert get_segmenter("gcuts-nl").learned is False


def test_shipped_model_loads():
    m = GCutsModel.load()
    d = len(NODE_FEATURES)
    assert m.metric.shape == (d, d) and np.isfinite(m.metric).all()
    assert m.d_scale > 0 and m.d_scale_euclidean > 0
    assert set(m.lam) >= {"gcuts", "gcuts-np", "gcuts-nl"}


@pytest.mark.parametrize("name", ["gcuts", "gcuts-np", "gcuts-nl"])
def test_segments_are_valid_and_cover_every_leaf(name):
    page = two_column_page()
    seg = get_segmenter(name).segment(page)
    labels = seg.leaf_labels()
    assert UNASSIGNED not in labels.tolist()
    covered = set()
    for s in seg:
        for r in s.nodes:
            leaves = [x for x in page.text_leaves if r <= x < page.subtree_end[r]]
            assert leaves, "every segment root holds text"
            assert not covered & set(leaves), "segments do not overlap"
            covered |= set(leaves)
    assert covered == set(page.text_leaves.tolist())
    assert seg.params["converged"]


def test_extreme_lambdas():
    page = two_column_page()
    seg = get_segmenter("gcuts", lam=1e4).segment(page)
    assert len(seg) == 1  # pairwise costs dominate: one segment
    few = len(get_segmenter("gcuts", lam=1.0).segment(page))
    many = len(get_segmenter("gcuts", lam=1e-4).segment(page))
    assert many >= few


def test_label_cap_uses_farthest_points():
    Z = np.array([[0.0], [0.1], [5.0], [10.0], [10.1]])
    internal = np.arange(5)
    assert select_labels(Z, internal, None).tolist() == [0, 1, 2, 3, 4]
    assert select_labels(Z, internal, 3).tolist() == [0, 2, 4]


def test_page_without_text():
    page = tree_page([(-1, "html", ""), (0, "body", "")])
    assert len(get_segmenter("gcuts").segment(page)) == 0
    assert len(get_segmenter("cclus").segment(page)) == 0


def test_fit_save_load_round_trip(tmp_path):
    """Training runs end to end on tiny pages and the JSON model reloads to the same costs."""
    page = two_column_page()
    gold = np.array([0, 0, 0, 1, 1, 1])
    seg = get_segmenter("gcuts", lam=1.0).fit([page, page], [gold, gold],
                                               lmnn={"max_iter": 20, "rounds": 1})
    path = tmp_path / "gcuts.json"
    seg.save(path)
    again = get_segmenter("gcuts", lam=1.0, model=str(path))
    a, b = seg.prepare(page), again.prepare(page)
    assert np.allclose(a.D, b.D, atol=1e-6) and np.allclose(a.w, b.w) and np.allclose(a.v, b.v)
    assert seg.segment(page).leaf_labels().tolist() == again.segment(page).leaf_labels().tolist()
    with pytest.raises(ValueError, match="not a GCuts model"):
        GCutsModel.load(tmp_path / "nope.json") if (tmp_path / "nope.json").write_text(
            '{"schema": "x"}') else None


def reference_to_two_level(page, tree, l1, l2):
    """``to_two_level`` as before its speed-up: both refinement levels built in full."""
    from webseg.graphseg.segments import refine, to_segmentation
    from webseg.segmentation import Segment, Segmentation

    s1 = to_segmentation(page, tree, l1, "x", {})
    s2 = to_segmentation(page, tree, refine(l1, l2), "x", {})
    top_of_leaf, fine_of_leaf = s1.leaf_labels(), s2.leaf_labels()
    segs = [Segment(s.id, s.nodes, None, s.box, s.text, attrs=dict(s.attrs)) for s in s1]
    kids: dict[int, list[int]] = {}
    for f in np.unique(fine_of_leaf[fine_of_leaf >= 0]).tolist():
        kids.setdefault(int(top_of_leaf[np.flatnonzero(fine_of_leaf == f)[0]]), []).append(f)
    for t, fs in kids.items():
        if len(fs) >= 2:
            for f in fs:
                s = s2.segments[f]
                segs.append(Segment(len(segs), s.nodes, t, s.box, s.text, attrs=dict(s.attrs)))
    return Segmentation(page, segs, "x", {})


@pytest.mark.parametrize("make_page", [sample_page, two_column_page])
def test_to_two_level_is_the_full_construction(make_page):
    """Random labellings: same segments (ids, nodes, parents, boxes, text) as the reference."""
    from webseg.graphseg.segments import to_two_level

    page = make_page()
    tree = content_tree(page)
    rng = np.random.default_rng(1)
    m = len(tree.leaves)
    for _ in range(200):
        l1 = rng.integers(0, rng.integers(1, 4), m) * 7
        l2 = rng.integers(0, rng.integers(1, 5), m) - 1
        got = to_two_level(page, tree, l1, l2, "x", {})
        ref = reference_to_two_level(page, tree, l1, l2)
        assert [s.to_dict() for s in got] == [s.to_dict() for s in ref]
