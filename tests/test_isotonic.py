"""Regularised tree isotonic regression: exact DP against exhaustive search, and hand cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import tree_page
from webseg.templates.isotonic import (
    is_isotonic,
    isotonic_objective,
    isotonic_smooth,
    section_heads,
    smooth_page,
)


def brute_force(parent, y, gamma, weight, grid):
    """Minimum cost over every isotonic labelling with values in ``grid``."""
    parent = np.asarray(parent)
    n = len(parent)
    labs = np.array(list(itertools.product(grid, repeat=n)), dtype=np.float64)
    ok = np.all(labs[:, parent[1:]] <= labs[:, 1:], axis=1) if n > 1 else np.ones(len(labs), bool)
    labs = labs[ok]
    heads = np.ones_like(labs, dtype=bool)
    if n > 1:
        heads[:, 1:] = labs[:, 1:] != labs[:, parent[1:]]
    cost = (np.abs(labs - y) * weight).sum(axis=1) + (heads * gamma).sum(axis=1)
    return float(cost.min())


@st.composite
def problems(draw, max_nodes=7):
    n = draw(st.integers(1, max_nodes))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    values = draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.6, 0.9, 1.0]),
                           min_size=1, max_size=3, unique=True))
    y = [draw(st.sampled_from(values)) for _ in range(n)]
    gamma = [draw(st.sampled_from([0.0, 0.05, 0.2, 0.5, 2.0])) for _ in range(n)]
    weight = [draw(st.sampled_from([0.0, 1.0, 2.0, 3.0])) for _ in range(n)]
    return (np.array(parent), np.array(y), np.array(gamma), np.array(weight))


@settings(max_examples=300, deadline=None)
@given(problems())
def test_dp_equals_exhaustive_search(prob):
    parent, y, gamma, weight = prob
    x, cost = isotonic_smooth(parent, y, gamma, weight)
    best = brute_force(parent, y, gamma, weight, np.unique(y))
    assert cost == pytest.approx(best, abs=1e-9)
    assert is_isotonic(parent, x)
    assert set(np.unique(x)) <= set(np.unique(y))
    assert isotonic_objective(parent, y, x, gamma, weight) == pytest.approx(cost, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(problems(max_nodes=5))
def test_observed_values_suffice(prob):
    """Lemma 3: a finer grid (midpoints and values outside the range) never does better."""
    parent, y, gamma, weight = prob
    _, cost = isotonic_smooth(parent, y, gamma, weight)
    v = np.unique(y)
    grid = np.unique(np.r_[v, (v[1:] + v[:-1]) / 2, v[0] - 0.3, v[-1] + 0.3])
    assert cost == pytest.approx(brute_force(parent, y, gamma, weight, grid), abs=1e-9)


def test_chain_isotonic_regression_without_penalty():
    parent, y = np.array([-1, 0, 1, 2]), np.array([0.1, 0.5, 0.3, 0.9])
    x, cost = isotonic_smooth(parent, y, gamma=0.0)
    assert cost == pytest.approx(0.2)  # the 0.5 > 0.3 violation costs |0.5 - 0.3|
    assert is_isotonic(parent, x)
    assert x[0] == 0.1 and x[3] == 0.9


def test_chain_with_penalty():
    # best: [0.1, 0.3, 0.3, 0.9]: distance 0.2 + three sections of 0.1 = 0.5
    parent, y = np.array([-1, 0, 1, 2]), np.array([0.1, 0.5, 0.3, 0.9])
    x, cost = isotonic_smooth(parent, y, gamma=0.1)
    assert cost == pytest.approx(0.5)
    assert isotonic_objective(parent, y, x, 0.1) == pytest.approx(0.5)
    assert len(section_heads(parent, x)) == 3


def test_star():
    # root 0.5 over leaves 0.9, 0.1, 0.7 with gamma 0.3: only the 0.9 leaf is worth a section
    # (0.4 > 0.3); the 0.1 leaf is lifted to 0.5 (cost 0.4), the 0.7 leaf drops to 0.5 (0.2).
    parent, y = np.array([-1, 0, 0, 0]), np.array([0.5, 0.9, 0.1, 0.7])
    x, cost = isotonic_smooth(parent, y, gamma=0.3)
    assert x.tolist() == [0.5, 0.9, 0.5, 0.5]
    assert cost == pytest.approx(0.3 + 0.3 + 0.4 + 0.2)
    assert section_heads(parent, x).tolist() == [0, 1]


def test_zero_penalty_keeps_isotonic_scores():
    parent = np.array([-1, 0, 1, 1, 0, 4])
    y = np.array([0.1, 0.2, 0.5, 0.3, 0.7, 0.9])
    x, cost = isotonic_smooth(parent, y, gamma=0.0)
    assert x.tolist() == y.tolist()
    assert cost == 0.0


def test_huge_penalty_gives_one_section_at_the_weighted_median():
    parent = np.array([-1, 0, 1, 1, 0, 4])
    y = np.array([0.1, 0.2, 0.5, 0.3, 0.7, 0.9])
    w = np.array([1, 1, 1, 1, 5, 1.0])  # weighted median 0.7
    x, cost = isotonic_smooth(parent, y, gamma=100.0, weight=w)
    assert np.all(x == 0.7)
    assert cost == pytest.approx(100.0 + np.sum(w * np.abs(y - 0.7)))


def test_weight_acts_as_multiplicity():
    # a node of weight 3 equals three copies of it as leaves under the same parent
    x1, c1 = isotonic_smooth([-1, 0, 0], [0.2, 0.8, 0.4], [0.1, 0.25, 0.25], [1, 3, 1])
    x2, c2 = isotonic_smooth([-1, 0, 0, 0, 0], [0.2, 0.8, 0.8, 0.8, 0.4],
                             [0.1, 0.25, 0.0, 0.0, 0.25], [1, 1, 1, 1, 1])
    assert c1 == pytest.approx(c2)


def test_single_node_and_empty_tree():
    x, cost = isotonic_smooth([-1], [0.3], 0.5)
    assert x.tolist() == [0.3] and cost == 0.5
    x, cost = isotonic_smooth(np.zeros(0, int), np.zeros(0), 0.5)
    assert len(x) == 0 and cost == 0.0


def test_large_random_tree_is_isotonic_and_consistent():
    rng = np.random.default_rng(0)
    n = 3000
    parent = np.r_[-1, [rng.integers(0, i) for i in range(1, n)]]
    y = rng.random(n).round(2)
    gamma = rng.random(n) * 0.2
    x, cost = isotonic_smooth(parent, y, gamma)
    assert is_isotonic(parent, x)
    assert isotonic_objective(parent, y, x, gamma) == pytest.approx(cost)


@pytest.mark.parametrize("parent,y,gamma,weight,msg", [
    ([0, 0], [0.1, 0.2], 0.1, None, "root"),
    ([-1, 1], [0.1, 0.2], 0.1, None, "parents first"),
    ([-1, 0], [0.1, np.nan], 0.1, None, "finite"),
    ([-1, 0], [0.1, 0.2], -1.0, None, ">= 0"),
    ([-1, 0], [0.1, 0.2], 0.1, [1.0, -1.0], ">= 0"),
    ([-1, 0], [0.1, 0.2, 0.3], 0.1, None, "one value per node"),
])
def test_bad_input(parent, y, gamma, weight, msg):
    with pytest.raises(ValueError, match=msg):
        isotonic_smooth(np.array(parent), y, gamma, weight)


def test_objective_rejects_non_isotonic_labelling():
    with pytest.raises(ValueError, match="not isotonic"):
        isotonic_objective([-1, 0], [0.5, 0.5], [0.6, 0.4], 0.1)


def _layout_page():
    # html(1000x1000) > body > [nav(1000x100) > a(30x20) > text, main(1000x800) > p > text]
    spec = [(-1, "html", ""), (0, "body", ""), (1, "nav", ""), (2, "a", ""), (3, "#text", "Home"),
            (1, "main", ""), (5, "p", ""), (6, "#text", "story")]
    boxes = [(0, 0, 1000, 1000), (0, 0, 1000, 1000), (0, 0, 1000, 100), (0, 0, 30, 20),
             (0, 0, 30, 20), (0, 100, 1000, 800), (0, 100, 1000, 50), (0, 100, 1000, 50)]
    return tree_page(spec, boxes, width=1000.0, height=1000.0)


def test_smooth_page_folds_hidden_nodes_and_uses_area_penalties():
    page = _layout_page()
    scores = np.array([0.3, 0.3, 0.9, np.nan, np.nan, 0.1, 0.2, 0.1])
    res = smooth_page(page, scores, c=0.01)
    assert res.kept.tolist() == [True, True, True, False, False, True, True, True]
    assert res.representative.tolist() == [0, 1, 2, 2, 2, 5, 6, 7]
    # hidden a/#text take the nav's score; the nav (weight 3) is a template section
    assert res.scores[2] == res.scores[3] == res.scores[4] == 0.9
    assert is_isotonic(page.parent, res.scores)
    assert 2 in res.heads.tolist()
    # cost agrees with the objective on the folded tree
    keep = np.flatnonzero(res.kept)
    sub_parent = np.array([-1, 0, 1, 1, 3, 4])
    w = np.array([1, 1, 3, 1, 1, 1.0])
    gamma = 0.01 * 1e6 / page.area[keep]
    assert res.cost == pytest.approx(
        isotonic_objective(sub_parent, scores[keep], res.scores[keep], gamma, w))


def test_smooth_page_errors():
    page = _layout_page()
    with pytest.raises(ValueError, match="one score per page node"):
        smooth_page(page, np.zeros(3))
    with pytest.raises(ValueError, match="finite on non-hidden"):
        smooth_page(page, np.full(page.n, np.nan))


def reference_dp(parent, y, gamma, weight):
    """The paper's BuildError written plainly, node by node (independent of the vectorised one)."""
    n = len(parent)
    vals = sorted(set(y))
    kids = [[] for _ in range(n)]
    for i in range(1, n):
        kids[parent[i]].append(i)
    d = [None] * n
    for i in range(n - 1, -1, -1):
        tab = [weight[i] * abs(v - y[i]) for v in vals]
        for c in kids[i]:
            for a in range(len(vals)):
                new = min(d[c][a + 1:], default=float("inf"))
                tab[a] += min(d[c][a], gamma[c] + new)
        d[i] = tab
    return gamma[0] + min(d[0])


@pytest.mark.parametrize("seed", range(6))
def test_dp_equals_plain_reference_on_medium_trees(seed):
    rng = np.random.default_rng(seed)
    n = 120
    if seed % 2:  # any parents-first order, not only pre-order
        parent = np.r_[-1, rng.integers(0, np.arange(1, n))]
    else:  # a deep, pre-order tree
        parent, stack = [-1], [0]
        for i in range(1, n):
            while len(stack) > 1 and rng.random() < 0.3:
                stack.pop()
            parent.append(stack[-1])
            if rng.random() < 0.6:
                stack.append(i)
        parent = np.array(parent)
    y = rng.integers(0, 9, n) / 8
    gamma = rng.choice([0.0, 0.05, 0.3, 1.0], n)
    weight = rng.choice([0.0, 1.0, 2.0, 4.0], n)
    x, cost = isotonic_smooth(parent, y, gamma, weight)
    assert cost == pytest.approx(reference_dp(parent, y, gamma, weight), abs=1e-9)
    assert isotonic_objective(parent, y, x, gamma, weight) == pytest.approx(cost, abs=1e-9)


def test_non_preorder_level_with_interleaved_parents():
    # depth-2 nodes 3, 4, 5 have parents 1, 2, 1: the level is not grouped by parent
    parent = np.array([-1, 0, 0, 1, 2, 1])
    y = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    x, cost = isotonic_smooth(parent, y, gamma=0.1)
    assert cost == pytest.approx(reference_dp(parent, y, [0.1] * 6, [1.0] * 6))
    assert cost == pytest.approx(0.4)  # the root's section and one per 1.0 leaf
    assert x.tolist() == y.tolist()
    # with a large weight at node 1, its subtree (3 and 5) is one section at 1.0 ...
    x, cost = isotonic_smooth(parent, y, [0.1, 0.1, 0.1, 0.1, 0.1, 0.1], [1, 0.05, 1, 1, 1, 1])
    assert x.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    assert cost == pytest.approx(0.1 + 0.05 + 0.1 + 0.1)
