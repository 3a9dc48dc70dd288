"""Regularised tree isotonic regression (Chakrabarti, Kumar & Punera, WWW 2007, section 4).

The problem
-----------
Given a rooted tree (``parent[0] == -1``, ``parent[i] < i``, e.g. pre-order), observed scores
``y[i]`` (the classifier's templateness; the paper calls them ``x``), node weights ``w[i] >= 0``
(multiplicities) and node penalties ``gamma[i] >= 0``, find smoothed scores ``x`` minimising::

    cost(x) = sum_i w[i] * |x[i] - y[i]|  +  sum_{i in heads(x)} gamma[i]

subject to the isotonic constraint (the paper's (1)): ``x[i] <= x[j]`` for every child ``j`` of
``i``, i.e. scores never decrease along a root-to-leaf path. ``heads(x)`` are the nodes where
the paper's *compressed score* ``ŷ`` is defined: the root and every node whose score differs from
its parent's (``x[i] > x[parent(i)]``). A head starts a *section*: the maximal connected set of
nodes below it that share its score. So every section costs the penalty of its head, and the root
section is always paid (``gamma[root]`` is a constant of every solution; it is included in the
returned cost, as in the paper's ``gamma * |ŷ|``).

Candidate values
----------------
With the L1 distance there is an optimal ``x`` whose values are all observed values ``y[j]``
(the paper's Lemma 3), more precisely values observed inside the subtree of the section's head.
Proof sketch: take an optimal solution with the fewest sections and a section whose score ``t``
is no observed value of its own nodes. Its cost is linear in ``t`` between the neighbouring
breakpoints (its nodes' observed values) and the neighbouring section scores (its parent
section's, which is smaller, and its child sections', which are larger); moving ``t`` in the
non-increasing direction keeps the solution feasible and optimal until ``t`` hits an observed
value or a neighbouring section's score - in the latter case two sections merge, the penalty
``gamma >= 0`` of one head disappears and we get an optimal solution with fewer sections, a
contradiction. (If the section has zero total weight, the slope is zero and moving it onto its
parent's score, or for the root section onto a child section's score, merges.) So searching over
the ``m`` distinct observed values is exact. The property tests check this against exhaustive
search over a finer grid.

The dynamic program (the paper's BuildError / IsotoneSmooth)
------------------------------------------------------------
Let ``v_1 < ... < v_m`` be the distinct observed values. For every node ``i`` and value ``a``:

``D_i[a]``  cost of the subtree of ``i`` when ``x[i] = v_a``, not counting ``i``'s own head
            penalty: ``w[i] |v_a - y[i]| + sum_{children c} F_c[a]`` (the paper's ``err0``
            minus ``gamma``);
``F_c[a]``  cost of the subtree of ``c`` when its parent has score ``v_a`` (the paper's
            ``err(c, a)``): ``min(D_c[a], gamma[c] + min_{b > a} D_c[b])`` - either continue the
            parent's section, or start a new one with a strictly larger value.

The inner ``min_{b > a}`` over all ``a`` is one reversed running minimum (``np.minimum
.accumulate``), so each node costs O(m) vectorised work instead of the paper's O(m log m) heap.
The optimum is ``gamma[root] + min_a D_root[a]``; IsotoneSmooth then walks the tree top-down and
re-takes each child's decision given its parent's chosen value.

Leaves need no table: ``F_leaf[a] = min(w|y - v_a|, gamma)`` when ``y > v_a`` and
``w (v_a - y)`` otherwise (the paper's step 1). Internal nodes keep their ``D`` row for the
top-down pass.

Vectorisation: nodes are processed one *depth level* at a time (all nodes of a depth are
complete once the next depth has been added into them), so the Python loop runs over depths,
not nodes; within a level children are summed into their parents with ``np.add.reduceat``
(nodes of one depth in pre-order are grouped by parent; other topological orders are sorted).

Complexity. With ``m <= n`` distinct observed values and ``n_int`` internal nodes: time
O(n log n + n_int * m) - sorting the values and the depth levels, O(m) per internal node in each
pass, O(1) per leaf plus one O(n_int * m) prefix sum for all leaves together - and memory
O(n_int * m) floats (one table row per internal node, kept for the top-down pass) plus
temporaries bounded by ``_CHUNK_ENTRIES``. Worst case O(n^2) time and space (the paper: O(n^2
log n) time, O(n^2) space). Memory is the practical limit: ``m = n = 20,000`` on a tree with
10,000 internal nodes needs 1.6 GB. Rounding the scores (e.g. to 2 decimals, ``m <= 101``) makes
both linear in ``n``, at the price of exactness w.r.t. the unrounded scores.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from webseg.page import Page

__all__ = ["PageSmoothing", "isotonic_objective", "isotonic_smooth", "is_isotonic",
           "section_heads", "smooth_page"]

#: Entries (rows x values) processed at once; bounds the temporary memory of one chunk.
_CHUNK_ENTRIES = 1 << 22


def _check_tree(parent: np.ndarray) -> None:
    n = len(parent)
    if parent.ndim != 1:
        raise ValueError("parent must be a 1-d array")
    if n and parent[0] != -1:
        raise ValueError("parent[0] must be -1: node 0 is the root")
    if n > 1:
        bad = np.flatnonzero((parent[1:] < 0) | (parent[1:] >= np.arange(1, n)))
        if len(bad):
            i = int(bad[0]) + 1
            raise ValueError(f"parent must describe one tree with parents first (parent[i] < i); "
                             f"node {i} has parent {int(parent[i])}")


def _per_node(value: object, n: int, name: str) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{name} must be a scalar or have one value per node ({n}), "
                         f"got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; node {int(np.flatnonzero(~np.isfinite(arr))[0])}"
                         f" has {arr[~np.isfinite(arr)][0]}")
    if name != "y" and np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0; node {int(np.flatnonzero(arr < 0)[0])} has "
                         f"{arr[arr < 0][0]}")
    return arr


def _depths(parent: np.ndarray) -> np.ndarray:
    depth = np.zeros(len(parent), dtype=np.int64)
    par = parent.tolist()
    d = depth.tolist()
    for i in range(1, len(par)):
        d[i] = d[par[i]] + 1
    return np.asarray(d, dtype=np.int64)


def _chunks(nodes: np.ndarray, m: int) -> Iterator[np.ndarray]:
    step = max(1, _CHUNK_ENTRIES // max(m, 1))
    for s in range(0, len(nodes), step):
        yield nodes[s:s + step]


def isotonic_smooth(parent: np.ndarray, y: np.ndarray, gamma: float | np.ndarray,
                    weight: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Exact regularised tree isotonic regression under L1 (see the module docstring).

    Parameters
    ----------
    parent : int array (n,)
        Parent of every node, ``-1`` for the root (node 0), e.g. ``Page.parent``; any order in
        which parents precede their children (``parent[i] < i``) works, pre-order or not.
    y : float array (n,)
        Observed scores (any finite reals; templateness scores are in [0, 1]).
    gamma : float or float array (n,)
        Penalty for starting a section at a node (``>= 0``).
    weight : float array (n,), optional
        Non-negative weight (multiplicity) of every node's L1 term; default 1.

    Returns
    -------
    x : float array (n,)
        Optimal smoothed scores: non-decreasing from parent to child, each an observed value.
    cost : float
        The minimum of ``sum w|x - y| + sum of gamma over section heads`` (root included).

    Examples
    --------
    A root scored 0.2 over two children scored 0.9 and 0.8: with a small penalty every node
    keeps its score (three sections); with a large one the page becomes one section at the
    median score.

    >>> parent, y = np.array([-1, 0, 0]), np.array([0.2, 0.9, 0.8])
    >>> x, cost = isotonic_smooth(parent, y, gamma=0.05)
    >>> x.tolist(), round(cost, 6)
    ([0.2, 0.9, 0.8], 0.15)
    >>> x, cost = isotonic_smooth(parent, y, gamma=0.5)
    >>> x.tolist(), round(cost, 6)
    ([0.8, 0.8, 0.8], 1.2)
    """
    parent = np.asarray(parent, dtype=np.int64)
    _check_tree(parent)
    n = len(parent)
    y = _per_node(y, n, "y")
    gamma = _per_node(gamma, n, "gamma")
    w = _per_node(1.0 if weight is None else weight, n, "weight")
    if n == 0:
        return np.zeros(0), 0.0

    vals, yidx = np.unique(y, return_inverse=True)
    yidx = yidx.reshape(-1)
    m = len(vals)
    # Tables are stored with the value axis *reversed* (column k is value m-1-k), so that
    # "min over strictly larger values" is a forward running minimum on contiguous memory.
    rvals = vals[::-1].copy()
    cols = np.arange(m)

    nchild = np.bincount(parent[1:], minlength=n)
    internal = nchild > 0
    internal[0] = True  # the root always keeps a row
    n_int = int(internal.sum())
    depth = _depths(parent)
    order = np.flatnonzero(internal)
    order = order[np.argsort(depth[order], kind="stable")]  # pre-order within each depth
    row = np.full(n, -1, dtype=np.int64)
    row[order] = np.arange(n_int)  # rows grouped by depth: a level is a slice of the table
    dsorted = depth[order]
    bounds = np.searchsorted(dsorted, np.arange(int(dsorted[-1]) + 2))
    levels = [order[bounds[d]:bounds[d + 1]] for d in range(int(dsorted[-1]) + 1)]
    table = np.zeros((n_int, m))  # accumulates sum F_c, then holds D_i

    # Leaves first, all at once: F_leaf is piecewise linear in the parent's value v_a,
    #   g                for a <  t      (start a section at y; cheaper than lifting y ... )
    #   w (y - v_a)      for t <= a < yi (... down to v_a: the leaf continues its parent)
    #   w (v_a - y)      for a >= yi     (y <= v_a: the leaf is lifted to its parent's value)
    # with t the first a where w (y - v_a) < g. Summed per parent through difference arrays of
    # the constant and slope coefficients: O(leaves + n_internal * m), not O(leaves * m).
    leaves = np.flatnonzero(~internal)
    if len(leaves):
        _add_leaves(table, row[parent[leaves]], y[leaves], yidx[leaves], w[leaves],
                    gamma[leaves], vals)

    # ---------------------------------------------------------------- BuildError, bottom-up
    for d in range(len(levels) - 1, -1, -1):
        for nodes in _chunks(levels[d], m):
            if not len(nodes):
                continue
            dtab = table[row[nodes[0]]:row[nodes[-1]] + 1]  # a view: rows are contiguous
            dtab += w[nodes, None] * np.abs(rvals[None, :] - y[nodes, None])
            if d == 0:
                continue
            # new[:, k] = min over columns < k (values strictly above value m-1-k)
            new = np.empty_like(dtab)
            new[:, 0] = np.inf
            np.minimum.accumulate(dtab[:, :-1], axis=1, out=new[:, 1:])
            new += gamma[nodes, None]
            np.minimum(dtab, new, out=new)
            par = parent[nodes]
            if np.any(par[1:] < par[:-1]):  # not pre-order: group the level by parent
                by = np.argsort(par, kind="stable")
                par, new = par[by], new[by]
            starts = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
            table[row[par[starts]]] += np.add.reduceat(new, starts, axis=0)

    # ---------------------------------------------------------------- IsotoneSmooth, top-down
    idx = np.zeros(n, dtype=np.int64)
    droot = table[row[0]]
    k0 = int(np.argmin(droot[::-1]))  # ties: the smallest value
    idx[0] = k0
    cost = float(gamma[0] + droot[m - 1 - k0])
    for nodes in levels[1:]:
        for part in _chunks(nodes, m):
            pk = m - 1 - idx[parent[part]]  # parent's column
            dtab = table[row[part[0]]:row[part[-1]] + 1]
            ar = np.arange(len(part))
            stay = dtab[ar, pk]
            masked = np.where(cols[None, :] < pk[:, None], dtab, np.inf)
            best = np.argmin(masked, axis=1)
            move = gamma[part] + masked[ar, best] < stay
            idx[part] = np.where(move, m - 1 - best, m - 1 - pk)
    if len(leaves):
        pa = idx[parent[leaves]]
        yi = yidx[leaves]
        move = (yi > pa) & (gamma[leaves] < w[leaves] * (y[leaves] - vals[pa]))
        idx[leaves] = np.where(move, yi, pa)
    return vals[idx], cost


def _add_leaves(table: np.ndarray, prow: np.ndarray, y: np.ndarray, yi: np.ndarray,
                w: np.ndarray, g: np.ndarray, vals: np.ndarray) -> None:
    """Add every leaf's F (see :func:`isotonic_smooth`) into its parent's reversed row."""
    m = len(vals)
    with np.errstate(divide="ignore", invalid="ignore"):
        reach = np.where(w > 0, y - g / np.where(w > 0, w, 1.0), -np.inf)
    t = np.minimum(np.searchsorted(vals, reach, side="right"), yi)
    wy = w * y
    order = np.argsort(prow, kind="stable")
    prow, yi, t, w, g, wy = prow[order], yi[order], t[order], w[order], g[order], wy[order]
    step = max(1, _CHUNK_ENTRIES // (m + 1))
    for r0 in range(0, table.shape[0], step):
        r1 = min(r0 + step, table.shape[0])
        lo, hi = np.searchsorted(prow, [r0, r1])
        if lo == hi:
            continue
        r = prow[lo:hi] - r0
        const = np.zeros((r1 - r0, m + 1))
        slope = np.zeros((r1 - r0, m + 1))
        flat_c, flat_s = const.reshape(-1), slope.reshape(-1)
        base = r * (m + 1)
        np.add.at(flat_c, base, g[lo:hi])
        np.add.at(flat_c, base + t[lo:hi], wy[lo:hi] - g[lo:hi])
        np.add.at(flat_c, base + yi[lo:hi], -2.0 * wy[lo:hi])
        np.add.at(flat_s, base + t[lo:hi], -w[lo:hi])
        np.add.at(flat_s, base + yi[lo:hi], 2.0 * w[lo:hi])
        np.cumsum(const, axis=1, out=const)
        np.cumsum(slope, axis=1, out=slope)
        f = const[:, :m] + slope[:, :m] * vals
        table[r0:r1] += f[:, ::-1]


def is_isotonic(parent: np.ndarray, x: np.ndarray) -> bool:
    """True when ``x[parent[i]] <= x[i]`` for every non-root node."""
    parent = np.asarray(parent)
    x = np.asarray(x, dtype=np.float64)
    return bool(np.all(x[parent[1:]] <= x[1:])) if len(x) > 1 else True


def section_heads(parent: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Heads of the sections of ``x``: the root and nodes whose score differs from the parent's.

    These are the nodes where the paper's compressed score is defined; each section is the
    subtree of its head minus the subtrees of the heads below it.
    """
    parent = np.asarray(parent)
    x = np.asarray(x, dtype=np.float64)
    if not len(x):
        return np.zeros(0, dtype=np.int64)
    head = np.ones(len(x), dtype=bool)
    head[1:] = x[1:] != x[parent[1:]]
    return np.flatnonzero(head)


def isotonic_objective(parent: np.ndarray, y: np.ndarray, x: np.ndarray,
                       gamma: float | np.ndarray, weight: np.ndarray | None = None) -> float:
    """The cost :func:`isotonic_smooth` minimises, evaluated at labelling ``x``.

    Raises ``ValueError`` when ``x`` violates the isotonic constraint.
    """
    parent = np.asarray(parent, dtype=np.int64)
    _check_tree(parent)
    n = len(parent)
    y = _per_node(y, n, "y")
    x = _per_node(x, n, "x")
    gamma = _per_node(gamma, n, "gamma")
    w = _per_node(1.0 if weight is None else weight, n, "weight")
    if not is_isotonic(parent, x):
        bad = int(np.flatnonzero(x[parent[1:]] > x[1:])[0]) + 1
        raise ValueError(f"x is not isotonic: node {bad} has {x[bad]} < parent's "
                         f"{x[parent[bad]]}")
    return float(np.sum(w * np.abs(x - y)) + gamma[section_heads(parent, x)].sum())


class PageSmoothing(NamedTuple):
    """Result of :func:`smooth_page`."""

    #: Smoothed score of every page node (hidden nodes take their visible ancestor's score).
    scores: np.ndarray
    #: Optimal cost of the smoothing problem on the kept (non-hidden) nodes.
    cost: float
    #: Page node ids of the section heads (the sectioning by-product of the paper).
    heads: np.ndarray
    #: Boolean column: the node took part in the smoothing (not hidden).
    kept: np.ndarray
    #: Page node id of the kept node each node was folded into (itself when kept).
    representative: np.ndarray


def smooth_page(page: Page, node_scores: np.ndarray, c: float = 0.01,
                hidden_area: float = 2000.0) -> PageSmoothing:
    """Isotonic smoothing of per-node templateness scores of a rendered page (paper, 5.3).

    Nodes with area below ``hidden_area`` px^2 are *hidden*: not smoothed, folded into their
    nearest non-hidden ancestor, which then counts as ``k + 1`` nodes (L1 weight ``k + 1``) when
    ``k`` nodes were folded into it; their own scores are ignored (they may be NaN) and they take
    that ancestor's smoothed score. The root is never hidden. Penalties are
    ``gamma_i = c * A / A_i`` with ``A`` the page area (``page.width * page.height``, or the
    root's box when the page has no size) and ``A_i`` the node's area (the root's, a constant of
    every solution, is ``c * A / max(A_root, A)``).

    Returns a :class:`PageSmoothing`: smoothed scores for every node, the optimal cost, the
    section heads (page node ids; the paper's sectioning by-product), the kept mask and the
    node each node was folded into.
    """
    page.require_layout()
    n = page.n
    scores = np.asarray(node_scores, dtype=np.float64)
    if scores.shape != (n,):
        raise ValueError(f"node_scores must have one score per page node ({n}), "
                         f"got shape {scores.shape}")
    if c < 0 or not np.isfinite(c):
        raise ValueError(f"c must be a finite number >= 0, got {c}")
    if n == 0:
        z = np.zeros(0, dtype=np.int64)
        return PageSmoothing(np.zeros(0), 0.0, z, np.zeros(0, bool), z)
    area = page.area
    total = float(page.width) * float(page.height)
    if not total > 0:
        total = float(area[0])
    if not total > 0:
        raise ValueError("page has zero area (no width/height and an empty root box); "
                         "cannot compute area-based penalties")
    kept = area >= hidden_area
    kept[0] = True
    rep = np.arange(n)
    par = page.parent
    kl = kept.tolist()
    rl = rep.tolist()
    pl = par.tolist()
    for i in range(1, n):
        if not kl[i]:
            rl[i] = rl[pl[i]]
    rep = np.asarray(rl, dtype=np.int64)
    keep_ids = np.flatnonzero(kept)
    new_id = np.full(n, -1, dtype=np.int64)
    new_id[keep_ids] = np.arange(len(keep_ids))
    sub_parent = np.full(len(keep_ids), -1, dtype=np.int64)
    sub_parent[1:] = new_id[rep[par[keep_ids[1:]]]]
    weight = np.bincount(new_id[rep], minlength=len(keep_ids)).astype(np.float64)
    sub_scores = scores[keep_ids]
    if not np.all(np.isfinite(sub_scores)):
        bad = int(keep_ids[np.flatnonzero(~np.isfinite(sub_scores))[0]])
        raise ValueError(f"node_scores must be finite on non-hidden nodes; node {bad} "
                         f"({page.xpaths[bad]}) has {scores[bad]}")
    gamma = c * total / np.maximum(area[keep_ids], 1.0)
    gamma[0] = c * total / max(float(area[0]), total)  # the root section is always paid
    x, cost = isotonic_smooth(sub_parent, sub_scores, gamma, weight)
    heads = keep_ids[section_heads(sub_parent, x)]
    return PageSmoothing(x[new_id[rep]], cost, heads, kept, rep)
