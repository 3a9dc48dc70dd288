"""Per-page level-1 selector (webseg.select): first-split cuts, ARI, model file, segmenter."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_gcuts import two_column_page
from tests.test_treecut import random_pages
from webseg.graphseg.features import content_tree
from webseg.graphseg.segments import refine
from webseg.metrics import adjusted_rand_index
from webseg.segmenters import get_segmenter
from webseg.select import (
    PAGE_FEATURES,
    SPLIT_WS,
    WHOLE_RULES,
    SelectModel,
    ari,
    candidate_labels,
    candidate_names,
    feature_names,
    keep_whole,
    page_features,
    segment,
    split_cuts,
    split_margin,
    whole_features,
)
from webseg.treecut import base_labels, best_cut, fit, prepare


@settings(max_examples=50, deadline=None)
@given(random_pages(), st.integers(0, 2**31 - 1))
def test_first_split_is_the_coarsest_non_trivial_cut(page, seed):
    tree = content_tree(page)
    nl = (tree.leaf_hi - tree.leaf_lo).astype(float)
    pairs = nl * (nl - 1) / 2
    q = np.random.default_rng(seed).uniform(size=tree.n)
    cuts, w = split_cuts(tree, pairs, q, steps=(0, 2))
    if not np.isfinite(w):  # never splits: every w of the grid keeps the page whole
        assert cuts == {}
        assert all(len(best_cut(tree, pairs * (q * (1 + x) - x))) == 1 for x in SPLIT_WS)
        return
    assert len(cuts[0]) >= 2 and w in SPLIT_WS
    for x in SPLIT_WS[:SPLIT_WS.index(w)]:
        assert len(best_cut(tree, pairs * (q * (1 + x) - x))) == 1
    for c in cuts.values():  # every candidate is a cut: each leaf under exactly one node
        cover = np.zeros(len(tree.leaves), dtype=int)
        for v in c:
            cover[tree.leaf_lo[v]:tree.leaf_hi[v]] += 1
        assert (cover == 1).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 3), st.integers(-1, 4)), min_size=2, max_size=40))
def test_ari_matches_the_scoring_metric(pairs):
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    assert ari(a, b) == pytest.approx(adjusted_rand_index(a, b), abs=1e-9)


def _treecut_model(page):
    prep = prepare(page)
    gold1 = np.array([0, 0, 0, 1, 1, 1])
    gold2 = np.array([0, 0, 0, 1, 2, 2])
    return fit([prep, prep], {1: [gold1, gold1], 2: [gold2, gold2]}, {1: 1.0, 2: 1.0})


def test_model_roundtrip_and_bad_files(tmp_path):
    names = candidate_names()
    m = SelectModel("fixed", names, "split+0", info={"x": 1})
    m.save(tmp_path / "s.json")
    m2 = SelectModel.load(tmp_path / "s.json")
    assert (m2.kind, m2.choice, m2.candidates) == ("fixed", "split+0", names)
    d = json.loads((tmp_path / "s.json").read_text())
    d["split_ws"] = d["split_ws"][:-1]
    (tmp_path / "bad.json").write_text(json.dumps(d))
    with pytest.raises(ValueError, match="retrain"):
        SelectModel.load(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="not a candidate"):
        SelectModel("fixed", names, "nope")
    with pytest.raises(ValueError, match="unknown selector kind"):
        SelectModel("gbr", names, "vips1")
    with pytest.raises(FileNotFoundError, match="eval.select_whole"):
        SelectModel.load(tmp_path / "missing.json")


def test_segmenter_follows_its_choice():
    page = two_column_page()
    tc = _treecut_model(page)
    bases = base_labels(page)
    prep = prepare(page, bases)
    cands, cuts, _ = candidate_labels(prep.tree, prep.pairs, tc.q[1].predict(prep.X), bases)
    names = candidate_names()
    seg = segment(page, SelectModel("fixed", names, "split+0"), tc)
    l1, l2 = seg.leaf_labels(1), seg.leaf_labels(2)
    assert seg.params["choice"] == "split+0" and len(np.unique(l1)) >= 2
    assert len(np.unique(refine(cands["split+0"], l1))) == len(np.unique(l1))
    assert len(np.unique(refine(l1, l2))) == len(np.unique(l2))  # level 2 nests
    v = segment(page, SelectModel("fixed", names, "vips1"), tc)
    ref = get_segmenter("vips").segment(page)
    assert v.params["choice"] == "vips1"
    assert v.leaf_labels(1).tolist() == ref.leaf_labels(1).tolist()


def test_ridge_selector_picks_the_highest_prediction():
    page = two_column_page()
    tc = _treecut_model(page)
    names = candidate_names()
    feats = feature_names(names)
    coef = np.zeros(len(feats))
    coef[feats.index("is_dom1")] = 1.0
    ridge = {"mean": [0.0] * len(feats), "scale": [1.0] * len(feats), "coef": coef.tolist(),
             "intercept": 0.0, "interact": False}
    seg = segment(page, SelectModel("ridge", names, ridge=ridge), tc)
    assert seg.params["choice"] == "dom1"
    bases = base_labels(page)
    prep = prepare(page, bases)
    q1 = tc.q[1].predict(prep.X)
    cands, _, w = candidate_labels(prep.tree, prep.pairs, q1, bases)
    X = page_features(cands, bases, prep.tree, q1, w)
    assert X.shape == (len(names), len(feats)) and np.isfinite(X).all()


def test_shipped_selector_loads_and_is_registered():
    seg = get_segmenter("select")
    m = seg.get_model()
    assert m.candidates == candidate_names() and m.kind in ("fixed", "ridge")
    out = seg.segment(two_column_page())
    assert (out.leaf_labels(1) >= 0).all() and out.algorithm == "select"


@pytest.mark.parametrize("inter", [False, True])
def test_shipped_ridge_picks_as_the_evaluated_one(inter):
    """The JSON ridge selector (webseg.select) chooses what eval.select_l1's fitted one does."""
    from eval.select_l1 import fit_ridge

    page = two_column_page()
    tc = _treecut_model(page)
    names = candidate_names()
    feats = feature_names(names)
    bases = base_labels(page)
    prep = prepare(page, bases)
    q1 = tc.q[1].predict(prep.X)
    cands, _, w = candidate_labels(prep.tree, prep.pairs, q1, bases)
    X = page_features(cands, bases, prep.tree, q1, w)
    rng = np.random.default_rng(0)
    Xs = [X + rng.normal(scale=0.1, size=X.shape) for _ in range(6)]
    ys = [rng.uniform(size=len(names)) for _ in range(6)]
    meta = {"n_cands": len(names), "n_page": len(PAGE_FEATURES),
            "page_lo": feats.index(PAGE_FEATURES[0])}
    sel = fit_ridge(Xs, ys, 1.0, inter, meta)
    model = SelectModel("ridge", names, ridge=sel.params)
    for Z in Xs:
        assert np.allclose(model.scores(Z), sel(Z))
    assert model.pick(cands, bases, prep.tree, q1, w) == names[int(np.argmax(sel(X)))]



# ---------------------------------------------------------------------- keep the page whole
@settings(max_examples=60, deadline=None)
@given(random_pages(), st.integers(0, 2**31 - 1), st.floats(0.05, 8.0))
def test_split_margin_is_positive_iff_the_cut_splits_the_root(page, seed, w):
    tree = content_tree(page)
    nl = (tree.leaf_hi - tree.leaf_lo).astype(float)
    pairs = nl * (nl - 1) / 2
    q = np.random.default_rng(seed).uniform(size=tree.n)
    gain = pairs * (q * (1 + w) - w)
    m = split_margin(tree, gain)
    cut = best_cut(tree, gain)
    if abs(m) > 1e-9:
        assert (m > 0) == (len(cut) >= 2 or not np.array_equal(cut, [0]))


def test_keep_whole_rules():
    f = {"log_w": 1.0, "margin": 0.2, "vips_whole": 0.0}
    assert not any(keep_whole(r, None, f) for r in WHOLE_RULES)
    assert keep_whole("wsplit", 1.0, f) and not keep_whole("wsplit", 1.5, f)
    assert keep_whole("margin", -0.2, f) and not keep_whole("margin", -0.1, f)
    v = dict(f, vips_whole=1.0)
    assert keep_whole("vips", None, v) and keep_whole("vips|wsplit", 5.0, v)
    assert not keep_whole("none", -np.inf, v)
    with pytest.raises(ValueError, match="keep-whole"):
        keep_whole("bogus", None, f)
    with pytest.raises(ValueError, match="keep-whole"):
        SelectModel("fixed", candidate_names(), "split+0", whole="bogus")


def test_model_roundtrip_keeps_whole_rule_and_own_q(tmp_path):
    page = two_column_page()
    tc = _treecut_model(page)
    m = SelectModel("fixed", candidate_names(), "split+0", whole="vips|wsplit", whole_t=1.5,
                    q1=tc.q[2].to_dict())
    m.save(tmp_path / "s.json")
    m2 = SelectModel.load(tmp_path / "s.json")
    assert (m2.whole, m2.whole_t) == ("vips|wsplit", 1.5)
    X = prepare(page).X
    assert np.allclose(m2.q_model(tc).predict(X), tc.q[2].predict(X))
    assert np.allclose(SelectModel("fixed", candidate_names(), "split+0").q_model(tc).predict(X),
                       tc.q[1].predict(X))


def test_whole_page_keeps_level_two_of_the_split():
    page = two_column_page()
    tc = _treecut_model(page)
    names = candidate_names()
    split = segment(page, SelectModel("fixed", names, "split+0"), tc)
    whole = segment(page, SelectModel("fixed", names, "split+0", whole="wsplit", whole_t=-1e9),
                    tc)
    assert whole.params["whole"] and not split.params["whole"]
    assert len(np.unique(whole.leaf_labels(1))) == 1
    assert ari(whole.leaf_labels(2), split.leaf_labels(2)) == pytest.approx(1.0)
    # a rule that does not fire changes nothing
    same = segment(page, SelectModel("fixed", names, "split+0", whole="wsplit", whole_t=1e9), tc)
    assert same.leaf_labels(1).tolist() == split.leaf_labels(1).tolist()
    bases = base_labels(page)
    prep = prepare(page, bases)
    q1 = tc.q[1].predict(prep.X)
    _, _, w = candidate_labels(prep.tree, prep.pairs, q1, bases)
    f = whole_features(prep.tree, prep.pairs, q1, w, bases["vips1"])
    assert set(f) == {"log_w", "margin", "vips_whole"} and np.isfinite(list(f.values())).all()


def test_sep_targets_mark_nodes_the_gold_separates():
    from eval.select_whole import q_targets
    from webseg.treecut import pair_stats

    page = two_column_page()
    tree = prepare(page).tree
    gold = np.array([0, 0, 0, 1, 1, 1])
    pairs, same, _ = pair_stats(tree, gold)
    pairs, same = pairs.astype(float), same.astype(float)
    p, s = q_targets(tree, pairs, same, "sep")
    assert np.array_equal(p, pairs)
    assert s[0] == 0 and np.all((s == 0) | (s == p))  # the root mixes both blocks
    pt, st_ = q_targets(tree, pairs, same, "sep-top")
    keep = pt > 0
    assert keep[0] and np.all(st_[keep] == np.where(same >= pairs, pairs, 0)[keep])
    for v in range(1, tree.n):  # only the root and children of separated nodes train
        if pairs[v] > 0 and same[tree.parent[v]] >= pairs[tree.parent[v]]:
            assert not keep[v]
