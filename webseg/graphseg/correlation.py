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
    return _pivot(row_bits(positive), order)[0]


def row_bits(positive: np.ndarray) -> list[int]:
    """Row ``i`` of a square boolean matrix as a Python int (bit ``j`` = ``positive[i, j]``).

    The pivot loop is sequential (each cluster removes nodes the next pivot must skip), so it
    runs in Python; on int bitsets a cluster is two integer operations instead of five numpy
    calls, which made the pivot ~3x faster on kreuzer-random's median page (60 leaves).
    """
    m = len(positive)
    if m == 0:
        return []
    packed = np.packbits(positive, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _pivot(rows: list[int], order: np.ndarray) -> tuple[np.ndarray, frozenset[int]]:
    """:func:`pivot_once` on :func:`row_bits`, and the set of its clusters (as bitsets): a key
    equal for equal partitions whatever the cluster numbering (pivot order)."""
    m = len(order)
    if m == 0:
        return np.zeros(0, dtype=np.int64), frozenset()
    remaining = (1 << m) - 1
    clusters: list[int] = []
    for p in order.tolist():
        if not (remaining >> p) & 1:
            continue
        members = (remaining & rows[p]) | (1 << p)
        clusters.append(members)
        remaining ^= members
        if not remaining:
            break
    nb = (m + 7) // 8
    buf = b"".join(c.to_bytes(nb, "little") for c in clusters)
    member = np.unpackbits(np.frombuffer(buf, dtype=np.uint8).reshape(len(clusters), nb),
                           axis=1, count=m, bitorder="little")
    return member.argmax(axis=0).astype(np.int64), frozenset(clusters)


class PairCosts:
    """The pair costs of one page laid out once for any number of lambdas and trials.

    The objective of every pivot trial reads all m(m-1)/2 pairs; building the upper-triangle
    indices and gathering ``V`` over them dominated CClus and was redone per trial. Here they
    are built once per page (and ``1 - v``, ``lam * v`` once per lambda), so a two-level run
    (two lambdas, ``trials`` pivot runs each) pays for them once. The values are the same
    element by element as in :func:`cclus_objective` and summed in the same order, so the
    objectives, and the trial that wins, are bit-identical.
    """

    def __init__(self, V: np.ndarray) -> None:
        self.V = V
        self.m = m = len(V)
        i0, i1 = np.triu_indices(m, 1) if m >= 2 else (np.zeros(0, np.int64),) * 2
        self.i0, self.i1 = i0.astype(np.int32), i1.astype(np.int32)  # half the memory
        self.v = V[self.i0, self.i1]
        self.join_cost = 1.0 - self.v
        self._sep: dict[float, np.ndarray] = {}
        self._join_V: np.ndarray | None = None  # 1 - V, for the positive edges of any lambda

    def objective(self, labels: np.ndarray, lam: float) -> float:
        """:func:`cclus_objective` of ``labels`` (same value, bit for bit)."""
        if self.m < 2:
            return 0.0
        sep = self._sep.get(lam)
        if sep is None:
            if len(self._sep) >= 2:  # two levels need two; a lambda sweep should not pile up
                self._sep.clear()
            sep = self._sep[lam] = lam * self.v
        lab = np.asarray(labels, dtype=np.int32)  # narrower gathers, same comparisons
        same = lab[self.i0] == lab[self.i1]
        return float(np.where(same, self.join_cost, sep).sum())

    def solve(self, lam: float = 1.0, trials: int = 20, seed: int = 0
              ) -> tuple[np.ndarray, float]:
        """Best of ``trials`` pivot runs (seeded): (labels, objective); see :func:`cclus`."""
        m, V = self.m, self.V
        if m == 0:
            return np.zeros(0, dtype=np.int64), 0.0
        if self._join_V is None:
            self._join_V = 1.0 - V
        positive = lam * V >= self._join_V
        rng = np.random.default_rng(seed)
        best, best_obj = None, np.inf
        rows = row_bits(positive)
        seen: set[frozenset[int]] = set()
        for _ in range(max(1, trials)):
            lab, key = _pivot(rows, rng.permutation(m))
            # the same partition again has the same objective, which cannot be strictly better
            if key in seen:
                continue
            seen.add(key)
            obj = self.objective(lab, lam)
            if obj < best_obj:
                best, best_obj = lab, obj
        assert best is not None
        return best, best_obj


def cclus(V: np.ndarray, lam: float = 1.0, trials: int = 20, seed: int = 0
          ) -> tuple[np.ndarray, float]:
    """Best of ``trials`` pivot runs (seeded): (labels, objective)."""
    return PairCosts(V).solve(lam, trials, seed)
