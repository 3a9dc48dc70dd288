"""Turn a labelling of the content tree's leaves into a webseg Segmentation.

Both algorithms end with one label per text leaf (GCuts never leaves a leaf invisible, by
constraint (3); CClus labels only leaves). A segment is made per used label; its root nodes are
the *maximal pure* nodes of the content tree for that label - the highest nodes all of whose text
leaves carry it - so a segment that is one DOM subtree is reported as that one subtree, and
``Segmentation.leaf_labels`` gives back exactly the labelling.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from webseg.graphseg.features import ContentTree
from webseg.page import Page
from webseg.segmentation import Segmentation


def maximal_pure_roots(tree: ContentTree, leaf_label: np.ndarray) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """(local node ids, their label) of the maximal nodes whose leaves share one label."""
    lab = np.asarray(leaf_label)
    changes = np.concatenate([[0], np.cumsum(lab[1:] != lab[:-1])])
    lo, hi = tree.leaf_lo, tree.leaf_hi
    has = hi > lo
    pure = np.zeros(tree.n, dtype=bool)
    pure[has] = changes[hi[has] - 1] == changes[lo[has]]
    top = pure.copy()
    top[1:] &= ~pure[tree.parent[1:]]
    roots = np.flatnonzero(top)
    return roots, lab[lo[roots]]


def _groups(tree: ContentTree, leaf_label: np.ndarray) -> tuple[list[list[int]], list[int]]:
    """Page node ids of the maximal pure roots of each used label, and the labels, in
    document order of each label's first leaf (the order of the segment ids)."""
    roots, rl = maximal_pure_roots(tree, leaf_label)
    order: list[int] = []
    seen: dict[int, int] = {}
    groups: list[list[int]] = []
    for r, lab in zip(roots.tolist(), rl.tolist(), strict=True):
        if lab not in seen:
            seen[lab] = len(groups)
            groups.append([])
            order.append(lab)
        groups[seen[lab]].append(int(tree.nodes[r]))
    return groups, order


def to_segmentation(page: Page, tree: ContentTree | None, leaf_label: np.ndarray,
                    algorithm: str, params: dict[str, Any],
                    label_nodes: np.ndarray | None = None) -> Segmentation:
    """One flat segment per used label, in document order of its first leaf."""
    if tree is None or len(tree.leaves) == 0:
        return Segmentation(page, [], algorithm, params)
    groups, order = _groups(tree, leaf_label)
    attrs: dict[str, list[Any]] = {}
    if label_nodes is not None:
        attrs["label_node"] = [int(tree.nodes[label_nodes[lab]]) if lab >= 0 else None
                               for lab in order]
    return Segmentation.from_nodes(page, groups, algorithm=algorithm, params=params, **attrs)


def first_occurrence(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0, 1, ... in order of first occurrence (the segment ids that
    :func:`to_segmentation` gives them, its segments being in document order)."""
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inv.reshape(-1)]


def refine(l1: np.ndarray, l2: np.ndarray) -> np.ndarray:
    """Labels of the common refinement of two leaf labellings (each pair of labels one)."""
    a, b = np.asarray(l1, dtype=np.int64), np.asarray(l2, dtype=np.int64)
    if len(a) == 0:
        return a.copy()
    _, inv = np.unique(np.stack([a, b], 1), axis=0, return_inverse=True)
    return inv.reshape(-1).astype(np.int64)


def to_two_level(page: Page, tree: ContentTree | None, l1: np.ndarray, l2: np.ndarray,
                 algorithm: str, params: dict[str, Any]) -> Segmentation:
    """Level 1 = the segments of ``l1``; level 2 = those of ``l2`` refined by ``l1``, as
    children of their level-1 segment (a level-1 segment that is not split has no children,
    as in the other two-level segmenters). ``l1``, ``l2``: a label per content-tree leaf.

    Level-2 segments are numbered as :func:`to_segmentation` of the refinement would number
    them, but only those of split level-1 segments are built (their text and box are the
    costly part).
    """
    from webseg.segmentation import Segment, node_union_box, nodes_text

    s1 = to_segmentation(page, tree, l1, algorithm, params)
    if tree is None or len(tree.leaves) == 0:
        return s1
    fine = refine(l1, l2)
    groups2, _ = _groups(tree, fine)
    top_of_leaf = first_occurrence(np.asarray(l1))  # level-1 segment id of each leaf
    fine_of_leaf = first_occurrence(fine)  # id in to_segmentation(fine) of each leaf
    _, first_leaf = np.unique(fine_of_leaf, return_index=True)  # ids 0.. in order
    segs: list[Segment] = [Segment(s.id, s.nodes, None, s.box, s.text, attrs=dict(s.attrs))
                           for s in s1.segments]
    kids: dict[int, list[int]] = {}
    for f, t in enumerate(top_of_leaf[first_leaf].tolist()):
        kids.setdefault(t, []).append(f)
    for t, fs in kids.items():
        if len(fs) < 2:
            continue
        for f in fs:
            nodes = tuple(sorted(set(groups2[f])))
            segs.append(Segment(len(segs), nodes, t, node_union_box(page, nodes),
                                nodes_text(page, nodes)))
    return Segmentation(page, segs, algorithm, params)


class TwoLevelLambda:
    """Two-level output for the flat graph segmenters (GCuts, CClus), shared by both.

    The segmenter (a dataclass with ``name``, ``lam1``, ``get_model()``, ``prepare``,
    ``solve_labels(prep, lam)`` - labels per content-tree leaf and the output's parameters -
    and ``segment_prepared(prep, lam)``) is solved at its level-2 lambda and, when a level-1
    lambda is known, a second time at that coarser lambda; level 2 is then refined by level 1
    (:func:`to_two_level`) so the two levels nest. A level-1 lambda that is not larger than
    the level-2 one (say an explicit ``lam`` above the model's ``@1`` value) would not be
    coarser, so the output is then flat. The two labellings go to :func:`to_two_level`
    directly (no flat Segmentation is built for either: only the partitions matter there).
    """

    @property
    def resolved_lambda1(self) -> float | None:
        """Level-1 lambda: ``lam1``, else the model's ``lam["<name>@1"]``, else None (flat)."""
        if self.lam1 is not None:  # type: ignore[attr-defined]
            return float(self.lam1)  # type: ignore[attr-defined]
        v = self.get_model().lam.get(f"{self.name}@1")  # type: ignore[attr-defined]
        return None if v is None else float(v)

    def segment(self, page: Page) -> Segmentation:
        """Two levels when a level-1 lambda is known (see the module docstring), else flat."""
        prep = self.prepare(page)  # type: ignore[attr-defined]
        lam = self.resolved_lambda  # type: ignore[attr-defined]
        lam1 = self.resolved_lambda1
        if lam1 is None or prep.tree is None or lam1 <= lam:
            return self.segment_prepared(prep)  # type: ignore[attr-defined]
        l2, params = self.solve_labels(prep, lam)  # type: ignore[attr-defined]
        l1, _ = self.solve_labels(prep, lam1)  # type: ignore[attr-defined]
        return to_two_level(prep.page, prep.tree, l1, l2, self.name,  # type: ignore[attr-defined]
                            {**params, "lambda1": lam1})
