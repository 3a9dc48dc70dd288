"""Geometry-free parsing: a :class:`~webseg.page.Page` from HTML without a browser.

For consumers that only need the DOM and its text (``webseg clean --no-render``, block fusion,
text extraction, indexing of pages that failed to render). The tree must be the one Chromium
builds, or XPaths and node ids stop matching the rendered pages (and the models trained on
them): implied ``<tbody>``, the adoption agency for misnested tags, foster-parented table
content, ``<noscript>`` parsed as markup (scripting disabled, as webseg renders local pages),
``<template>`` content kept out of the tree, declarative shadow roots (``<template
shadowrootmode>``) not in the light DOM. So the parser is an HTML5 tree builder:

* ``lexbor`` (default), through selectolax: a C implementation of the WHATWG parsing spec,
  MIT licensed, ~10x faster than html5lib; on 160 cached wcxb-dev and dragnet pages its
  XPaths equalled the rendered pages' on every page (html5lib: 158);
* ``html5lib``: the pure-Python reference, kept as a fallback and for comparison.

Chromium stops nesting elements at 512 open elements and attaches deeper ones to the parent of
the current node (text still goes into the current node); both builders emulate that, so even
pathological pages keep their XPaths.

**There is no layout here**: the returned page has ``has_layout = False``, all boxes are zero
and style columns hold defaults. Visibility is a best effort from markup alone: elements that
are never rendered (``head``, ``script``, ``style``, ``template``...), elements with the
``hidden`` attribute or an inline ``display:none`` / ``visibility:hidden`` style are invisible.

Whitespace-only text nodes are not nodes of the page (as in the renderer's walk); they are
recorded in :attr:`~webseg.page.Page.ws_before` of the next node, verbatim inside
:data:`~webseg.page.PRESERVE_TAGS` and as one space elsewhere.
"""

from __future__ import annotations

import re
from typing import Any

from webseg import _native as native
from webseg.decode import decode_html
from webseg.page import (
    ELEMENT,
    ITEM_VALUE_TAGS,
    KEPT_ATTRIBUTES,
    NON_RENDERED_TAGS,
    PRE_STYLE_ATTR,
    PRESERVE_TAGS,
    TEXT,
    Page,
)

__all__ = ["PARSERS", "count_nodes", "may_exceed", "parse"]

PARSERS = ("lexbor", "html5lib")
#: Chromium's ``kMaximumHTMLParserDOMTreeDepth``: deeper content becomes siblings.
MAX_DEPTH = 512

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
#: An inline style that keeps the element's whitespace as written (``white-space: pre``,
#: ``pre-wrap``, ``break-spaces``) or its line breaks (``pre-line``): without a browser, the
#: only way CSS is seen to do it.
_PRE_STYLE = re.compile(r"white-space\s*:\s*(pre(?:-wrap|-line)?|break-spaces)\s*(?:;|!|$)",
                        re.I)
#: An inline style that sets the element's display: without a browser, the only CSS that can
#: show ``<span style="display:block">`` as a line of its own (recorded as
#: :data:`DISPLAY_STYLE_ATTR`, read by :func:`webseg.clean.layout.strength`).
_DISPLAY_STYLE = re.compile(r"(?:^|[;\s])display\s*:\s*([a-z-]+(?:\s+[a-z-]+)?)\s*(?:;|!|$)",
                            re.I)
#: The attribute a parsed page's element gets when its inline style sets its display.
DISPLAY_STYLE_ATTR = "display"
_SKIP_TEXT = frozenset({"script", "style", "template"})
#: The Page columns a walk makes, in the order of its row tuples.
_COLUMNS = ("parent", "kind", "tag", "text", "attrs", "visible")
#: :data:`~webseg.page.KEPT_ATTRIBUTES` as a set: looked up for every attribute of every element.
_KEPT = frozenset(KEPT_ATTRIBUTES)
#: Kept attributes that are usually written without a value.
_BOOLEAN_ATTRIBUTES = frozenset({"reversed", "checked"})
#: Elements that can host a shadow root (DOM standard "attach a shadow root"); custom elements
#: (names with a hyphen) can too.
_SHADOW_HOSTS = frozenset({"article", "aside", "blockquote", "body", "div", "footer", "h1",
                           "h2", "h3", "h4", "h5", "h6", "header", "main", "nav", "p",
                           "section", "span"})
#: A character that is not JavaScript whitespace: the renderer's walk keeps a text node when
#: ``/\S/`` matches it, and so must we (``str.strip`` differs on U+FEFF, U+001C-U+001F, U+0085).
_NON_BLANK = re.compile(
    r"[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def parse(source: bytes | str, url: str | None = None, encoding: str | None = None,
          max_nodes: int = 200_000, parser: str = "lexbor") -> Page:
    """Parse HTML (bytes are decoded like the renderer does) into a layout-free Page.

    Raises :class:`~webseg.decode.DecodeError` for bytes that are no page (empty, binary)
    and ``ValueError`` when the DOM has more than ``max_nodes`` nodes.
    """
    if parser not in PARSERS:
        raise ValueError(f"unknown parser {parser!r}; choose from {', '.join(PARSERS)}")
    if isinstance(source, bytes | bytearray):
        dec = decode_html(bytes(source), encoding)
        text, enc = dec.text, dec.encoding
    else:
        text, enc = source, encoding
    if parser == "lexbor":
        c, ws, title = _walk_lexbor(text, max_nodes)
    else:
        b = _Builder(max_nodes)
        _walk_html5lib(text, b)
        c = b.finish()
        ws = {i: w for i, w in enumerate(c["ws"]) if w}
        title = b.title
    return Page.from_columns(parent=c["parent"], kind=c["kind"], tag=c["tag"], text=c["text"],
                             attrs=c["attrs"], visible=c["visible"], url=url, title=title,
                             encoding=enc, has_layout=False, meta={"renderer": parser},
                             ws_before=ws)


class _Builder:
    """Collects the Page columns in pre-order, with the renderer's visibility and depth rules."""

    def __init__(self, max_nodes: int) -> None:
        self.max_nodes = max_nodes
        self.cols: dict[str, list[Any]] = {k: [] for k in ("parent", "kind", "tag", "text",
                                                           "attrs", "visible", "ws")}
        # the columns' lists by name: a walk adds a thousand nodes or more per page, and a
        # dictionary look-up per column and node was a sixth of the parse
        c = self.cols
        self._parent, self._kind, self._tag, self._text = (c["parent"], c["kind"], c["tag"],
                                                           c["text"])
        self._attrs, self._visible, self._ws = c["attrs"], c["visible"], c["ws"]
        self.preserve: list[bool] = []  # inside PRESERVE_TAGS (whitespace kept verbatim)
        self.pending = ""  # whitespace-only text seen since the last node
        self.depth: list[int] = []  # depth in the parser's tree (before the 512 cap)
        self.title = ""
        self.capped = False
        self.shadow_hosts: set[int] = set()

    def _add(self, parent: int, kind: int, tag: str, txt: str, attrs: dict | None,
             vis: bool) -> int:
        n = len(self._parent)
        if n >= self.max_nodes:
            raise ValueError(f"DOM has more than {self.max_nodes} nodes")
        d = 0
        if parent >= 0:
            d = self.depth[parent] + 1
            if kind == ELEMENT and d > MAX_DEPTH:
                # the parser's stack is too deep: Chromium attaches the element to the parent
                # of the current node instead (later text still goes into the current node)
                parent = self._parent[parent]
                self.capped = True
        self._parent.append(parent)
        self._kind.append(kind)
        self._tag.append(tag)
        self._text.append(txt)
        self._attrs.append(attrs)
        self._visible.append(vis)
        self._ws.append(self.pending)
        self.pending = ""
        self.preserve.append(tag in PRESERVE_TAGS or (parent >= 0 and self.preserve[parent]))
        self.depth.append(d)
        return n

    def finish(self) -> dict[str, list[Any]]:
        """The columns in document order (re-sorted when the depth cap moved elements)."""
        c = self.cols
        if not self.capped:
            return c
        order = _preorder(c["parent"])
        new_id = {old: new for new, old in enumerate(order)}
        out = {k: [v[i] for i in order] for k, v in c.items()}
        out["parent"] = [new_id[p] if p >= 0 else -1 for p in out["parent"]]
        return out

    def shadow_template(self, parent: int, attrib: dict[str, Any]) -> bool:
        """Whether a ``<template>`` is a declarative shadow root (see :func:`_shadow_root`)."""
        host = self.cols["tag"][parent] if parent >= 0 else ""
        return _shadow_root(attrib, parent, host, self.shadow_hosts)

    def text(self, parent: int, txt: str, vis: bool) -> None:
        """A text node: :meth:`_add` for what a text node can be (no depth cap applies,
        ``#text`` is no whitespace-keeping tag), about half of the nodes of a page."""
        if len(self._parent) >= self.max_nodes:
            raise ValueError(f"DOM has more than {self.max_nodes} nodes")
        self._parent.append(parent)
        self._kind.append(TEXT)
        self._tag.append("#text")
        self._text.append(txt)
        self._attrs.append(None)
        self._visible.append(vis)
        self._ws.append(self.pending)
        self.pending = ""
        if parent >= 0:
            self.preserve.append(self.preserve[parent])
            self.depth.append(self.depth[parent] + 1)
        else:
            self.preserve.append(False)
            self.depth.append(0)

    def space(self, parent: int, txt: str) -> None:
        """A whitespace-only text node: recorded on the next node (``Page.ws_before``),
        verbatim where whitespace is preserved, else as one space."""
        if parent >= 0 and self.preserve[parent]:
            self.pending += txt
        elif not self.pending:
            self.pending = " "

    def element(self, parent: int, tag: str, attrib: Any, pvis: bool) -> tuple[int, bool]:
        """An element, its kept attributes and visibility by the lexbor walks' rule
        (:func:`_element_attrs`; ``attrib``: any mapping, copied into the Page's dict)."""
        attrs, vis, pre = _element_attrs(tag, dict(attrib), pvis,
                                         parent >= 0 and self.preserve[parent])
        idx = self._add(parent, ELEMENT, tag, "", attrs or None, vis)
        if pre:
            self.preserve[idx] = True
        return idx, vis


def _walk_lexbor(text: str, max_nodes: int) -> tuple[dict[str, Any], dict[int, str], str]:
    """(the Page columns, the whitespace before nodes, the title) of a lexbor parse.

    :class:`_Builder`'s rules in one loop, for speed: a page has thousands of nodes, and a
    method call, a stack entry and eight list appends per node were most of the parse. So
    siblings are followed in document order (only an element with children saves where to
    go on), a node is one row tuple (transposed once at the end), and the parent's
    visibility, depth and whitespace keeping travel with the walk instead of living in
    per-node lists; an element without attributes (most) takes a short path, as no attribute
    can hide it, keep its whitespace or set its display. When ``webseg._native.domwalk`` is
    built, :func:`_walk_compiled` runs these rules in C instead (the same columns in half the
    walk's time); this loop is its reference and the fallback."""
    from selectolax.lexbor import LexborHTMLParser

    # lexbor reads UTF-8, and bytes are read as UTF-8 as they are (a str would be encoded
    # once more); "replace": a str with lone surrogates (never from decode_html) has no UTF-8
    tree = LexborHTMLParser(text.encode("utf-8", "replace"))
    root = tree.root
    rows: list[tuple[int, int, str, str, dict | None, bool]] = []
    ws: dict[int, str] = {}
    if root is None:
        return _row_columns(rows), ws, ""
    compiled = native.load("domwalk")
    if compiled is not None:
        return _walk_compiled(compiled, root, max_nodes)
    add = rows.append
    preserved: set[int] = set()  # elements whose whitespace is kept (PRESERVE_TAGS, styles)
    shadow_hosts: set[int] = set()
    pending = ""  # whitespace-only text seen since the last node
    capped = False
    title_node = None
    non_blank = _NON_BLANK.search
    kept, non_rendered, preserve_tags, skip_texts = (_KEPT, NON_RENDERED_TAGS, PRESERVE_TAGS,
                                                     _SKIP_TEXT)
    # the walk's place: the current node and its parent's id, visibility, depth (before the
    # cap) and whether its text is skipped; `saved` holds the places to go back to
    node, parent, pvis, pdepth, skip = root, -1, True, -1, False
    saved: list[tuple[Any, int, bool, int, bool]] = []
    while True:
        if node is None:
            if not saved:
                break
            node, parent, pvis, pdepth, skip = saved.pop()
            continue
        ct = node.tag
        if ct == "-text":
            t = None if skip else node.text_content
            if t:
                # not blank as the renderer's /\S/ sees it; str.isspace is several times
                # faster than the pattern and agrees with it but on U+FEFF (blank only to
                # the pattern) and on U+001C-U+001F, U+0085 (blank only to isspace)
                if t.isspace():
                    keep = t.strip(" \t\n\r\f\v") != "" and non_blank(t) is not None
                else:
                    keep = "\ufeff" not in t or non_blank(t) is not None
                if keep:  # a text node: no depth cap, never whitespace-keeping
                    n = len(rows)
                    if n >= max_nodes:
                        raise ValueError(f"DOM has more than {max_nodes} nodes")
                    add((parent, TEXT, "#text", t, None, pvis))
                    if pending:
                        ws[n] = pending
                        pending = ""
                elif parent in preserved:  # whitespace-only: verbatim on the next node
                    pending += t
                elif not pending:  # elsewhere one space
                    pending = " "
            node = node.next
            continue
        if ct is None or ct[0] == "-" or ct == "!doctype":  # comments, processing instr.
            node = node.next
            continue
        tag = ct.lower()
        attrib = node.attributes
        if tag == "template" and attrib \
                and _shadow_root(attrib, parent, rows[parent][2] if parent >= 0 else "",
                                 shadow_hosts):
            node = node.next
            continue
        pre = False
        if attrib and kept.issuperset(attrib) and None not in attrib.values() \
                and tag != "input":
            # every attribute is kept as it is (the usual class, id, href): the dict lexbor
            # gave is the element's, uncopied; none of them hides the element (no hidden, no
            # style) and none adds one (no value, no valueless boolean)
            attrs = attrib
            vis = pvis and tag not in non_rendered
        elif attrib:
            attrs, vis, pre = _element_attrs(tag, attrib, pvis, parent in preserved)
        else:
            attrs = None
            vis = pvis and tag not in non_rendered
        idx = len(rows)
        if idx >= max_nodes:
            raise ValueError(f"DOM has more than {max_nodes} nodes")
        d = pdepth + 1
        p = parent
        if d > MAX_DEPTH:
            # the parser's stack is too deep: Chromium attaches the element to the parent of
            # the current node instead (later text still goes into the current node)
            p = rows[parent][0]
            capped = True
        add((p, ELEMENT, tag, "", attrs, vis))
        if pending:
            ws[idx] = pending
            pending = ""
        if pre or tag in preserve_tags or p in preserved:
            preserved.add(idx)
        if tag == "title" and title_node is None:
            title_node = node
        first = None if tag == "template" else node.first_child  # template content: a fragment
        if first is None:
            node = node.next
            continue
        saved.append((node.next if parent >= 0 else None, parent, pvis, pdepth, skip))
        node, parent, pvis, pdepth, skip = first, idx, vis, d, tag in skip_texts
    if capped:
        rows, ws = _document_order(rows, ws)
    return _row_columns(rows), ws, _title_text(title_node)


def _walk_compiled(compiled: Any, root: Any, max_nodes: int
                   ) -> tuple[dict[str, Any], dict[int, str], str]:
    """:func:`_walk_lexbor`'s walk by ``webseg._native.domwalk``: the same rules in C (a
    third of the time), the same columns; the rare elements still go through
    :func:`_element_attrs` and :func:`_shadow_root`."""
    *cols, ws, capped, title_node = compiled.walk(
        root, max_nodes, MAX_DEPTH, _KEPT, NON_RENDERED_TAGS, PRESERVE_TAGS, _SKIP_TEXT,
        _element_attrs, _shadow_root, set(), TEXT, ELEMENT)
    if capped:
        rows, ws = _document_order(list(zip(*cols, strict=True)), ws)
        return _row_columns(rows), ws, _title_text(title_node)
    return dict(zip(_COLUMNS, cols, strict=True)), ws, _title_text(title_node)


def _title_text(node: Any) -> str:
    """The document's title: the first ``<title>``'s text, whitespace runs as one space."""
    return " ".join((node.text(deep=True) or "").split()) if node is not None else ""


def _element_attrs(tag: str, attrib: dict[str, Any], pvis: bool, ppreserved: bool
                   ) -> tuple[dict[str, Any] | None, bool, bool]:
    """(the kept attributes, visible, keeps its whitespace) of an element with attributes,
    from the attributes lexbor gave: the walks' rule for the elements they do not settle
    inline (an attribute that is not kept as it is, or an ``<input>``, hidden by its type).
    ``pvis``: the parent is visible; ``ppreserved``: the parent keeps its whitespace."""
    if _KEPT.issuperset(attrib) and None not in attrib.values():
        # every attribute is kept as it is: the dict lexbor gave is the element's, uncopied;
        # none of them hides the element but an input's type, and none adds one
        vis = pvis and tag not in NON_RENDERED_TAGS \
            and not (tag == "input" and (attrib.get("type") or "").lower() == "hidden")
        return attrib, vis, False
    attrs = {}
    for k, v in attrib.items():  # a loop: a comprehension costs twice as much here
        if k in _KEPT and v is not None:
            attrs[k] = v
    if "reversed" in attrib or "checked" in attrib:
        for k in _BOOLEAN_ATTRIBUTES.intersection(attrib):
            attrs[k] = attrib[k] or ""  # valueless (``<ol reversed>``): "" as in the DOM
    if tag in ITEM_VALUE_TAGS and attrib.get("value") is not None:
        attrs["value"] = str(attrib["value"])[:20]
    style = attrib.get("style") or ""
    vis = pvis and tag not in NON_RENDERED_TAGS and "hidden" not in attrib \
        and not (style and _HIDDEN_STYLE.search(style)) \
        and not (tag == "input" and (attrib.get("type") or "").lower() == "hidden")
    pre = None
    if style:  # most elements have none: no pattern is tried
        low = style.lower()
        pre = _PRE_STYLE.search(style) if "white-space" in low else None
        disp = _DISPLAY_STYLE.search(style) if "display" in low else None
        if pre and not ppreserved and tag not in PRESERVE_TAGS:
            attrs[PRE_STYLE_ATTR] = pre.group(1).lower()  # a block that keeps its whitespace
        if disp and disp.group(1).lower() != "none":  # "none": not visible (above)
            attrs[DISPLAY_STYLE_ATTR] = disp.group(1).lower()
    return attrs or None, vis, pre is not None


def _shadow_root(attrib: dict[str, Any], parent: int, host: str, hosts: set[int]) -> bool:
    """Whether a ``<template>`` is a declarative shadow root (``shadowrootmode`` open or
    closed): Chromium's parser attaches it to the parent instead of inserting the template,
    so the walk of the rendered DOM (light DOM only) never sees it; only the host's first one
    counts. ``hosts`` collects the hosts that have one."""
    mode = (attrib.get("shadowrootmode") or "").lower()
    if mode not in ("open", "closed") or parent < 0:
        return False
    if host not in _SHADOW_HOSTS and "-" not in host or parent in hosts:
        return False
    hosts.add(parent)
    return True


def _document_order(rows: list[tuple], ws: dict[int, str]) -> tuple[list[tuple], dict[int, str]]:
    """Rows re-sorted into pre-order after the depth cap moved elements (as
    :meth:`_Builder.finish`), parent ids and whitespace keys renumbered."""
    order = _preorder([r[0] for r in rows])
    new_id = {old: new for new, old in enumerate(order)}
    out = []
    for i in order:
        r = rows[i]
        out.append((new_id[r[0]] if r[0] >= 0 else -1, *r[1:]))
    return out, {new_id[i]: w for i, w in ws.items()}


def _preorder(parents: list[int]) -> list[int]:
    """Node ids in document (pre-)order of the tree that ``parents`` describes (-1: a root),
    children in id order: the order to restore after the depth cap re-attached elements."""
    kids: list[list[int]] = [[] for _ in parents]
    roots = []
    for i, p in enumerate(parents):
        (kids[p] if p >= 0 else roots).append(i)
    order: list[int] = []
    stack = list(reversed(roots))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(kids[i]))
    return order


def _row_columns(rows: list[tuple]) -> dict[str, Any]:
    """Row tuples (parent, kind, tag, text, attrs, visible) as the Page's columns."""
    if not rows:
        return {k: [] for k in _COLUMNS}
    cols = zip(*rows, strict=True)
    return dict(zip(_COLUMNS, cols, strict=True))


def may_exceed(text: str, max_nodes: int) -> bool:
    """Whether a page's DOM can have more than ``max_nodes`` nodes, judged from its markup in
    microseconds: every element has a ``<`` (bar the few a parser implies: html, head, body,
    tbody) and text nodes lie between tags, so a page with fewer than ``max_nodes / 2`` tags
    cannot exceed it (formatting elements a parser re-opens are the rare exception, which
    the renderer's own count still catches)."""
    return 2 * text.count("<") + 16 > max_nodes


def count_nodes(text: str, stop: int | None = None) -> int:
    """The DOM node count the renderer's walk limits (elements plus non-blank text nodes
    outside ``script``/``style``/``template``), from a lexbor parse: about 0.1 s for a
    250k-node page, instead of the browser's whole time limit. Counting stops once it
    passes ``stop``."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(text.encode("utf-8", "replace"))  # as in _walk_lexbor
    if tree.root is None:
        return 0
    n = len(tree.root.css("*"))  # every element, <html> included
    if stop is not None and n > stop:
        return n
    non_blank = _NON_BLANK.search
    for node in tree.root.traverse(include_text=True):
        if node.tag != "-text":
            continue
        parent = node.parent
        if parent is not None and parent.tag in _SKIP_TEXT:
            continue
        t = node.text_content
        if t and non_blank(t):
            n += 1
            if stop is not None and n > stop:
                break
    return n


def _walk_html5lib(text: str, b: _Builder) -> None:
    import html5lib

    # html5lib's etree builder keeps text in .text/.tail; namespaceHTMLElements=False gives
    # plain tag names, as in the XPaths of the gold data.
    root = html5lib.parse(text, treebuilder="etree", namespaceHTMLElements=False)
    # stack items: ("el", element, parent_id, parent_visible) or ("text", str, parent, vis)
    stack: list[tuple[str, Any, int, bool]] = [("el", root, -1, True)]
    while stack:
        what, obj, parent, pvis = stack.pop()
        if what == "text":
            b.text(parent, obj, pvis)
            continue
        if what == "space":
            b.space(parent, obj)
            continue
        tag = obj.tag
        if not isinstance(tag, str):  # comments, processing instructions
            continue
        tag = tag.split("}")[-1].lower()
        if tag == "template" and b.shadow_template(parent, obj.attrib):
            continue
        idx, vis = b.element(parent, tag, obj.attrib, pvis)
        if tag == "title" and not b.title:
            b.title = " ".join((obj.text or "").split())
        items: list[tuple[str, Any, int, bool]] = []
        if obj.text and tag not in _SKIP_TEXT:
            items.append(("text" if _NON_BLANK.search(obj.text) else "space", obj.text, idx, vis))
        # html5lib puts a <template>'s content under it as children, but in the DOM it is a
        # separate DocumentFragment (template.childNodes is empty), so Chromium's walk never
        # sees it; skip it too, or every node after it would get different ids than rendered.
        for child in (obj if tag != "template" else ()):
            items.append(("el", child, idx, vis))
            if child.tail:
                items.append(("text" if _NON_BLANK.search(child.tail) else "space", child.tail,
                              idx, vis))
        stack.extend(reversed(items))
