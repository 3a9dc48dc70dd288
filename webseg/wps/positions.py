"""In-segment positions of a WPS segmentation (Bing et al., SIGIR 2014, Algorithm 3).

For a segment ``s`` split by the Y boundaries ``b_1..b_n`` inside it, Algorithm 3 names five
positions: top, bottom, left, right and middle.

* ``n = 0``: the whole segment is its middle.
* ``n = 1``: horizontal: the part above the boundary is the top, the part below the bottom;
  vertical: left and right.
* ``n >= 2``: two boundaries ``b' , b''`` are kept - the only two when ``n = 2``, else the two
  with the largest ``F_i = <Psi(b_i, Y), w>`` - and the parts before ``b'``, between ``b'`` and
  ``b''``, and after ``b''`` are top / middle / bottom (horizontal) or left / middle / right
  (vertical). A position may hold several sub-segments when ``n > 2``.

In a WPS-graph a region's boundaries all have one orientation (the region is split either by
horizontal or by vertical lines), so the Y boundaries inside a region are its own boundaries
labelled Y. The sub-segments are reported as the region's sub-regions (``WPSGraph.regions``
ids, in reading order), so a position may also hold sub-regions that N boundaries join.

**Scores.** Our models learn ``v = w_Y - w_N`` only (:mod:`webseg.wps.train`); for the
norm-minimal split ``w_Y = v / 2`` the paper's ``F_i`` is ``f_i / 2`` with ``f_i`` the ILP score
(:func:`webseg.wps.features.scores`), so ranking by ``f_i`` is ranking by ``F_i``. Without
scores, ties are broken by the gap (whitespace) of the boundary, then by reading order.

The paper uses the positions of two *major segments*: the whole page and the largest segment
of the page's top-level split (:func:`major_segments`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from webseg.wps.graph import HORIZONTAL, WPSGraph

POSITIONS = ("top", "bottom", "left", "right", "middle")


def in_segment_positions(graph: WPSGraph, labels: Sequence[bool] | np.ndarray,
                         segment: int | Sequence[int] = 0,
                         scores: Sequence[float] | np.ndarray | None = None
                         ) -> dict[str, list[int]]:
    """Algorithm 3: sub-region ids at each of :data:`POSITIONS` of ``segment``.

    ``segment`` is a region id (default 0, the whole page) or a run of sibling region ids that
    N boundaries join into one segment (such a segment has no Y boundary inside it at its own
    level, so it is all middle). ``labels``: Y/N per boundary (a feasible labelling);
    ``scores``: per-boundary ILP scores used to choose ``b', b''`` when ``n > 2``.
    """
    y = np.asarray(labels, dtype=bool)
    if len(y) != graph.n:
        raise ValueError(f"labels has {len(y)} entries, the WPS-graph has {graph.n} vertices")
    if scores is not None and len(scores) != graph.n:
        raise ValueError(f"scores has {len(scores)} entries, the WPS-graph has {graph.n} "
                         "vertices")
    out: dict[str, list[int]] = {p: [] for p in POSITIONS}
    if not isinstance(segment, (int, np.integer)):
        regs = [int(r) for r in segment]
        if len(regs) == 1:
            return in_segment_positions(graph, y, regs[0], scores)
        out["middle"] = regs
        return out
    reg = graph.regions[int(segment)]
    ys = [k for k, b in enumerate(reg.boundaries) if y[b]]
    if not ys:
        out["middle"] = [reg.id]
        return out
    if len(ys) <= 2:
        chosen = ys
    else:
        bs = np.asarray([reg.boundaries[k] for k in ys])
        key_f = (np.asarray(scores, dtype=np.float64)[bs] if scores is not None
                 else np.zeros(len(bs)))
        # largest score first; ties: larger gap, then reading order
        order = np.lexsort((np.arange(len(bs)), -graph.gap[bs], -key_f))
        chosen = sorted(ys[int(i)] for i in order[:2])
    first, last, mid = (("top", "bottom", "middle") if reg.split == HORIZONTAL
                        else ("left", "right", "middle"))
    kids = list(reg.children)
    # boundary k separates children[k] and children[k + 1]
    out[first] = kids[:chosen[0] + 1]
    if len(chosen) == 1:
        out[last] = kids[chosen[0] + 1:]
    else:
        out[mid] = kids[chosen[0] + 1:chosen[1] + 1]
        out[last] = kids[chosen[1] + 1:]
    return out


def position_nodes(graph: WPSGraph, positions: dict[str, list[int]]) -> dict[str, list[int]]:
    """DOM subtree roots of every position (for text: ``page.node_text`` of each root)."""
    return {p: [i for r in regs for i in graph.regions[r].items]
            for p, regs in positions.items()}


def position_text(graph: WPSGraph, positions: dict[str, list[int]]) -> dict[str, str]:
    """Visible text of every position, sub-segments joined by spaces in reading order."""
    page = graph.page
    nodes = position_nodes(graph, positions)
    return {p: " ".join(t for t in (page.node_text(i) for i in sorted(ns)) if t)
            for p, ns in nodes.items()}


def top_level_segments(graph: WPSGraph, labels: Sequence[bool] | np.ndarray) -> list[list[int]]:
    """Segments of the page's top-level split, each as a run of sibling region ids."""
    y = np.asarray(labels, dtype=bool)
    root = graph.regions[0]
    if not root.children:
        return [[0]]
    cuts = [k for k, b in enumerate(root.boundaries) if y[b]]
    bounds = [0, *[k + 1 for k in cuts], len(root.children)]
    return [list(root.children[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def major_segments(graph: WPSGraph, labels: Sequence[bool] | np.ndarray
                   ) -> list[int | list[int]]:
    """The paper's two major segments: the page (region 0) and its largest top-level segment.

    "Largest" is by visible text length (ties: the first). When the page is not split, only
    the page is returned.
    """
    y = np.asarray(labels, dtype=bool)
    segs = top_level_segments(graph, y)
    if len(segs) < 2:
        return [0]
    page = graph.page
    size = [sum(int(page.text_length[i]) for r in s for i in graph.regions[r].items)
            for s in segs]
    best = segs[int(np.argmax(size))]
    return [0, best[0] if len(best) == 1 else best]
