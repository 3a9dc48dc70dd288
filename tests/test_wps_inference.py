"""WPS inference: the LP relaxation of the binary ILP (Eqs. 15-18) is integral and optimal."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg.wps import NonIntegralSolution, build_graph, infer
from webseg.wps.inference import exhaustive, loss_augmented_scores, prune_leaves


@st.composite
def dags(draw, max_n: int = 10, max_deps: int | None = None):
    """A random DAG on vertices 0..n-1 (edges i -> j with i < j) with random scores."""
    n = draw(st.integers(1, max_n))
    edges = []
    for j in range(1, n):
        preds = draw(st.lists(st.integers(0, j - 1), unique=True,
                              max_size=min(j, max_deps if max_deps is not None else j)))
        edges += [(i, j) for i in preds]
    scores = draw(st.one_of(
        st.lists(st.integers(-5, 5).map(float), min_size=n, max_size=n),
        st.lists(st.floats(-10, 10, allow_nan=False, allow_infinity=False).map(
            lambda v: round(v, 3)), min_size=n, max_size=n)))
    return n, np.asarray(edges, dtype=np.int64).reshape(-1, 2), np.asarray(scores)


@settings(max_examples=300, deadline=None)
@given(dags())
def test_lp_is_integral_and_equals_ilp_optimum(case):
    n, edges, scores = case
    best, _ = exhaustive(n, scores, edges)
    for prune in (True, False):
        res = infer(n, scores, edges, prune=prune)  # raises NonIntegralSolution if fractional
        x = res.labels
        assert x.dtype == bool and len(x) == n
        if len(edges):
            assert np.all(x[edges[:, 0]] >= x[edges[:, 1]])  # dependencies hold
        assert res.objective == pytest.approx(float(scores[x].sum()))
        assert res.objective == pytest.approx(best, abs=1e-7)


@settings(max_examples=150, deadline=None)
@given(dags(max_deps=2))
def test_wps_shaped_graphs(case):
    """At most two direct dependencies per vertex, as in a WPS-graph."""
    n, edges, scores = case
    best, _ = exhaustive(n, scores, edges)
    assert infer(n, scores, edges).objective == pytest.approx(best, abs=1e-7)


def test_prune_leaves_is_recursive():
    # chain 0 -> 1 -> 2 plus 0 -> 3; 2 and 3 are leaves
    edges = np.array([[0, 1], [1, 2], [0, 3]])
    scores = np.array([5.0, -1.0, 0.0, 2.0])
    assert prune_leaves(4, edges, scores).tolist() == [False, True, True, False]
    res = infer(4, scores, edges)
    assert res.labels.tolist() == [True, False, False, True]
    assert (res.n_pruned, res.n_lp) == (2, 2)
    # a leaf with a good score keeps a bad ancestor alive when worth it
    res = infer(3, np.array([-1.0, -1.0, 3.0]), np.array([[0, 1], [1, 2]]))
    assert res.labels.tolist() == [True, True, True] and res.objective == 1.0
    res = infer(3, np.array([-2.0, -1.0, 2.5]), np.array([[0, 1], [1, 2]]))
    assert res.labels.tolist() == [False, False, False] and res.objective == 0.0


def test_infer_on_a_graph_and_bad_input():
    from tests.test_wps_graph import header_two_columns

    g = build_graph(header_two_columns())
    res = infer(g, [1.0, -0.5, 2.0])  # worth labelling b1 Y to reach b2
    assert res.labels.tolist() == [True, True, True]
    res = infer(g, [1.0, -3.0, 2.0])
    assert res.labels.tolist() == [True, False, False]
    assert g.is_feasible(res.labels)
    with pytest.raises(ValueError, match="3 vertices"):
        infer(g, [1.0])
    with pytest.raises(ValueError, match="finite"):
        infer(g, [1.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="edge endpoints"):
        infer(2, [1.0, 1.0], np.array([[0, 5]]))
    assert infer(0, []).labels.tolist() == []


def test_fractional_solution_is_reported(monkeypatch):
    class Fake:
        status, message = 0, "ok"
        x = np.array([0.5, 0.5])

    # inference imports linprog from scipy.optimize when it solves
    monkeypatch.setattr(scipy.optimize, "linprog", lambda *a, **k: Fake())
    with pytest.raises(NonIntegralSolution, match="fractional"):
        infer(2, [1.0, 1.0], np.array([[0, 1]]))


def test_loss_augmented_scores():
    f = np.array([0.5, -0.5])
    assert loss_augmented_scores(f, np.array([True, False])).tolist() == [-0.5, 0.5]


# ---------------------------------------------------------------------- dynamic programming
@st.composite
def region_trees(draw, max_vertices: int = 10):
    """A random WPS-graph structure: regions split into 2-4 sub-regions, breadth first, with
    the dependencies of Algorithm 1 (a split depends on the boundaries framing its region)."""
    from webseg.wps.graph import Region, WPSGraph

    regions = [Region(0, (), (0.0, 0.0, 1.0, 1.0))]
    deps: list[tuple[int, ...]] = []
    queue = [0]
    while queue:
        reg = regions[queue.pop(0)]
        k = draw(st.sampled_from([0, 0, 2, 3, 4]))
        if k == 0 or len(deps) + k - 1 > max_vertices:
            continue
        first = len(deps)
        vids = tuple(range(first, first + k - 1))
        kids = []
        for t in range(k):
            rid = len(regions)
            forming = tuple(v for v in (first + t - 1, first + t) if first <= v < first + k - 1)
            regions.append(Region(rid, (), reg.rect, parent=reg.id, forming=forming,
                                  level=reg.level + 1))
            kids.append(rid)
            queue.append(rid)
        deps += [reg.forming] * (k - 1)
        reg.split, reg.boundaries, reg.children = 0, vids, tuple(kids)
    n = len(deps)
    z = np.zeros(n)
    g = WPSGraph(None, regions, z.astype(np.int8), z, z, z.astype(np.int32), z.astype(np.int32),
                 z.astype(np.int32), z.astype(np.int32), deps)
    scores = draw(st.lists(st.integers(-4, 4).map(float), min_size=n, max_size=n))
    return g, np.asarray(scores)


@settings(max_examples=150, deadline=None)
@given(region_trees())
def test_dp_equals_exhaustive_and_lp(case):
    from webseg.wps.inference import infer_dp

    g, scores = case
    res = infer_dp(g, scores)
    assert g.is_feasible(res.labels)
    best, _ = exhaustive(g.n, scores, g.edges)
    assert res.objective == pytest.approx(best, abs=1e-9)
    assert res.objective == pytest.approx(float(scores[res.labels].sum()))
    assert infer(g, scores).objective == pytest.approx(best, abs=1e-7)


def test_dp_on_built_graphs():
    from tests.test_wps_graph import header_two_columns, table_page
    from webseg.wps.inference import infer_dp

    g = build_graph(header_two_columns())
    assert infer_dp(g, [1.0, -0.5, 2.0]).labels.tolist() == [True, True, True]
    assert infer_dp(g, [1.0, -3.0, 2.0]).labels.tolist() == [True, False, False]
    assert infer_dp(g, [0.0, 0.0, 0.0]).labels.tolist() == [False] * 3  # ties go to N
    rng = np.random.default_rng(0)
    g = build_graph(table_page(5))
    for _ in range(30):
        f = rng.normal(size=g.n)
        assert infer_dp(g, f).objective == pytest.approx(infer(g, f).objective)
    with pytest.raises(ValueError, match="finite"):
        infer_dp(g, np.full(g.n, np.inf))
    with pytest.raises(ValueError, match="scores for"):
        infer_dp(g, [1.0])
