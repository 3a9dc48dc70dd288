"""The GCuts energy (Eq. 1 of Chakrabarti et al. 2008) with the invisible label xi.

A labelling ``S`` gives every node of a tree (the content tree, or any small test tree) a label
index ``0..K-1`` or :data:`XI` (the invisible label). The labels are the internal nodes of the
tree (``labels[k]`` is the node of label ``k``), so Dp(alpha) can compare node ``p`` with node
``labels[alpha]``; the energy itself only needs the cost matrices.

Domain constraints (3)-(8), and how they are held here:

(3) leaves cannot be invisible: ``dxi[leaf] = inf``;
(4) a child differs from its parent only when the parent is invisible: such labellings are
    infeasible (energy ``inf``);
(5) the parent-child cost Vqu(alpha, xi) does not depend on the child's label: one weight
    ``v[q]`` per edge (q, parent(q)), paid when ``q`` is visible and its parent is not; the
    root has ``v = 0``;
(6)-(8) pairwise costs are symmetric, zero on equal labels and label-independent on different
    labels: one weight ``w[e]`` per visually adjacent leaf pair, paid when the labels differ
    (a Potts term).

Vqu(xi, xi) = 0 by (7), so a parent-child pair costs ``v[q]`` exactly when ``q`` is the root of
a visible segment below an invisible parent: the parent-child term is a price per segment root,
which is what lets lambda trade Dp (which wants many specific labels) against fragmentation.

Dp(xi) for internal nodes is not fixed by the paper; we default it to 0 (an invisible node
shows no content, so nothing can mismatch) and keep it a parameter (``dxi``).

Energy = sum_p D[p, S(p)] + sum_{S(p)=xi} dxi[p]
         + lam * sum_{q: S(q) != xi, S(parent q) = xi} v[q]
         + lam * sum_{(p, q) in edges} w[pq] [S(p) != S(q)].
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: The invisible label.
XI = -1


class NotGraphRepresentableError(ValueError):
    """Raised when pairwise costs violate Theorem 2 (Vpq(i, j) >= Vpq(i, i) = 0)."""


@dataclass
class Problem:
    """One instance of the GCuts energy.

    ``parent``: parent of every node (-1 at the root; nodes in pre-order, parents first).
    ``D``: (n, K) cost of each visible label; ``dxi``: (n,) cost of xi (``inf`` on leaves).
    ``v``: (n,) parent-child weight of the edge to the parent (0 at the root).
    ``edges``: (E, 2) node pairs with Potts weights ``w`` (E,). ``lam`` multiplies every
    pairwise weight. ``labels``: node of each label (optional; used for output only).
    """

    parent: np.ndarray
    D: np.ndarray
    dxi: np.ndarray
    v: np.ndarray
    edges: np.ndarray
    w: np.ndarray
    lam: float = 1.0
    labels: np.ndarray | None = None
    is_leaf: np.ndarray = field(init=False)
    children_v: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = len(self.parent)
        self.parent = np.asarray(self.parent, dtype=np.int64)
        self.D = np.asarray(self.D, dtype=np.float64).reshape(n, -1)
        self.dxi = np.asarray(self.dxi, dtype=np.float64)
        self.v = np.asarray(self.v, dtype=np.float64).copy()
        self.edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)
        self.w = np.asarray(self.w, dtype=np.float64)
        if n and self.parent[0] != -1:
            raise ValueError("node 0 must be the root")
        if n > 1 and np.any(self.parent[1:] >= np.arange(1, n)):
            raise ValueError("nodes must be in pre-order (parent before child)")
        for name, arr in (("dxi", self.dxi), ("v", self.v)):
            if arr.shape != (n,):
                raise ValueError(f"{name} must have one value per node")
        if len(self.w) != len(self.edges):
            raise ValueError("one weight per edge")
        if n:
            self.v[0] = 0.0
        self.is_leaf = np.bincount(self.parent[1:], minlength=n)[:n] == 0 if n > 1 \
            else np.ones(n, dtype=bool)
        if np.any(np.isfinite(self.dxi[self.is_leaf])):
            raise ValueError("constraint (3): leaves must have dxi = inf")
        if np.any(~self.is_leaf[self.edges.ravel()]):
            raise ValueError("pairwise Potts edges join leaves only (constraint 8)")
        self.children_v = np.bincount(self.parent[1:], weights=self.v[1:], minlength=n)[:n] \
            if n > 1 else np.zeros(n)

    @property
    def n(self) -> int:
        return len(self.parent)

    @property
    def K(self) -> int:
        return self.D.shape[1]

    def check_graph_representable(self) -> None:
        """Theorem 2: with (3)-(8) the energy is graph-representable iff Vpq(i,j) >= Vpq(i,i).

        Vpq(i, i) = 0 here, so this asserts that every pairwise weight (leaf pairs and
        parent-child edges, times lambda) is finite and non-negative.
        """
        for name, arr in (("leaf-pair weight", self.w), ("parent-child weight", self.v)):
            bad = ~np.isfinite(arr) | (arr < 0)
            if np.any(bad):
                raise NotGraphRepresentableError(
                    f"{name} {arr[bad][0]!r} violates Theorem 2 (must be finite and >= 0)")
        if not np.isfinite(self.lam) or self.lam < 0:
            raise NotGraphRepresentableError(f"lambda {self.lam!r} must be finite and >= 0")

    def feasible(self, S: np.ndarray) -> bool:
        """Constraints (3) and (4): leaves visible; a visible parent's children share its label."""
        S = np.asarray(S)
        if np.any(S[self.is_leaf] == XI) or np.any(S >= self.K) or np.any(S < XI):
            return False
        if self.n < 2:
            return True
        sp = S[self.parent[1:]]
        return bool(np.all((sp == XI) | (sp == S[1:])))

    def energy(self, S: np.ndarray) -> float:
        """Exact energy of labelling ``S`` (``inf`` when infeasible)."""
        S = np.asarray(S, dtype=np.int64)
        if not self.feasible(S):
            return float("inf")
        vis = S != XI
        unary = self.D[np.flatnonzero(vis), S[vis]].sum() + self.dxi[~vis].sum()
        pc = 0.0
        if self.n > 1:
            roots = vis[1:] & ~vis[self.parent[1:]]
            pc = self.v[1:][roots].sum()
        potts = self.w[S[self.edges[:, 0]] != S[self.edges[:, 1]]].sum() if len(self.w) else 0.0
        return float(unary + self.lam * (pc + potts))

    def segment_roots(self, S: np.ndarray) -> np.ndarray:
        """Visible nodes whose parent is invisible (or the root, when it is visible)."""
        S = np.asarray(S)
        vis = S != XI
        r = vis.copy()
        r[1:] &= ~vis[self.parent[1:]]
        return np.flatnonzero(r)
