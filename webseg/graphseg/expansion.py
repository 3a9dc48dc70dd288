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

    **Speed** (two-level GCuts minimises twice per page). A minimisation makes a
    few hundred moves, ~90% of which return the labelling unchanged, and each move used to
    rebuild every cost from scratch. The terms are cached by what they depend on:

    * nothing (index arrays, the infinite edges, ``lambda * w``): built here once;
    * alpha only (the sink-side unary ``c1`` before the Potts terms): one row per label,
      built here once (:attr:`c1_alpha`);
    * the current labelling only (``D[p, S(p)]``, the keep cost of internal nodes, the
      Potts term E00): rebuilt by :meth:`load` when the labelling changes, i.e. after an
      accepted move.

    Every capacity is computed by the same floating-point operations in the same order as
    the straightforward construction (infinite edges, then the Potts edges, then the
    terminal edges), so the move graph - hence the cut and the minimiser's output - is
    identical, arc for arc and bit for bit (``tests/test_graphseg_energy.py`` checks this
    against a reference implementation).
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
        # the arcs of every move graph: the infinite edges first, then the Potts edges
        self.ei = np.ascontiguousarray(problem.edges[:, 0])
        self.ej = np.ascontiguousarray(problem.edges[:, 1])
        self.lam_w = problem.lam * problem.w
        self.lam_w2 = np.concatenate([self.lam_w, self.lam_w])
        self.n_inf = nci = len(self.ci)
        self.edge_i = np.concatenate([self.ci, self.ei])
        self.edge_j = np.concatenate([self.cj, self.ej])
        self.edge_cap = np.empty(nci + len(self.ei))
        self.edge_cap[:nci] = self.big
        self.edge_rcap = np.zeros(nci + len(self.ei))
        # c1 before the Potts terms, per alpha: D[leaf, alpha]; D[u, alpha] + vis - dxi
        self.vis_int = self.vis_coef[self.internal]
        self.dxi_int = problem.dxi[self.internal]
        DT = problem.D.T
        self.c1_alpha = np.zeros((problem.K, self.nvar))
        self.c1_alpha[:, self.leaves] = DT[:, self.leaves]
        self.c1_alpha[:, self.internal] = DT[:, self.internal] + self.vis_int - self.dxi_int
        self.D_flat = np.ascontiguousarray(problem.D).ravel()
        self.row_off = np.arange(n, dtype=np.int64) * problem.K
        self.S: np.ndarray | None = None

    def load(self, S: np.ndarray) -> None:
        """Make ``S`` the current labelling and compute the terms that depend on it only."""
        S = self.S = np.array(S, dtype=np.int64)  # a private copy
        leaf, u = self.leaves, self.internal
        d_cur = self.D_flat[self.row_off + np.maximum(S, 0)]  # D[p, S(p)] (label 0 for xi)
        c0 = self.c0_cur = np.zeros(self.nvar)
        c0[leaf] = d_cur[leaf]
        self.S_leaf = S[leaf]
        self.S_int = Su = S[u]
        # an internal node keeps its label at this cost; an invisible one cannot keep
        c0[self.kb_int] = np.where(Su != XI, d_cur[u] + self.vis_int - self.dxi_int, self.big)
        self.si, self.sj = S[self.ei], S[self.ej]
        self.A = self.lam_w * (self.si != self.sj)
        self.s_ends = np.concatenate([self.si, self.sj])  # for B and C in one operation
        # the cut that encodes S (for alpha, see move_current): invisible nodes do not keep
        self.x_cur = np.zeros(self.nvar, dtype=bool)
        self.x_cur[self.kb_int[Su == XI]] = True

    def move(self, S: np.ndarray, alpha: int) -> np.ndarray:
        """The optimal labelling in the alpha-move space of ``S`` (one s-t min cut)."""
        self.load(S)
        return self.move_current(alpha)[0].copy()

    def move_current(self, alpha: int) -> tuple[np.ndarray, bool]:
        """:meth:`move` from the labelling of the last :meth:`load`, and whether it changed.

        An unchanged result is the loaded labelling itself (not a copy): do not modify it."""
        S = self.S
        assert S is not None, "load() a labelling first"
        n = self.p.n
        big = self.big
        # stage 1 and 3: a leaf already labelled alpha cannot keep "its" label, nor can an
        # internal node labelled alpha
        c1 = self.c1_alpha[alpha].copy()
        c0 = self.c0_cur.copy()
        leaf_at = self.leaves[self.S_leaf == alpha]
        int_at = self.S_int == alpha
        c0[leaf_at] += big
        c0[self.kb_int[int_at]] = big
        # stage 2, Potts leaf pairs: table A=E00, B=E01, C=E10, E11=0
        A, E = self.A, len(self.A)
        BC = self.lam_w2 * (self.s_ends != alpha)  # B = w [si != alpha], C = w [sj != alpha]
        B, C = BC[:E], BC[E:]
        np.add.at(c1, self.ei, C - A)
        np.add.at(c1, self.ej, -C)
        cap = self.edge_cap
        np.maximum(B + C - A, 0.0, out=cap[self.n_inf:])
        g = maxflow.Graph[float](self.nvar, len(cap))
        g.add_nodes(self.nvar)
        if len(cap):
            g.add_edges(self.edge_i, self.edge_j, cap, self.edge_rcap)
        # BK keeps one residual terminal capacity per node, cap_source - cap_sink: passing c1
        # and c0 gives the same c1 - c0 as splitting it into its positive and negative parts
        g.add_grid_tedges(self.var_ids, c1, c0)
        g.maxflow()
        side = g.get_grid_segments(self.var_ids)
        # the cut of S itself (nodes at alpha: x = a = kb = 1): decoding it gives S back, so
        # when the min cut is that one (~90% of moves) S is returned without decoding
        x_cur = self.x_cur.copy()
        x_cur[leaf_at] = True
        u_at = self.internal[int_at]
        x_cur[u_at] = True
        x_cur[self.kb[u_at]] = True
        if np.array_equal(side, x_cur):
            return S, False
        out = S.copy()
        x = side[:n]
        leaf, u = self.leaves, self.internal
        out[leaf[x[leaf]]] = alpha
        out[u] = np.where(x[u], alpha, np.where(side[self.kb_int], XI, self.S_int))
        return out, bool((out != S).any())


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
    ex.load(S)
    order = np.arange(problem.K) if order is None else np.asarray(order)
    K = len(order)
    moves = accepted = fails = 0
    while fails < K and moves < max_sweeps * K:
        alpha = int(order[moves % K])
        S2, changed = ex.move_current(alpha)
        moves += 1
        # most moves return S itself (91% on kreuzer-random): its energy is E, a failure
        e_new = problem.energy(S2) if changed else E
        if e_new < E - rtol * max(1.0, abs(E)):
            S, E = S2, e_new
            ex.load(S)
            accepted += 1
            fails = 0
        else:
            fails += 1
    return MinimizeResult(S, E, moves, accepted, -(-moves // K), fails >= K)
