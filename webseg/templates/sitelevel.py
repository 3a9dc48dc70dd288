"""SiteLevel(theta): site-level template labels from repeated DOM subtrees (paper, 3 and 5.1).

For the pages of one site, every DOM subtree gets a hash of its structure and text; a node whose
hash occurs on at least a fraction ``theta`` of the site's pages (and on at least two pages) is a
*site-level template* node. The training data of the paper's classifier then also labels as
template every internal node with more than 85 % of its HTML inside site-level template nodes.

Subtree hash
    ``h(i) = blake2b-64(tag(i), normalised text(i), h(c_1), ..., h(c_k))`` over the children
    ``c_1..c_k`` in document order, computed bottom-up in one reverse pass over the pre-order
    columns. Text is whitespace-normalised (:func:`webseg.page.normalize_text`); attributes are
    ignored (the paper hashes structure and content). Whitespace-only text nodes are left out of
    the structure, so a minified and an indented copy of the same navigation bar hash alike; they
    take their parent's label. The hashes are deterministic (not Python's salted ``hash``), so
    they can be stored and compared across runs: :func:`subtree_hashes`.

Counting
    A hash counts once per page however often it occurs there. Template when
    ``pages_with_hash >= max(2, ceil(theta * len(pages)))``: with one page nothing is a template.
    Every descendant of a template node is a template too (its subtree occurs wherever the
    ancestor's does).

The 85 % rule and the "HTML size" proxy
    Pages hold no markup, so the HTML size of a subtree is approximated by its number of
    (non-blank) nodes plus its characters of normalised text: every node costs 1 (a tag or a text
    node) and every text node adds its length. An internal node (one with non-blank children)
    is labelled template when more than ``share`` (0.85) of that size lies in site-level template
    subtrees. The rule is applied once, on the site-level template nodes, as in the paper.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from hashlib import blake2b

import numpy as np

from webseg.page import TEXT, Page, normalize_text

__all__ = ["sitelevel_labels", "subtree_hashes"]


def _blank(page: Page) -> np.ndarray:
    """Whitespace-only text nodes (left out of hashes and sizes)."""
    return np.fromiter((k == TEXT and not t.strip() for k, t in zip(page.kind, page.text,
                                                                     strict=True)),
                       dtype=bool, count=page.n)


def subtree_hashes(page: Page) -> np.ndarray:
    """64-bit hash of every node's subtree (tag, normalised text, children's hashes).

    Whitespace-only text nodes are not part of their parent's structure; each gets the hash of
    an empty text node.
    """
    n = page.n
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    blank = _blank(page).tolist()
    parent = page.parent.tolist()
    kids: list[list[bytes]] = [[] for _ in range(n)]
    out: list[bytes] = [b""] * n
    for i in range(n - 1, -1, -1):
        h = blake2b(digest_size=8)
        h.update(page.tag[i].encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
        if page.kind[i] == TEXT:
            h.update(normalize_text(page.text[i]).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
        for c in reversed(kids[i]):  # collected in reverse document order
            h.update(c)
        d = h.digest()
        out[i] = d
        if i and not blank[i]:
            kids[parent[i]].append(d)
    return np.frombuffer(b"".join(out), dtype=np.uint64).copy()


def sitelevel_labels(pages: Sequence[Page], theta: float = 0.1, share: float = 0.85,
                     min_pages: int = 2, min_size: int = 0) -> list[np.ndarray]:
    """SiteLevel(theta) template labels of the pages of one site.

    Parameters
    ----------
    pages : the pages of one site (the paper samples up to 200 per site).
    theta : fraction of the pages a subtree must occur on to be a site-level template.
    share : an internal node whose HTML-size proxy is more than this fraction inside site-level
        template subtrees is labelled template too (the paper's 85 %).
    min_pages : a subtree must also occur on at least this many pages (default 2: a subtree
        seen on one page is no evidence of a template, whatever ``theta`` says).
    min_size : a repeated subtree smaller than this (HTML-size proxy) is not a site-level
        template by itself (it still is inside a larger template subtree). The default 0 is the
        paper's rule, under which trivial subtrees (``<br>``, an empty ``<div>``, a lone
        ``<img>``) repeat on most pages of any site and are labelled template wherever they
        are; e.g. 8 makes labels of content areas cleaner. Most such nodes are below the
        2,000 px^2 "hidden" area of :func:`~webseg.templates.isotonic.smooth_page` anyway.

    Returns
    -------
    One boolean array per page, one entry per node: ``True`` for template nodes.

    Examples
    --------
    >>> from webseg.page import ELEMENT, TEXT, Page
    >>> def page(story):
    ...     return Page.from_columns(
    ...         parent=[-1, 0, 1, 2, 0, 4], kind=[ELEMENT, ELEMENT, ELEMENT, TEXT, ELEMENT, TEXT],
    ...         tag=["body", "nav", "a", "#text", "p", "#text"],
    ...         text=["", "", "", "Home", "", story], attrs=[None] * 6)
    >>> [lab.tolist() for lab in sitelevel_labels([page("one"), page("two")], theta=0.5)]
    [[False, True, True, True, False, False], [False, True, True, True, False, False]]
    """
    if not 0.0 < theta <= 1.0:
        raise ValueError(f"theta must be in (0, 1], got {theta}")
    if not 0.0 <= share < 1.0:
        raise ValueError(f"share must be in [0, 1), got {share}")
    pages = list(pages)
    for k, p in enumerate(pages):
        if not isinstance(p, Page):
            raise TypeError(f"pages[{k}] is a {type(p).__name__}, not a webseg Page")
    if not pages:
        return []
    hashes = [subtree_hashes(p) for p in pages]
    blanks = [_blank(p) for p in pages]
    counts: Counter[int] = Counter()
    for h, b in zip(hashes, blanks, strict=True):
        counts.update(np.unique(h[~b]).tolist())
    need = max(min_pages, math.ceil(theta * len(pages) - 1e-9))
    shared = {h for h, c in counts.items() if c >= need}
    shared_arr = np.fromiter(shared, dtype=np.uint64, count=len(shared))
    return [_labels(p, h, b, shared_arr, share, min_size)
            for p, h, b in zip(pages, hashes, blanks, strict=True)]


def _labels(page: Page, hashes: np.ndarray, blank: np.ndarray, shared: np.ndarray,
            share: float, min_size: int) -> np.ndarray:
    n = page.n
    if n == 0:
        return np.zeros(0, dtype=bool)
    end = page.subtree_end
    # HTML-size proxy: 1 per non-blank node + characters of normalised text
    size = np.fromiter((0 if b else 1 + (len(normalize_text(t)) if k == TEXT else 0)
                        for b, k, t in zip(blank, page.kind, page.text, strict=True)),
                       dtype=np.int64, count=n)
    csum = np.concatenate([[0], np.cumsum(size)])
    ids = np.arange(n)
    total = csum[end] - csum[ids]
    site = np.isin(hashes, shared) & ~blank & (total >= min_size)
    # nodes inside a site-level template subtree (pre-order intervals)
    diff = np.zeros(n + 1, dtype=np.int64)
    np.add.at(diff, np.flatnonzero(site), 1)
    np.add.at(diff, end[site], -1)
    covered = np.cumsum(diff[:n]) > 0
    ccov = np.concatenate([[0], np.cumsum(size * covered)])
    inside = ccov[end] - ccov[ids]
    has_kids = np.zeros(n, dtype=bool)
    nb = np.flatnonzero(~blank)
    nb = nb[nb > 0]
    has_kids[page.parent[nb]] = True
    label = covered | (has_kids & (inside > share * total))
    # blank text nodes follow their parent
    bl = np.flatnonzero(blank)
    bl = bl[bl > 0]
    label[bl] = label[page.parent[bl]]
    return label
