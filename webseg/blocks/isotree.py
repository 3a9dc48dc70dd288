"""Tree-consistent decoding of leaf scores: PageLevel isotonic smoothing over the DOM tree.

An alternative to plain thresholding is smoothing the node scores over the DOM tree by
the regularised tree isotonic regression of Chakrabarti, Kumar & Punera (2007;
:func:`webseg.templates.isotonic.isotonic_smooth`). Here the observations are the block model's
leaf scores (P(main), stage 1 or stage 2) and the tree is the part of the DOM the leaf ranges
describe: the subtrees of every leaf's parent, grandparent, great-grandparent and its nearest
block ancestors (:data:`webseg.blocks.features.CONTEXT_LEVELS`). DOM subtrees are nested or
disjoint, so those leaf intervals form a laminar family, i.e. a tree (identical intervals of
different DOM nodes are one node); this needs no page, so the training table can be decoded
exactly as a new page is.

Orientation and costs, as in the paper: smoothed *templateness* ``1 - s`` must not decrease
from a node to its children (once a subtree is boilerplate, all of it is), the L1 fit is
weighted by characters (a leaf's share of the page's characters, internal nodes weigh 0), and
a section head costs ``gamma``:

* ``"share"`` (the paper's ``c * A / A_i`` with character mass for area): ``c / share_i``, so
  small nodes rarely start a section of their own;
* ``"const"``: ``c`` for every node (a section costs the same wherever it starts).

``c = 0`` returns the scores unchanged, so choosing ``c`` in a grid containing 0 (on training
folds, :func:`webseg.blocks.train.fit_stages`) nests plain thresholding.

Scores are floored to a grid of 1/100 before smoothing (at most 101 candidate values, so the
dynamic program is linear in the page size); thresholds on that grid decide exactly as on the
unrounded scores.
"""

from __future__ import annotations

import numpy as np

from webseg.templates.isotonic import isotonic_smooth

__all__ = ["PENALTIES", "leaf_tree", "smooth_leaf_scores"]

PENALTIES = ("share", "const")
_GRID = 100


def leaf_tree(ranges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tree of leaf intervals of one page.

    ``ranges``: ``(n_leaves, levels, 2)`` half-open leaf-index intervals of each leaf's
    ancestors (:class:`webseg.blocks.features.LeafFeatures`). Returns ``(parent, lo, hi)`` of
    the tree's nodes in pre-order (node 0 is the whole page; every leaf ``i`` is the node with
    interval ``[i, i + 1)``). Raises ``ValueError`` when the intervals are not laminar."""
    m = len(ranges)
    if m == 0:
        return np.array([-1], dtype=np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64)
    r = np.asarray(ranges, dtype=np.int64).reshape(-1, 2)
    lo = np.concatenate([[0], np.arange(m), r[:, 0]])
    hi = np.concatenate([[m], np.arange(1, m + 1), np.maximum(r[:, 1], r[:, 0] + 1)])
    lo = np.clip(lo, 0, m - 1)
    hi = np.clip(hi, lo + 1, m)
    key = np.unique(lo * (m + 1) + (m - hi))  # sorted by lo, then by hi descending: pre-order
    lo, hi = key // (m + 1), m - key % (m + 1)
    n = len(lo)
    parent = np.empty(n, dtype=np.int64)
    parent[0] = -1
    his = hi.tolist()
    los = lo.tolist()
    stack = [0]
    for i in range(1, n):
        while his[stack[-1]] <= los[i]:
            stack.pop()
            if not stack:
                raise ValueError("leaf ranges are not nested in the page interval")
        if his[i] > his[stack[-1]]:
            raise ValueError(f"leaf ranges overlap without nesting: [{los[i]}, {his[i]}) in "
                             f"[{los[stack[-1]]}, {his[stack[-1]]})")
        parent[i] = stack[-1]
        stack.append(i)
    return parent, lo, hi


def _checked(s: np.ndarray, c: float, penalty: str) -> np.ndarray:
    """``s`` as floats, after checking the decoder's regulariser (shared by both decoders)."""
    if penalty not in PENALTIES:
        raise ValueError(f"unknown penalty {penalty!r}; known: {', '.join(PENALTIES)}")
    if c < 0 or not np.isfinite(c):
        raise ValueError(f"c must be a finite number >= 0, got {c}")
    return np.asarray(s, dtype=np.float64)


def smooth_leaf_scores(s: np.ndarray, chars: np.ndarray, ranges: np.ndarray, c: float,
                       penalty: str = "share",
                       tree: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                       ) -> np.ndarray:
    """Leaf scores ``s`` (P(main)) after isotonic smoothing over the leaf tree (module
    docstring); ``c = 0`` returns ``s`` unchanged. ``tree``: :func:`leaf_tree` of ``ranges``,
    when already computed."""
    s = _checked(s, c, penalty)
    m = len(s)
    if c == 0 or m == 0:
        return s.copy()
    parent, lo, hi = tree if tree is not None else leaf_tree(ranges)
    w = np.asarray(chars, dtype=np.float64) + 1.0
    w = w / w.sum()
    cw = np.concatenate([[0.0], np.cumsum(w)])
    leaf_node = np.flatnonzero(hi - lo == 1)  # pre-order: leaf i's node is the i-th of them
    n = len(parent)
    y = np.zeros(n)  # templateness, floored onto the grid (weight-0 nodes: any grid value)
    t = 1.0 - np.floor(np.clip(s, 0.0, 1.0) * _GRID + 1e-9) / _GRID
    y[leaf_node] = t
    weight = np.zeros(n)
    weight[leaf_node] = w
    share = np.maximum(cw[hi] - cw[lo], 1e-12)
    gamma = c / share if penalty == "share" else np.full(n, float(c))
    x, _ = isotonic_smooth(parent, y, gamma, weight)
    return np.round((1.0 - x[leaf_node]) * _GRID) / _GRID


def cut_decode(s: np.ndarray, chars: np.ndarray, ranges: np.ndarray, threshold: float,
               c: float, penalty: str = "share",
               tree: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Keep mask of the leaves: the two-level (kept / dropped) version of the isotonic problem
    at the decision threshold, solved exactly in O(n) (a fast tree-consistent decoder).

    Dropped must be closed downwards (a dropped node's subtree is dropped: templateness is
    isotonic), and the kept part maximises ``sum_kept w_i (s_i - threshold) - sum gamma_h``
    over the heads ``h`` of the dropped sections (the roots of the dropped subtrees, whose
    parent is kept); ``w`` and ``gamma`` as in :func:`smooth_leaf_scores`. ``c = 0`` is plain
    thresholding. When nothing has a positive gain the page keeps nothing."""
    s = _checked(s, c, penalty)
    m = len(s)
    if c == 0 or m == 0:
        return s >= threshold
    parent, lo, hi = tree if tree is not None else leaf_tree(ranges)
    w = np.asarray(chars, dtype=np.float64) + 1.0
    w = w / w.sum()
    cw = np.concatenate([[0.0], np.cumsum(w)])
    leaf_node = np.flatnonzero(hi - lo == 1)
    n = len(parent)
    gain = np.zeros(n)
    gain[leaf_node] = w * (s - threshold)
    share = np.maximum(cw[hi] - cw[lo], 1e-12)
    gamma = (c / share) if penalty == "share" else np.full(n, float(c))
    # bottom-up: G(v) = own gain + sum over children max(G(child), -gamma(child))
    g = gain.tolist()
    gm = gamma.tolist()
    par = parent.tolist()
    for i in range(n - 1, 0, -1):
        gi = g[i]
        g[par[i]] += gi if gi > -gm[i] else -gm[i]
    keep = np.zeros(n, dtype=bool)
    if g[0] <= 0:
        return keep[leaf_node]
    keep[0] = True
    kl = keep.tolist()
    for i in range(1, n):  # pre-order: parents first
        kl[i] = kl[par[i]] and g[i] > -gm[i]
    return np.asarray(kl, dtype=bool)[leaf_node]
