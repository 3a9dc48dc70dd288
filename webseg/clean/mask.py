"""Kept-node masks: the one representation every method produces and every format reads.

A method decides which visible text leaves are main content; from that leaf mask we derive a
mask over all nodes (an element is kept when it has visible text and all of it is kept), its
*roots* (kept nodes whose parent is not kept: the XPaths a result reports) and, for the
formats, which subtrees hold any kept text at all. Everything is computed on the pre-order
intervals of the Page (``subtree_end``), without Python loops over nodes.
"""

from __future__ import annotations

import numpy as np

from webseg.page import Page

__all__ = ["kept_counts", "node_mask", "roots"]


def kept_counts(page: Page, leaf_keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node: (visible text leaves in its subtree, kept ones among them)."""
    leaf_keep = np.asarray(leaf_keep, dtype=bool)
    leaves = page.text_leaves
    if leaf_keep.shape != leaves.shape:
        raise ValueError(f"leaf mask has {leaf_keep.size} entries, the page "
                         f"{leaves.size} visible text leaves")
    own = np.zeros(page.n + 1, dtype=np.int64)
    kept = np.zeros(page.n + 1, dtype=np.int64)
    own[leaves + 1] = 1
    kept[leaves + 1] = leaf_keep
    own, kept = np.cumsum(own), np.cumsum(kept)
    start, end = np.arange(page.n), page.subtree_end
    return own[end] - own[start], kept[end] - kept[start]


def node_mask(page: Page, leaf_keep: np.ndarray) -> np.ndarray:
    """Bool per node: a kept text leaf, or an element whose visible text is all kept."""
    total, kept = kept_counts(page, leaf_keep)
    return (total > 0) & (kept == total)


def roots(page: Page, keep: np.ndarray) -> np.ndarray:
    """Kept nodes whose parent is not kept, in document order."""
    keep = np.asarray(keep, dtype=bool)
    par = page.parent
    parent_kept = np.zeros(page.n, dtype=bool)
    has_parent = par >= 0
    parent_kept[has_parent] = keep[par[has_parent]]
    return np.flatnonzero(keep & ~parent_kept)
