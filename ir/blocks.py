"""Blocks of a page for the feedback store: segments of a segmenter, or fixed text windows.

Sources (``SOURCES``): ``vips`` (PDoC 0.6, the finest VIPS blocks, as in the paper's PRF
experiment), ``dom``, ``gcuts``, ``wps`` (``wps-margin``), ``pagelevel`` (only the segments
PageLevel scores as non-template, templateness < 0.5) and ``windows`` (consecutive 50-word
windows over the page text, a passage-retrieval baseline that needs no layout). Any other
registered segmenter name is accepted too (its finest segments become blocks).

Blocks are stored in geometry rank order (top edge, then left edge of the segment box).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ir.analysis import Analyzer
from ir.store import Block

__all__ = ["SOURCES", "page_blocks", "page_text", "segmentation_blocks", "window_blocks"]

#: source name -> (registered segmenter, its parameters); ``windows`` needs no segmenter.
SOURCES: dict[str, tuple[str, dict[str, Any]] | None] = {
    "vips": ("vips", {"pdoc": 0.6}),
    "dom": ("dom", {}),
    "gcuts": ("gcuts", {}),
    "wps": ("wps-margin", {}),
    "pagelevel": ("pagelevel", {}),
    "windows": None,
}

WINDOW_WORDS = 50


def _terms(an: Analyzer, text: str) -> dict[str, int]:
    return dict(Counter(an.tokens(text)))


def window_blocks(text: str, an: Analyzer, size: int = WINDOW_WORDS) -> list[Block]:
    """Consecutive, non-overlapping ``size``-word windows of ``text`` (the last may be shorter)."""
    words = text.split()
    out = []
    for k, i in enumerate(range(0, len(words), size)):
        t = " ".join(words[i: i + size])
        out.append(Block(text=t, terms=_terms(an, t), seg=k, rank=k))
    return out


def page_text(page: Any) -> str:
    """All visible text of a rendered page (title first), leaves joined in document order."""
    from webseg.page import normalize_text

    leaves = page.text_leaves
    vis = page.visible
    parts = [normalize_text(page.text[i]) for i in leaves.tolist() if vis[i]]
    return " ".join(p for p in parts if p)


def _segmenter(source: str) -> Any:
    from webseg.segmenters import get_segmenter

    spec = SOURCES.get(source, (source, {}))
    if spec is None:
        raise ValueError("windows is not a segmenter")
    return get_segmenter(spec[0], **spec[1])


_CACHE: dict[str, Any] = {}


def page_blocks(page: Any, source: str, an: Analyzer) -> list[Block]:
    """Blocks of a rendered ``page`` from ``source`` (see module docstring)."""
    if source == "windows":
        return window_blocks(page_text(page), an)
    seg_algo = _CACHE.get(source)
    if seg_algo is None:
        seg_algo = _CACHE[source] = _segmenter(source)
    return segmentation_blocks(seg_algo.segment(page), an,
                               non_template_only=source == "pagelevel")


def segmentation_blocks(seg: Any, an: Analyzer, non_template_only: bool = False
                        ) -> list[Block]:
    """Blocks from a segmentation already computed: its finest non-empty segments in geometry
    rank order (only those with templateness < 0.5 when ``non_template_only``)."""
    segs = seg.at_level(None)
    if non_template_only:
        segs = [s for s in segs if float(s.attrs.get("templateness", 0.0)) < 0.5]
    segs = [s for s in segs if s.text and s.text.strip()]
    segs.sort(key=lambda s: (float(s.box[1]), float(s.box[0]), s.id))
    return [Block(text=s.text, terms=_terms(an, s.text), seg=int(s.id), rank=r,
                  box=tuple(float(v) for v in s.box)) for r, s in enumerate(segs)]
