"""CClus: the objective, the pivot algorithm and the shipped model."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import sample_page
from tests.test_gcuts import two_column_page
from webseg.graphseg.correlation import (
    PairCosts,
    _pivot,
    cclus,
    cclus_objective,
    pivot_once,
    row_bits,
)
from webseg.graphseg.model import CClusModel
from webseg.segmentation import UNASSIGNED
from webseg.segmenters import get_segmenter


def objective_by_loops(labels, V, lam):
    total = 0.0
    for i, j in itertools.combinations(range(len(labels)), 2):
        total += (1 - V[i, j]) if labels[i] == labels[j] else lam * V[i, j]
    return total


@st.composite
def instances(draw):
    m = draw(st.integers(1, 7))
    vals = draw(st.lists(st.floats(0, 1), min_size=m * m, max_size=m * m))
    V = np.asarray(vals).reshape(m, m)
    V = np.triu(V, 1)
    V = V + V.T
    labels = np.asarray(draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)))
    return V, labels, draw(st.floats(0.1, 3.0))


@settings(max_examples=200, deadline=None)
@given(instances())
def test_objective_matches_the_definition(inst):
    V, labels, lam = inst
    assert cclus_objective(labels, V, lam) == pytest.approx(objective_by_loops(labels, V, lam))


@settings(max_examples=100, deadline=None)
@given(instances())
def test_pivot_returns_a_partition_and_its_objective(inst):
    V, _, lam = inst
    labels, obj = cclus(V, lam, trials=5, seed=1)
    assert len(labels) == len(V) and (labels >= 0).all()
    assert obj == pytest.approx(objective_by_loops(labels, V, lam))
    # seeded: the same call gives the same answer
    again, obj2 = cclus(V, lam, trials=5, seed=1)
    assert again.tolist() == labels.tolist() and obj2 == obj


def test_pivot_takes_positive_neighbours_of_the_pivot_only():
    # 0-1 positive, 1-2 positive, 0-2 negative: pivot 0 takes 1, then 2 is alone
    V = np.array([[0, 0.9, 0.1], [0.9, 0, 0.9], [0.1, 0.9, 0]])
    positive = V >= 1 - V
    assert pivot_once(positive, np.array([0, 1, 2])).tolist() == [0, 0, 1]
    assert pivot_once(positive, np.array([1, 0, 2])).tolist() == [0, 0, 0]


def test_more_trials_never_worse():
    rng = np.random.default_rng(0)
    V = rng.random((30, 30))
    V = np.triu(V, 1) + np.triu(V, 1).T
    _, one = cclus(V, 1.0, trials=1, seed=3)
    _, many = cclus(V, 1.0, trials=30, seed=3)
    assert many <= one


def test_shipped_model_loads_and_segments():
    model = CClusModel.load()
    assert set(model.lam) >= {"cclus", "cclus-nl"}
    page = sample_page()
    seg = get_segmenter("cclus").segment(page)
    labels = seg.leaf_labels()
    assert len(labels) == len(page.text_leaves) and UNASSIGNED not in labels.tolist()
    assert seg.params["lambda"] == model.lam["cclus"]
    parents = {s.parent for s in seg}
    for s in seg:  # finest segment roots hold exactly the segment's leaves
        if s.id in parents:
            continue
        assert all(labels[k] == s.id for k, leaf in enumerate(page.text_leaves)
                   if any(r <= leaf < page.subtree_end[r] for r in s.nodes))


def test_two_levels_with_a_level_one_lambda():
    """With lam1 (shipped: cclus@1) level 2 refines level 1 and level 1 is not finer."""
    page = two_column_page()
    seg = get_segmenter("cclus", lam=0.05, lam1=1000.0).segment(page)
    l1, l2 = seg.leaf_labels(1), seg.leaf_labels(2)
    assert len(np.unique(l1)) <= len(np.unique(l2))
    pairs = {(a, b) for a, b in zip(l1.tolist(), l2.tolist(), strict=True)}
    assert len({b for _, b in pairs}) == len(pairs)  # each level-2 segment in one level-1
    assert seg.params["lambda1"] == 1000.0
    assert get_segmenter("cclus").resolved_lambda1 == CClusModel.load().lam["cclus@1"]


def test_fit_save_load_round_trip(tmp_path):
    page = sample_page()
    gold = np.array([0, 0, 1, 1])
    seg = get_segmenter("cclus", lam=1.0).fit([page], [gold])
    seg.save(tmp_path / "c.json")
    again = get_segmenter("cclus", lam=1.0, model=str(tmp_path / "c.json"))
    assert np.allclose(seg.prepare(page).V, again.prepare(page).V)


# ---------------------------------------------------------------- identity with the plain code
def reference_cclus(V, lam, trials, seed):
    """CClus as before :class:`PairCosts`: objective rebuilt per trial, no
    de-duplication. The fast version must return the same labels and objective, bit for bit."""
    m = len(V)
    if m == 0:
        return np.zeros(0, dtype=np.int64), 0.0
    positive = lam * V >= 1.0 - V
    rng = np.random.default_rng(seed)
    best, best_obj = None, np.inf
    for _ in range(max(1, trials)):
        order = rng.permutation(m)
        lab = np.full(m, -1, dtype=np.int64)
        remaining = np.ones(m, dtype=bool)
        k = 0
        for p in order:
            if not remaining[p]:
                continue
            members = remaining & positive[p]
            members[p] = True
            lab[members] = k
            remaining &= ~members
            k += 1
        obj = cclus_objective(lab, V, lam)
        if obj < best_obj:
            best, best_obj = lab, obj
    return best, best_obj


@st.composite
def coarse_instances(draw):
    """Pair costs on a coarse grid (many equal objectives and repeated partitions)."""
    m = draw(st.integers(0, 25))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    V = np.triu(rng.integers(0, 5, (m, m)) / 4.0, 1)
    return V + V.T, draw(st.sampled_from([0.5, 1.0, 2.0, 20.0])), draw(st.integers(1, 25))


@settings(max_examples=200, deadline=None)
@given(coarse_instances(), st.integers(0, 5))
def test_cclus_is_the_plain_pivot_search_bit_for_bit(inst, seed):
    V, lam, trials = inst
    labels, obj = cclus(V, lam, trials, seed)
    ref, ref_obj = reference_cclus(V, lam, trials, seed)
    assert labels.tolist() == ref.tolist() and obj == ref_obj


@settings(max_examples=100, deadline=None)
@given(coarse_instances())
def test_pair_costs_serve_several_lambdas_and_objectives_exactly(inst):
    V, lam, _ = inst
    costs = PairCosts(V)
    rng = np.random.default_rng(0)
    for lm in (lam, 1.0, lam):
        assert costs.solve(lm, 5, 2)[1] == reference_cclus(V, lm, 5, 2)[1]
        lab = rng.integers(0, 3, len(V))
        assert costs.objective(lab, lm) == cclus_objective(lab, V, lm)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_pivot_key_identifies_the_partition(m, seed):
    rng = np.random.default_rng(seed)
    positive = rng.random((m, m)) < 0.4
    positive = positive | positive.T
    a, ka = _pivot(row_bits(positive), rng.permutation(m))
    b, kb = _pivot(row_bits(positive), rng.permutation(m))
    same_partition = (a[:, None] == a[None, :]).tolist() == (b[:, None] == b[None, :]).tolist()
    assert (ka == kb) == same_partition
