"""Stage 2: a leaf's first-stage score seen in its context (stacking over the DOM tree).

Leaf-by-leaf decisions scatter (a probe GBDT lost 5 points on news from that alone).
Stage 2 re-decides every leaf from its own features plus the first-stage scores ``s`` of its
surroundings: character-weighted means of ``s`` over document-order windows and over the
subtrees of its context levels (parent, grandparent, nearest block ancestors, see
:data:`webseg.blocks.features.CONTEXT_LEVELS`), page-level statistics of ``s``, and the *best
region*: the context subtree that maximises the kept mass ``sum (s - 1/2) * chars`` (the
coherent-region decoder) - whether the leaf is inside it and how its own blocks compare. The
stage-2 model is trained on out-of-fold first-stage scores, so it learns how much to trust them.

Everything works from the leaf ranges stored by :func:`webseg.blocks.features.leaf_features`,
so the training table needs no page.
"""

from __future__ import annotations

import numpy as np

from webseg.blocks.features import CONTEXT_LEVELS

__all__ = ["CONTEXT_NAMES", "context_features", "sorted_quantile"]

_WINDOWS = (1, 3, 8, 20)
CONTEXT_NAMES: tuple[str, ...] = (
    ("s1", "s1_rank")
    + tuple(f"win{w}_mean" for w in _WINDOWS)
    + tuple(f"{lv}_mean" for lv in CONTEXT_LEVELS)
    + tuple(f"{lv}_share" for lv in CONTEXT_LEVELS)
    + tuple(f"{lv}_gain_rel" for lv in CONTEXT_LEVELS)
    + ("page_mean", "page_max", "page_kept_share", "page_q90", "in_best", "best_share",
       "in_best2")
)


def sorted_quantile(v: np.ndarray, q: float) -> float:
    """``np.quantile(v, q)`` (its default ``linear`` method) of values ``v`` already sorted,
    by numpy's own steps and arithmetic (numpy's ``_quantile`` and ``_lerp``), so the same
    float bit for bit: numpy pays ~50 microseconds of Python around these few operations,
    twice a page. NaN values (sorted last) take numpy's own path."""
    n = len(v)
    if n == 0 or v[-1] != v[-1]:
        return float(np.quantile(v, q))
    virtual = (n - 1) * q
    if virtual >= n - 1:  # at or past the last value: numpy takes index -1 on both sides
        prev, nxt, prev_f = -1, -1, -1.0
    else:
        prev_f = float(np.floor(virtual))
        prev = int(prev_f)
        nxt = prev + 1
    gamma = virtual - prev_f
    a, b = float(v[prev]), float(v[nxt])
    diff = b - a
    if gamma >= 0.5:
        return b - diff * (1 - gamma)
    return a + diff * gamma


def context_features(s: np.ndarray, chars: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """``(n_leaves, len(CONTEXT_NAMES))`` context features of one page's leaves."""
    m = len(s)
    out = np.zeros((m, len(CONTEXT_NAMES)))
    if m == 0:
        return out
    w = np.asarray(chars, dtype=np.float64) + 1.0
    ws = w * s
    cw = np.concatenate([[0.0], np.cumsum(w)])
    cs = np.concatenate([[0.0], np.cumsum(ws)])
    g = (s - 0.5) * w
    cg = np.concatenate([[0.0], np.cumsum(g)])
    total = cw[-1]
    k = 0
    out[:, k] = s
    order = np.argsort(s, kind="stable")
    rank = np.empty(m)
    rank[order] = (np.cumsum(w[order]) - w[order] / 2) / total
    out[:, k + 1] = rank
    k += 2
    idx = np.arange(m)
    for win in _WINDOWS:
        lo = np.maximum(idx - win, 0)
        hi = np.minimum(idx + win + 1, m)
        out[:, k] = (cs[hi] - cs[lo]) / (cw[hi] - cw[lo])
        k += 1
    lo = ranges[:, :, 0]
    hi = ranges[:, :, 1]
    hi = np.maximum(hi, lo + 1)
    mass = cw[hi] - cw[lo]
    out[:, k:k + len(CONTEXT_LEVELS)] = (cs[hi] - cs[lo]) / mass
    k += len(CONTEXT_LEVELS)
    out[:, k:k + len(CONTEXT_LEVELS)] = mass / total
    k += len(CONTEXT_LEVELS)
    gain = cg[hi] - cg[lo]
    best = max(float(gain.max()), 1e-9)
    out[:, k:k + len(CONTEXT_LEVELS)] = gain / best
    k += len(CONTEXT_LEVELS)
    out[:, k] = cs[-1] / total
    out[:, k + 1] = s.max()
    out[:, k + 2] = w[s > 0.5].sum() / total
    out[:, k + 3] = sorted_quantile(s[order], 0.9)
    flat = np.argmax(gain)
    b = np.unravel_index(flat, gain.shape)
    blo, bhi = lo[b], hi[b]
    out[:, k + 4] = (idx >= blo) & (idx < bhi)
    out[:, k + 5] = mass[b] / total
    # the second-best region that does not overlap the best one (articles split in two)
    disjoint = (hi <= blo) | (lo >= bhi)
    if np.any(disjoint):
        g2 = np.where(disjoint, gain, -np.inf)
        b2 = np.unravel_index(np.argmax(g2), gain.shape)
        if g2[b2] > 0:
            out[:, k + 6] = (idx >= lo[b2]) & (idx < hi[b2])
    return out
