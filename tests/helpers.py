"""Small hand-built pages for tests that need no browser."""

from __future__ import annotations

from webseg.page import ELEMENT, TEXT, Page


def tree_page(spec: list[tuple[int, str, str]], boxes: list[tuple[float, float, float, float]]
              | None = None, **kw) -> Page:
    """Build a page from (parent, tag, text) rows in pre-order; tag "#text" makes a text node."""
    parent = [p for p, _, _ in spec]
    tag = [t for _, t, _ in spec]
    text = [x for _, _, x in spec]
    kind = [TEXT if t == "#text" else ELEMENT for t in tag]
    n = len(spec)
    if boxes is None:
        boxes = [(0.0, float(i * 10), 100.0, 10.0) for i in range(n)]
    return Page.from_columns(parent=parent, kind=kind, tag=tag, text=text, attrs=[None] * n,
                             box=boxes, **kw)


def sample_page(**kw) -> Page:
    """html > head(title) + body > [div#a > (p > text, p > text), div#b > text, p > text]."""
    return tree_page([
        (-1, "html", ""),          # 0
        (0, "head", ""),           # 1
        (1, "title", ""),          # 2
        (2, "#text", "T"),         # 3 (not rendered: inside head)
        (0, "body", ""),           # 4
        (4, "div", ""),            # 5
        (5, "p", ""),              # 6
        (6, "#text", "alpha  beta"),   # 7
        (5, "p", ""),              # 8
        (8, "#text", "gamma"),     # 9
        (4, "div", ""),            # 10
        (10, "#text", "delta epsilon"),  # 11
        (4, "p", ""),              # 12
        (12, "#text", "zeta"),     # 13
    ], **kw)
