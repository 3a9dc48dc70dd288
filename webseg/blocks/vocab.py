"""The one place for the markup vocabulary the block model looks at (like trafilatura's xpaths).

Class, id and ARIA-role tokens are mapped to *categories* (navigation, footer, comment, ...);
the features then say "some ancestor carries category X" and "an ancestor within three levels
does". Keeping every word list here means a new boilerplate idiom is added in one line, and the
trained model sees the same columns everywhere.

Tokens: a ``class``/``id`` value is split on camelCase and on every non-alphanumeric character
(``articleBody`` -> ``article``, ``body``; ``site-footer__inner`` -> ``site``, ``footer``,
``inner``) and lower-cased. A category matches when a token is in its word set, or when the
token *starts with* one of its stems (``comments``, ``commentlist`` -> ``comment``). These are
markup conventions of web developers, mostly English words whatever the page's language; the
text features (:mod:`webseg.blocks.features`) are language-independent.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from webseg import _native as native

__all__ = ["CATEGORIES", "ROLE_CATEGORY", "SEMANTIC_TAGS", "BLOCK_TAGS", "HEADING_TAGS",
           "attr_mask", "class_id_role_mask", "tokens"]

#: category -> (exact tokens, prefix stems)
CATEGORIES: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "nav": (frozenset({"nav", "navbar", "navigation", "menu", "menubar", "topnav", "subnav",
                       "mainnav", "dropdown", "megamenu", "menuitem", "toc", "skip", "jump",
                       "offcanvas", "hamburger"}),
            ("navig", "navbar", "menu")),
    "breadcrumb": (frozenset({"breadcrumb", "breadcrumbs", "crumb", "crumbs", "trail"}),
                   ("breadcrumb", "crumb")),
    "header": (frozenset({"header", "masthead", "banner", "topbar", "logo", "branding",
                          "brand", "top"}),
               ("header", "masthead", "topbar")),
    "footer": (frozenset({"footer", "copyright", "colophon", "bottom", "legal", "imprint",
                          "contentinfo", "foot", "disclaimer", "license"}),
               ("footer", "copyright", "colophon")),
    "sidebar": (frozenset({"sidebar", "aside", "side", "rail", "widget", "widgets", "sidebox",
                           "secondary", "complementary", "sidebar1", "sidebar2", "right",
                           "left", "col", "column", "aside1"}),
                ("sidebar", "widget", "sidenav", "rightcol", "leftcol")),
    "comment": (frozenset({"comment", "comments", "reply", "replies", "respond",
                           "discussion", "disqus", "discuss", "feedback", "ugc"}),
                ("comment", "disqus", "repl")),
    "share": (frozenset({"share", "sharing", "social", "facebook", "twitter", "whatsapp",
                         "print", "email", "addthis", "sharethis", "linkedin", "pinterest",
                         "follow", "sns", "x"}),
              ("share", "social", "addthis", "sharethis")),
    "related": (frozenset({"related", "recommended", "recommend", "more", "popular",
                           "trending", "teaser", "promo", "suggest", "similar", "outbrain",
                           "taboola", "readmore", "also", "latest", "recent", "most", "top10",
                           "next", "prev", "previous", "other", "others", "topics"}),
                ("related", "recommend", "popular", "trending", "outbrain", "taboola",
                 "promo", "suggest")),
    "ad": (frozenset({"ad", "ads", "advert", "advertisement", "sponsor", "sponsored",
                      "adsense", "dfp", "commercial", "gpt", "adslot", "adunit", "banner",
                      "werbung", "anzeige", "publicite", "pub"}),
           ("advert", "sponsor", "adsense", "adslot", "adunit", "adcontainer")),
    "cookie": (frozenset({"cookie", "cookies", "consent", "gdpr", "privacy", "notice",
                          "newsletter", "subscribe", "signup", "popup", "modal", "overlay",
                          "paywall", "dialog", "alert", "toast", "subscription"}),
               ("cookie", "consent", "newsletter", "subscri", "paywall", "popup", "modal")),
    "meta": (frozenset({"meta", "byline", "author", "date", "time", "published", "posted",
                        "dateline", "timestamp", "tags", "tag", "category", "categories",
                        "label", "info", "details", "updated", "source", "credit",
                        "credits", "vcard"}),
             ("byline", "author", "dateline", "timestamp", "publish", "categor")),
    "title": (frozenset({"title", "headline", "heading", "hed", "h1", "subtitle",
                         "subheadline", "deck", "kicker", "lede", "lead", "intro",
                         "summary", "teaser-title"}),
              ("headline", "title")),
    "content": (frozenset({"content", "article", "post", "entry", "story", "body", "text",
                           "main", "blog", "prose", "rte", "richtext", "markdown", "copy",
                           "paragraph", "single", "detail", "page", "articlebody",
                           "postbody", "entrycontent", "itemprop", "description",
                           "answer", "question", "message", "thread", "doc", "docs",
                           "documentation", "wiki", "mw"}),
                ("article", "content", "entry", "story", "post-", "postbody", "markdown",
                 "richtext", "prose")),
    "pagination": (frozenset({"pagination", "pager", "paging", "pages", "pagenav",
                              "page-numbers", "load", "loadmore"}),
                   ("paginat", "pager")),
    "hidden": (frozenset({"hidden", "hide", "invisible", "offscreen", "collapse",
                          "collapsed", "none", "srOnly", "sr", "only", "visually",
                          "screen", "reader"}),
               ("hidden", "invisible", "offscreen")),
    "form": (frozenset({"search", "form", "login", "signin", "register", "searchform",
                        "input", "button", "btn", "field", "submit", "select", "filter",
                        "sort"}),
             ("search", "login", "signin", "button")),
    "media": (frozenset({"caption", "figcaption", "photo", "image", "img", "gallery",
                         "media", "video", "figure", "thumbnail", "thumb", "slider",
                         "carousel", "slideshow", "player", "embed", "icon"}),
              ("gallery", "caption", "carousel", "slide", "thumb")),
    "list": (frozenset({"list", "item", "items", "card", "cards", "grid", "tile", "tiles",
                        "feed", "stream", "archive", "results", "listing", "row", "cell"}),
             ("listing", "archive")),
    "product": (frozenset({"product", "price", "cart", "buy", "sku", "review", "reviews",
                           "rating", "specs", "spec", "shop", "store", "checkout", "offer",
                           "stock", "availability"}),
                ("product", "price", "rating", "review")),
}

CATEGORY_NAMES: tuple[str, ...] = tuple(CATEGORIES)

#: ARIA roles -> category
ROLE_CATEGORY: dict[str, str] = {
    "navigation": "nav", "menu": "nav", "menubar": "nav", "menuitem": "nav", "tablist": "nav",
    "banner": "header", "contentinfo": "footer", "complementary": "sidebar",
    "main": "content", "article": "content", "search": "form", "form": "form",
    "dialog": "cookie", "alertdialog": "cookie", "alert": "cookie", "heading": "title",
    "button": "form", "img": "media", "figure": "media", "list": "list", "listitem": "list",
    "feed": "list", "comment": "comment",
}

#: HTML5 sectioning and other telling elements: "some ancestor (or self) is one of these"
SEMANTIC_TAGS: dict[str, frozenset[str]] = {
    "t_article": frozenset({"article"}),
    "t_main": frozenset({"main"}),
    "t_aside": frozenset({"aside"}),
    "t_nav": frozenset({"nav"}),
    "t_header": frozenset({"header"}),
    "t_footer": frozenset({"footer"}),
    "t_form": frozenset({"form", "button", "select", "option", "label", "input", "textarea",
                         "fieldset"}),
    "t_li": frozenset({"li", "dd", "dt"}),
    "t_list": frozenset({"ul", "ol", "dl", "menu"}),
    "t_table": frozenset({"table"}),
    "t_td": frozenset({"td", "th"}),
    "t_a": frozenset({"a"}),
    "t_heading": frozenset({"h1", "h2", "h3", "h4", "h5", "h6"}),
    "t_h1": frozenset({"h1"}),
    "t_p": frozenset({"p"}),
    "t_quote": frozenset({"blockquote", "q", "cite"}),
    "t_figure": frozenset({"figure", "figcaption", "picture"}),
    "t_time": frozenset({"time", "address"}),
    "t_pre": frozenset({"pre", "code", "kbd", "samp"}),
    "t_inline": frozenset({"strong", "b", "em", "i", "u", "span", "small", "sup", "sub",
                           "mark", "abbr"}),
    "t_section": frozenset({"section"}),
    "t_noscript": frozenset({"noscript", "iframe", "object"}),
}

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

#: Elements after which text starts a new block (the unit whose text statistics we take).
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "dd", "div", "dl", "dt",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul", "html",
    "center", "fieldset", "details", "summary", "caption", "menu", "option", "select",
})

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_SPLIT = re.compile(r"[^a-z0-9]+")


def tokens(value: str) -> list[str]:
    """Lower-case tokens of a class/id value (camelCase and punctuation split)."""
    low = value.lower()
    if low != value:  # some upper case: split camelCase first (most values have none)
        low = _CAMEL.sub(r"\1 \2", value).lower()
    return [t for t in _SPLIT.split(low) if t]


_CAT_BIT = {c: 1 << k for k, c in enumerate(CATEGORY_NAMES)}


def _word_and_stem_masks() -> tuple[dict[str, int], dict[str, int], tuple[int, ...]]:
    """Category bits per exact token and per stem, and the stem lengths (longest first).

    ``_token_mask`` then costs a few dict look-ups (one per stem length) instead of a
    ``startswith`` per category; the result is the same bit mask.
    """
    words: dict[str, int] = {}
    stems: dict[str, int] = {}
    for c, (ws, ss) in CATEGORIES.items():
        for w in ws:
            words[w] = words.get(w, 0) | _CAT_BIT[c]
        for st in ss:
            stems[st] = stems.get(st, 0) | _CAT_BIT[c]
    return words, stems, tuple(sorted({len(st) for st in stems}, reverse=True))


_WORD_BITS, _STEM_BITS, _STEM_LENS = _word_and_stem_masks()


@functools.lru_cache(maxsize=65536)
def _token_mask(t: str) -> int:
    m = _WORD_BITS.get(t, 0)
    if len(t) >= 4:
        for k in _STEM_LENS:
            if k <= len(t):
                m |= _STEM_BITS.get(t[:k], 0)
    return m


_TOKEN = re.compile(r"[a-z0-9]+")


@functools.lru_cache(maxsize=65536)
def _value_mask(value: str) -> int:
    # the tokens of the whole value at once (one regular expression, then a cached look-up
    # per token): camelCase and punctuation splits never cross whitespace, so these are the
    # tokens of its whitespace-separated parts; a page's class values are mostly new to the
    # cache, its tokens mostly not
    low = value.lower()
    if low != value:
        low = _CAMEL.sub(r"\1 \2", value).lower()
    m = 0
    for t in _TOKEN.findall(low):
        m |= _token_mask(t)
    return m


def _mask2_py(cls: str | None, ident: str | None) -> int:
    """The class and id part of :func:`_mask3` in Python (what the compiled one matches)."""
    return (_value_mask(cls) if cls else 0) | (_value_mask(ident) if ident else 0)


def attr_mask(attrs: dict[str, str] | None) -> int:
    """Bit mask over :data:`CATEGORY_NAMES` of an element's class, id and role."""
    if not attrs:
        return 0
    return _mask3(attrs.get("class"), attrs.get("id"), attrs.get("role"))


#: the compiled class/id masks, looked up once at import (``native.load`` reads the
#: environment, which costs as much as the compiled call itself on every cache miss):
#: ``WEBSEG_PURE_PYTHON=1`` set before webseg is imported gives the Python path
_VOCABMASK = native.load("vocabmask")


@functools.lru_cache(maxsize=65536)
def _mask3(cls: str | None, ident: str | None, role: str | None) -> int:
    # the compiled loop (webseg/_native/vocabmask.c) for ASCII values: a page's class
    # values are mostly new to the cache, and this is most of the block features' markup
    # pass; None (a non-ASCII value) or no extension: the Python path, the same bits
    nat = _VOCABMASK
    m = (nat.mask2(cls, ident, _WORD_BITS, _STEM_BITS, _STEM_LENS)
         if nat is not None else None)
    if m is None:
        m = _mask2_py(cls, ident)
    if role:
        for part in role.lower().split():
            c = ROLE_CATEGORY.get(part)
            if c:
                m |= _CAT_BIT[c]
    return m


#: :func:`attr_mask` of the ``class``, ``id`` and ``role`` values themselves (each None when
#: absent): what a loop over many elements calls, one function call less per element.
class_id_role_mask = _mask3


#: class/id value -> category mask, for :func:`scan_attrs` (cleared when it grows large)
_SCAN_CACHE: dict[str, int] = {}


def scan_attrs(attrs: list, tags: list, masks: np.ndarray, cls_code: np.ndarray,
               is_link: np.ndarray, classes: dict[str, int]) -> bool:
    """The attribute pass of :func:`webseg.blocks.features._markup` in compiled code
    (``webseg._native.vocabmask.scan``): per node with attributes, ``masks[i]`` =
    :func:`class_id_role_mask` of its class, id and role (when not 0), ``cls_code[i]`` =
    ``classes.setdefault(class, len(classes))`` for a non-empty class, ``is_link[i]`` for an
    ``a`` with an ``href``. False (nothing written) when the extension is not there: the
    caller then runs its Python loop, which gives the same arrays."""
    nat = _VOCABMASK
    if nat is None or not isinstance(attrs, list) or not isinstance(tags, list):
        return False
    if len(_SCAN_CACHE) > 65536:
        _SCAN_CACHE.clear()
    nat.scan(attrs, tags, masks, cls_code, is_link, classes, _SCAN_CACHE, _value_mask, _mask3,
             _WORD_BITS, _STEM_BITS, _STEM_LENS)
    return True
