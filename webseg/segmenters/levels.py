"""A level 1 for flat segmenters: their segments grouped under VIPS's level-1 visual blocks.

``pagelevel`` (and its variants) and ``blockfusion`` find one level of segments. A level-1
score of such a segmenter used to be the score of that one level, which says nothing about
how it sees the coarse structure of a page. The grouping here is
principled and cheap: VIPS's level-1 blocks are the page's regions as Cai et al. (2003) cut
them along its most visible separators (VIPS runs in a few milliseconds), and each flat segment
joins the VIPS level-1 block that holds most of its text (visible characters of its text
leaves). Level 1 is then made of whole flat segments, so level 2 nests in level 1 by
construction and the flat segments stay exactly what they were (ids, nodes, text, box, attrs).

Representation (as the other two-level segmenters, e.g.
:func:`webseg.graphseg.segments.to_two_level`): a group of two or more flat segments is a new
level-1 segment (id after the flat ones, ``nodes`` = the union of its members' roots,
``attrs = {"level1": "vips", "members": k}``) and its members become its children (level 2);
a flat segment alone in its group stays at level 1 with no children. So
``seg.at_level(None)`` / ``seg.at_level(2)`` / ``seg.leaf_labels()`` are the flat segments and
their labels, and ``seg.at_level(1)`` / ``seg.leaf_labels(1)`` the grouping. Readers that want
"the segments" of these segmenters (templateness etc.) read ``at_level(None)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from webseg.page import Page
from webseg.segmentation import UNASSIGNED, Segment, Segmentation, node_union_box, nodes_text

__all__ = ["LEVEL1_SOURCES", "check_level1", "coarse_level1", "group_under", "vips_level1",
           "with_level1"]

#: Values of the ``level1`` parameter of the flat segmenters: ``"vips"`` groups the segments
#: under VIPS's level-1 blocks, ``"dom"`` under the ``dom`` baseline's level-1 blocks (the
#: block-level children of the body: ~1 ms where VIPS takes ~5, for the segmenters whose point
#: is speed), ``"none"`` keeps the flat output.
LEVEL1_SOURCES = ("vips", "dom", "none")

_COARSE: dict[str, Any] = {}


def check_level1(name: str, level1: str) -> None:
    """Clear error for an unknown ``level1`` value."""
    if level1 not in LEVEL1_SOURCES:
        raise ValueError(f"{name}: level1 must be one of {', '.join(LEVEL1_SOURCES)}, "
                         f"got {level1!r}")


def coarse_level1(page: Page, source: str) -> np.ndarray:
    """Level-1 block of every text leaf (``page.text_leaves``) by the ``source`` segmenter
    (``vips`` or ``dom``, shipped parameters)."""
    if source not in _COARSE:
        from webseg.segmenters import get_segmenter

        _COARSE[source] = get_segmenter(source)
    return _COARSE[source].segment(page).leaf_labels(1)


def vips_level1(page: Page) -> np.ndarray:
    """VIPS (shipped parameters) level-1 block of every text leaf (``page.text_leaves``)."""
    return coarse_level1(page, "vips")


def group_under(seg: Segmentation, coarse: np.ndarray, source: str) -> Segmentation:
    """``seg`` (flat) with a level 1: each segment joins the ``coarse`` label holding most of
    its text.

    ``coarse``: a label per text leaf (``UNASSIGNED`` = none). A segment's vote is the
    characters of its text leaves per coarse label (ties: the label met first in document
    order); a segment with no labelled leaf is a group of its own. Groups are ordered by their
    first member; see the module docstring for how they are represented.
    """
    if any(s.parent is not None for s in seg.segments):
        raise ValueError("group_under: the segmentation must be flat")
    page = seg.page
    coarse = np.asarray(coarse)
    if coarse.shape != (len(page.text_leaves),):
        raise ValueError("group_under: need one coarse label per text leaf")
    fine = seg.leaf_labels().tolist()
    chars = np.maximum(page.text_length[page.text_leaves], 1).tolist()
    votes: dict[int, dict[int, int]] = {}
    for f, c, w in zip(fine, coarse.tolist(), chars, strict=True):
        if f != UNASSIGNED and c != UNASSIGNED:
            d = votes.setdefault(f, {})
            d[c] = d.get(c, 0) + w  # dicts keep first-seen order: ties go to the earlier label
    groups: dict[tuple[str, int], list[Segment]] = {}
    for s in seg.segments:
        v = votes.get(s.id)
        key = ("block", max(v, key=v.__getitem__)) if v else ("own", s.id)
        groups.setdefault(key, []).append(s)
    next_id = max((s.id for s in seg.segments), default=-1) + 1
    parent_of: dict[int, int] = {}
    parents: list[Segment] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        nodes = tuple(sorted({v for s in members for v in s.nodes}))
        pid = next_id + len(parents)
        box = node_union_box(page, nodes) if page.has_layout else (0.0, 0.0, 0.0, 0.0)
        parents.append(Segment(pid, nodes, None, box, nodes_text(page, nodes),
                               attrs={"level1": source, "members": len(members)}))
        for s in members:
            parent_of[s.id] = pid
    if not parents:
        return seg
    kids = [Segment(s.id, s.nodes, parent_of.get(s.id), s.box, s.text, attrs=s.attrs)
            for s in seg.segments]
    return Segmentation(page, kids + parents, seg.algorithm, seg.params)


def with_level1(seg: Segmentation, level1: str) -> Segmentation:
    """``seg`` with the level 1 chosen by ``level1`` (:data:`LEVEL1_SOURCES`).

    Both sources need a rendered page: on a page without layout the output stays flat.
    """
    if level1 == "none" or not seg.segments or not seg.page.has_layout:
        return seg
    if level1 in ("vips", "dom"):
        out = group_under(seg, coarse_level1(seg.page, level1), level1)
        out.params = {**seg.params, "level1": level1}
        return out
    raise ValueError(f"unknown level1 {level1!r}")
