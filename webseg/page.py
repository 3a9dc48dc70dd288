"""The Page model: a rendered DOM with geometry and computed style, held column-wise.

Every segmenter, metric and application layer reads pages through this one type, so it is
deliberately plain: nodes are element and text nodes in document (pre-order) order, node ``i``
is row ``i`` of every column, and per-node numbers live in numpy arrays so features can be
computed without Python loops.

Why columns and not node objects: a page has 1,000-20,000 nodes and segmenters compute dozens
of features over all of them; numpy columns make that vectorised and make the JSON cache
compact. :class:`Node` is a thin read-only view for code that wants one node at a time.

Coordinates are CSS pixels of the full page (document coordinates, origin at the top-left of the
document, not the viewport). A page built by :mod:`webseg.parse` has ``has_layout = False``:
its boxes are zero and its style columns hold defaults, and code that needs geometry must check
:attr:`Page.has_layout` (or call :meth:`Page.require_layout`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA = "webseg.page"
SCHEMA_VERSION = 2
#: Older versions this webseg still reads (version 1 has no whitespace record: ``ws_before``
#: is None and the writers fall back to inserting a space between inline leaves).
READABLE_VERSIONS = (1, 2)

ELEMENT = 1
TEXT = 3

#: Attributes kept from the DOM (everything else is dropped to keep pages small).
KEPT_ATTRIBUTES = ("id", "class", "role", "href", "src", "alt", "title", "name", "type",
                   "colspan", "rowspan", "lang", "datetime", "content", "property", "itemprop",
                   "rel", "start", "reversed", "checked")
#: ``value`` is kept on these elements only (a list item's number, ``<li value="5">``): on
#: form fields it can be large and is not text a reader sees.
ITEM_VALUE_TAGS = frozenset({"li"})

#: The attribute a walk adds to an element (other than :data:`PRESERVE_TAGS`) whose style keeps
#: its whitespace as written (computed ``white-space: pre``/``pre-wrap``/``break-spaces``/
#: ``pre-line`` when rendered, the inline style when parsed), valued with that
#: ``white-space``; only on the outermost such element. The writers keep such a block verbatim
#: like a ``pre`` (``pre-line``: its line breaks, spaces collapsed within each line).
PRE_STYLE_ATTR = "white-space"

#: Elements whose text is never shown, even when the walk records them. ``noscript`` is not
#: here: with JavaScript off (webseg's default for local pages, and what ``webseg.parse``
#: emulates) browsers show its content.
#: Elements whose whitespace is kept as written (``white-space: pre`` by default, and what a
#: reader expects of code); the walk records whitespace-only text inside them verbatim.
PRESERVE_TAGS = frozenset({"pre", "textarea", "listing", "xmp", "plaintext", "code"})

NON_RENDERED_TAGS = frozenset(
    {"head", "script", "style", "template", "title", "meta", "link", "base"}
)

_WS = re.compile(r"\s+")


class NoLayoutError(ValueError):
    """Raised when geometry is needed from a page parsed without a browser."""


def normalize_text(text: str) -> str:
    """Collapse runs of whitespace to one space and strip, as a browser displays text.

    ``str.split()`` splits on exactly the characters ``\\s`` matches (``str.isspace``), so this
    equals ``_WS.sub(" ", text).strip()``, several times faster (it runs on every text leaf).
    """
    return " ".join(text.split())


def text_key(text: str) -> str:
    """A 64-bit hex key of a text, equal for texts that differ only in case or whitespace:
    how text repeated across pages (a site's template) is recognised without language
    knowledge (:mod:`ir.repeats`). ``str.lower`` (not ``casefold``): equal keys then mean
    equal analysed terms, since analysis lower-cases first."""
    norm = " ".join(text.lower().split())
    return hashlib.blake2b(norm.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _codes(values: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Encode strings as int codes into a vocabulary (first-seen order)."""
    vocab = {v: k for k, v in enumerate(dict.fromkeys(values))}
    codes = np.fromiter(map(vocab.__getitem__, values), dtype=np.int32, count=len(values))
    return codes, list(vocab)


def _default(n: int, value: str) -> tuple[np.ndarray, list[str]]:
    """:func:`_codes` of ``[value] * n``, without the per-node look-ups (a parsed page's style
    columns are all defaults)."""
    return np.zeros(n, np.int32), [value] if n else []


@dataclass(eq=False)
class Page:
    """A rendered (or parsed) web page.

    Node columns (length ``n``):

    ``parent``      int32, parent node id, -1 for the root
    ``kind``        int8, :data:`ELEMENT` or :data:`TEXT`
    ``tag``         list of lower-case tag names; ``"#text"`` for text nodes
    ``text``        list of str: raw character data of text nodes, ``""`` for elements
    ``attrs``       list of dicts with the :data:`KEPT_ATTRIBUTES` present on the element
                    (and :data:`PRE_STYLE_ATTR` on a block whose style keeps whitespace)
    ``box``         float32 (n, 4): x, y, width, height in document CSS px; for a text node the
                    union of its line boxes
    ``bg``          uint8 (n, 3): *effective* background colour, i.e. the node's own background
                    composited over its ancestors' down to the white canvas, so two nodes that
                    look the same colour have the same value even if one is transparent
    ``color``       uint8 (n, 4): text colour RGBA
    ``font_size``   float32 px; ``font_weight`` int16 (100-900); ``italic`` bool
    ``font_family`` int32 codes into ``font_families`` (first family of the stack, lower-case)
    ``display``     int32 codes into ``displays``; ``position`` int32 codes into ``positions``
    ``visible``     bool: the node has a layout box, ``visibility: visible`` and non-zero opacity,
                    and (for text) non-blank text with a non-empty box

    Text nodes carry their parent element's computed style.

    ``ws_before`` (sparse, node id -> str): the whitespace-only text nodes of the source, which
    are not nodes of the page (so the node ids, the text leaves and the block model's features
    do not depend on them), recorded on the next node in document order: where whitespace
    separates two leaves (``<b>a</b> <i>b</i>``) and, verbatim inside :data:`PRESERVE_TAGS`
    (a single space elsewhere), the spaces and line breaks between the spans of highlighted
    code. ``None`` when unknown (pages of schema version 1).
    """

    parent: np.ndarray
    kind: np.ndarray
    tag: list[str]
    text: list[str]
    attrs: list[dict[str, str]]
    box: np.ndarray
    bg: np.ndarray
    color: np.ndarray
    font_size: np.ndarray
    font_weight: np.ndarray
    italic: np.ndarray
    font_family: np.ndarray
    font_families: list[str]
    display: np.ndarray
    displays: list[str]
    position: np.ndarray
    positions: list[str]
    visible: np.ndarray
    url: str | None = None
    title: str = ""
    encoding: str | None = None
    width: float = 0.0
    height: float = 0.0
    viewport_width: int = 1280
    has_layout: bool = True
    meta: dict[str, Any] = field(default_factory=dict)
    ws_before: dict[int, str] | None = None

    def __post_init__(self) -> None:
        n = len(self.parent)
        for name in ("kind", "tag", "text", "attrs", "box", "bg", "color", "font_size",
                     "font_weight", "italic", "font_family", "display", "position", "visible"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"Page column {name!r} has {len(getattr(self, name))} rows, "
                                 f"expected {n}")
        if n and self.parent[0] != -1:
            raise ValueError("node 0 must be the root (parent -1)")
        if n > 1 and (np.any(self.parent[1:] >= np.arange(1, n)) or np.any(self.parent[1:] < 0)):
            raise ValueError("nodes must be one tree in pre-order: every node but the root has a "
                             "parent that precedes it")

    # ------------------------------------------------------------------ size and structure
    def __len__(self) -> int:
        return len(self.parent)

    @property
    def n(self) -> int:
        """Number of nodes."""
        return len(self.parent)

    @cached_property
    def depth(self) -> np.ndarray:
        """DOM depth of every node (root 0)."""
        d = [0] * self.n
        par = self.parent.tolist()
        for i in range(1, self.n):  # pre-order: parent's depth is known (lists: ~5x numpy)
            d[i] = d[par[i]] + 1
        return np.asarray(d, dtype=np.int32)

    @cached_property
    def _child_index(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR layout of children: ``idx[ptr[i]:ptr[i+1]]`` are the children of ``i``."""
        par = self.parent[1:]
        order = np.argsort(par, kind="stable") + 1
        counts = np.bincount(par, minlength=self.n) if self.n > 1 else np.zeros(self.n, int)
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        return ptr, order.astype(np.int32)

    def children(self, i: int) -> np.ndarray:
        """Children of node ``i`` in document order."""
        ptr, idx = self._child_index
        return idx[ptr[i]:ptr[i + 1]]

    @cached_property
    def subtree_end(self) -> np.ndarray:
        """``subtree_end[i]``: one past the last descendant of ``i`` (pre-order interval)."""
        end = list(range(1, self.n + 1))
        par = self.parent.tolist()
        for i in range(self.n - 1, 0, -1):  # lists: ~5x faster than numpy scalar indexing
            p = par[i]
            if end[i] > end[p]:
                end[p] = end[i]
        return np.asarray(end, dtype=np.int64)

    def descendants(self, i: int, include_self: bool = True) -> range:
        """Node ids of the subtree rooted at ``i`` (a contiguous range in pre-order)."""
        return range(i if include_self else i + 1, int(self.subtree_end[i]))

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is ``b`` or an ancestor of ``b``."""
        return a <= b < self.subtree_end[a]

    def ancestors(self, i: int) -> Iterator[int]:
        """Ancestors of ``i`` from its parent up to the root."""
        p = int(self.parent[i])
        while p >= 0:
            yield p
            p = int(self.parent[p])

    @cached_property
    def is_element(self) -> np.ndarray:
        return self.kind == ELEMENT

    @cached_property
    def is_text(self) -> np.ndarray:
        return self.kind == TEXT

    @cached_property
    def body(self) -> int:
        """Id of the ``<body>`` element (the root when there is none, e.g. a frameset)."""
        for i, t in enumerate(self.tag):
            if t == "body":
                return i
        return 0

    # ------------------------------------------------------------------ text
    @cached_property
    def text_leaves(self) -> np.ndarray:
        """Ids of visible text nodes with non-blank text: the atoms that metrics score."""
        nonblank = np.fromiter(map(bool, map(str.strip, self.text)), dtype=bool, count=self.n)
        return np.flatnonzero(self.is_text & self.visible & nonblank).astype(np.int32)

    @cached_property
    def text_leaf_mask(self) -> np.ndarray:
        """Boolean column: ``True`` for the nodes in :attr:`text_leaves`."""
        m = np.zeros(self.n, dtype=bool)
        m[self.text_leaves] = True
        return m

    @cached_property
    def leaf_texts(self) -> list[str]:
        """The whitespace-normalised text of every node of :attr:`text_leaves`, in their order.

        Computed once per page: the block model's features, the page-type views and the
        index's fields, windows and blocks each read every leaf's text (a page's text is
        never changed after it is built)."""
        return list(map(normalize_text, map(self.text.__getitem__, self.text_leaves.tolist())))

    def leaf_text(self, i: int) -> str:
        """Whitespace-normalised text of text node ``i``."""
        return normalize_text(self.text[i])

    def node_text(self, i: int, visible_only: bool = True) -> str:
        """Text of the subtree of ``i``: its text leaves joined by spaces."""
        leaves = self.text_leaves if visible_only else np.flatnonzero(self.is_text)
        lo, hi = np.searchsorted(leaves, [i, self.subtree_end[i]])
        return " ".join(normalize_text(self.text[j]) for j in leaves[lo:hi])

    @cached_property
    def text_length(self) -> np.ndarray:
        """Characters of visible normalised text in each node's subtree (int64)."""
        own = np.zeros(self.n, dtype=np.int64)
        for j in self.text_leaves:
            own[j] = len(normalize_text(self.text[j]))
        csum = np.concatenate([[0], np.cumsum(own)])
        return csum[self.subtree_end] - csum[np.arange(self.n)]

    # ------------------------------------------------------------------ addressing
    @cached_property
    def xpaths(self) -> list[str]:
        """XPath of every node: ``/html[1]/body[1]/div[2]``; text nodes end in ``/text()[k]``.

        Steps are lower-case tag names with the 1-based index among element siblings of the
        same name, which is how the segmentation gold data addresses elements.
        """
        names, rank = self.xpath_steps
        paths = [""] * self.n
        for i, (p, name, k) in enumerate(zip(self.parent.tolist(), names, rank.tolist(),
                                             strict=True)):
            paths[i] = f"{paths[p] if p >= 0 else ''}/{name}[{k}]"
        return paths

    @cached_property
    def xpath_steps(self) -> tuple[list[str], np.ndarray]:
        """(step name, 1-based index among same-name siblings) of every node: what its
        :attr:`xpaths` step is made of (``div`` and 2 for ``/div[2]``), for callers that
        need the XPaths of a few nodes only."""
        n = self.n
        names = ["text()" if k == TEXT else t for k, t in zip(self.kind.tolist(), self.tag,
                                                              strict=True)]
        # the index among same-name siblings: the rank of a node among the nodes with its
        # (parent, name) key, in document order (a stable sort keeps that order)
        codes = {x: k for k, x in enumerate(dict.fromkeys(names))}
        key = (self.parent.astype(np.int64) + 1) * len(codes) + np.fromiter(
            map(codes.__getitem__, names), dtype=np.int64, count=n)
        order = np.argsort(key, kind="stable")
        sk = key[order]
        first = np.ones(n, dtype=bool)
        first[1:] = sk[1:] != sk[:-1]
        pos = np.arange(n)
        rank = np.empty(n, dtype=np.int64)
        rank[order] = pos - np.maximum.accumulate(np.where(first, pos, 0)) + 1
        return names, rank

    @cached_property
    def _xpath_index(self) -> dict[str, int]:
        return {x: i for i, x in enumerate(self.xpaths)}

    def find_xpath(self, xpath: str) -> int | None:
        """Node id for an absolute XPath in the form of :attr:`xpaths` (``[1]`` may be omitted)."""
        key = xpath.strip().rstrip("/")
        hit = self._xpath_index.get(key)
        if hit is None:
            key = re.sub(r"/([^/\[\]]+)(?=/|$)", r"/\1[1]", key.lower())
            hit = self._xpath_index.get(key)
        return hit

    # ------------------------------------------------------------------ geometry
    def require_layout(self) -> None:
        if not self.has_layout:
            raise NoLayoutError(
                "this Page was parsed without a browser (webseg.parse) and has no geometry or "
                "computed style; render it with webseg.render.Renderer for layout-based "
                "segmenters")

    @property
    def x(self) -> np.ndarray:
        return self.box[:, 0]

    @property
    def y(self) -> np.ndarray:
        return self.box[:, 1]

    @property
    def w(self) -> np.ndarray:
        return self.box[:, 2]

    @property
    def h(self) -> np.ndarray:
        return self.box[:, 3]

    @property
    def area(self) -> np.ndarray:
        return self.box[:, 2].astype(np.float64) * self.box[:, 3]

    def node(self, i: int) -> Node:
        return Node(self, i)

    def __iter__(self) -> Iterator[Node]:
        return (Node(self, i) for i in range(self.n))

    def __repr__(self) -> str:
        return (f"Page(url={self.url!r}, nodes={self.n}, text_leaves={len(self.text_leaves)}, "
                f"size={self.width:.0f}x{self.height:.0f}, has_layout={self.has_layout})")

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (versioned schema; see :meth:`from_dict`)."""
        return {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "url": self.url, "title": self.title, "encoding": self.encoding,
            "width": float(self.width), "height": float(self.height),
            "viewport_width": int(self.viewport_width), "has_layout": bool(self.has_layout),
            "meta": self.meta,
            "nodes": {
                "parent": self.parent.tolist(),
                "kind": self.kind.tolist(),
                "tag": list(self.tag),
                "text": list(self.text),
                "attrs": [a or None for a in self.attrs],
                "box": np.round(self.box, 2).ravel().tolist(),
                "bg": self.bg.ravel().tolist(),
                "color": self.color.ravel().tolist(),
                "font_size": np.round(self.font_size, 2).tolist(),
                "font_weight": self.font_weight.tolist(),
                "italic": self.italic.astype(np.uint8).tolist(),
                "font_family": self.font_family.tolist(),
                "display": self.display.tolist(),
                "position": self.position.tolist(),
                "visible": self.visible.astype(np.uint8).tolist(),
            },
            "font_families": self.font_families,
            "ws_before": (None if self.ws_before is None
                          else {str(k): v for k, v in sorted(self.ws_before.items())}),
            "displays": self.displays,
            "positions": self.positions,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Page:
        if d.get("schema") != SCHEMA:
            raise ValueError(f"not a webseg page (schema={d.get('schema')!r})")
        if d.get("version") not in READABLE_VERSIONS:
            raise ValueError(f"unsupported page schema version {d.get('version')!r} "
                             f"(this webseg reads versions "
                             f"{', '.join(map(str, READABLE_VERSIONS))}); render the page again")
        ws = d.get("ws_before")
        nd = d["nodes"]
        n = len(nd["parent"])
        return cls(
            parent=np.asarray(nd["parent"], dtype=np.int32),
            kind=np.asarray(nd["kind"], dtype=np.int8),
            tag=list(nd["tag"]),
            text=list(nd["text"]),
            attrs=[a or {} for a in nd["attrs"]],
            box=np.asarray(nd["box"], dtype=np.float32).reshape(n, 4),
            bg=np.asarray(nd["bg"], dtype=np.uint8).reshape(n, 3),
            color=np.asarray(nd["color"], dtype=np.uint8).reshape(n, 4),
            font_size=np.asarray(nd["font_size"], dtype=np.float32),
            font_weight=np.asarray(nd["font_weight"], dtype=np.int16),
            italic=np.asarray(nd["italic"], dtype=bool),
            font_family=np.asarray(nd["font_family"], dtype=np.int32),
            font_families=list(d["font_families"]),
            display=np.asarray(nd["display"], dtype=np.int32),
            displays=list(d["displays"]),
            position=np.asarray(nd["position"], dtype=np.int32),
            positions=list(d["positions"]),
            visible=np.asarray(nd["visible"], dtype=bool),
            url=d.get("url"), title=d.get("title", ""), encoding=d.get("encoding"),
            width=d.get("width", 0.0), height=d.get("height", 0.0),
            viewport_width=d.get("viewport_width", 1280), has_layout=d.get("has_layout", True),
            meta=d.get("meta") or {},
            ws_before=None if ws is None else {int(k): str(v) for k, v in ws.items()},
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, s: str | bytes) -> Page:
        return cls.from_dict(json.loads(s))

    def save(self, path: str | Path) -> None:
        """Write the page as JSON (gzip-compressed when the name ends in ``.gz``)."""
        path = Path(path)
        data = self.to_json().encode("utf-8")
        if path.suffix == ".gz":
            data = gzip.compress(data, compresslevel=5)
        path.write_bytes(data)

    @classmethod
    def load(cls, path: str | Path) -> Page:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        return cls.from_json(raw)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_columns(cls, *, parent: Sequence[int], kind: Sequence[int], tag: Sequence[str],
                     text: Sequence[str], attrs: Sequence[dict[str, str] | None],
                     box: Any = None, bg: Any = None, color: Any = None,
                     font_size: Any = None, font_weight: Any = None, italic: Any = None,
                     font_family: Sequence[str] | None = None,
                     display: Sequence[str] | None = None,
                     position: Sequence[str] | None = None,
                     visible: Any = None, **meta: Any) -> Page:
        """Build a page from plain per-node lists; missing style columns get defaults.

        Used by the renderer, the geometry-free parser and tests that hand-build layouts.
        """
        n = len(parent)
        fam_codes, fams = _codes(font_family) if font_family is not None else _default(n, "serif")
        disp_codes, disps = _codes(display) if display is not None else _default(n, "block")
        pos_codes, poss = _codes(position) if position is not None else _default(n, "static")
        kind_arr = np.asarray(kind, dtype=np.int8)
        if visible is None:  # without layout: everything outside head/script/style... shows
            vis = [True] * n
            for i in range(n):
                p = parent[i]
                vis[i] = tag[i] not in NON_RENDERED_TAGS and (p < 0 or vis[p])
            visible = vis
        return cls(
            parent=np.asarray(parent, dtype=np.int32),
            kind=kind_arr,
            tag=list(tag),
            text=list(text),
            attrs=[a or {} for a in attrs],
            box=np.zeros((n, 4), np.float32) if box is None
            else np.asarray(box, np.float32).reshape(n, 4),
            bg=np.full((n, 3), 255, np.uint8) if bg is None
            else np.asarray(bg, np.uint8).reshape(n, 3),
            color=np.tile(np.array([0, 0, 0, 255], np.uint8), (n, 1)) if color is None
            else np.asarray(color, np.uint8).reshape(n, 4),
            font_size=np.full(n, 16, np.float32) if font_size is None
            else np.asarray(font_size, np.float32),
            font_weight=np.full(n, 400, np.int16) if font_weight is None
            else np.asarray(font_weight, np.int16),
            italic=np.zeros(n, bool) if italic is None else np.asarray(italic, bool),
            font_family=fam_codes, font_families=fams,
            display=disp_codes, displays=disps,
            position=pos_codes, positions=poss,
            visible=np.asarray(visible, dtype=bool),
            **meta,
        )


@dataclass(frozen=True)
class Node:
    """Read-only view of one node of a :class:`Page`."""

    page: Page
    id: int

    @property
    def tag(self) -> str:
        return self.page.tag[self.id]

    @property
    def parent(self) -> int:
        return int(self.page.parent[self.id])

    @property
    def children(self) -> list[int]:
        return self.page.children(self.id).tolist()

    @property
    def is_text(self) -> bool:
        return bool(self.page.kind[self.id] == TEXT)

    @property
    def text(self) -> str:
        return self.page.node_text(self.id)

    @property
    def attrs(self) -> dict[str, str]:
        return self.page.attrs[self.id]

    @property
    def box(self) -> tuple[float, float, float, float]:
        x, y, w, h = self.page.box[self.id].tolist()
        return x, y, w, h

    @property
    def bg(self) -> tuple[int, int, int]:
        r, g, b = self.page.bg[self.id].tolist()
        return r, g, b

    @property
    def visible(self) -> bool:
        return bool(self.page.visible[self.id])

    @property
    def xpath(self) -> str:
        return self.page.xpaths[self.id]

    @property
    def font_size(self) -> float:
        return float(self.page.font_size[self.id])

    @property
    def font_weight(self) -> int:
        return int(self.page.font_weight[self.id])

    @property
    def font_family(self) -> str:
        return self.page.font_families[self.page.font_family[self.id]]

    @property
    def display(self) -> str:
        return self.page.displays[self.page.display[self.id]]

    def __repr__(self) -> str:
        return f"Node({self.id}, {self.tag!r}, {self.xpath})"
