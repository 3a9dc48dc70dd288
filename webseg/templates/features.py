"""Per-node templateness features of the paper's classifier (section 5.2), vectorised.

:func:`node_features` returns one row per page node and one column per feature, in the order of
:data:`FEATURE_NAMES`. All subtree aggregates are computed with prefix sums over the pre-order
intervals ``[i, subtree_end[i])``, so the cost is O(n) numpy work plus one pass over the text
nodes. Text means the visible text leaves (:attr:`Page.text_leaves`), whitespace-normalised;
words are ``\\w+`` tokens, lower-cased. A *link* is an ``<a>`` element with an ``href``.

==================  ===========================================================================
feature             definition (for the subtree of node ``i``)
==================  ===========================================================================
margin_left         ``x / W``: distance of the box from the left page edge, page widths
margin_right        ``(W - x - w) / W``
margin_top          ``y / H``: distance from the top of the document, page heights
margin_bottom       ``(H - y - h) / H``
margin_min          the smallest of the four: closeness to any margin
center_distance     distance from the box centre to the page centre ``(W/2, H/2)`` divided by
                    the half-diagonal (0 at the centre, 1 in a corner)
area                box area / page area ``W * H``
links_per_word      links / words (links when there are no words)
anchor_text_frac    characters of text inside links / characters of text (0 without text)
anchor_size         characters of link text per link (0 without links)
intra_links_frac    links to the page's own host / links (0 without links); relative links,
                    fragment-only links and ``javascript:`` links count as intra-site; absolute
                    ``http(s)`` links are compared with ``page.url``'s host (``www.`` ignored)
                    and count as external when the page has no URL; ``mailto:``/``tel:`` are
                    external
visible_frac        visible characters / HTML-size proxy, the proxy being nodes of the subtree
                    plus characters of all its text nodes (visible or not), as in
                    :mod:`webseg.templates.sitelevel`
title_overlap       distinct words of ``page.title`` found in the subtree / distinct title words
                    (0 when the page has no title)
log_text_length     ``log1p`` of the characters of visible text
depth               DOM depth (root 0)
==================  ===========================================================================

``W`` and ``H`` are ``page.width`` and ``page.height`` (the root's box when they are 0). On a
page without layout (:mod:`webseg.parse`) the geometric features (the first seven) are NaN.
"""

from __future__ import annotations

import functools
import re
from itertools import compress
from urllib.parse import urlsplit

import numpy as np

from webseg import _native as native
from webseg.page import Page, normalize_text

__all__ = ["FEATURE_NAMES", "SHARED_ATTR", "node_features", "share_node_features"]

FEATURE_NAMES: tuple[str, ...] = (
    "margin_left", "margin_right", "margin_top", "margin_bottom", "margin_min",
    "center_distance", "area", "links_per_word", "anchor_text_frac", "anchor_size",
    "intra_links_frac", "visible_frac", "title_overlap", "log_text_length", "depth",
)

_WORD = re.compile(r"\w+")
_INTRA_SCHEMES = ("javascript:",)
_EXTERNAL_SCHEMES = ("mailto:", "tel:")


def _host(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    if not host:
        return None
    return host[4:] if host.startswith("www.") else host


_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")
#: characters urlsplit removes from anywhere in a URL before it splits it
_URL_STRIPPED = frozenset("\t\r\n")
_PLAIN_HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*")


@functools.lru_cache(maxsize=64)
def _own_prefixes(host: str | None) -> tuple[str, ...]:
    """Starts of a link that :func:`_host` certainly reads as ``host`` (``http://host/``,
    ``//www.host/``, ...), so that most links of a page need no ``urlsplit``: the network
    location ends at the ``/``, and a plain host name (letters, digits, dots, hyphens; not
    itself starting with ``www.``) has no user, port or brackets to parse. Empty for other
    hosts, whose links all take the full way."""
    if not host or host.startswith("www.") or not _PLAIN_HOST.fullmatch(host):
        return ()
    return tuple(f"{scheme}{www}{host}/" for scheme in ("http://", "https://", "//")
                 for www in ("", "www."))


def _is_intra(href: str, host: str | None) -> bool:
    h = href.strip().lower()
    if h.startswith(_EXTERNAL_SCHEMES):
        return False
    if not h or h.startswith(("#", *_INTRA_SCHEMES)):
        return True
    if h.startswith("//") or _SCHEME.match(h):
        if h.startswith(_own_prefixes(host)):
            return True
        if host is None or host not in h and not _URL_STRIPPED.intersection(h):
            # urlsplit's host name is a part of the (lower-cased) link once tabs and line
            # breaks are taken out: a link without the page's host in it has another
            return False
        return _host(h if not h.startswith("//") else "http:" + h) == host
    return True  # relative


def _subtree_sum(values: np.ndarray, end: np.ndarray) -> np.ndarray:
    csum = np.concatenate([[0], np.cumsum(values, dtype=np.float64)])
    return csum[end] - csum[: len(values)]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


#: Where a Page keeps the node features the block model computed with the same words as
#: :func:`node_features` (``(page.url, features)``): the pipeline runs the block model in its
#: clean stage and PageLevel in its index stage on the same page, and the features are most
#: of PageLevel's cost. A private attribute, not a Page field: a copy does not inherit it.
SHARED_ATTR = "_pagelevel_node_features"


def share_node_features(page: Page, feats: np.ndarray) -> None:
    """Keep ``feats`` (computed by :func:`_node_features` from ``\\w+`` words) for the
    page's next :func:`node_features` call; the array is made read-only."""
    feats.flags.writeable = False
    page.__dict__[SHARED_ATTR] = (page.url, feats)


def node_features(page: Page) -> np.ndarray:
    """Feature matrix ``(page.n, len(FEATURE_NAMES))`` (float64); see the module table.
    Read-only when it was kept by :func:`share_node_features` for this page and URL.

    >>> from webseg.page import ELEMENT, TEXT, Page
    >>> p = Page.from_columns(parent=[-1, 0, 1], kind=[ELEMENT, ELEMENT, TEXT],
    ...                       tag=["body", "a", "#text"], text=["", "", "Home page"],
    ...                       attrs=[None, {"href": "/"}, None],
    ...                       box=[(0, 0, 100, 100), (0, 0, 50, 10), (0, 0, 50, 10)],
    ...                       width=100.0, height=100.0, url="http://x.org/", title="Home")
    >>> f = node_features(p)
    >>> dict(zip(FEATURE_NAMES, f[0].round(3).tolist()))["links_per_word"]
    0.5
    """
    kept = page.__dict__.get(SHARED_ATTR)
    if kept is not None and kept[0] == page.url and len(kept[1]) == page.n:
        return kept[1]
    return _node_features(page)


def _node_features(page: Page, leaf_text: list[str] | None = None,
                   tokens: list[list[str]] | None = None,
                   is_link: np.ndarray | None = None) -> np.ndarray:
    """:func:`node_features`, reusing what a caller already computed over the same page.

    ``leaf_text``: ``normalize_text`` of every :attr:`Page.text_leaves` entry; ``tokens``: their
    lower-case words; ``is_link``: ``a`` elements with ``href``. The block model
    (:func:`webseg.blocks.features.leaf_features`) has all three, and the passes over the
    page's text are most of this function's cost. Its words
    (:func:`webseg.blocks.align.words`) make every unspaced-script letter a word, where this
    function alone counts ``\\w+`` runs (the PageLevel models were trained so); the result is
    the same on text without such letters. Title words are ``\\w+`` runs either way.
    """
    n = page.n
    feats = np.zeros((n, len(FEATURE_NAMES)))
    if n == 0:
        return feats
    end = page.subtree_end
    col = {name: k for k, name in enumerate(FEATURE_NAMES)}

    # ------------------------------------------------------------ geometry
    if page.has_layout:
        W = float(page.width) or float(page.box[0, 2])
        H = float(page.height) or float(page.box[0, 3])
        W, H = max(W, 1.0), max(H, 1.0)
        x, y, w, h = (page.box[:, k].astype(np.float64) for k in range(4))
        ml, mr, mt, mb = x / W, (W - x - w) / W, y / H, (H - y - h) / H
        feats[:, col["margin_left"]] = ml
        feats[:, col["margin_right"]] = mr
        feats[:, col["margin_top"]] = mt
        feats[:, col["margin_bottom"]] = mb
        feats[:, col["margin_min"]] = np.minimum(np.minimum(ml, mr), np.minimum(mt, mb))
        half_diag = np.hypot(W / 2, H / 2)
        centre = np.hypot(x + w / 2 - W / 2, y + h / 2 - H / 2)
        feats[:, col["center_distance"]] = centre / half_diag
        feats[:, col["area"]] = w * h / (W * H)
    else:
        feats[:, :7] = np.nan

    # ------------------------------------------------------------ text and links
    leaves = page.text_leaves
    if leaf_text is None:
        leaf_text = [normalize_text(page.text[j]) for j in leaves.tolist()]
    chars = np.zeros(n)
    words = np.zeros(n)
    chars[leaves] = [len(t) for t in leaf_text]
    if tokens is None:
        tokens = [_WORD.findall(t.lower()) for t in leaf_text]
    words[leaves] = [len(t) for t in tokens]

    if is_link is None:
        is_link = np.fromiter((t == "a" and "href" in a for t, a in zip(page.tag, page.attrs,
                                                                         strict=True)),
                              dtype=bool, count=n)
    link_ids = np.flatnonzero(is_link)
    diff = np.zeros(n + 1, dtype=np.int64)
    np.add.at(diff, link_ids, 1)
    np.add.at(diff, end[link_ids], -1)
    in_link = np.cumsum(diff[:n]) > 0
    host = _host(page.url)
    intra = np.zeros(n)
    # a page links the same targets many times (menus, footers): one test per distinct href
    hrefs = [page.attrs[i]["href"] for i in link_ids.tolist()]
    is_intra = {h: _is_intra(h, host) for h in dict.fromkeys(hrefs)}
    intra[link_ids] = list(map(is_intra.__getitem__, hrefs))

    sub_chars = _subtree_sum(chars, end)
    sub_words = _subtree_sum(words, end)
    sub_links = _subtree_sum(is_link.astype(np.float64), end)
    sub_anchor_chars = _subtree_sum(chars * in_link, end)
    sub_intra = _subtree_sum(intra, end)
    feats[:, col["links_per_word"]] = np.where(sub_words > 0, _ratio(sub_links, sub_words),
                                               sub_links)
    feats[:, col["anchor_text_frac"]] = _ratio(sub_anchor_chars, sub_chars)
    feats[:, col["anchor_size"]] = _ratio(sub_anchor_chars, sub_links)
    feats[:, col["intra_links_frac"]] = _ratio(sub_intra, sub_links)

    # characters of every node's own text, visible or not; the leaves' are known already
    all_chars = chars.copy()
    texts = page.text
    with_text = np.fromiter(compress(range(n), texts), dtype=np.intp)  # non-empty text
    other = with_text[~page.text_leaf_mask[with_text]].tolist()
    all_chars[other] = [len(normalize_text(texts[i])) for i in other]
    html_size = _subtree_sum(all_chars + 1.0, end)
    feats[:, col["visible_frac"]] = _ratio(sub_chars, html_size)

    title_words = sorted(set(_WORD.findall(normalize_text(page.title or "").lower())))
    if title_words and len(leaves):
        # per title word (rows) and node, whether the node is a leaf holding the word; its
        # prefix sums over the document order count the word's leaves in every subtree
        present = np.zeros((len(title_words), n), dtype=np.int32)
        index = {wd: k for k, wd in enumerate(title_words)}
        nat = native.load("wordsplit")
        if nat is not None and hasattr(nat, "title_hits") and type(tokens) is list:
            m = len(tokens)  # the (leaf, title word) pairs, compiled (wordsplit.c)
            pairs = np.asarray(nat.title_hits(tokens, index, np.empty(m), np.empty(m)),
                               dtype=np.intp).reshape(-1, 2)
            present[pairs[:, 1], leaves[pairs[:, 0]]] = 1
        else:
            tset = set(title_words)
            shared, disjoint = tset.intersection, tset.isdisjoint
            lv = leaves.tolist()
            # most leaves share no word with the title: only the others are looked at
            for k in [k for k, toks in enumerate(tokens) if not disjoint(toks)]:
                for t in shared(tokens[k]):
                    present[index[t], lv[k]] = 1
        csum = np.zeros((len(title_words), n + 1), dtype=np.int64)
        np.cumsum(present, axis=1, out=csum[:, 1:])
        found = (csum[:, end] - csum[:, :n]) > 0
        feats[:, col["title_overlap"]] = found.sum(axis=0) / len(title_words)
    feats[:, col["log_text_length"]] = np.log1p(sub_chars)
    feats[:, col["depth"]] = page.depth
    return feats
