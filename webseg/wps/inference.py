"""Inference on a WPS-graph: the binary ILP of Bing et al. (SIGIR 2014), Eqs. (12)-(18).

Each boundary ``b_i`` gets ``F_i = <Psi(b_i, Y), w>`` and ``F̄_i = <Psi(b_i, N), w>``; with
``x_i = 1`` for Y the objective is ``sum_i (F_i - F̄_i) x_i + const`` and every edge ``<b_i, b_j>``
("``b_j`` depends on ``b_i``") gives ``x_i >= x_j``, i.e. the row ``x_j - x_i <= 0`` of ``A``
(Eq. 16): a boundary can be Y only when every boundary it depends on is Y. So this module only
needs the score differences ``f_i = F_i - F̄_i`` (:func:`infer` takes them as ``scores``).

``B = [A; I]`` is totally unimodular (``A`` is the transposed incidence matrix of a directed
graph), so the LP relaxation (Eq. 18) has an integral optimal vertex; it is solved with HiGHS'
dual simplex (``scipy.optimize.linprog(method="highs-ds")``), which returns a basic, hence
integral, solution. Integrality is checked to ``1e-6`` and a :class:`NonIntegralSolution` error
is raised otherwise. Before solving, leaves (vertices nothing depends on) with ``f_i <= 0`` are
labelled N and removed, repeatedly (the paper's speed-up, end of Section 5).

:func:`infer_dp` solves the same ILP exactly without an LP, by dynamic programming over the
WPS region tree (a boundary's dependencies are the one or two boundaries that frame its region,
so the constraints form chains along each split). It returns the same optimum (property-tested
against :func:`infer` and :func:`exhaustive`) in microseconds instead of milliseconds; the
structural SVM's separation oracles, which solve thousands of these ILPs, use it, while the
segmenters keep the LP of the paper.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from webseg.wps.graph import WPSGraph

INTEGRALITY_TOL = 1e-6


class NonIntegralSolution(RuntimeError):
    """The LP relaxation returned a fractional point (should not happen: B is TU)."""


@dataclass
class InferenceResult:
    """``labels``: bool per vertex (True = Y); ``objective``: ``sum f_i x_i``; ``n_pruned``:
    vertices fixed to N by leaf pruning; ``n_lp``: vertices left to the LP."""

    labels: np.ndarray
    objective: float
    n_pruned: int
    n_lp: int


def _edges_of(graph_or_n: WPSGraph | int, edges: np.ndarray | None) -> tuple[int, np.ndarray]:
    if isinstance(graph_or_n, WPSGraph):
        return graph_or_n.n, graph_or_n.edges
    e = np.asarray(edges if edges is not None else [], dtype=np.int64).reshape(-1, 2)
    return int(graph_or_n), e


def prune_leaves(n: int, edges: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Vertices that can be labelled N up front: leaves with ``f <= 0``, recursively.

    A vertex nothing depends on (a leaf) never helps another vertex to be Y, so with a
    non-positive score N is optimal for it whatever its ancestors get; removing it may make its
    dependencies leaves in turn. Returns a bool mask of the pruned vertices.
    """
    outdeg = np.bincount(edges[:, 0], minlength=n) if len(edges) else np.zeros(n, np.int64)
    preds: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        preds[j].append(int(i))
    pruned = np.zeros(n, dtype=bool)
    stack = [v for v in range(n) if outdeg[v] == 0 and scores[v] <= 0]
    while stack:
        v = stack.pop()
        if pruned[v]:
            continue
        pruned[v] = True
        for i in preds[v]:
            outdeg[i] -= 1
            if outdeg[i] == 0 and scores[i] <= 0 and not pruned[i]:
                stack.append(i)
    return pruned


def infer(graph_or_n: WPSGraph | int, scores: Sequence[float] | np.ndarray,
          edges: np.ndarray | None = None, *, prune: bool = True) -> InferenceResult:
    """Optimal feasible labelling: ``max sum f_i x_i`` s.t. ``x_i >= x_j`` per edge ``(i, j)``.

    ``graph_or_n`` is a :class:`WPSGraph` or a vertex count (then ``edges`` is an (m, 2) array of
    ``(i, j)``: ``j`` depends on ``i``). ``scores[i] = F_i - F̄_i``. Among optimal labellings
    the one returned is whatever HiGHS finds (ties are not broken on purpose).
    """
    n, e = _edges_of(graph_or_n, edges)
    f = np.asarray(scores, dtype=np.float64).ravel()
    if len(f) != n:
        raise ValueError(f"got {len(f)} scores for {n} vertices")
    if not np.all(np.isfinite(f)):
        raise ValueError("scores must be finite")
    if len(e) and (e.min() < 0 or e.max() >= n):
        raise ValueError(f"edge endpoints must be vertex ids in [0, {n})")
    pruned = prune_leaves(n, e, f) if prune else np.zeros(n, dtype=bool)
    keep = np.flatnonzero(~pruned)
    x = np.zeros(n, dtype=bool)
    if len(keep):
        idx = np.full(n, -1, dtype=np.int64)
        idx[keep] = np.arange(len(keep))
        ee = e[~pruned[e[:, 0]] & ~pruned[e[:, 1]]] if len(e) else e
        if not len(ee):
            x[keep] = f[keep] > 0
        else:
            m = len(ee)
            rows = np.repeat(np.arange(m), 2)
            cols = np.column_stack([idx[ee[:, 1]], idx[ee[:, 0]]]).ravel()
            vals = np.tile([1.0, -1.0], m)
            a = csr_matrix((vals, (rows, cols)), shape=(m, len(keep)))
            # imported here: the segmenter registry imports this module, and scipy.optimize
            # costs every process that never runs WPS about 0.2 CPU s
            from scipy.optimize import linprog

            res = linprog(-f[keep], A_ub=a, b_ub=np.zeros(m), bounds=(0.0, 1.0),
                          method="highs-ds")
            if res.status != 0:
                raise RuntimeError(f"HiGHS failed on the WPS LP: {res.message}")
            sol = np.asarray(res.x)
            frac = float(np.max(np.abs(sol - np.round(sol)))) if len(sol) else 0.0
            if frac > INTEGRALITY_TOL:
                raise NonIntegralSolution(
                    f"LP relaxation solution is fractional (max distance to an integer "
                    f"{frac:.3g} > {INTEGRALITY_TOL}); the constraint matrix should be totally "
                    f"unimodular - are the edges (prerequisite, dependent) pairs?")
            x[keep] = np.round(sol) > 0.5
    return InferenceResult(labels=x, objective=float(f[x].sum()), n_pruned=int(pruned.sum()),
                           n_lp=int(len(keep)))


def infer_dp(graph: WPSGraph, scores: Sequence[float] | np.ndarray) -> InferenceResult:
    """Optimal feasible labelling of a :class:`WPSGraph` by dynamic programming (exact).

    For a region ``R`` split into sub-regions ``c_0..c_{k-1}`` by boundaries ``b_0..b_{k-2}``,
    sub-region ``c_t`` may be split further only when its frame (``b_{t-1}`` and ``b_t``, those
    that exist) is all Y. With ``V(c) >= 0`` the best value inside ``c`` when it is open,
    ``V(R) = max_x sum_t f(b_t) x_t + sum_t [frame of c_t all Y] V(c_t)``, a chain over the
    ``x_t`` solved left to right with the label of the previous boundary as state. Regions
    are processed children first (their ids are larger), then labels are read top-down. Ties
    go to N. ``n_pruned`` and ``n_lp`` are 0.
    """
    f = np.asarray(scores, dtype=np.float64).ravel()
    if len(f) != graph.n:
        raise ValueError(f"got {len(f)} scores for {graph.n} vertices")
    if not np.all(np.isfinite(f)):
        raise ValueError("scores must be finite")
    regions = graph.regions
    value = np.zeros(len(regions))
    choice: dict[int, list[int]] = {}
    for reg in reversed(regions):
        bs = reg.boundaries
        if not bs:
            continue
        kids = reg.children
        vk = value[list(kids)]
        m = len(bs)
        # d[x] = best value of b_0..b_t with x_t = x; back[t][x] = best x_{t-1}
        d = [0.0, f[bs[0]] + vk[0]]
        back: list[tuple[int, int]] = []
        for t in range(1, m):
            prev_n = max(d[0], d[1])
            arg_n = 0 if d[0] >= d[1] else 1
            open_prev = d[1] + vk[t]
            arg_y = 0 if d[0] >= open_prev else 1
            d = [prev_n, f[bs[t]] + max(d[0], open_prev)]
            back.append((arg_n, arg_y))
        last = [d[0], d[1] + vk[m - 1 + 1]]
        x = 0 if last[0] >= last[1] else 1
        value[reg.id] = last[x]
        xs = [x]
        for t in range(m - 1, 0, -1):
            x = back[t - 1][x]
            xs.append(x)
        choice[reg.id] = xs[::-1]
    y = np.zeros(graph.n, dtype=bool)
    stack = [0] if regions else []
    while stack:  # top-down: a region is reached only when it is open
        reg = regions[stack.pop()]
        xs = choice.get(reg.id)
        if xs is None:
            continue
        for t, b in enumerate(reg.boundaries):
            y[b] = bool(xs[t])
        k = len(reg.children)
        for t, c in enumerate(reg.children):
            if (t == 0 or xs[t - 1]) and (t == k - 1 or xs[t]):
                stack.append(c)
    return InferenceResult(labels=y, objective=float(f[y].sum()), n_pruned=0, n_lp=0)


def exhaustive(n: int, scores: Sequence[float] | np.ndarray, edges: np.ndarray
               ) -> tuple[float, np.ndarray]:
    """Brute-force ILP optimum over all ``2**n`` labellings (reference for tests, n <= 20)."""
    if n > 20:
        raise ValueError("exhaustive search is for n <= 20")
    f = np.asarray(scores, dtype=np.float64)
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    best, best_x = -np.inf, np.zeros(n, dtype=bool)
    for bits in itertools.product((False, True), repeat=n):
        x = np.array(bits, dtype=bool)
        if len(e) and np.any(x[e[:, 1]] & ~x[e[:, 0]]):
            continue
        val = float(f[x].sum())
        if val > best:
            best, best_x = val, x
    return best, best_x


def loss_augmented_scores(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Scores for margin-rescaled loss-augmented inference with Hamming loss (Eqs. 24-29).

    ``argmax_C Delta(C_i, C) + F(G, C; w)`` is the same ILP with ``f_i + 1`` where the gold is N
    (predicting Y costs a mistake) and ``f_i - 1`` where it is Y.
    """
    g = np.asarray(gold, dtype=bool)
    return np.asarray(scores, dtype=np.float64) + np.where(g, -1.0, 1.0)
