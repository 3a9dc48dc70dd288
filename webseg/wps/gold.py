"""Gold Y/N boundary labels of a WPS-graph from a gold labelling of the text leaves.

Separate from :mod:`webseg.wps.graph` because making the raw labels feasible solves the WPS ILP
(:mod:`webseg.wps.inference`), which itself depends on the graph: graph <- inference <- gold,
no import circle.
"""

from __future__ import annotations

import numpy as np

from webseg.wps.graph import WPSGraph, raw_boundary_labels
from webseg.wps.inference import infer

__all__ = ["gold_boundary_labels"]


def gold_boundary_labels(graph: WPSGraph, leaf_labels: np.ndarray, unassigned: int = -1,
                         project: str = "ilp", n_weight: float = 2.0) -> np.ndarray:
    """Gold Y/N label of every boundary from a gold labelling of the text leaves.

    ``leaf_labels`` is e.g. the first value of ``webseg.datasets.gold_labels(page, blocks,
    level)``. The raw labels of :func:`raw_boundary_labels` may break dependencies (a boundary
    between two gold blocks inside a region whose frame cuts a block); ``project`` makes them
    feasible: ``"ilp"`` (default) takes the feasible labelling with the largest weighted
    agreement with the raw labels, +1 per raw-Y boundary labelled Y and ``-n_weight`` per raw-N
    boundary labelled Y (solved exactly with :func:`webseg.wps.inference.infer`; ``n_weight > 1``
    makes cutting a gold block in two costlier than merging two gold blocks), ``"closure"`` turns
    to N every Y below an N, ``"none"`` returns the raw labels.
    """
    raw = raw_boundary_labels(graph, leaf_labels, unassigned)
    if project == "none":
        return raw
    if project == "closure":
        return graph.closure(raw)
    if project == "ilp":
        return infer(graph, np.where(raw, 1.0, -float(n_weight))).labels
    raise ValueError(f"project must be 'ilp', 'closure' or 'none', got {project!r}")
