"""The Segmentation contract: what every segmenter returns and every consumer reads.

A segment is a set of DOM subtrees (its *root nodes*) of one :class:`~webseg.page.Page`. Segments
may form a hierarchy (VIPS, WPS and PageLevel keep their trees): ``parent`` is the id of the
enclosing segment or ``None`` at the top. The level of a segment is its depth in that tree, the
top level being 1.

Consumers mostly need three things, which this module answers once for everybody:

* :meth:`Segmentation.leaf_labels` - the segment of each visible text leaf at a level, a flat
  labelling for metrics (a leaf is in a segment when it lies in the subtree of one of the
  segment's roots; at level ``L`` it takes the deepest such segment whose level is <= ``L``);
* :meth:`Segmentation.largest` - the segment with the most text (duplicate detection);
* :meth:`Segmentation.non_template_text` - the text of segments not marked as template.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from webseg.page import Page

SCHEMA = "webseg.segmentation"
SCHEMA_VERSION = 1

#: Label of a text leaf that no segment covers.
UNASSIGNED = -1


@dataclass
class Segment:
    """One block of a page.

    ``nodes`` are the root node ids of the DOM subtrees the segment is made of (one for most
    algorithms; several when a segmenter merges siblings). ``attrs`` carries algorithm-specific
    scores with agreed names: ``templateness`` (0..1), ``doc`` (VIPS degree of coherence),
    ``block_type`` (e.g. a gold type), ``informative`` (bool).
    """

    id: int
    nodes: tuple[int, ...]
    parent: int | None = None
    box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    text: str = ""
    level: int = 1
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def area(self) -> float:
        return float(self.box[2] * self.box[3])

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "nodes": list(self.nodes), "parent": self.parent,
                "box": [round(float(v), 2) for v in self.box], "text": self.text,
                "level": self.level, "attrs": self.attrs}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Segment:
        return cls(id=d["id"], nodes=tuple(d["nodes"]), parent=d.get("parent"),
                   box=tuple(d.get("box", (0, 0, 0, 0))), text=d.get("text", ""),
                   level=d.get("level", 1), attrs=d.get("attrs") or {})


class Segmentation:
    """Segments of one page, possibly hierarchical.

    Build one with :meth:`from_nodes` (flat) or by passing segments whose ``parent`` fields form
    a tree; boxes, text and levels are filled in from the page when they are left empty.
    """

    def __init__(self, page: Page, segments: Sequence[Segment], algorithm: str = "",
                 params: dict[str, Any] | None = None) -> None:
        self.page = page
        self.segments: list[Segment] = list(segments)
        self.algorithm = algorithm
        self.params = dict(params or {})
        ids = [s.id for s in self.segments]
        if len(set(ids)) != len(ids):
            raise ValueError("segment ids must be unique")
        self._by_id = {s.id: s for s in self.segments}
        n = page.n
        for s in self.segments:
            if s.parent is not None and s.parent not in self._by_id:
                raise ValueError(f"segment {s.id} has unknown parent {s.parent}")
            for v in s.nodes:
                if not 0 <= v < n:
                    raise ValueError(f"segment {s.id} refers to node {v} outside the page")
        self._fill_levels()
        layout = page.has_layout
        for s in self.segments:  # segments built by hand may leave box and text to us
            if not s.text:
                s.text = nodes_text(page, s.nodes)
            if s.box == (0.0, 0.0, 0.0, 0.0) and layout:
                s.box = node_union_box(page, s.nodes)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_nodes(cls, page: Page, groups: Iterable[Iterable[int]], algorithm: str = "",
                   params: dict[str, Any] | None = None, **attrs_per_segment: Any
                   ) -> Segmentation:
        """A flat segmentation: one segment per group of root node ids, in the given order."""
        segs = []
        for k, g in enumerate(groups):
            nodes = tuple(sorted({int(v) for v in g}))
            if not nodes:
                continue
            segs.append(Segment(id=len(segs), nodes=nodes, box=node_union_box(page, nodes),
                                text=nodes_text(page, nodes),
                                attrs={a: v[k] for a, v in attrs_per_segment.items()}))
        return cls(page, segs, algorithm, params)

    def _fill_levels(self) -> None:
        for s in self.segments:
            lvl, p = 1, s.parent
            while p is not None:
                lvl += 1
                p = self._by_id[p].parent
                if lvl > len(self.segments) + 1:
                    raise ValueError("segment parents form a cycle")
            s.level = lvl

    # ------------------------------------------------------------------ queries
    def __len__(self) -> int:
        return len(self.segments)

    def __iter__(self):
        return iter(self.segments)

    def __getitem__(self, seg_id: int) -> Segment:
        return self._by_id[seg_id]

    @property
    def depth(self) -> int:
        """Number of levels (0 for an empty segmentation)."""
        return max((s.level for s in self.segments), default=0)

    def children(self, seg_id: int | None) -> list[Segment]:
        """Child segments of ``seg_id`` (top-level segments for ``None``)."""
        return [s for s in self.segments if s.parent == seg_id]

    def at_level(self, level: int | None = None) -> list[Segment]:
        """Segments that are the finest at ``level``: those of that level plus shallower leaves.

        ``None`` means the finest level, i.e. the leaves of the segment tree.
        """
        has_child = {s.parent for s in self.segments if s.parent is not None}
        if level is None:
            return [s for s in self.segments if s.id not in has_child]
        return [s for s in self.segments
                if s.level == level or (s.level < level and s.id not in has_child)]

    def node_labels(self, level: int | None = None) -> np.ndarray:
        """Segment id of every page node at ``level`` (:data:`UNASSIGNED` where none covers it).

        A node belongs to the deepest segment (level <= ``level``) that has one of its
        ancestors-or-self as a root node; ties between overlapping segments of equal depth go to
        the segment whose root is the nearer ancestor.
        """
        page = self.page
        limit = level if level is not None else np.inf
        disjoint = self._disjoint_labels(limit)
        if disjoint is not None:
            return disjoint
        labels = np.full(page.n, UNASSIGNED, dtype=np.int64)
        depth = page.depth.tolist()
        end = page.subtree_end.tolist()
        # every (segment, root) with its rank (level, root depth) and its place in the order
        # segments are taken (by level, then as listed): a node's owner is the last, in that
        # order, of the roots of the highest rank over it. Assigned in increasing (rank,
        # place), each root's subtree in one slice, the last one written is that owner.
        roots = []
        for s in sorted(self.segments, key=lambda s: s.level):
            if s.level > limit:
                continue
            for r in s.nodes:
                roots.append((s.level * 100_000 + depth[r], len(roots), r, s.id))
        roots.sort()
        for _, _, r, sid in roots:
            labels[r:end[r]] = sid
        return labels

    def _disjoint_labels(self, limit: float) -> np.ndarray | None:
        """:meth:`node_labels` when no two of the roots taken (segments of level <= ``limit``)
        hold a node in common, else None. Then every covered node has exactly one owner, the
        one segment whose root's subtree holds it, so no ranking is needed: each node's owner
        is found by one binary search over the subtrees' starts (a flat segmentation, e.g.
        block fusion's, in a few vectorised steps instead of a few array operations per
        root)."""
        page = self.page
        ids: list[int] = []
        roots: list[int] = []
        for s in self.segments:
            if s.level <= limit:
                ids.extend([s.id] * len(s.nodes))
                roots.extend(s.nodes)
        labels = np.full(page.n, UNASSIGNED, dtype=np.int64)
        if not roots:
            return labels
        starts = np.asarray(roots, dtype=np.int64)
        order = np.argsort(starts, kind="stable")
        starts = starts[order]
        ends = np.asarray(page.subtree_end, dtype=np.int64)[starts]
        if (ends[:-1] > starts[1:]).any():  # nested or repeated roots: ranked, one by one
            return None
        owner = np.asarray(ids, dtype=np.int64)[order]
        nodes = np.arange(page.n, dtype=np.int64)
        k = np.searchsorted(starts, nodes, side="right") - 1
        inside = k >= 0
        inside[inside] = nodes[inside] < ends[k[inside]]
        labels[inside] = owner[k[inside]]
        return labels

    def leaf_labels(self, level: int | None = None) -> np.ndarray:
        """Segment id of each visible text leaf (``page.text_leaves`` order) at ``level``."""
        return self.node_labels(level)[self.page.text_leaves]

    def largest(self, level: int | None = 1, by: str = "text") -> Segment | None:
        """The segment with the most visible text (``by="text"``) or area (``by="area"``)."""
        cands = self.at_level(level)
        if not cands:
            return None
        if by == "area":
            return max(cands, key=lambda s: s.area)
        if by != "text":
            raise ValueError("by must be 'text' or 'area'")
        return max(cands, key=lambda s: len(s.text))

    def non_template_text(self, threshold: float = 0.5, level: int | None = None) -> str:
        """Text of the finest segments whose ``templateness`` is below ``threshold``.

        Segments without a templateness score count as content.
        """
        keep = [s for s in self.at_level(level)
                if float(s.attrs.get("templateness", 0.0)) < threshold]
        return "\n\n".join(s.text for s in sorted(keep, key=lambda s: min(s.nodes)) if s.text)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self, include_page_ref: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {"schema": SCHEMA, "version": SCHEMA_VERSION,
                             "algorithm": self.algorithm, "params": self.params,
                             "segments": [s.to_dict() for s in self.segments]}
        if include_page_ref:
            d["page"] = {"url": self.page.url, "nodes": self.page.n,
                         "xpaths": {str(v): self.page.xpaths[v]
                                    for s in self.segments for v in s.nodes}}
        return d

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent, default=_jsonable)

    @classmethod
    def from_dict(cls, page: Page, d: dict[str, Any]) -> Segmentation:
        if d.get("schema") != SCHEMA or d.get("version") != SCHEMA_VERSION:
            raise ValueError("not a webseg segmentation of a supported version")
        ref = d.get("page") or {}
        if ref.get("nodes") not in (None, page.n):
            raise ValueError(f"segmentation was made for a page with {ref['nodes']} nodes, "
                             f"this page has {page.n}")
        return cls(page, [Segment.from_dict(s) for s in d["segments"]],
                   d.get("algorithm", ""), d.get("params"))

    @classmethod
    def from_json(cls, page: Page, s: str) -> Segmentation:
        return cls.from_dict(page, json.loads(s))

    def __repr__(self) -> str:
        return (f"Segmentation({self.algorithm!r}, segments={len(self.segments)}, "
                f"levels={self.depth})")


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    raise TypeError(f"cannot serialise {type(v).__name__}")


def node_union_box(page: Page, nodes: Iterable[int]) -> tuple[float, float, float, float]:
    """Bounding box (x, y, w, h) of the visible parts of the given subtrees.

    Uses the visible nodes with a non-empty box inside the subtrees, so that zero-size wrappers
    and hidden descendants do not stretch or shrink the box.
    """
    boxes = []
    for r in nodes:
        sl = slice(r, int(page.subtree_end[r]))
        b = page.box[sl]
        ok = page.visible[sl] & (b[:, 2] > 0) & (b[:, 3] > 0)
        if ok.any():
            boxes.append(b[ok])
    if not boxes:
        return (0.0, 0.0, 0.0, 0.0)
    b = np.concatenate(boxes)
    x0, y0 = b[:, 0].min(), b[:, 1].min()
    x1, y1 = (b[:, 0] + b[:, 2]).max(), (b[:, 1] + b[:, 3]).max()
    return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))


def remember_words(segment: Segment, words: int) -> None:
    """Note that ``segment.text`` has ``words`` words (``len(text.split())``), for
    :func:`summary_rows`; a segmenter that has counted its tokens already says so, and the
    note holds only while the text is that very string object (not a field: it is in no
    output)."""
    segment.__dict__["_words"] = (segment.text, words)


def words_of(segment: Segment) -> int:
    """``len(segment.text.split())``, from the note of :func:`remember_words` when the text is
    still the one it was made for."""
    note = segment.__dict__.get("_words")
    if note is not None and note[0] is segment.text:
        return note[1]
    return len(segment.text.split())


def summary_rows(segments: Iterable[Segment]) -> list[dict[str, Any]]:
    """``{"id", "box", "words"}`` of every segment, the box rounded to one decimal
    (``[round(float(v), 1) for v in box]``) and the words counted by :func:`words_of`: the
    pipeline's summary of a segmentation. A box object shared by many segments (a page
    without layout gives every segment the same zero box) is rounded once."""
    rounded: dict[int, tuple[Any, list[float]]] = {}
    rows = []
    for s in segments:
        box = s.box
        got = rounded.get(id(box))
        if got is None:  # the box itself kept in the memo, so its id stays its own
            got = rounded[id(box)] = (box, [round(float(v), 1) for v in box])
        rows.append({"id": s.id, "box": list(got[1]), "words": words_of(s)})
    return rows


def nodes_text(page: Page, nodes: Iterable[int]) -> str:
    """Visible text of the given subtrees in document order."""
    return " ".join(t for t in (page.node_text(r) for r in sorted(nodes)) if t)
