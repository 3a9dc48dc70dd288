"""Template stripping: which text of a page gets shingled (``--strip``).

The papers' point is that shingles taken from navigation bars, footers and "popular lyrics"
boxes make two different stories of one site look alike and the same story on two sites look
different. Each strategy maps a page to the text that is shingled:

``none``       all visible text of the rendered page (the papers' *FullText*).
``largest``    the text of the largest segment (most text) of a segmenter, ``gcuts`` by default
               (WWW 2008, 5.2: "we only shingle the content that is contained within the largest
               segment"); any registered segmenter works (``segmenter="vips"``, ...).
``blocks``     the main text of the learned block model (:func:`webseg.clean.extract`, the
               default of ``webseg clean``).
``pagelevel``  the text of the segments PageLevel labels non-template (WWW 2007, 6.2), through
               :func:`webseg.clean.extract`.
``sitelevel``  the text leaves that SiteLevel(theta) does not label template, computed over the
               pages of each site *in the collection* (:func:`webseg.templates.sitelevel
               .sitelevel_labels`). A site with a single page has nothing to compare with, so its
               page keeps its full text (SiteLevel labels nothing there); this is counted in
               :attr:`Stripper.notes`.
``extractor``  trafilatura's main text of the page's HTML: a peer baseline, not one of the
               papers' methods (optional dependency, part of the ``eval`` extra).

A page for which a strategy yields no text gets an empty text, hence an empty sketch that never
matches (see :mod:`dedup.shingle`); it is reported, not dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from webseg.page import Page, normalize_text

__all__ = ["STRATEGIES", "Item", "Stripper", "extractor_text", "full_text"]

STRATEGIES = ("none", "largest", "blocks", "pagelevel", "sitelevel", "extractor")


@dataclass
class Item:
    """One page to strip: the rendered page, its HTML when known, and its site group."""

    page: Page | None
    html: bytes | str | None = None
    site: str | None = None
    url: str | None = None


def full_text(page: Page) -> str:
    """All visible text of a page, text leaves in document order."""
    return " ".join(normalize_text(page.text[j]) for j in page.text_leaves.tolist())


def extractor_text(html: bytes | str, url: str | None = None) -> str:
    """trafilatura's main text of ``html`` (comments excluded); "" when it finds none."""
    try:
        import trafilatura
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("--strip extractor needs trafilatura: pip install 'webseg[eval]' "
                           "(or pip install trafilatura)") from e
    return trafilatura.extract(html, url=url, include_comments=False) or ""


def _page_html(page: Page) -> str:
    """HTML rebuilt from a Page (tags, text, a few attributes) when the source is not at hand."""
    from webseg.clean.html_out import subtree_html

    return f"<html><head><title></title></head><body>{subtree_html(page, 0)}</body></html>"


@dataclass
class Stripper:
    """Applies one strategy to a collection (``sitelevel`` needs all the site's pages at once).

    >>> Stripper("none").texts([])
    []
    """

    strategy: str = "none"
    segmenter: str = "gcuts"
    level: int | None = 1
    threshold: float = 0.5
    theta: float = 0.1
    params: dict[str, Any] = field(default_factory=dict)
    notes: Counter = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown strip strategy {self.strategy!r}; "
                             f"choose from {', '.join(STRATEGIES)}")
        self._seg: Any = None
        if self.strategy == "extractor":
            try:
                import trafilatura  # noqa: F401
            except ImportError as e:
                raise RuntimeError("--strip extractor needs trafilatura: "
                                   "pip install 'webseg[eval]'") from e

    @property
    def needs_page(self) -> bool:
        return self.strategy != "extractor"

    def text(self, item: Item) -> str:
        """Stripped text of one page (not for ``sitelevel``: use :meth:`texts`)."""
        s = self.strategy
        if s == "extractor":
            if item.html is not None:
                return extractor_text(item.html, item.url)
            if item.page is None:
                raise ValueError("extractor needs the page's HTML or a rendered page")
            self.notes["extractor on HTML rebuilt from the rendered page"] += 1
            return extractor_text(_page_html(item.page), item.url)
        page = item.page
        if page is None:
            raise ValueError(f"--strip {s} needs a rendered page")
        if s == "none":
            return full_text(page)
        if s == "largest":
            if self._seg is None:
                from webseg.segmenters import get_segmenter

                self._seg = get_segmenter(self.segmenter, **self.params)
            best = self._seg.segment(page).largest(level=self.level)
            return best.text if best is not None else ""
        if s in ("blocks", "pagelevel"):
            if not len(page.text_leaves):
                return ""
            from webseg.clean import extract

            return extract(page, s, threshold=self.threshold, **self.params).text
        raise ValueError("sitelevel strips a group of pages: use Stripper.texts")

    def texts(self, items: Sequence[Item]) -> list[str]:
        """Stripped text of every item, in order."""
        if self.strategy != "sitelevel":
            return [self.text(it) for it in items]
        from webseg.templates.sitelevel import sitelevel_labels

        out = [""] * len(items)
        groups: dict[str | None, list[int]] = {}
        for i, it in enumerate(items):
            if it.page is None:
                raise ValueError("--strip sitelevel needs rendered pages")
            groups.setdefault(it.site, []).append(i)
        for site, idx in groups.items():
            if site is None or len(idx) < 2:
                self.notes["sitelevel: page without site peers kept its full text"] += len(idx)
                for i in idx:
                    out[i] = full_text(items[i].page)  # type: ignore[arg-type]
                continue
            pages = [items[i].page for i in idx]
            labels = sitelevel_labels(pages, theta=self.theta)  # type: ignore[arg-type]
            for i, page, lab in zip(idx, pages, labels, strict=True):
                leaves = page.text_leaves.tolist()  # type: ignore[union-attr]
                out[i] = " ".join(normalize_text(page.text[j])  # type: ignore[union-attr]
                                  for j in leaves if not lab[j])
        return out
