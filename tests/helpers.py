"""Small hand-built pages for tests that need no browser, and a spread of the shared data's
real pages."""

from __future__ import annotations

from pathlib import Path

from webseg.page import ELEMENT, TEXT, Page

#: The shared boilerplate collections (``../shared/data/boilerplate`` beside the repository).
BOILERPLATE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "boilerplate"


def boilerplate_spread(per_collection: int) -> list[Path]:
    """About ``per_collection`` pages of each boilerplate collection, spread over its sorted
    files (DAnIEL's names start with their language: zh, ru, el, pl, en, so every language is
    in); empty when the shared data is not here."""
    by_coll: dict[str, list[Path]] = {}
    for p in sorted(BOILERPLATE.glob("*/html/*.html.gz")):
        by_coll.setdefault(p.parts[-3], []).append(p)
    return [p for ps in by_coll.values() for p in ps[:: max(1, len(ps) // per_collection)]]


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


def news_page(nav_news: str = "News", para1: str = "", para2: str = "") -> Page:
    """A laid-out news page: nav (3 links), h1, two paragraphs, footer (2 links).

    Node ids: nav 2 (links 3, 5, 7), story div 9 (h1 10, paragraphs 12 and 14), footer 16.
    """
    rows = [  # (parent, tag, text, href, box)
        (-1, "html", "", None, (0, 0, 1000, 1200)),
        (0, "body", "", None, (0, 0, 1000, 1200)),
        (1, "nav", "", None, (0, 0, 1000, 100)),
        (2, "a", "", "/", (0, 0, 100, 40)),
        (3, "#text", "Home", None, (0, 0, 100, 40)),
        (2, "a", "", "/news", (100, 0, 100, 40)),
        (5, "#text", nav_news, None, (100, 0, 100, 40)),
        (2, "a", "", "/sport", (200, 0, 100, 40)),
        (7, "#text", "Sport", None, (200, 0, 100, 40)),
        (1, "div", "", None, (100, 150, 800, 800)),
        (9, "h1", "", None, (100, 150, 800, 60)),
        (10, "#text", "Bridge repairs begin", None, (100, 150, 800, 60)),
        (9, "p", "", None, (100, 220, 800, 300)),
        (12, "#text", para1, None, (100, 220, 800, 300)),
        (9, "p", "", None, (100, 540, 800, 300)),
        (14, "#text", para2, None, (100, 540, 800, 300)),
        (1, "footer", "", None, (0, 1100, 1000, 100)),
        (16, "a", "", "/contact", (0, 1100, 200, 50)),
        (17, "#text", "Contact us", None, (0, 1100, 200, 50)),
        (16, "a", "", "/privacy", (200, 1100, 200, 50)),
        (19, "#text", "Privacy", None, (200, 1100, 200, 50)),
    ]
    return Page.from_columns(
        parent=[r[0] for r in rows], kind=[TEXT if r[1] == "#text" else ELEMENT for r in rows],
        tag=[r[1] for r in rows], text=[r[2] for r in rows],
        attrs=[{"href": r[3]} if r[3] else None for r in rows], box=[r[4] for r in rows],
        visible=[True] * len(rows), width=1000.0, height=1200.0, url="http://x.org/a",
        title="Bridge repairs begin")


#: A paragraph of plain prose (the content of the news pages of the PageLevel tests).
STORY = ("The river rose overnight and the town council met at dawn to plan the repairs "
         "of the old stone bridge, which had stood for two hundred years. ")


def link_classifier():
    """A hand-set PageLevel model: template probability grows with the share of text inside
    links."""
    from webseg.templates.classifier import TemplateClassifier

    clf = TemplateClassifier.uniform()
    for b in clf.buckets:
        b.coef[8] = 6.0  # anchor_text_frac
        b.intercept = -3.0
    return clf
