"""Correlation clustering by the Ailon-Charikar-Newman pivot algorithm (CClus).

Objective (Eq. 2 with the paper's trade-off lambda on Vpq):

    cclus(S) = sum_{p<q, S(p) != S(q)} lam * v_pq  +  sum_{p<q, S(p) = S(q)} (1 - v_pq)

``v_pq`` (the learned probability that p and q share a segment) is the cost of separating them
and ``1 - v_pq`` the cost of joining them. The pivot algorithm picks an unclustered node p
uniformly at random and puts into its cluster every unclustered q whose edge is "positive",
i.e. joining is cheaper than separating (``lam * v_pq >= 1 - v_pq``; at lam = 1 this is the
paper's ``v_pq >= 1/2``). Several seeded random trials are run and the lowest objective wins.
"""

from __future__ import annotations

import numpy as np


def cclus_objective(labels: np.ndarray, V: np.ndarray, lam: float = 1.0) -> float:
    """The objective above for a labelling (each unordered pair counted once)."""
    labels = np.asarray(labels)
    m = len(labels)
    if m < 2:
        return 0.0
    iu = np.triu_indices(m, 1)
    v = V[iu]
    same = labels[iu[0]] == labels[iu[1]]
    return float(np.where(same, 1.0 - v, lam * v).sum())


def pivot_once(positive: np.ndarray, order: np.ndarray) -> np.ndarray:
    """One run of the pivot algorithm with pivots taken in ``order``."""
    m = len(order)
    labels = np.full(m, -1, dtype=np.int64)
    remaining = np.ones(m, dtype=bool)
    k = 0
    for p in order:
        if not remaining[p]:
            continue
        members = remaining & positive[p]
        members[p] = True
        labels[members] = k
        remaining &= ~members
        k += 1
    return labels


def cclus(V: np.ndarray, lam: float = 1.0, trials: int = 20, seed: int = 0
          ) -> tuple[np.ndarray, float]:
    """Best of ``trials`` pivot runs (seeded): (labels, objective)."""
    m = len(V)
    if m == 0:
        return np.zeros(0, dtype=np.int64), 0.0
    positive = lam * V >= 1.0 - V
    rng = np.random.default_rng(seed)
    best, best_obj = None, np.inf
    for _ in range(max(1, trials)):
        lab = pivot_once(positive, rng.permutation(m))
        obj = cclus_objective(lab, V, lam)
        if obj < best_obj:
            best, best_obj = lab, obj
    assert best is not None
    return best, best_obj
