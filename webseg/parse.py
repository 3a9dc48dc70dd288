"""Geometry-free parsing: a :class:`~webseg.page.Page` from HTML without a browser.

For consumers that only need the DOM and its text (block fusion, text extraction, indexing of
pages that failed to render). The tree is built by an HTML5-conformant parser (html5lib, with
scripting treated as disabled, so ``<noscript>`` content is markup) so that element structure
and XPaths match what Chromium builds - ``lxml.html`` would not insert implied ``<tbody>``
elements and XPaths through tables would differ.

**There is no layout here**: the returned page has ``has_layout = False``, all boxes are zero
and style columns hold defaults. Visibility is a best effort from markup alone: elements that
are never rendered (``head``, ``script``, ``style``, ``template``...), elements with the
``hidden`` attribute or an inline ``display:none`` / ``visibility:hidden`` style are invisible.
"""

from __future__ import annotations

import re
from typing import Any

import html5lib

from webseg.decode import decode_html
from webseg.page import ELEMENT, KEPT_ATTRIBUTES, NON_RENDERED_TAGS, TEXT, Page

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_SKIP_TEXT = frozenset({"script", "style", "template"})


def parse(source: bytes | str, url: str | None = None, encoding: str | None = None,
          max_nodes: int = 200_000) -> Page:
    """Parse HTML (bytes are decoded like the renderer does) into a layout-free Page."""
    if isinstance(source, bytes | bytearray):
        dec = decode_html(bytes(source), encoding)
        text, enc = dec.text, dec.encoding
    else:
        text, enc = source, encoding
    # html5lib's etree builder keeps text in .text/.tail; namespaceHTMLElements=False gives
    # plain tag names, as in the XPaths of the gold data.
    root = html5lib.parse(text, treebuilder="etree", namespaceHTMLElements=False)
    cols: dict[str, list[Any]] = {k: [] for k in ("parent", "kind", "tag", "text", "attrs",
                                                  "visible")}
    title = ""

    def add(parent: int, kind: int, tag: str, txt: str, attrs: dict | None, vis: bool) -> int:
        if len(cols["parent"]) >= max_nodes:
            raise ValueError(f"DOM has more than {max_nodes} nodes")
        cols["parent"].append(parent)
        cols["kind"].append(kind)
        cols["tag"].append(tag)
        cols["text"].append(txt)
        cols["attrs"].append(attrs)
        cols["visible"].append(vis)
        return len(cols["parent"]) - 1

    # stack items: ("el", element, parent_id, parent_visible) or ("text", str, parent, vis)
    stack: list[tuple[str, Any, int, bool]] = [("el", root, -1, True)]
    while stack:
        what, obj, parent, pvis = stack.pop()
        if what == "text":
            add(parent, TEXT, "#text", obj, None, pvis)
            continue
        tag = obj.tag
        if not isinstance(tag, str):  # comments, processing instructions
            continue
        tag = tag.split("}")[-1].lower()
        attrs = {k: v for k, v in obj.attrib.items() if k in KEPT_ATTRIBUTES} or None
        style = obj.attrib.get("style", "")
        vis = pvis and tag not in NON_RENDERED_TAGS and "hidden" not in obj.attrib \
            and not _HIDDEN_STYLE.search(style) \
            and not (tag == "input" and obj.attrib.get("type", "").lower() == "hidden")
        idx = add(parent, ELEMENT, tag, "", attrs, vis)
        if tag == "title" and not title:
            title = (obj.text or "").strip()
        items: list[tuple[str, Any, int, bool]] = []
        if obj.text and obj.text.strip() and tag not in _SKIP_TEXT:
            items.append(("text", obj.text, idx, vis))
        # html5lib puts a <template>'s content under it as children, but in the DOM it is a
        # separate DocumentFragment (template.childNodes is empty), so Chromium's walk never
        # sees it; skip it too, or every node after it would get different ids than rendered.
        for child in (obj if tag != "template" else ()):
            items.append(("el", child, idx, vis))
            if child.tail and child.tail.strip():
                items.append(("text", child.tail, idx, vis))
        stack.extend(reversed(items))
    return Page.from_columns(parent=cols["parent"], kind=cols["kind"], tag=cols["tag"],
                             text=cols["text"], attrs=cols["attrs"], visible=cols["visible"],
                             url=url, title=title, encoding=enc, has_layout=False,
                             meta={"renderer": "html5lib"})
