"""Alpha-expansion for the GCuts energy against brute force on tiny trees (hypothesis)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg.graphseg.energy import XI, NotGraphRepresentableError, Problem
from webseg.graphseg.expansion import Expander, minimize

FLOATS = st.floats(0.0, 3.0, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw: st.DrawFn, max_nodes: int = 7, max_labels: int = 3) -> Problem:
    """A random tree (<= 7 nodes) with random costs satisfying constraints (3)-(8)."""
    n = draw(st.integers(2, max_nodes))
    parent = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    par = np.asarray(parent)
    leaf = np.bincount(par[1:], minlength=n) == 0
    k = draw(st.integers(1, max_labels))
    D = np.asarray(draw(st.lists(FLOATS, min_size=n * k, max_size=n * k))).reshape(n, k)
    dxi = np.where(leaf, np.inf, np.asarray(draw(st.lists(FLOATS, min_size=n, max_size=n))))
    v = np.asarray(draw(st.lists(FLOATS, min_size=n, max_size=n)))
    leaves = np.flatnonzero(leaf)
    pairs = [p for p in itertools.combinations(leaves.tolist(), 2) if draw(st.booleans())]
    w = np.asarray(draw(st.lists(FLOATS, min_size=len(pairs), max_size=len(pairs))))
    lam = draw(st.floats(0.0, 3.0))
    return Problem(par, D, dxi, v, np.asarray(pairs, dtype=np.int64).reshape(-1, 2), w, lam)


def feasible_labellings(p: Problem):
    opts = [range(p.K) if p.is_leaf[i] else [*range(p.K), XI] for i in range(p.n)]
    for S in itertools.product(*opts):
        arr = np.asarray(S)
        if p.feasible(arr):
            yield arr


def in_move_space(p: Problem, cur: np.ndarray, new: np.ndarray, alpha: int) -> bool:
    """``new`` is one move from ``cur``: keep, take alpha, or (internal) turn invisible."""
    ok = (new == cur) | (new == alpha) | ((new == XI) & ~p.is_leaf)
    return bool(ok.all())


@st.composite
def problem_and_labelling(draw: st.DrawFn):
    p = draw(problems())
    labs = list(feasible_labellings(p))
    S = labs[draw(st.integers(0, len(labs) - 1))]
    alpha = draw(st.integers(0, p.K - 1))
    return p, S, alpha


@settings(max_examples=150, deadline=None)
@given(problem_and_labelling())
def test_one_expansion_never_increases_energy(case):
    p, S, alpha = case
    T = Expander(p).move(S, alpha)
    assert p.feasible(T)
    assert in_move_space(p, S, T, alpha)
    assert p.energy(T) <= p.energy(S) + 1e-9


@settings(max_examples=100, deadline=None)
@given(problem_and_labelling())
def test_one_expansion_is_the_exact_minimum_over_its_move_space(case):
    """The three-stage graph represents the move exactly: min cut = brute-force minimum."""
    p, S, alpha = case
    T = Expander(p).move(S, alpha)
    best = min(p.energy(X) for X in feasible_labellings(p) if in_move_space(p, S, X, alpha))
    assert p.energy(T) == pytest.approx(best, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(problems(max_labels=2))
def test_gcuts_finds_the_global_minimum_with_two_visible_labels(p):
    """With <= 2 visible labels the first expansion from the trivial start already spans every
    feasible labelling (keep / alpha / xi), so GCuts must return the brute-force optimum."""
    res = minimize(p)
    assert res.converged
    best = min(p.energy(X) for X in feasible_labellings(p))
    # minimize() ignores improvements below rtol = 1e-9 (relative): allow twice that
    assert res.energy == pytest.approx(best, abs=2e-9 * max(1.0, abs(best)))


@settings(max_examples=60, deadline=None)
@given(problems(max_labels=3))
def test_gcuts_result_is_a_local_minimum_for_every_expansion(p):
    """With 3 labels alpha-expansion is not exact; its result is a fixpoint of all moves."""
    res = minimize(p)
    labs = list(feasible_labellings(p))
    best = min(p.energy(X) for X in labs)
    assert res.energy >= best - 1e-9
    for alpha in range(p.K):
        local = min(p.energy(X) for X in labs if in_move_space(p, res.labels, X, alpha))
        assert res.energy <= local + 2e-9 * max(1.0, abs(local))


def test_energy_terms_by_hand():
    #      0
    #    1   4        leaves 2, 3, 5
    #   2 3   5
    parent = np.array([-1, 0, 1, 1, 0, 4])
    D = np.array([[0, 1], [1, 0], [2, 0], [0, 3], [5, 5], [0, 1]], dtype=float)
    dxi = np.array([0.5, 0.25, np.inf, np.inf, 0.0, np.inf])
    v = np.array([9, 1, 2, 3, 4, 5], dtype=float)
    p = Problem(parent, D, dxi, v, np.array([[2, 3], [3, 5]]), np.array([10.0, 20.0]), lam=0.5)
    assert p.v[0] == 0  # the root has no parent edge
    # node 1 visible label 1 with its leaves; 0 and 4 invisible; leaf 5 label 0
    S = np.array([XI, 1, 1, 1, XI, 0])
    unary = 0.5 + 0 + 0 + 3 + 0.0 + 0
    pc = 1 + 5  # roots 1 (parent 0 invisible) and 5 (parent 4 invisible)
    potts = 20  # (3, 5) differ
    assert p.energy(S) == pytest.approx(unary + 0.5 * (pc + potts))
    assert p.segment_roots(S).tolist() == [1, 5]
    assert p.energy(np.array([1, 1, 0, 1, XI, 0])) == np.inf  # child differs, parent visible
    assert p.energy(np.array([XI, XI, XI, 1, XI, 0])) == np.inf  # leaf invisible


def test_theorem_2_is_asserted():
    p = Problem(np.array([-1, 0, 0]), np.zeros((3, 1)), np.array([0, np.inf, np.inf]),
                np.zeros(3), np.array([[1, 2]]), np.array([-0.1]))
    with pytest.raises(NotGraphRepresentableError):
        p.check_graph_representable()
    with pytest.raises(NotGraphRepresentableError):
        minimize(p)


def test_constraint_3_is_enforced():
    with pytest.raises(ValueError, match="constraint \\(3\\)"):
        Problem(np.array([-1, 0]), np.zeros((2, 1)), np.zeros(2), np.zeros(2),
                np.zeros((0, 2)), np.zeros(0))


def test_parent_turns_invisible_while_children_split():
    """The paper's motivating case: parent and children all beta, optimum (xi; beta, gamma)."""
    parent = np.array([-1, 0, 0])
    D = np.array([[0.0, 0.0], [0.0, 5.0], [5.0, 0.0]])  # leaf 1 wants label 0, leaf 2 label 1
    p = Problem(parent, D, np.array([0.0, np.inf, np.inf]), np.array([0, 0.1, 0.1]),
                np.zeros((0, 2)), np.zeros(0), lam=1.0)
    S0 = np.zeros(3, dtype=np.int64)
    T = Expander(p).move(S0, 1)
    assert T.tolist() == [XI, 0, 1]


# ---------------------------------------------------------------- identity with the plain code
def reference_move(p: Problem, S: np.ndarray, alpha: int) -> np.ndarray:
    """The move built from scratch, as before the caching in :class:`Expander`:
    the cached version must give the same labelling, bit for bit, on any problem."""
    import maxflow

    ex = Expander(p)
    n = p.n
    S = np.asarray(S, dtype=np.int64)
    big = ex.big
    c0, c1 = np.zeros(ex.nvar), np.zeros(ex.nvar)
    leaf = p.is_leaf
    d_cur = p.D[np.arange(n), np.where(S == XI, 0, S)]
    d_alpha = p.D[:, alpha]
    c0[:n][leaf] = d_cur[leaf]
    c1[:n][leaf] = d_alpha[leaf]
    c0[:n][leaf & (alpha == S)] += big
    u = ex.internal
    c1[u] = d_alpha[u] + ex.vis_coef[u] - p.dxi[u]
    keep_ok = (S[u] != XI) & (S[u] != alpha)
    c0[ex.kb[u]] = np.where(keep_ok, d_cur[u] + ex.vis_coef[u] - p.dxi[u], big)
    ei, ej = p.edges[:, 0], p.edges[:, 1]
    w = p.lam * p.w
    si, sj = S[ei], S[ej]
    A, B, C = w * (si != sj), w * (si != alpha), w * (alpha != sj)
    np.add.at(c1, ei, C - A)
    np.add.at(c1, ej, -C)
    g = maxflow.Graph[float](ex.nvar, len(ex.ci) + len(ei))
    g.add_nodes(ex.nvar)
    if len(ex.ci):
        g.add_edges(ex.ci, ex.cj, np.full(len(ex.ci), big), np.zeros(len(ex.ci)))
    if len(ei):
        g.add_edges(ei, ej, np.maximum(B + C - A, 0.0), np.zeros(len(ei)))
    net = c1 - c0
    g.add_grid_tedges(np.arange(ex.nvar), np.maximum(net, 0.0), np.maximum(-net, 0.0))
    g.maxflow()
    side = g.get_grid_segments(np.arange(ex.nvar))
    out = S.copy()
    out[leaf & side[:n]] = alpha
    out[u] = np.where(side[u], alpha, np.where(side[ex.kb[u]], XI, S[u]))
    return out


def reference_minimize(p: Problem, rtol: float = 1e-9) -> tuple[np.ndarray, float, int]:
    """Alpha-expansion with :func:`reference_move` and the energy of every move."""
    from webseg.graphseg.expansion import initial_labelling

    S = initial_labelling(p)
    E = p.energy(S)
    moves = fails = 0
    while fails < p.K and moves < 50 * p.K:
        S2 = reference_move(p, S, moves % p.K)
        moves += 1
        e_new = p.energy(S2)
        if e_new < E - rtol * max(1.0, abs(E)):
            S, E, fails = S2, e_new, 0
        else:
            fails += 1
    return S, E, moves


@st.composite
def larger_problems(draw: st.DrawFn) -> Problem:
    """Random trees of up to 40 nodes, 6 labels and many Potts edges (no brute force)."""
    n = draw(st.integers(2, 40))
    parent = np.asarray([-1] + [draw(st.integers(max(0, i - 4), i - 1)) for i in range(1, n)])
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    leaf = np.bincount(parent[1:], minlength=n) == 0
    k = draw(st.integers(1, 6))
    # coarse values make ties (equal costs, zero-capacity arcs) common
    D = rng.integers(0, 4, (n, k)) / 2.0
    dxi = np.where(leaf, np.inf, rng.integers(0, 3, n) / 2.0)
    v = rng.random(n) * rng.integers(0, 2, n)
    leaves = np.flatnonzero(leaf)
    pairs = [pq for pq in itertools.combinations(leaves.tolist(), 2) if rng.random() < 0.3]
    w = rng.integers(0, 3, len(pairs)) / 2.0
    lam = draw(st.sampled_from([0.0, 0.5, 1.0, 3.0]))
    return Problem(parent, D, dxi, v, np.asarray(pairs, dtype=np.int64).reshape(-1, 2), w, lam)


@settings(max_examples=150, deadline=None)
@given(larger_problems(), st.data())
def test_cached_moves_are_the_plain_moves_bit_for_bit(p, data):
    """Every move from a reachable labelling equals the plain construction's move."""
    ex = Expander(p)
    S = minimize(p, max_sweeps=1).labels if data.draw(st.booleans()) \
        else np.zeros(p.n, np.int64)
    for alpha in range(p.K):
        ref = reference_move(p, S, alpha)
        assert ex.move(S, alpha).tolist() == ref.tolist()
        ex.load(S)
        out, changed = ex.move_current(alpha)
        assert out.tolist() == ref.tolist() and changed == (ref.tolist() != S.tolist())


@settings(max_examples=100, deadline=None)
@given(larger_problems())
def test_minimize_is_the_plain_alpha_expansion(p):
    """Same labelling, energy and number of moves as the uncached loop."""
    res = minimize(p)
    S, E, moves = reference_minimize(p)
    assert res.labels.tolist() == S.tolist()
    assert res.energy == E and res.moves == moves
