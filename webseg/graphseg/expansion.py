"""Alpha-expansion for the GCuts energy, one s-t min cut (PyMaxflow) per move.

**The move.** Given a labelling ``S`` and a label ``alpha``, every leaf keeps its label or
switches to ``alpha``; every internal node keeps its (visible) label, switches to ``alpha`` or
becomes invisible (xi). This is the paper's enlarged move: a plain alpha-expansion cannot take
a parent labelled beta whose children should split between beta and gamma to (xi; beta, gamma)
in one step, and two separate steps each raise the energy (Section 4.2), so each move here may
turn parents invisible while their children split.

**The graph** (variable = 1 means "on the sink side"), the paper's three stages:

1. *Single-node costs*: a leaf ``p`` has one variable ``x_p`` (1 = switch to alpha) with unary
   costs Dp(S(p)) / Dp(alpha) (the s->p / p->t edges of Figure 1, left).
2. *Adjacent leaf pairs*: the Potts term of each visually adjacent leaf pair is decomposed into
   the paper's x, y (terminal edges of p and q) and z (edge p->q, z >= 0 by Theorem 2).
3. *Parent-child*: an internal node ``u`` has two variables, the paper's ``u(t)`` (here
   ``a_u``: 1 = u takes alpha) and ``u(s)`` (here ``kb_u``: 1 = u does not keep its label).
   Infinite edges tie them to the children: ``a_u = 1`` only if every child switches
   (edges ``q -> u(t)``), ``kb_u = 0`` only if every child keeps (edges ``u(s) -> q``). So
   u keeps its label (a=0, kb=0), takes alpha (a=1, kb=1), or - whenever its children split -
   is invisible (a=0, kb=1).

The paper puts weight ``c = sum_q Vqu(S(q), xi)`` on the edges of the u(s)/u(t) gadget, which
charges c extra exactly when the children split. We keep the gadget's shape but put the exact
costs on the terminal edges of u(s) and u(t) instead, because with deep trees (children that are
themselves internal, nodes that are already invisible, Dp of the internal node itself) the
constant-c version is no longer exact: the parent-child energy
``sum_q v_q [q visible, parent invisible]`` equals ``sum_u vis_u * (v_u - sum_children v_q)``
under the constraints, a *unary* term in vis_u = a_u + 1 - kb_u. With the infinite edges pointing
the submodular way every term is graph-representable, so each move is solved exactly: the cut
is the minimum over the whole move space, which contains the current labelling, and a move
can therefore never increase the energy (tested against brute force in tests/).
"""

from __future__ import annotations

from dataclasses import dataclass

import maxflow
import numpy as np

from webseg.graphseg.energy import XI, Problem


@dataclass
class MinimizeResult:
    """Final labelling, its energy and how much work the minimisation did."""

    labels: np.ndarray
    energy: float
    moves: int
    accepted: int
    sweeps: int
    converged: bool


class Expander:
    """The static part of the move graph of one :class:`Problem` (built once, reused per move).

    Variable ids: node ``i`` (``x_i`` for leaves, ``a_i`` for internal nodes) and
    ``n + j`` for ``kb`` of the ``j``-th internal node.
    """

    def __init__(self, problem: Problem) -> None:
        self.p = problem
        n = problem.n
        self.internal = np.flatnonzero(~problem.is_leaf)
        self.kb = np.full(n, -1, dtype=np.int64)
        self.kb[self.internal] = n + np.arange(len(self.internal))
        self.nvar = n + len(self.internal)
        finite = np.abs(problem.D[np.isfinite(problem.D)]).sum() \
            + np.abs(problem.dxi[np.isfinite(problem.dxi)]).sum() \
            + problem.lam * (problem.v.sum() + problem.w.sum())
        self.big = 1.0 + 4.0 * float(finite)
        # infinite edges: (i, j) with capacity BIG for the assignment (x_i = 0, x_j = 1)
        child = np.arange(1, n, dtype=np.int64)
        par = problem.parent[1:]
        leafc = problem.is_leaf[child]
        # a_u <= child (child -> u(t)); kb_u >= child (u(s) -> child); a_u <= kb_u
        src = [child, self.kb[par], self.kb[self.internal]]
        dst = [par, np.where(leafc, child, self.kb[child]), self.internal]
        self.ci = np.concatenate(src)
        self.cj = np.concatenate(dst)
        self.vis_coef = problem.lam * (problem.v - problem.children_v)

    def move(self, S: np.ndarray, alpha: int) -> np.ndarray:
        """The optimal labelling in the alpha-move space of ``S`` (one s-t min cut)."""
        p = self.p
        n = p.n
        S = cur = np.asarray(S, dtype=np.int64)
        big = self.big
        c0 = np.zeros(self.nvar)
        c1 = np.zeros(self.nvar)
        leaf = p.is_leaf
        Sv = np.where(S == XI, 0, S)
        d_cur = p.D[np.arange(n), Sv]
        d_alpha = p.D[:, alpha]
        # stage 1, leaves
        c0[:n][leaf] = d_cur[leaf]
        c1[:n][leaf] = d_alpha[leaf]
        c0[:n][leaf & (cur == alpha)] += big
        # stage 3, internal nodes: a_u (id u) and kb_u (id n + j)
        u = self.internal
        base = p.dxi[u]
        c1[u] = d_alpha[u] + self.vis_coef[u] - base
        keep_ok = (S[u] != XI) & (S[u] != alpha)
        c0[self.kb[u]] = np.where(keep_ok, d_cur[u] + self.vis_coef[u] - base, big)
        # stage 2, Potts leaf pairs: table A=E00, B=E01, C=E10, E11=0
        ei, ej = p.edges[:, 0], p.edges[:, 1]
        w = p.lam * p.w
        si, sj = S[ei], S[ej]
        A = w * (si != sj)
        B = w * (si != alpha)
        C = w * (alpha != sj)
        np.add.at(c1, ei, C - A)
        np.add.at(c1, ej, -C)
        z = B + C - A
        g = maxflow.Graph[float](self.nvar, len(self.ci) + len(ei))
        g.add_nodes(self.nvar)
        if len(self.ci):
            g.add_edges(self.ci, self.cj, np.full(len(self.ci), big), np.zeros(len(self.ci)))
        if len(ei):
            g.add_edges(ei, ej, np.maximum(z, 0.0), np.zeros(len(ei)))
        net = c1 - c0
        g.add_grid_tedges(np.arange(self.nvar), np.maximum(net, 0.0), np.maximum(-net, 0.0))
        g.maxflow()
        side = g.get_grid_segments(np.arange(self.nvar))
        out = S.copy()
        x = side[:n]
        out[leaf & x] = alpha
        a = x[u]
        kb = side[self.kb[u]]
        out[u] = np.where(a, alpha, np.where(kb, XI, S[u]))
        return out


def initial_labelling(problem: Problem) -> np.ndarray:
    """The paper's trivial start: every node visible with one label (the cheapest in sum Dp)."""
    k0 = int(np.argmin(problem.D.sum(axis=0))) if problem.K else 0
    return np.full(problem.n, k0, dtype=np.int64)


def minimize(problem: Problem, init: np.ndarray | None = None,
             order: np.ndarray | None = None, max_sweeps: int = 50,
             rtol: float = 1e-9) -> MinimizeResult:
    """Alpha-expansion: sweep over the labels until no expansion lowers the energy."""
    problem.check_graph_representable()
    if problem.n == 0 or problem.K == 0:
        return MinimizeResult(np.full(problem.n, XI, np.int64), 0.0, 0, 0, 0, True)
    ex = Expander(problem)
    S = initial_labelling(problem) if init is None else np.asarray(init, np.int64).copy()
    E = problem.energy(S)
    if not np.isfinite(E):
        raise ValueError("initial labelling is infeasible")
    order = np.arange(problem.K) if order is None else np.asarray(order)
    K = len(order)
    moves = accepted = fails = 0
    while fails < K and moves < max_sweeps * K:
        alpha = int(order[moves % K])
        S2 = ex.move(S, alpha)
        moves += 1
        e_new = problem.energy(S2)
        if e_new < E - rtol * max(1.0, abs(E)):
            S, E = S2, e_new
            accepted += 1
            fails = 0
        else:
            fails += 1
    return MinimizeResult(S, E, moves, accepted, -(-moves // K), fails >= K)
