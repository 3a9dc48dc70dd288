"""Segment a page with a trained WPS model: graph, scores, exact inference, hierarchy.

Shared by the ``wps-*`` segmenters (:mod:`webseg.segmenters.wps`) and the trainer's validation
(:mod:`webseg.wps.train`), so neither imports the other. See :mod:`webseg.segmenters.wps` for
the two-level vs tree output.
"""

from __future__ import annotations

import numpy as np

from webseg.page import Page
from webseg.segmentation import Segment, Segmentation, node_union_box, nodes_text
from webseg.wps.features import boundary_features
from webseg.wps.graph import WPSGraph, build_graph
from webseg.wps.inference import infer
from webseg.wps.model import WPSModel

__all__ = ["page_labels", "segment_page", "two_level"]


def two_level(seg: Segmentation) -> Segmentation:
    """Top-level segments and, under each, its finest descendants (see module docstring)."""
    children: dict[int | None, list[Segment]] = {}
    for s in seg.segments:
        children.setdefault(s.parent, []).append(s)

    def leaves(s: Segment) -> list[Segment]:
        kids = children.get(s.id, [])
        return [s] if not kids else [x for k in kids for x in leaves(k)]

    out: list[Segment] = []
    for top in children.get(None, []):
        tid = len(out)
        out.append(Segment(tid, top.nodes, None, top.box, top.text,
                           attrs={**top.attrs, "wps_level": top.level}))
        if children.get(top.id):
            for leaf in leaves(top):
                out.append(Segment(len(out), leaf.nodes, tid, leaf.box, leaf.text,
                                   attrs={**leaf.attrs, "wps_level": leaf.level}))
    return Segmentation(seg.page, out, seg.algorithm, seg.params)


def page_labels(page: Page, model: WPSModel, overlap_tol: float = 1.0
                ) -> tuple[WPSGraph, np.ndarray, np.ndarray]:
    """(WPS-graph, boundary scores, inferred Y/N labels) of a page."""
    page.require_layout()
    graph = build_graph(page, overlap_tol=overlap_tol)
    if graph.n == 0:
        return graph, np.zeros(0), np.zeros(0, dtype=bool)
    f = model.scores(boundary_features(graph, context=model.uses_context))
    return graph, f, infer(graph, f).labels


def segment_page(page: Page, model: WPSModel, hierarchy: str = "two", overlap_tol: float = 1.0,
                 name: str = "wps-margin") -> Segmentation:
    """The page's WPS segmentation: ``hierarchy`` ``"two"`` (top-level split + finest
    segments) or ``"tree"`` (every WPS level)."""
    if hierarchy not in ("two", "tree"):
        raise ValueError(f"hierarchy must be 'two' or 'tree', got {hierarchy!r}")
    graph, _f, y = page_labels(page, model, overlap_tol)
    seg = graph.to_segmentation(y, algorithm=name)
    for s in seg.segments:
        s.box = node_union_box(page, s.nodes)
        s.text = nodes_text(page, s.nodes)
    seg.params.update(boundaries=int(graph.n), boundaries_y=int(y.sum()),
                      loss=model.loss, C=model.info.get("C"), hierarchy=hierarchy)
    if hierarchy == "two":
        return two_level(seg)
    for s in seg.segments:
        s.attrs["wps_level"] = s.level
    return seg
