"""Main content of a page: ``extract(page, method) -> CleanResult``, in four output formats.

Every method reduces to one thing, a boolean per visible text leaf (is it main content?), and
everything else is derived from that mask and the Page: the kept-node mask and its XPaths
(:mod:`webseg.clean.mask`) and the formats, each in its own module - plain text
(:mod:`~webseg.clean.txt`), Markdown (:mod:`~webseg.clean.markdown`), JSON
(:mod:`~webseg.clean.json_out`) and HTML (:mod:`~webseg.clean.html_out`). So any method works
with any format, on rendered pages and on pages parsed without a browser (:mod:`webseg.parse`).

Methods:

``blocks``           the learned block-function model (:mod:`webseg.blocks`): per-node role
                     probabilities, tree-decoded into a main-content mask; works without layout.
``pagelevel``        PageLevel Smooth (WWW 2007): segments with templateness < ``threshold``;
``pagelevel-basic``  needs a rendered page.
``pagelevel-merge``

>>> from webseg.clean import extract                         # doctest: +SKIP
>>> res = extract(page)                                      # doctest: +SKIP
>>> res.text, res.xpaths, res.to_markdown(links=True)        # doctest: +SKIP
>>> res.to_dict()   # the page-result schema (webseg.clean.json_out)  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from webseg.clean import html_out, json_out, markdown, txt
from webseg.clean.mask import node_mask, roots
from webseg.clean.metadata import (
    Metadata,
    base_href,
    base_url,
    declared_lang_hints,
    extract_metadata,
)
from webseg.page import Page

__all__ = ["DEFAULT_METHOD", "FORMATS", "METHODS", "CleanResult", "extract", "leaf_mask",
           "with_site_repeated"]

METHODS = ("blocks", "pagelevel", "pagelevel-basic", "pagelevel-merge")
#: The method of ``webseg clean``, the pipeline's clean stage and ``dedup --strip``.
DEFAULT_METHOD = "blocks"
#: Output formats: name -> file suffix.
FORMATS = {"txt": ".txt", "markdown": ".md", "json": ".json", "html": ".html"}


@dataclass(eq=False)
class CleanResult:
    """The main content of one page, as a mask over its nodes, with its formats.

    ``leaf_keep`` is a bool per ``page.text_leaves`` entry; ``groups`` (PageLevel only) the
    segment of every leaf, which also breaks text lines; ``blocks`` (method ``blocks`` only)
    the :class:`webseg.blocks.BlockFunctions` behind the mask, which gives :attr:`roles`;
    ``site_repeated`` (blocks with site pages only) a bool per leaf: dropped from the mask as
    text repeated across the site's pages (:mod:`webseg.blocks.siterepeat`), None when the
    rule did not run.
    """

    page: Page
    leaf_keep: np.ndarray
    method: str
    #: The page type: a label, or the ``{"type", "probability", "probabilities"}`` object.
    page_type: str | dict[str, Any] | None = None
    groups: np.ndarray | None = field(default=None, repr=False)
    blocks: Any = field(default=None, repr=False)
    site_repeated: np.ndarray | None = field(default=None, repr=False)
    #: The page's decoded HTML source, when at hand: metadata (JSON-LD, meta tags) is read
    #: from it; without it, from what the Page model keeps.
    html: str | None = field(default=None, repr=False)
    #: The page's address, overriding ``page.url`` (see :mod:`webseg.clean.json_out`).
    page_url: str | None = None
    #: The input record's id and the input it came from (file, WARC file, URL).
    record_id: str | None = None
    source: str | None = None
    #: The WARC fields of a WARC record (:func:`webseg.clean.json_out.warc_fields`).
    warc: dict[str, Any] | None = None

    @cached_property
    def roles(self) -> list[dict[str, str | None]] | None:
        """The finer roles of every :attr:`xpaths` entry (``{"content": "body", "layout":
        "content"}``), or None when the method gives none (PageLevel) or no role model is
        installed. Computed on first use."""
        if self.blocks is None:
            return None
        try:
            return [self.blocks.role_of(i) for i in self.roots.tolist()]
        except FileNotFoundError:
            return None

    @property
    def url(self) -> str | None:
        """The page's address: :attr:`page_url` when set, else the Page's."""
        return self.page_url or self.page.url

    @cached_property
    def metadata(self) -> Metadata:
        """Title, authors, dates... (:mod:`webseg.clean.metadata`), from :attr:`html` when
        given, else from the Page. Computed on first use."""
        return extract_metadata(self.html, page=self.page, url=self.url)

    @property
    def base_url(self) -> str | None:
        """What relative links resolve against: ``<base href>`` or the page's URL."""
        return base_url(self.url, base_href(self.html, self.page))

    @property
    def title(self) -> str:
        """The page's title: the metadata's headline (JSON-LD, Open Graph), else
        ``<title>``."""
        return self.metadata.title or self.page.title or ""

    @cached_property
    def language(self) -> dict[str, Any] | None:
        """``{"code", "confidence", "source"}`` of the main text (the title and description
        when it is empty), hinted by ``<html lang>`` / ``content-language``; None when no
        language detector is installed."""
        try:
            from webseg.lang import identify
        except ImportError:
            return None
        text = self.text
        md = self.__dict__.get("metadata")  # computed already (the JSON result reads it)
        if not text or md is not None:
            md = self.metadata
            text = text or " ".join(x for x in (md.title, md.description) if x)
            hints = md.lang_hints
        else:  # the declared languages alone, as the metadata reads them (what an index
            # that stores only the language needs, without the metadata's cost)
            hints = declared_lang_hints(self.html, self.page)
        return identify(text, hints=tuple(hints)).to_dict()

    @property
    def status(self) -> str:
        """``ok``, or ``empty`` when no main content was found (:attr:`reason` says why)."""
        return "ok" if self.text.strip() else "empty"

    @cached_property
    def reason(self) -> str | None:
        """Why the main content is empty (:mod:`webseg.clean.reasons`); None when ok."""
        if self.status == "ok":
            return None
        from webseg.clean.reasons import empty_reason

        return empty_reason(self.page)

    @cached_property
    def keep(self) -> np.ndarray:
        """Bool per node: kept text leaves and the elements whose visible text is all kept."""
        return node_mask(self.page, self.leaf_keep)

    @cached_property
    def roots(self) -> np.ndarray:
        """Node ids of the kept subtrees' roots, in document order."""
        return roots(self.page, self.keep)

    @property
    def xpaths(self) -> list[str]:
        """XPaths of :attr:`roots` (``/html[1]/body[1]/div[2]``)."""
        return json_out.xpaths_of(self.page, self.roots.tolist())

    def kept_leaves(self) -> np.ndarray:
        """Node ids of the kept visible text leaves, in document order."""
        return self.page.text_leaves[np.asarray(self.leaf_keep, dtype=bool)]

    @cached_property
    def text(self) -> str:
        return txt.to_text(self.page, self.leaf_keep, self.groups)

    def to_text(self) -> str:
        return self.text

    def to_markdown(self, links: bool = False) -> str:
        with _links_base(self.page, self.base_url):
            return markdown.to_markdown(self.page, self.leaf_keep, links=links)

    def to_dict(self, roles: bool = True) -> dict[str, Any]:
        return json_out.to_dict(self, roles=roles)

    def to_json(self, indent: int | None = None) -> str:
        return json_out.to_json(self, indent=indent)

    def to_html(self) -> str:
        with _links_base(self.page, self.base_url):
            lang = (self.language or {}).get("code")
            return html_out.to_html(self.page, self.keep, self.roots, self.title,
                                    self.metadata.canonical_url or self.url, lang=lang)

    def format(self, fmt: str, links: bool = False) -> str:
        """The result in one of :data:`FORMATS`."""
        if fmt == "txt":
            return self.text
        if fmt == "markdown":
            return self.to_markdown(links=links)
        if fmt == "json":
            return self.to_json()
        if fmt == "html":
            return self.to_html()
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


@contextmanager
def _links_base(page: Page, base: str | None) -> Iterator[None]:
    """The writers resolve links against ``page.url``: make it the base (``<base href>``)
    while they run."""
    old = page.url
    page.url = base or old
    try:
        yield
    finally:
        page.url = old


def _blocks_mask(page: Page, site_pages: Sequence[Page], model: Any, params: dict[str, Any]
                 ) -> tuple[np.ndarray, Any]:
    """(bool per visible text leaf, the BlockFunctions behind it) for the ``blocks`` method."""
    from webseg.blocks import block_functions

    kwargs: dict[str, Any] = {"site_pages": site_pages}
    if model is not None:
        kwargs["model"] = model
    bf = block_functions(page, **kwargs, **params)
    keep = np.asarray(bf.keep, dtype=bool)
    if keep.shape != (page.n,):
        raise ValueError(f"block model returned {keep.shape} mask for {page.n} nodes")
    return keep[page.text_leaves], bf


def _blocks_result(page: Page, site_pages: Sequence[Page], model: Any, params: dict[str, Any]
                   ) -> tuple[Page, np.ndarray, Any]:
    """(page, leaf mask, BlockFunctions) for the ``blocks`` method; the page is the block
    model's, which shows the laid-out text of a page captured before its content showed
    (:func:`webseg.blocks.reveal.revealed`)."""
    _, bf = _blocks_mask(page, site_pages, model, params)
    return bf.page, np.asarray(bf.keep, dtype=bool)[bf.page.text_leaves], bf


def with_site_repeated(res: CleanResult, drop: np.ndarray) -> CleanResult:
    """``res`` with the leaves in ``drop`` (bool per text leaf) removed from its mask and
    recorded as ``site_repeated`` (:mod:`webseg.blocks.siterepeat`); a new result."""
    drop = np.asarray(drop, dtype=bool)
    keep = np.asarray(res.leaf_keep, dtype=bool) & ~drop
    return dataclasses.replace(res, leaf_keep=keep, site_repeated=drop)


def leaf_mask(page: Page, method: str = DEFAULT_METHOD, *, threshold: float = 0.5,
              site_pages: Sequence[Page] = (), model: Any = None, **params: Any
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """(bool per visible text leaf: main content, segment label per leaf or None)."""
    if method == "blocks":
        return _blocks_mask(page, site_pages, model, params)[0], None
    if method in METHODS:
        from webseg.templates.clean import kept_segments

        seg, keep = kept_segments(page, threshold, method, **params)
        return keep, seg.leaf_labels()
    raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")


def extract(page: Page, method: str = DEFAULT_METHOD, *,
            page_type: str | dict[str, Any] | None = None, threshold: float = 0.5,
            site_pages: Sequence[Page] = (), model: Any = None, html: str | None = None,
            url: str | None = None, **params: Any) -> CleanResult:
    """Main content of ``page`` by ``method`` (see the module docstring).

    ``html`` (the page's decoded source) is where the metadata is read from (JSON-LD and meta
    tags are not in the Page); ``url`` is the page's address when ``page.url`` is not it.
    ``page_type`` is carried into the result when known (e.g. from ``webseg classify``);
    ``threshold`` and ``params`` go to the PageLevel segmenters, ``site_pages`` and ``model``
    to the block model (other pages of the site: :mod:`webseg.blocks.siterepeat`). Raises
    ``NoLayoutError`` for PageLevel on a parsed page.
    """
    bf = None
    repeated = None
    if method == "blocks":  # keep the BlockFunctions: the result's roles come from it
        page, keep, bf = _blocks_result(page, site_pages, model, params)
        groups = None
        rep = getattr(bf, "site_repeated", None)
        if rep is not None:
            repeated = np.asarray(rep, dtype=bool)[page.text_leaves]
    else:
        keep, groups = leaf_mask(page, method, threshold=threshold, site_pages=site_pages,
                                 model=model, **params)
    return CleanResult(page=page, leaf_keep=keep, method=method, page_type=page_type,
                       groups=groups, blocks=bf, site_repeated=repeated, html=html,
                       page_url=url)
