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

    Everything that does not depend on the current labelling or on alpha (index arrays, the
    infinite edges and their capacities, ``lambda * w``, the columns of D) is laid out here
    once, so a move is a few vectorised array operations and one max-flow call. The move
    graph is the same, arc for arc and capacity for capacity, as the straightforward
    construction (infinite edges, then the Potts edges, then the terminal edges), so the cut
    - and the minimiser's output - does not depend on these shortcuts.
    """

    def __init__(self, problem: Problem) -> None:
        self.p = problem
        n = problem.n
        self.internal = np.flatnonzero(~problem.is_leaf)
        self.leaves = np.flatnonzero(problem.is_leaf)
        self.kb = np.full(n, -1, dtype=np.int64)
        self.kb[self.internal] = n + np.arange(len(self.internal))
        self.kb_int = self.kb[self.internal]
        self.nvar = n + len(self.internal)
        self.var_ids = np.arange(self.nvar)
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
        # the static arrays of one move graph: infinite edges first, then the Potts edges
        self.ei = np.ascontiguousarray(problem.edges[:, 0])
        self.ej = np.ascontiguousarray(problem.edges[:, 1])
        self.lam_w = problem.lam * problem.w
        nci = len(self.ci)
        self.edge_i = np.concatenate([self.ci, self.ei])
        self.edge_j = np.concatenate([self.cj, self.ej])
        self.edge_cap = np.empty(nci + len(self.ei))
        self.edge_cap[:nci] = self.big
        self.edge_rcap = np.zeros(nci + len(self.ei))
        self.n_inf = nci
        # columns of D (contiguous), and the per-internal-node constants
        self.D_cols = np.ascontiguousarray(problem.D.T)
        self.D_flat = np.ascontiguousarray(problem.D).ravel()
        self.row_off = np.arange(n, dtype=np.int64) * problem.K
        self.vis_int = self.vis_coef[self.internal]
        self.dxi_int = problem.dxi[self.internal]

    def move(self, S: np.ndarray, alpha: int) -> np.ndarray:
        """The optimal labelling in the alpha-move space of ``S`` (one s-t min cut)."""
        n = self.p.n
        S = np.asarray(S, dtype=np.int64)
        big = self.big
        leaf, u = self.leaves, self.internal
        c0 = np.zeros(self.nvar)
        c1 = np.zeros(self.nvar)
        d_cur = self.D_flat[self.row_off + np.maximum(S, 0)]  # D[p, S(p)] (label 0 for xi)
        d_alpha = self.D_cols[alpha]
        # stage 1, leaves (a leaf already labelled alpha cannot keep "its" label)
        c0[leaf] = d_cur[leaf]
        c1[leaf] = d_alpha[leaf]
        at_alpha = leaf[S[leaf] == alpha]
        c0[at_alpha] += big
        # stage 3, internal nodes: a_u (id u) and kb_u (id n + j)
        Su = S[u]
        c1[u] = d_alpha[u] + self.vis_int - self.dxi_int
        keep_ok = (Su != XI) & (Su != alpha)
        c0[self.kb_int] = np.where(keep_ok, d_cur[u] + self.vis_int - self.dxi_int, big)
        # stage 2, Potts leaf pairs: table A=E00, B=E01, C=E10, E11=0
        ei, ej = self.ei, self.ej
        w = self.lam_w
        si, sj = S[ei], S[ej]
        A = w * (si != sj)
        B = w * (si != alpha)
        C = w * (alpha != sj)
        np.add.at(c1, ei, C - A)
        np.add.at(c1, ej, -C)
        cap = self.edge_cap
        np.maximum(B + C - A, 0.0, out=cap[self.n_inf:])
        g = maxflow.Graph[float](self.nvar, len(cap))
        g.add_nodes(self.nvar)
        if len(cap):
            g.add_edges(self.edge_i, self.edge_j, cap, self.edge_rcap)
        net = c1 - c0
        g.add_grid_tedges(self.var_ids, np.maximum(net, 0.0), np.maximum(-net, 0.0))
        g.maxflow()
        side = g.get_grid_segments(self.var_ids)
        out = S.copy()
        x = side[:n]
        out[leaf[x[leaf]]] = alpha
        out[u] = np.where(x[u], alpha, np.where(side[self.kb_int], XI, Su))
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
        # most moves return S itself (91% on kreuzer-random): its energy is E, a failure
        e_new = E if np.array_equal(S2, S) else problem.energy(S2)
        if e_new < E - rtol * max(1.0, abs(E)):
            S, E = S2, e_new
            accepted += 1
            fails = 0
        else:
            fails += 1
    return MinimizeResult(S, E, moves, accepted, -(-moves // K), fails >= K)
