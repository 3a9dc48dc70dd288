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

from webseg.page import TEXT, Page, normalize_text
from webseg.segmentation import Segmentation
from webseg.segmenters.base import get_segmenter

__all__ = ["clean", "clean_html", "kept_segments"]

#: Elements after which extracted text starts a new line.
_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
    "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
})
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr", "area", "col", "source"})
_SKIP = frozenset({"script", "style", "head", "template", "noscript", "title", "meta", "link"})


def kept_segments(page: Page, threshold: float = 0.5, segmenter: str = "pagelevel",
                  **params: Any) -> tuple[Segmentation, np.ndarray]:
    """The segmentation and a boolean per visible text leaf: in a non-template segment."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold}")
    seg = get_segmenter(segmenter, **params).segment(page)
    labels = seg.leaf_labels()
    keep_ids = {s.id for s in seg.segments
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
    """
    seg, keep = kept_segments(page, threshold, segmenter, **params)
    leaves = page.text_leaves
    labels = seg.leaf_labels()
    block = _block_owner(page)
    lines: list[str] = []
    cur: list[str] = []
    prev_key: tuple[int, int] | None = None
    for j, lab, k in zip(leaves.tolist(), labels.tolist(), keep.tolist(), strict=True):
        if not k:
            continue
        key = (int(lab), int(block[j]))
        if prev_key is not None and key != prev_key and cur:
            lines.append(" ".join(cur))
            cur = []
        prev_key = key
        t = normalize_text(page.text[j])
        if t:
            cur.append(t)
    if cur:
        lines.append(" ".join(cur))
    return "\n".join(lines)


def _block_owner(page: Page) -> np.ndarray:
    """Nearest block-level ancestor-or-self of every node, with ``<br>`` starting a new block.

    Returned as an integer key per node: text leaves with the same key belong on one line.
    """
    n = page.n
    owner = np.zeros(n, dtype=np.int64)
    par = page.parent.tolist()
    ol = owner.tolist()
    # a <br> bumps a counter so that text after it gets a new key
    for i in range(n):
        t = page.tag[i]
        if i == 0 or t in _BLOCK_TAGS:
            ol[i] = i
        else:
            ol[i] = ol[par[i]]
        if t == "br" and i:
            ol[par[i]] = i  # later siblings (and their text) continue after the break
    return np.asarray(ol, dtype=np.int64)


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
    for s in sorted(seg.segments, key=lambda s: min(s.nodes)):
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
    out: list[str] = []
    end = page.subtree_end
    stack: list[tuple[int, bool]] = [(root, False)]
    while stack:
        i, closing = stack.pop()
        tag = page.tag[i]
        if closing:
            out.append(f"</{tag}>")
            continue
        if page.kind[i] == TEXT:
            if page.visible[i]:
                out.append(html.escape(page.text[i], quote=False))
            continue
        if tag in _SKIP or not page.visible[i] and tag not in ("html", "body"):
            continue
        if tag in ("html", "body", "#document"):
            tag_open = ""
        else:
            a = page.attrs[i]
            attrs = "".join(f' {k}="{html.escape(a[k])}"' for k in ("href", "src", "alt", "title")
                            if k in a)
            tag_open = f"<{tag}{attrs}>"
        out.append(tag_open)
        if tag in _VOID:
            continue
        if tag_open:
            stack.append((i, True))
        kids = [c for c in page.children(i).tolist() if c < end[root]]
        for c in reversed(kids):
            stack.append((c, False))
    return "".join(out)
