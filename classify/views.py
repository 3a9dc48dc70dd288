"""What text of a page each classifier sees ("views").

* :func:`position_texts` - the paper's method: the text at the five in-segment positions
  (Algorithm 3, :mod:`webseg.wps.positions`) of the two major segments of the WPS
  segmentation, the whole page and its largest top-level segment: 10 texts. A page that WPS
  does not split has one major segment; its second five texts are then empty (the absence of a
  split is itself a signal, and copying the page into them would double-count its terms).
* :func:`informative_segment_text` - the BF-RULEBASED_Segment / GCUTS_Segment baselines: the
  largest segment (most visible text, finest level) that lies at least partly in the first
  screen, the top 1,000 px of the page.
* :func:`full_text` - all visible text (the ``text`` baseline and the 2007 paper's FullText).
* :func:`kept_text` - visible text of the leaves a template detector keeps (SiteLevel,
  PageLevel Basic, PageLevel Smooth in the Naive-Bayes experiment).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from webseg.page import Page, normalize_text
from webseg.segmentation import Segmentation

__all__ = ["FIRST_SCREEN_PX", "POSITION_NAMES", "full_text", "informative_segment_text",
           "kept_text", "position_texts", "template_node_text"]

FIRST_SCREEN_PX = 1000.0

#: Names of the 10 position dimensions, in the order of :func:`position_texts`.
POSITION_NAMES = tuple(f"{seg}:{p}" for seg in ("page", "major")
                       for p in ("top", "bottom", "left", "right", "middle"))


def full_text(page: Page) -> str:
    """All visible text of the page, text leaves joined by spaces in document order."""
    return " ".join(normalize_text(page.text[j]) for j in page.text_leaves)


def kept_text(page: Page, keep: np.ndarray) -> str:
    """Text of the visible text leaves with ``keep[k]`` true (``k`` indexes ``text_leaves``)."""
    leaves = page.text_leaves
    if len(keep) != len(leaves):
        raise ValueError(f"keep has {len(keep)} entries, the page {len(leaves)} text leaves")
    return " ".join(normalize_text(page.text[j]) for j, k in zip(leaves.tolist(),
                                                                   np.asarray(keep).tolist(),
                                                                   strict=True) if k)


def template_node_text(page: Page, template: np.ndarray) -> str:
    """Text of the visible leaves that are not template nodes (``template``: one per node)."""
    return kept_text(page, ~np.asarray(template, dtype=bool)[page.text_leaves])


def position_texts(page: Page, segmenter: Any = None) -> list[str]:
    """The 10 in-segment-position texts of a page (:data:`POSITION_NAMES` order).

    ``segmenter``: a WPS segmenter (anything with ``labels(page) -> (graph, scores, y)``);
    default the shipped ``wps-margin``.
    """
    from webseg.wps.positions import (
        POSITIONS,
        in_segment_positions,
        major_segments,
        position_text,
    )

    if segmenter is None:
        from webseg.segmenters import get_segmenter

        segmenter = get_segmenter("wps-margin")
    graph, scores, y = segmenter.labels(page)
    if not graph.regions:
        return [full_text(page) if p == "middle" else "" for p in POSITIONS] + [""] * 5
    out: list[str] = []
    majors = major_segments(graph, y)
    for seg in majors:
        pos = in_segment_positions(graph, y, seg, scores)
        txt = position_text(graph, pos)
        out.extend(txt[p] for p in POSITIONS)
    out.extend([""] * (10 - len(out)))
    return out


def informative_segment(seg: Segmentation, first_screen: float = FIRST_SCREEN_PX
                        ) -> Any | None:
    """The largest finest-level segment (by visible text) that starts above ``first_screen``.

    "Appears (maybe partially) in the first screen" = the segment's box top is above the
    first-screen line. Segments without text are skipped; ``None`` when no segment qualifies.
    """
    cands = [s for s in seg.at_level(None) if s.box[1] < first_screen and s.text.strip()]
    if not cands:
        return None
    return max(cands, key=lambda s: (len(s.text), -s.id))


def informative_segment_text(seg: Segmentation, first_screen: float = FIRST_SCREEN_PX) -> str:
    """Text of :func:`informative_segment` ("" when there is none)."""
    s = informative_segment(seg, first_screen)
    return "" if s is None else normalize_text(s.text)
