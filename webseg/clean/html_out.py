"""HTML output: the kept subtrees rebuilt from the Page as a small, safe document.

The Page keeps tag names, text and a few attributes, not the original markup, so the output
is a reconstruction: one ``<article>`` holding every kept subtree root in document order, with
only visible, rendered content, the attributes ``href``, ``src``, ``alt``, ``title``,
``colspan``, ``rowspan``, ``lang`` and ``datetime``, a code block's ``language-x`` class,
the source's whitespace between elements
(so ``<b>a</b> <i>b</i>`` and highlighted code read as written), and
nothing that runs: tag names that are not plain names are unwrapped, ``script``/``style`` and
friends are dropped, ``javascript:`` / ``data:`` URLs are removed, and all text and attribute
values are escaped.
"""

from __future__ import annotations

import html
import re

import numpy as np

from webseg.clean.markdown import safe_url
from webseg.page import TEXT, Page

__all__ = ["RTL_LANGUAGES", "html_open_tag", "subtree_html", "to_html"]

_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr", "area", "col", "source",
                   "embed", "track", "param", "base"})
_SKIP = frozenset({"script", "style", "head", "template", "noscript", "title", "meta", "link",
                   "iframe", "object", "embed", "frame", "frameset", "base", "input"})
#: Elements whose text is kept but whose markup is not reproduced.
_UNWRAP = frozenset({"html", "body", "#document", "form", "button", "select", "textarea",
                     "label", "svg", "math"})
_NAME = re.compile(r"[a-z][a-z0-9-]{0,40}\Z")
_URL_ATTRS = ("href", "src")


def _open_tag(page: Page, i: int, tag: str) -> str:
    a = page.attrs[i]
    out = [f"<{tag}"]
    for k in ("href", "src", "alt", "title", "colspan", "rowspan", "lang", "datetime"):
        v = a.get(k)
        if v is None:
            continue
        if k in _URL_ATTRS:
            v = safe_url(v, page.url)
            if v is None:
                continue
        out.append(f' {k}="{html.escape(v, quote=True)}"')
    if tag in ("pre", "code") and a.get("class"):  # the code's language, for highlighters
        lang = [c for c in a["class"].split() if c.startswith(("language-", "lang-"))]
        if lang:
            out.append(f' class="{html.escape(" ".join(lang), quote=True)}"')
    out.append(">")
    return "".join(out)


def subtree_html(page: Page, root: int, keep: np.ndarray | None = None) -> str:
    """Markup of the subtree at ``root``; with ``keep`` (bool per node) only kept text."""
    out: list[str] = []
    end = page.subtree_end
    ws = page.ws_before or {}
    stack: list[tuple[int, bool]] = [(root, False)]
    while stack:
        i, closing = stack.pop()
        tag = page.tag[i]
        if closing:
            out.append(f"</{tag}>")
            continue
        if i != root and i in ws:  # the source's whitespace between elements (Page.ws_before)
            out.append(html.escape(ws[i], quote=False))
        if page.kind[i] == TEXT:
            if page.visible[i] and (keep is None or keep[i]):
                out.append(html.escape(page.text[i], quote=False))
            continue
        if tag in _SKIP or not page.visible[i] and tag not in ("html", "body"):
            continue
        if tag not in _UNWRAP and _NAME.match(tag):  # else unwrap: children only
            out.append(_open_tag(page, i, tag))
            if tag in _VOID:
                continue
            stack.append((i, True))
        kids = [c for c in page.children(i).tolist() if c < end[root]]
        stack.extend((c, False) for c in reversed(kids))
    return "".join(out)


#: ISO 639 codes of languages written right to left (Arabic, Hebrew and Syriac scripts,
#: Thaana, N'Ko): their text needs ``dir="rtl"`` on the document to read and align right.
RTL_LANGUAGES = frozenset({"ar", "arc", "ckb", "dv", "fa", "he", "ks", "nqo", "ps", "sd",
                           "syr", "ug", "ur", "yi"})
_LANG_CODE = re.compile(r"[a-z]{2,3}\Z")


def html_open_tag(lang: str | None) -> str:
    """``<html>`` with the page's language (``lang``, and ``dir="rtl"`` for a right-to-left
    one): screen readers pick their voice, browsers their fonts, line breaking and
    hyphenation by it, and a Chinese or Japanese page without it may get the wrong glyphs.
    Anything not an ISO 639 code is left out."""
    if not lang or not _LANG_CODE.match(lang):
        return "<html>"
    rtl = ' dir="rtl"' if lang in RTL_LANGUAGES else ""
    return f'<html lang="{lang}"{rtl}>'


def to_html(page: Page, keep: np.ndarray, roots: np.ndarray, title: str = "",
            url: str | None = None, lang: str | None = None) -> str:
    """A complete HTML document of the kept subtrees (``keep``: bool per node), declared
    UTF-8 (what it is written in) and in ``lang`` (the page's identified ISO 639 code)."""
    parts = ["<!DOCTYPE html>\n", html_open_tag(lang), '<head><meta charset="utf-8"><title>',
             html.escape(title or ""), "</title>"]
    if url:
        link = safe_url(url)
        if link:
            parts.append(f'<link rel="canonical" href="{html.escape(link, quote=True)}">')
    parts.append("</head><body><article>\n")
    for r in roots.tolist():
        parts.append(subtree_html(page, int(r), keep))
        parts.append("\n")
    parts.append("</article></body></html>\n")
    return "".join(parts)
