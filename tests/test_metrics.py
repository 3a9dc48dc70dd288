"""Tests of webseg.metrics: hand-computed cases, sklearn agreement and brute-force references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from webseg import metrics
from webseg.metrics import (
    PRF,
    adjusted_rand_index,
    bcubed,
    contingency,
    extended_bcubed,
    normalized_mutual_info,
    resolve_unassigned,
    segmentation_scores,
    template_prf,
    template_scores,
)
from webseg.page import ELEMENT, TEXT, Page
from webseg.segmentation import UNASSIGNED, Segment, Segmentation

approx = pytest.approx


def assert_prf(got: PRF, p: float, r: float, f: float) -> None:
    assert (got.precision, got.recall, got.f1) == approx((p, r, f), abs=1e-12)


# ------------------------------------------------------------------------- reference versions
def bcubed_brute(t, p, w=None) -> tuple[float, float]:
    """Per-atom definition, loops over atoms (Amigo et al. 2009, weighted)."""
    t, p = np.asarray(t), np.asarray(p)
    w = np.ones(len(t)) if w is None else np.asarray(w, float)
    prec, rec = [], []
    for i in range(len(t)):
        c, g = p == p[i], t == t[i]
        prec.append(w[c & g].sum() / w[c].sum() if w[c].sum() else 0.0)
        rec.append(w[c & g].sum() / w[g].sum() if w[g].sum() else 0.0)
    return float(np.dot(w, prec) / w.sum()), float(np.dot(w, rec) / w.sum())


def extended_brute(true_sets, pred_sets, w=None) -> tuple[float, float]:
    """Extended BCubed straight from the definition (empty sets = private clusters)."""
    n = len(true_sets)
    ts = [set(s) or {("private", i)} for i, s in enumerate(true_sets)]
    ps = [set(s) or {("private", i)} for i, s in enumerate(pred_sets)]
    w = np.ones(n) if w is None else np.asarray(w, float)
    prec, rec = np.zeros(n), np.zeros(n)
    for i in range(n):
        num_p = den_p = num_r = den_r = 0.0
        for j in range(n):
            c, g = len(ps[i] & ps[j]), len(ts[i] & ts[j])
            if c:
                num_p += w[j] * min(c, g) / c
                den_p += w[j]
            if g:
                num_r += w[j] * min(c, g) / g
                den_r += w[j]
        prec[i] = num_p / den_p if den_p else 0.0
        rec[i] = num_r / den_r if den_r else 0.0
    return float(w @ prec / w.sum()), float(w @ rec / w.sum())


labelings = st.integers(1, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-1, max(1, n // 3)), min_size=n, max_size=n),
        st.lists(st.integers(-1, max(1, n // 2)), min_size=n, max_size=n),
    ))


# ------------------------------------------------------------------------- unassigned handling
def test_resolve_unassigned_modes():
    lab = [2, -1, 0, -1]
    assert resolve_unassigned(lab).tolist() == [2, 3, 0, 3]
    assert resolve_unassigned(lab, "background").tolist() == [2, 3, 0, 3]
    assert resolve_unassigned(lab, "singleton").tolist() == [2, 3, 0, 4]
    assert resolve_unassigned([-1, -1, -1], "background").tolist() == [0, 0, 0]
    assert resolve_unassigned([-1, -1, -1], "singleton").tolist() == [0, 1, 2]
    assert resolve_unassigned([5, 1]).tolist() == [5, 1]
    assert resolve_unassigned([]).tolist() == []
    with pytest.raises(ValueError):
        resolve_unassigned(lab, "ignore")


def test_unassigned_modes_in_bcubed():
    true = [0, 0, 1, 1]
    pred = [UNASSIGNED] * 4
    # background: the four atoms are one predicted cluster.
    #   precision_i = 2/4 for everybody -> P = 0.5; recall_i = 2/2 -> R = 1; F = 2/3
    assert_prf(bcubed(true, pred), 0.5, 1.0, 2 / 3)
    # singleton: every atom alone -> P = 1; recall_i = 1/2 -> R = 0.5; F = 2/3
    assert_prf(bcubed(true, pred, unassigned="singleton"), 1.0, 0.5, 2 / 3)
    # the mode applies to the true labelling too
    assert_prf(bcubed(pred, true), 1.0, 0.5, 2 / 3)
    assert_prf(bcubed(pred, true, unassigned="singleton"), 0.5, 1.0, 2 / 3)
    with pytest.raises(ValueError):
        bcubed(true, pred, unassigned="drop")


def test_unassigned_modes_in_ari_nmi():
    true = [0, 0, -1, -1]
    pred = [0, 0, 1, 1]
    # background: -1 -1 are one cluster, the partitions are identical
    assert adjusted_rand_index(true, pred) == 1.0
    assert normalized_mutual_info(true, pred) == approx(1.0)
    # singleton: true = {0,1},{2},{3}; pred = {0,1},{2,3}
    #   index = 1, a = 1, b = 2, C(4,2) = 6 -> expected = 1/3, max = 1.5
    #   ARI = (1 - 1/3) / (1.5 - 1/3) = (2/3) / (7/6) = 4/7
    assert adjusted_rand_index(true, pred, unassigned="singleton") == approx(4 / 7)
    assert adjusted_rand_index(true, pred, unassigned="singleton") == approx(
        adjusted_rand_score([0, 0, 2, 3], pred), abs=1e-12)


# ------------------------------------------------------------------------- contingency
def test_contingency_counts_and_weights():
    t = [0, 0, 1, 1, 1]
    p = [5, 7, 7, 7, 5]
    c = contingency(t, p)
    assert c.dtype == np.int64
    assert c.toarray().tolist() == [[1, 1], [1, 2]]
    cw = contingency(t, p, weights=[1.0, 2.0, 3.0, 4.0, 0.5])
    assert cw.toarray() == approx(np.array([[1.0, 2.0], [0.5, 7.0]]))
    assert contingency([], []).shape == (0, 0)
    with pytest.raises(ValueError):
        contingency([0, 1], [0])
    with pytest.raises(ValueError):
        contingency([0, 1], [0, 1], weights=[1.0, -1.0])


# ------------------------------------------------------------------------- ARI
def test_ari_hand_computed():
    # true {0,1},{2,3}; pred {0,2},{1,3}: every cell is 1 -> index = 0
    #   a = b = 2 (one pair per cluster), C(4,2) = 6, expected = 4/6, max = 2
    #   ARI = (0 - 2/3) / (2 - 2/3) = -0.5
    assert adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1]) == approx(-0.5, abs=1e-15)
    # true {0,1,2},{3,4,5}; pred {0,1},{2,3},{4,5}
    #   cells 2,1,1,2 -> index = 1 + 1 = 2; a = 3 + 3 = 6; b = 1 + 1 + 1 = 3; C(6,2) = 15
    #   expected = 18/15 = 1.2; max = 4.5; ARI = 0.8 / 3.3 = 8/33
    assert adjusted_rand_index([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]) == approx(8 / 33)


def test_ari_degenerate():
    assert math.isnan(adjusted_rand_index([], []))
    assert adjusted_rand_index([3], [7]) == 1.0
    assert adjusted_rand_index([1, 1, 1], [2, 2, 2]) == 1.0  # both one cluster
    assert adjusted_rand_index([0, 1, 2], [5, 4, 3]) == 1.0  # both all singletons
    # one cluster vs all singletons: index = 0, a = 3, b = 0 -> (0 - 0) / (1.5 - 0) = 0
    assert adjusted_rand_index([0, 0, 0], [0, 1, 2]) == 0.0


@settings(max_examples=200, deadline=None)
@given(labelings)
def test_ari_matches_sklearn(pair):
    t, p = pair
    assert adjusted_rand_index(t, p) == approx(adjusted_rand_score(t, p), abs=1e-9)


# ------------------------------------------------------------------------- NMI
def test_nmi_hand_computed():
    # true {0,1},{2,3}; pred {0,1},{2},{3} (a refinement of the truth)
    #   H(T) = log 2; H(P) = 1/2 log 2 + 2 * 1/4 log 4 = 1.5 log 2
    #   I = 2/4 log(4*2 / (2*2)) + 2 * 1/4 log(4*1 / (2*1)) = log 2  (= H(T))
    #   NMI = log 2 / sqrt(log 2 * 1.5 log 2) = 1 / sqrt(1.5)
    assert normalized_mutual_info([0, 0, 1, 1], [0, 0, 1, 2]) == approx(1 / math.sqrt(1.5))
    # independent labellings: I = 0
    assert normalized_mutual_info([0, 0, 1, 1], [0, 1, 0, 1]) == approx(0.0, abs=1e-15)


def test_nmi_degenerate():
    assert math.isnan(normalized_mutual_info([], []))
    assert normalized_mutual_info([4], [9]) == 1.0
    assert normalized_mutual_info([1, 1, 1], [2, 2, 2]) == 1.0
    assert normalized_mutual_info([0, 1, 2], [2, 1, 0]) == approx(1.0)
    assert normalized_mutual_info([0, 0, 0], [0, 1, 2]) == 0.0
    assert normalized_mutual_info([0, 1, 2], [0, 0, 0]) == 0.0


@settings(max_examples=200, deadline=None)
@given(labelings)
def test_nmi_matches_sklearn(pair):
    t, p = pair
    expected = normalized_mutual_info_score(t, p, average_method="geometric")
    assert normalized_mutual_info(t, p) == approx(expected, abs=1e-9)


@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_ari_nmi_sklearn_degenerate_families(n):
    one = [0] * n
    singles = list(range(n))
    for t, p in [(one, one), (singles, singles), (one, singles), (singles, one)]:
        assert adjusted_rand_index(t, p) == approx(adjusted_rand_score(t, p), abs=1e-9)
        assert normalized_mutual_info(t, p) == approx(
            normalized_mutual_info_score(t, p, average_method="geometric"), abs=1e-9)


# ------------------------------------------------------------------------- BCubed
def test_bcubed_hand_computed():
    # truth A = {0,1,2}, B = {3,4}, C = {5}; prediction X = {0,1}, Y = {2,3,4,5}
    #   precision: 0,1 -> 2/2; 2 -> 1/4; 3,4 -> 2/4; 5 -> 1/4   P = 3.5 / 6 = 7/12
    #   recall:    0,1 -> 2/3; 2 -> 1/3; 3,4 -> 2/2; 5 -> 1/1   R = (14/3) / 6 = 7/9
    #   F = 2 (7/12)(7/9) / (7/12 + 7/9) = 2/3
    t = [0, 0, 0, 1, 1, 2]
    p = [0, 0, 1, 1, 1, 1]
    assert_prf(bcubed(t, p), 7 / 12, 7 / 9, 2 / 3)


def test_bcubed_weights_hand_computed():
    # same clusterings, atom 0 weighs 3 (e.g. 3 characters), the rest 1; total W = 8
    #   precision: 0 -> 1 (w 3), 1 -> 1, 2 -> 1/4, 3,4 -> 1/2, 5 -> 1/4
    #     P = (3 + 1 + 1/4 + 1/2 + 1/2 + 1/4) / 8 = 5.5 / 8 = 11/16
    #   recall: A weighs 5; 0,1 -> w(X & A) / w(A) = 4/5; 2 -> 1/5; 3,4,5 -> 1
    #     R = (3 * 4/5 + 4/5 + 1/5 + 3) / 8 = (32/5) / 8 = 4/5
    #   F = 2 (11/16)(4/5) / (11/16 + 4/5) = (88/80) / (119/80) = 88/119
    t = [0, 0, 0, 1, 1, 2]
    p = [0, 0, 1, 1, 1, 1]
    assert_prf(bcubed(t, p, weights=[3, 1, 1, 1, 1, 1]), 11 / 16, 4 / 5, 88 / 119)
    # zero-weight atoms do not count at all
    assert bcubed(t + [9], p + [0], weights=[3, 1, 1, 1, 1, 1, 0]) == bcubed(
        t, p, weights=[3, 1, 1, 1, 1, 1])


def test_bcubed_extremes():
    t = [0, 0, 1, 1, 1, 2]
    assert_prf(bcubed(t, [7, 7, 3, 3, 3, 1]), 1.0, 1.0, 1.0)  # perfect (label names differ)
    one = bcubed(t, [0] * 6)
    assert one.recall == 1.0
    # precision = (2*2/6 + 3*3/6 + 1*1/6) / 6 = 14/36
    assert one.precision == approx(14 / 36)
    singles = bcubed(t, list(range(6)))
    assert singles.precision == 1.0
    # recall = (2 * 1/2 + 3 * 1/3 + 1) / 6 = 3/6
    assert singles.recall == approx(0.5)


def test_bcubed_empty_and_one_atom():
    got = bcubed([], [])
    assert all(math.isnan(v) for v in (got.precision, got.recall, got.f1))
    assert_prf(bcubed([1], [2]), 1.0, 1.0, 1.0)
    zero = bcubed([0, 1], [0, 0], weights=[0, 0])
    assert math.isnan(zero.precision)


@settings(max_examples=100, deadline=None)
@given(labelings, st.data())
def test_bcubed_matches_per_atom_definition(pair, data):
    t, p = pair
    w = data.draw(st.lists(st.integers(1, 20), min_size=len(t), max_size=len(t)))
    for weights in (None, w):
        got = bcubed(t, p, weights)
        ref = bcubed_brute(resolve_unassigned(t), resolve_unassigned(p), weights)
        assert (got.precision, got.recall) == approx(ref, abs=1e-12)
    got = bcubed(t, p, w, unassigned="singleton")
    ref = bcubed_brute(resolve_unassigned(t, "singleton"), resolve_unassigned(p, "singleton"), w)
    assert (got.precision, got.recall) == approx(ref, abs=1e-12)


# ------------------------------------------------------------------------- extended BCubed
def test_extended_bcubed_hand_computed():
    # true L: {1}, {1}, {1,2}; predicted C: {10}, {10,20}, {10,20}
    #   |C(i)&C(j)|: (0,*) = 1, (1,1) = (1,2) = (2,2) = 2
    #   |L(i)&L(j)|: all 1 except (2,2) = 2
    #   MP = min/|C&C|: atom 0 -> 1, 1, 1 (mean 1); atom 1 -> 1, 1/2, 1/2 (mean 2/3);
    #                   atom 2 -> 1, 1/2, 1 (mean 5/6)       P = (1 + 2/3 + 5/6) / 3 = 5/6
    #   MR = min/|L&L|: every pair 1                          R = 1
    #   F = 2 (5/6) / (5/6 + 1) = 10/11
    got = extended_bcubed([{1}, {1}, {1, 2}], [{10}, {10, 20}, {10, 20}])
    assert_prf(got, 5 / 6, 1.0, 10 / 11)
    # swapping the roles swaps P and R
    assert_prf(extended_bcubed([{10}, {10, 20}, {10, 20}], [{1}, {1}, {1, 2}]),
               1.0, 5 / 6, 10 / 11)


def test_extended_bcubed_weighted_hand_computed():
    # same sets, weights 1, 2, 1 (total 4); inner means are weighted by w_j
    #   atom 0: (1*1 + 2*1 + 1*1) / 4 = 1;  atom 1: (1*1 + 2*1/2 + 1*1/2) / 4 = 5/8
    #   atom 2: (1*1 + 2*1/2 + 1*1) / 4 = 3/4
    #   P = (1*1 + 2*5/8 + 1*3/4) / 4 = 3/4; R = 1; F = 2 (3/4) / (7/4) = 6/7
    got = extended_bcubed([{1}, {1}, {1, 2}], [{10}, {10, 20}, {10, 20}], weights=[1, 2, 1])
    assert_prf(got, 3 / 4, 1.0, 6 / 7)


def test_extended_bcubed_empty_sets_are_private():
    # atom 2 has no predicted segment: it is alone, like a singleton label
    t = [{0}, {0}, {0}]
    # = bcubed([0, 0, 0], [5, 5, 6]): P = 1; recall 2/3, 2/3, 1/3 -> R = 5/9; F = 5/7
    assert_prf(extended_bcubed(t, [{5}, {5}, set()]), 1.0, 5 / 9, 5 / 7)
    assert_prf(bcubed([0, 0, 0], [5, 5, 6]), 1.0, 5 / 9, 5 / 7)
    assert_prf(extended_bcubed(t, [{5}, {5}, {-1}], unassigned="singleton"), 1.0, 5 / 9, 5 / 7)
    # with "background", -1 is a shared cluster like any label: only atom 2 is in it here
    assert_prf(extended_bcubed(t, [{5}, {5}, {-1}]), 1.0, 5 / 9, 5 / 7)
    assert_prf(extended_bcubed(t, [{-1}, {5}, {-1}]), 1.0, 5 / 9, 5 / 7)
    # an empty true set behaves the same way: = bcubed([0, 1], [1, 1]) -> P = 1/2, R = 1
    assert_prf(extended_bcubed([{0}, set()], [{1}, {1}]), 0.5, 1.0, 2 / 3)
    # but two empty sets are two different clusters, unlike two {-1} in "background" mode
    assert_prf(extended_bcubed([{0}, {0}], [set(), set()]), 1.0, 0.5, 2 / 3)
    assert_prf(extended_bcubed([{0}, {0}], [{-1}, {-1}]), 1.0, 1.0, 1.0)
    empty = extended_bcubed([], [])
    assert math.isnan(empty.f1)


@settings(max_examples=100, deadline=None)
@given(labelings, st.data())
def test_extended_equals_plain_on_single_membership(pair, data):
    t, p = pair
    w = data.draw(st.lists(st.integers(0, 9), min_size=len(t), max_size=len(t)).filter(any))
    for mode in ("background", "singleton"):
        for weights in (None, w):
            ext = extended_bcubed([{a} for a in t], [frozenset([b]) for b in p], weights, mode)
            plain = bcubed(t, p, weights, mode)
            assert (ext.precision, ext.recall, ext.f1) == approx(
                (plain.precision, plain.recall, plain.f1), abs=1e-12)


overlapping = st.integers(1, 25).flatmap(lambda n: st.tuples(
    st.lists(st.sets(st.integers(0, 5), max_size=3), min_size=n, max_size=n),
    st.lists(st.sets(st.integers(0, 5), max_size=3), min_size=n, max_size=n),
    st.lists(st.integers(1, 5), min_size=n, max_size=n),
))


@settings(max_examples=100, deadline=None)
@given(overlapping)
def test_extended_bcubed_matches_definition(case):
    t, p, w = case
    for weights in (None, w):
        got = extended_bcubed(t, p, weights)
        assert (got.precision, got.recall) == approx(extended_brute(t, p, weights), abs=1e-12)


def test_extended_bcubed_blocks(monkeypatch):
    rng = np.random.default_rng(0)
    n = 50
    t = [set(rng.integers(0, 6, size=rng.integers(0, 3)).tolist()) for _ in range(n)]
    p = [set(rng.integers(0, 6, size=rng.integers(0, 3)).tolist()) for _ in range(n)]
    w = rng.integers(1, 10, size=n)
    full = extended_bcubed(t, p, w)
    monkeypatch.setattr(metrics, "_BLOCK_ENTRIES", 7 * n)  # 7 rows per block
    assert extended_bcubed(t, p, w) == full
    assert (full.precision, full.recall) == approx(extended_brute(t, p, w), abs=1e-12)


def test_extended_bcubed_hierarchy():
    # a two-level hierarchy: root segment R over everything, children A = {0,1}, B = {2,3};
    # a prediction with the same root but a flat bottom level: every atom in {R, S}
    # |C&C| = 2 for every pair; |L&L| = 2 within A or B, 1 across.
    #   MP: same child -> 2/2, other child -> 1/2; each atom: (1 + 1 + 1/2 + 1/2) / 4 = 3/4
    #   MR = min/|L&L| = 1 for every pair -> R = 1; F = 2 (3/4) / (7/4) = 6/7
    true = [{"R", "A"}, {"R", "A"}, {"R", "B"}, {"R", "B"}]
    pred = [{"R", "S"}] * 4
    assert_prf(extended_bcubed(true, pred), 3 / 4, 1.0, 6 / 7)


# ------------------------------------------------------------------------- template P/R/F
def test_template_prf_cases():
    # TP = atom 0; pred template {0, 2}; gold template {0, 1} -> P = R = F = 1/2
    assert_prf(template_prf([1, 1, 0, 0], [1, 0, 1, 0]), 0.5, 0.5, 0.5)
    # weights 2,1,1,5: TP = 2, w(pred) = 2 + 1 = 3, w(gold) = 2 + 1 = 3 -> 2/3 each
    assert_prf(template_prf([1, 1, 0, 0], [1, 0, 1, 0], [2, 1, 1, 5]), 2 / 3, 2 / 3, 2 / 3)
    # atom 0 (weight 4) is TP: P = 4 / (4 + 1) = 4/5, R = 4 / 4 = 1
    #   F = 2 (4/5) / (9/5) = 8/9
    assert_prf(template_prf([1, 0, 0], [1, 1, 0], [4, 1, 7]), 0.8, 1.0, 8 / 9)
    assert_prf(template_prf([0, 0], [0, 0]), 1.0, 1.0, 1.0)  # nothing to find, nothing found
    assert_prf(template_prf([1, 0], [0, 0]), 0.0, 0.0, 0.0)  # nothing predicted
    assert_prf(template_prf([0, 0], [0, 1]), 0.0, 0.0, 0.0)  # no gold template
    assert_prf(template_prf([1, 1], [0, 0], [0, 0]), 1.0, 1.0, 1.0)  # no template *weight*
    got = template_prf([], [])
    assert math.isnan(got.precision) and math.isnan(got.f1)
    with pytest.raises(ValueError):
        template_prf([1, 0], [1])


def _tiny_page() -> Page:
    E, T = ELEMENT, TEXT
    rows = [
        # parent, kind, tag, text, attrs
        (-1, E, "html", "", None),               # 0
        (0, E, "body", "", None),                # 1
        (1, E, "div", "", {"id": "nav"}),        # 2
        (2, E, "a", "", {"href": "/home"}),      # 3
        (3, T, "#text", "Home  page", None),     # 4  leaf 0: 2 words
        (2, E, "a", "", {"href": "/about"}),     # 5
        (5, T, "#text", "About us", None),       # 6  leaf 1: 2 words
        (1, E, "div", "", {"id": "main"}),       # 7
        (7, T, "#text", "Main article text here", None),  # 8  leaf 2: 4 words
        (7, E, "a", "", {"href": "/ref"}),       # 9
        (9, T, "#text", "a reference", None),    # 10 leaf 3: 2 words
        (7, E, "a", "", {"href": "/more"}),      # 11
        (11, T, "#text", "more news", None),     # 12 leaf 4: 2 words
        (1, E, "div", "", {"id": "footer"}),     # 13
        (13, T, "#text", "Copyright 2024", None),  # 14 leaf 5: 2 words
        (13, E, "a", "", {"name": "top"}),       # 15 an anchor without href
        (15, T, "#text", "top", None),           # 16 leaf 6: 1 word
        (13, E, "a", "", {"href": "/empty"}),    # 17 a link without text: skipped
        (1, T, "#text", " \n ", None),           # 18 blank: not a leaf
    ]
    parent, kind, tag, text, attrs = map(list, zip(*rows, strict=True))
    return Page.from_columns(parent=parent, kind=kind, tag=tag, text=text, attrs=attrs,
                             visible=[True] * len(rows))


def _tiny_segmentation(page: Page) -> Segmentation:
    return Segmentation(page, [
        Segment(id=0, nodes=(2,), attrs={"templateness": 0.9}),             # nav
        Segment(id=1, nodes=(7,), attrs={"templateness": 0.2}),             # main
        Segment(id=2, nodes=(9,), parent=1, attrs={"templateness": 0.7}),   # link in main
        Segment(id=3, nodes=(15,), attrs={"templateness": 0.1}),            # "top" anchor
    ])  # the rest of the footer (leaf 5) is in no segment -> template


def test_template_scores_tiny_page():
    page = _tiny_page()
    assert page.text_leaves.tolist() == [4, 6, 8, 10, 12, 14, 16]
    seg = _tiny_segmentation(page)
    assert seg.leaf_labels().tolist() == [0, 0, 1, 2, 1, UNASSIGNED, 3]
    # gold: "About us", the main text and both main links are content
    gold_content = np.array([False, True, True, True, True, False, False])
    # words per leaf: 2 2 4 2 2 2 1
    # gold template leaves: 0, 5, 6 -> 2 + 2 + 1 = 5 words
    # predicted template (threshold 0.5): leaves 0, 1 (nav 0.9), 3 (0.7), 5 (unassigned)
    #   -> 2 + 2 + 2 + 2 = 8 words; TP = leaves 0 and 5 = 4 words
    #   text: P = 4/8, R = 4/5, F = 2 (1/2)(4/5) / (13/10) = 8/13
    # anchor leaves: 0, 1, 3, 4, 6 (leaf 6 is under an <a> without href)
    #   gold template 0, 6 = 3 words; pred template 0, 1, 3 = 6 words; TP = leaf 0 = 2 words
    #   anchor_text: P = 2/6, R = 2/3, F = 2 (1/3)(2/3) / 1 = 4/9
    # links with href and text: 3 (/home), 5 (/about), 9 (/ref), 11 (/more)
    #   gold template: 3 only; predicted template: 3, 5 (nav), 9 (segment 2)
    #   links: P = 1/3, R = 1, F = 2 (1/3) / (4/3) = 1/2
    got = template_scores(page, seg, gold_content)
    assert set(got) == {"text", "anchor_text", "links"}
    assert_prf(got["text"], 1 / 2, 4 / 5, 8 / 13)
    assert_prf(got["anchor_text"], 1 / 3, 2 / 3, 4 / 9)
    assert_prf(got["links"], 1 / 3, 1.0, 1 / 2)
    # threshold 0.8: segment 2 (0.7) becomes content
    #   text: pred template 0, 1, 5 = 6 words, TP = 4 -> P = 2/3, R = 4/5, F = 8/11
    #   anchor_text: pred template 0, 1 = 4 words, TP = 2 -> P = 1/2, R = 2/3, F = 4/7
    #   links: pred template 3, 5 -> P = 1/2, R = 1, F = 2/3
    got = template_scores(page, seg, gold_content, threshold=0.8)
    assert_prf(got["text"], 2 / 3, 4 / 5, 8 / 11)
    assert_prf(got["anchor_text"], 1 / 2, 2 / 3, 4 / 7)
    assert_prf(got["links"], 1 / 2, 1.0, 2 / 3)


def test_template_scores_link_majority_and_checks():
    page = _tiny_page()
    seg = _tiny_segmentation(page)
    # everything gold content: no gold template anywhere; predicted template is non-empty
    got = template_scores(page, seg, np.ones(7, bool))
    assert_prf(got["text"], 0.0, 0.0, 0.0)
    assert_prf(got["links"], 0.0, 0.0, 0.0)
    # a segmentation with no segments: everything unassigned -> everything predicted template
    got = template_scores(page, Segmentation(page, []), np.zeros(7, bool))
    assert_prf(got["text"], 1.0, 1.0, 1.0)
    assert_prf(got["links"], 1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        template_scores(page, seg, np.ones(3, bool))


# ------------------------------------------------------------------------- summary
def test_segmentation_scores():
    t = [0, 0, 0, 1, 1, 2]
    p = [0, 0, 1, 1, 1, 1]
    got = segmentation_scores(t, p)
    assert got["ari"] == approx(adjusted_rand_score(t, p))
    assert got["nmi"] == approx(normalized_mutual_info_score(t, p, average_method="geometric"))
    assert (got["bcubed_p"], got["bcubed_r"], got["bcubed_f"]) == approx((7 / 12, 7 / 9, 2 / 3))
    assert "bcubed_char_f" not in got
    assert (got["n_atoms"], got["n_true"], got["n_pred"]) == (6, 3, 2)
    got = segmentation_scores(t, p, char_weights=[3, 1, 1, 1, 1, 1])
    assert (got["bcubed_char_p"], got["bcubed_char_r"], got["bcubed_char_f"]) == approx(
        (11 / 16, 4 / 5, 88 / 119))
    # -1 handling reaches every score
    got = segmentation_scores([0, 0, 1, 1], [-1, -1, -1, 5], unassigned="singleton")
    assert got["n_pred"] == 4
    assert got["bcubed_p"] == 1.0


def test_segmentation_scores_empty():
    got = segmentation_scores([], [], char_weights=[])
    assert got["n_atoms"] == 0
    for k in ("ari", "nmi", "bcubed_p", "bcubed_r", "bcubed_f", "bcubed_char_f"):
        assert math.isnan(got[k])
