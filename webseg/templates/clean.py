"""Main-content extraction from PageLevel templateness (boilerplate removal).

:func:`clean` segments a rendered page with a PageLevel segmenter (``pagelevel`` by default:
classifier + isotonic smoothing) and keeps the visible text of the segments whose
``templateness`` is below ``threshold``, in document order. :func:`clean_html` returns the
same kept segments as a small HTML document rebuilt from the Page (the Page keeps tags, text
and a few attributes, not the original markup).

>>> from webseg.templates.clean import clean              # doctest: +SKIP
>>> from webseg.render import render                      # doctest: +SKIP
>>> print(clean(render(Path("page.html"))))               # doctest: +SKIP
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from webseg.page import Page
from webseg.segmentation import Segmentation
from webseg.segmenters.base import get_segmenter

__all__ = ["clean", "clean_html", "kept_segments"]

#: Segmenters whose level 1 (``level1="vips"``) is only a grouping of their segments, which
#: the main-text readers do not need.
_FLAT_OK = ("pagelevel", "pagelevel-basic", "pagelevel-merge", "blockfusion")


def kept_segments(page: Page, threshold: float = 0.5, segmenter: str = "pagelevel",
                  **params: Any) -> tuple[Segmentation, np.ndarray]:
    """The segmentation and a boolean per visible text leaf: in a non-template segment."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold}")
    if segmenter in _FLAT_OK:
        params = {"level1": "none", **params}  # only the segments are read: skip VIPS
    seg = get_segmenter(segmenter, **params).segment(page)
    labels = seg.leaf_labels()
    keep_ids = {s.id for s in seg.at_level(None)
                if float(s.attrs.get("templateness", 0.0)) < threshold}
    keep = np.fromiter((int(lab) in keep_ids for lab in labels), dtype=bool, count=len(labels))
    return seg, keep


def clean(page: Page, threshold: float = 0.5, segmenter: str = "pagelevel",
          **params: Any) -> str:
    """Main text of ``page``: visible text of the segments with templateness < ``threshold``.

    ``page`` must be rendered (layout). Text leaves are joined in document order: a space
    within a block element, a newline where a block-level element (``p``, ``div``, ``li``,
    headings, ...) or the segment changes. ``segmenter`` may be ``pagelevel`` (default),
    ``pagelevel-basic`` or ``pagelevel-merge``; ``params`` go to it (e.g. ``c=0.02``).
    The same as ``webseg.clean.extract(page, segmenter, threshold=...).text``, computed here
    from the text writer so that this layer never imports the ``webseg.clean`` facade (which
    imports it).
    """
    from webseg.clean.txt import to_text

    seg, keep = kept_segments(page, threshold, segmenter, **params)
    return to_text(page, keep, seg.leaf_labels())


def clean_html(page: Page, threshold: float = 0.5, segmenter: str = "pagelevel",
               **params: Any) -> str:
    """The kept segments as HTML: one ``<div class="webseg-segment">`` per kept segment.

    Each div holds the segment's DOM subtrees rebuilt from the Page (tags, text, and the kept
    attributes ``href``, ``src``, ``alt``, ``title``), with ``data-templateness`` set. Hidden
    and non-rendered content (script, style, ...) is left out.
    """
    seg, _ = kept_segments(page, threshold, segmenter, **params)
    parts = ["<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>",
             html.escape(page.title or ""), "</title></head><body>\n"]
    for s in sorted(seg.at_level(None), key=lambda s: min(s.nodes)):
        t = float(s.attrs.get("templateness", 0.0))
        if t >= threshold or not s.text:
            continue
        parts.append(f'<div class="webseg-segment" data-templateness="{t:.3f}">')
        for r in s.nodes:
            parts.append(_subtree_html(page, r))
        parts.append("</div>\n")
    parts.append("</body></html>\n")
    return "".join(parts)


def _subtree_html(page: Page, root: int) -> str:
    from webseg.clean.html_out import subtree_html

    return subtree_html(page, root)
