"""Block fusion: densitometric segmentation (Kohlschütter & Nejdl, CIKM 2008).

The page's text is cut into *atomic text blocks*, each block gets a *text density* (tokens per
wrapped line), and neighbouring blocks whose densities are similar are fused until nothing
changes. The page is treated as a one-dimensional sequence of text; no geometry is used, so the
segmenter runs on rendered pages and on :func:`webseg.parse.parse` pages alike.

**Atomic blocks.** A block is a maximal run of text leaves (``Page.text_leaves``) that is not
separated by a *gap-enforcing* boundary: the opening or closing of a block-level element
(:data:`BLOCK_TAGS`: ``p``, ``div``, ``h1``-``h6``, ``li``, ``td``, ``table`` ...) or a run of
two or more ``<br>``. Inline ("gap-avoiding") elements - ``a``, ``b``, ``span``, ``font``,
``img``, a single ``br`` ... - do not split. A leaf-less element counts only when it is
visible (a hidden ``<div>`` between two words does not break a line in a browser either).
With ``boundaries="display"`` a rendered page's computed ``display`` decides instead of the tag
(pages without layout fall back to tags).

**Text density** of a block (the paper's rho): wrap the block's text greedily at
``wrap_width`` = 80 characters; with ``L`` lines and ``T`` tokens,
``rho = T`` when ``L == 1``, otherwise ``rho = (T - tokens on the last line) / (L - 1)``: the
last line is left out because it is usually only partly filled. Tokens are whitespace-separated
words of the whitespace-normalised text.

**Fusion.** The density ratio of two blocks is ``|rho1 - rho2| / max(rho1, rho2)``.

* ``plain`` (BF-plain): scan left to right and fuse each block into its predecessor when the
  ratio is <= ``theta_max``; the fused block's density is recomputed from its whole text (its
  re-wrapped lines); repeat the scan until no block is fused.
* ``smoothed`` (BF-smoothed): as ``plain``, but each scan first fuses triples
  ``b[i-1], b[i], b[i+1]`` whose middle block is sparser than both neighbours while the
  neighbours agree (ratio <= ``theta_max``): a short link or caption inside a run of similar
  text is absorbed instead of cutting it in three. (Our reading of the paper's smoothing step.)
* ``rulebased`` (BF-rulebased, the default, the variant Bing et al. 2014 compare against):
  ``plain`` fusion that never fuses across a boundary where one of the paper's gap-enforcing
  tags (:data:`GAP_ENFORCING_TAGS`: ``h1``-``h6``, ``ul``, ``dl``, ``ol``, ``hr``, ``table``,
  ``address``, ``img``, ``script``) opens or closes, so e.g. a heading always starts a new
  segment. The paper's gap-avoiding tags (:data:`GAP_AVOIDING_TAGS`) never separate blocks in
  the first place (they are inline, so they lie inside atomic blocks).

Deviation from the paper: BF-plain there starts from atomic blocks cut at *every* tag except
``<a>``; here all modes share the block-level atomic blocks above (inline markup such as ``<b>``
never cuts a block), so the modes differ only in how they fuse.

The output is flat: one :class:`~webseg.segmentation.Segment` per fused block, in document
order, with ``attrs = {"density": rho}``. Its nodes are the fewest DOM subtrees that hold
exactly the block's text leaves (each the largest such subtree, never above ``<body>``), so
every text leaf ends up in exactly one segment.

Cost: one vectorised pass over the nodes for the boundaries, one pass over the tokens, and the
wrapping is done line by line with binary search over token prefix sums, incrementally when
blocks fuse, so a fusion costs O(lines of the appended block).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, chain

import numpy as np

from webseg import _native as native
from webseg.page import ELEMENT, Page
from webseg.segmentation import Segment, Segmentation, remember_words
from webseg.segmenters.base import register
from webseg.segmenters.levels import check_level1, with_level1

#: Block-level elements: their start and end cut atomic text blocks (HTML default display
#: block / list-item / table parts, plus form widgets whose text is not running text).
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "col",
    "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption",
    "figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
    "header", "hgroup", "hr", "html", "iframe", "legend", "li", "listing", "main", "menu", "nav",
    "noframes", "ol", "optgroup", "option", "p", "plaintext", "pre", "section", "select",
    "summary", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "tr", "ul", "xmp",
})

#: Kohlschütter & Nejdl's gap-enforcing tags: BF-rulebased never fuses across them.
GAP_ENFORCING_TAGS = frozenset({
    "h1", "h2", "h3", "h4", "h5", "h6", "ul", "dl", "ol", "hr", "table", "address", "img",
    "script",
})

#: Kohlschütter & Nejdl's gap-avoiding tags (inline: they never cut an atomic block here).
GAP_AVOIDING_TAGS = frozenset({
    "a", "b", "br", "em", "font", "i", "s", "span", "strong", "sub", "sup", "u", "tt",
})

#: Computed ``display`` values that start a new line box (``boundaries="display"``).
BLOCK_DISPLAYS = frozenset({
    "block", "flex", "grid", "table", "list-item", "table-row", "table-cell",
    "table-row-group", "table-header-group", "table-footer-group", "table-caption",
    "table-column", "table-column-group", "flow-root", "inline-block", "inline-flex",
    "inline-grid", "inline-table", "ruby-base-container",
})

#: Leaf-less elements that count as a boundary even when not visible (markup-level rule).
_ALWAYS_COUNT = frozenset({"script"})

_GAP, _ENFORCE, _BR = 1, 2, 4


def _tag_flags(enforcing: frozenset[str]) -> dict[str, int]:
    """Tag -> bit set of _GAP (cuts atomic blocks), _ENFORCE (fusion barrier), _BR."""
    return {t: ((_GAP if t in BLOCK_TAGS else 0) | (_ENFORCE if t in enforcing else 0)
                | (_BR if t == "br" else 0))
            for t in BLOCK_TAGS | enforcing | {"br"}}


_TAG_FLAGS = _tag_flags(GAP_ENFORCING_TAGS)

#: A fourth bit for the compiled flag pass: the tag is in :data:`_ALWAYS_COUNT`.
_ALWAYS = 8
_ALWAYS_TABLES: dict[int, tuple[dict[str, int], dict[str, int]]] = {}


def _with_always(table: dict[str, int]) -> dict[str, int]:
    """``table`` with the :data:`_ALWAYS` bit added for the always-counting tags (kept per
    table, so the module's own table is extended once)."""
    got = _ALWAYS_TABLES.get(id(table))
    if got is not None and got[0] is table:
        return got[1]
    both = dict(table)
    for t in _ALWAYS_COUNT:
        both[t] = both.get(t, 0) | _ALWAYS
    if table is _TAG_FLAGS:
        _ALWAYS_TABLES[id(table)] = (table, both)
    return both

MODES = ("plain", "smoothed", "rulebased")

#: Default ``theta_max`` per mode, tuned on the kreuzer-random dev split (train + val, 41
#: pages) only, by mean ARI averaged over gold levels 1 and 2 (grid 0..1 step 0.02):
#:   python -m eval.tune_blockfusion --data ../shared/data/segmentation/kreuzer-random \
#:       --out eval/results/tune_blockfusion
#: dev results at the chosen values (ARI L1 / L2 / avg, NMI avg, segments per page):
#:   rulebased 0.92: 0.305 / 0.580 / 0.442, NMI 0.679, 20.8 segments (flat from 0.92 to 1.0:
#:     at its best, BF-rulebased here is the gap-enforcing tags alone; theta 0.38 gives 0.314,
#:     0.65 gives 0.392)
#:   plain     0.32: 0.185 / 0.340 / 0.263, NMI 0.538, 24.3 segments
#:   smoothed  0.10: 0.179 / 0.349 / 0.264, NMI 0.558, 25.0 segments
DEFAULT_THETA_MAX: dict[str, float] = {"rulebased": 0.92, "plain": 0.32, "smoothed": 0.10}


# ----------------------------------------------------------------------------- text density
def _wrap(cum: list[int], start: int, end: int, width: int) -> tuple[int, int]:
    """Greedy word wrap of tokens ``start:end`` at ``width`` characters.

    ``cum[i]`` is the sum of ``len(token) + 1`` over the tokens before ``i``, so tokens
    ``s:t`` fit on one line when ``cum[t] - cum[s] - 1 <= width``. Returns (number of lines,
    index of the first token of the last line); a token longer than ``width`` gets a line of
    its own. One binary search per line.
    """
    lines = 1
    s = start
    while True:
        t = bisect_right(cum, cum[s] + width + 1, s + 1, end + 1) - 1
        if t <= s:
            t = s + 1
        if t >= end:
            return lines, s
        s = t
        lines += 1


def _density(start: int, end: int, lines: int, last: int) -> float:
    """rho for tokens ``start:end`` wrapped into ``lines`` lines, the last one from ``last``."""
    if lines <= 1:
        return float(end - start)
    return (last - start) / (lines - 1)


def wrap_stats(text: str, wrap_width: int = 80) -> tuple[int, int, int]:
    """(tokens, lines, tokens on the last line) of ``text`` wrapped at ``wrap_width`` chars."""
    toks = text.split()
    if not toks:
        return 0, 0, 0
    cum = list(accumulate((len(w) + 1 for w in toks), initial=0))
    lines, last = _wrap(cum, 0, len(toks), wrap_width)
    return len(toks), lines, len(toks) - last


def text_density(text: str, wrap_width: int = 80) -> float:
    """Kohlschütter & Nejdl's text density: tokens per wrapped line, last line excluded.

    >>> text_density("word " * 5)          # one line: its token count
    5.0
    >>> text_density("abcde " * 40)        # 13 words per 80-char line, 4 lines
    13.0
    """
    tokens, lines, on_last = wrap_stats(text, wrap_width)
    if lines == 0:
        return 0.0
    return _density(0, tokens, lines, tokens - on_last)


def density_ratio(d1: float, d2: float) -> float:
    """``|d1 - d2| / max(d1, d2)`` (0 when both are 0)."""
    m = max(d1, d2)
    return abs(d1 - d2) / m if m > 0 else 0.0


# ----------------------------------------------------------------------------- atomic blocks
def _boundaries(page: Page, boundaries: str = "tags",
                enforcing: frozenset[str] = GAP_ENFORCING_TAGS
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gap structure between consecutive text leaves.

    Returns ``(gap, enforce, lo, hi)``: boolean arrays over the ``L + 1`` positions between
    text leaves (position ``k`` lies between leaf ``k - 1`` and leaf ``k``) telling whether an
    atomic-block gap / a gap-enforcing tag is there, and for every node the range
    ``lo[v]:hi[v]`` of text-leaf positions in its subtree.
    """
    leaves = page.text_leaves
    n, nl = page.n, len(leaves)
    # before[x]: the text leaves before node x (0 <= x <= n), what a binary search of the
    # sorted leaves for x answers (np.searchsorted), for every node at once
    before = np.zeros(n + 1, dtype=np.intp)
    before[leaves + 1] = 1
    np.cumsum(before, out=before)
    lo = before[:n]
    hi = before[page.subtree_end]
    table = _TAG_FLAGS if enforcing == GAP_ENFORCING_TAGS else _tag_flags(enforcing)
    bt = native.load("blocktext")
    if bt is not None:  # every node's flags, _ALWAYS among them, by one compiled pass
        both = np.frombuffer(bt.tag_flags(page.tag, _with_always(table)), dtype=np.int8)
        flags = both & (_GAP | _ENFORCE | _BR)
        always = (both & _ALWAYS) != 0
    else:
        # per distinct tag, then one gather: a page has a few dozen tags over its nodes
        codes = {t: k for k, t in enumerate(dict.fromkeys(page.tag))}
        tag_inv = np.fromiter(map(codes.__getitem__, page.tag), dtype=np.intp, count=n)
        flags = np.array([table.get(t, 0) for t in codes], dtype=np.int8)[tag_inv]
        always = np.array([t in _ALWAYS_COUNT for t in codes], dtype=bool)[tag_inv]
    if boundaries == "display" and page.has_layout:
        disp = np.array([d in BLOCK_DISPLAYS for d in page.displays], dtype=bool)
        is_block = disp[page.display] if len(disp) else np.zeros(n, bool)
        flags = (flags & ~_GAP) | np.where(is_block, _GAP, 0).astype(np.int8)
    elem = page.kind == ELEMENT
    has_leaves = hi > lo
    counts = elem & (has_leaves | page.visible | always)

    def mark(sel: np.ndarray) -> np.ndarray:
        out = np.zeros(nl + 1, dtype=bool)
        out[lo[sel]] = True
        out[hi[sel]] = True
        return out

    gap = mark(counts & ((flags & _GAP) != 0))
    enforce = mark(counts & ((flags & _ENFORCE) != 0))
    br = counts & ((flags & _BR) != 0) & ~has_leaves
    if br.any():
        gap |= np.bincount(lo[br], minlength=nl + 1)[: nl + 1] >= 2
    return gap, enforce, lo, hi


def atomic_blocks(page: Page, boundaries: str = "tags") -> list[tuple[int, int]]:
    """Atomic text blocks as ranges ``(first, last + 1)`` of positions in ``page.text_leaves``."""
    nl = len(page.text_leaves)
    if nl == 0:
        return []
    gap = _boundaries(page, boundaries)[0]
    cuts = [0, *(np.flatnonzero(gap[1:nl]) + 1).tolist(), nl]
    return list(zip(cuts[:-1], cuts[1:], strict=True))


def block_roots(page: Page, lo: np.ndarray | list[int], hi: np.ndarray | list[int],
                first: int, stop: int) -> list[int]:
    """Fewest DOM subtrees holding exactly the text leaves at positions ``first:stop``.

    From each leaf not yet covered, climb while the parent's text leaves all lie in the range
    (never above ``<body>``), so each root is the largest subtree made of the block's text
    only; leaf-less content inside it (images, empty wrappers) comes along.
    """
    leaves = page.text_leaves
    parent = page.parent
    body = page.body
    roots: list[int] = []
    k = first
    while k < stop:
        v = int(leaves[k])
        p = int(parent[v])
        while p >= 0 and v != body and lo[p] >= first and hi[p] <= stop:
            v = p
            p = int(parent[v])
        roots.append(v)
        k = hi[v]
    return roots


# ----------------------------------------------------------------------------- segmenter
@register("blockfusion", "block fusion by text density (Kohlschütter & Nejdl 2008), "
          "BF-rulebased by default")
@dataclass
class BlockFusion:
    """Densitometric block fusion.

    ``theta_max``: largest density ratio ``|d1 - d2| / max(d1, d2)`` that still fuses two
    neighbouring blocks (0 fuses only equal densities, 1 fuses everything not separated by a
    rule); ``None`` takes the per-mode default :data:`DEFAULT_THETA_MAX` tuned on the dev
    split. ``mode``: ``"rulebased"`` (default), ``"plain"`` or ``"smoothed"`` (see the module
    docstring). ``wrap_width``: characters per line for the density. ``boundaries``:
    ``"tags"`` (default; block-level tags cut atomic blocks) or ``"display"`` (computed CSS
    display of a rendered page; tags when the page has no layout). ``level1``: ``"dom"``
    (default) groups the fused blocks under the ``dom`` baseline's level-1 blocks, which become
    level 1 (the fused blocks are level 2, unchanged; a page without layout stays flat);
    ``"vips"`` under VIPS's level-1 visual blocks (a better level 1, 0.691 vs 0.638 ARI on
    kreuzer-random, but it costs a VIPS run and would take the fast baseline past its 5 ms
    median); ``"none"``: the flat output (see :mod:`webseg.segmenters.levels`).

    >>> from webseg.parse import parse
    >>> page = parse(b"<h1>Title</h1><p>Some text here.</p><p>More text there.</p>")
    >>> [s.text for s in BlockFusion().segment(page)]
    ['Title', 'Some text here. More text there.']
    """

    theta_max: float | None = None
    mode: str = "rulebased"
    wrap_width: int = 80
    boundaries: str = "tags"
    enforcing_tags: frozenset[str] = GAP_ENFORCING_TAGS
    level1: str = "dom"
    name: str = "blockfusion"
    needs_layout: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"blockfusion: mode must be one of {', '.join(MODES)}, "
                             f"got {self.mode!r}")
        if self.boundaries not in ("tags", "display"):
            raise ValueError(f"blockfusion: boundaries must be 'tags' or 'display', "
                             f"got {self.boundaries!r}")
        if not self.wrap_width >= 1:
            raise ValueError(f"blockfusion: wrap_width must be >= 1, got {self.wrap_width!r}")
        if self.theta_max is None:
            self.theta_max = DEFAULT_THETA_MAX[self.mode]
        self.theta_max = float(self.theta_max)
        if not self.theta_max == self.theta_max:  # NaN would silently never fuse
            raise ValueError("blockfusion: theta_max must be a number, got NaN")
        if isinstance(self.enforcing_tags, str):
            raise ValueError("blockfusion: enforcing_tags must be a collection of tag names")
        self.enforcing_tags = frozenset(t.lower() for t in self.enforcing_tags)
        check_level1("blockfusion", self.level1)

    @property
    def params(self) -> dict[str, object]:
        return {"theta_max": self.theta_max, "mode": self.mode, "wrap_width": self.wrap_width,
                "boundaries": self.boundaries, "enforcing_tags": sorted(self.enforcing_tags)}

    def fuse(self, page: Page) -> list[tuple[int, int, float]]:
        """Fused blocks as ``(first, stop, density)``: ranges of ``page.text_leaves`` positions."""
        return self._fuse(page)[0]

    def _fuse(self, page: Page) -> tuple[list[tuple[int, int, float]], np.ndarray, np.ndarray,
                                         list[list[str]]]:
        """Fused blocks, the ``lo, hi`` leaf ranges of every node and the tokens of each leaf."""
        leaves = page.text_leaves
        nl = len(leaves)
        if nl == 0:
            return [], np.zeros(page.n, np.int64), np.zeros(page.n, np.int64), []
        gap, enforce, lo, hi = _boundaries(page, self.boundaries, self.enforcing_tags)
        barrier = enforce if self.mode == "rulebased" else np.zeros(nl + 1, bool)

        # tokens of every leaf in document order (str.split() also normalises whitespace);
        # cum: prefix sums of len(token) + 1 over the page's tokens
        texts = page.text
        toks_per_leaf = [texts[j].split() for j in leaves.tolist()]
        width = self.wrap_width
        nat = native.load("fusion")
        if nat is not None and self.mode != "smoothed" and width < 2**31:
            # the compiled merge loop (webseg/_native/fusion.c): the same blocks and
            # densities; the same prefix sums, as int64 arrays
            lens = np.fromiter(map(len, chain.from_iterable(toks_per_leaf)), dtype=np.int64)
            cum_a = np.zeros(len(lens) + 1, dtype=np.int64)
            np.cumsum(lens + 1, out=cum_a[1:])
            starts = np.zeros(nl + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, toks_per_leaf), dtype=np.int64, count=nl),
                      out=starts[1:])
            cuts_a = np.concatenate([[0], np.flatnonzero(gap[1:nl]) + 1, [nl]]).astype(np.int64)
            fused = nat.fuse(cum_a, starts, cuts_a, np.ascontiguousarray(barrier, dtype=bool),
                             width, self.theta_max)
            return fused, lo, hi, toks_per_leaf
        tok_start = list(accumulate(map(len, toks_per_leaf), initial=0))
        cum = list(accumulate(map((1).__add__, map(len, chain.from_iterable(toks_per_leaf))),
                              initial=0))

        # a block: [leaf_first, leaf_stop, tok_start, tok_end, lines, last_line_start, rho]
        cuts = [0, *(np.flatnonzero(gap[1:nl]) + 1).tolist(), nl]
        blocks: list[list] = []
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            s, e = tok_start[a], tok_start[b]
            lines, last = _wrap(cum, s, e, width)
            blocks.append([a, b, s, e, lines, last, _density(s, e, lines, last)])

        def merge(x: list, y: list) -> list:
            lines2, last2 = _wrap(cum, x[5], y[3], width)
            lines = x[4] - 1 + lines2
            return [x[0], y[1], x[2], y[3], lines, last2, _density(x[2], y[3], lines, last2)]

        theta = self.theta_max
        bar = barrier.tolist()
        changed = True
        while changed and len(blocks) > 1:
            changed = False
            if self.mode == "smoothed":
                out: list[list] = []
                i, m = 0, len(blocks)
                while i < m:
                    if i + 2 < m:
                        x, y, z = blocks[i], blocks[i + 1], blocks[i + 2]
                        if (y[6] < x[6] and y[6] < z[6]
                                and density_ratio(x[6], z[6]) <= theta):
                            out.append(merge(merge(x, y), z))
                            i += 3
                            changed = True
                            continue
                    out.append(blocks[i])
                    i += 1
                blocks = out
            out = [blocks[0]]
            for y in blocks[1:]:
                x = out[-1]
                if not bar[y[0]] and density_ratio(x[6], y[6]) <= theta:
                    out[-1] = merge(x, y)
                    changed = True
                else:
                    out.append(y)
            blocks = out
        return [(b[0], b[1], b[6]) for b in blocks], lo, hi, toks_per_leaf

    def segment(self, page: Page) -> Segmentation:
        """The fused blocks (level 2) under a level 1 chosen by ``level1``
        (:mod:`webseg.segmenters.levels`; ``"none"`` or a page without layout: flat)."""
        return with_level1(self.segment_flat(page), self.level1)

    def _compiled(self) -> tuple[object, object] | None:
        """(fusion, blocktext): the compiled merge loop and text work, when both are built
        and serve this configuration (the smoothed mode has no compiled loop)."""
        if self.mode == "smoothed" or self.wrap_width >= 2**31:
            return None
        nat, bt = native.load("fusion"), native.load("blocktext")
        return None if nat is None or bt is None else (nat, bt)

    def _fuse_compiled(self, page: Page, nat: object, bt: object
                       ) -> tuple[list[tuple[int, int, float]], np.ndarray, np.ndarray, bytes]:
        """:meth:`_fuse` with the leaves' tokens counted in C (``blocktext.leaf_tokens``:
        the prefix sums and token starts :meth:`_fuse` builds from ``str.split()``), no token
        lists made; the same blocks and densities. Also returns the token starts (int64
        bytes: each leaf's first token, and the number of tokens at the end)."""
        leaves = page.text_leaves
        nl = len(leaves)
        if nl == 0:  # no text: no block (as _fuse)
            return ([], np.zeros(page.n, np.int64), np.zeros(page.n, np.int64),
                    np.zeros(1, np.int64).tobytes())
        gap, enforce, lo, hi = _boundaries(page, self.boundaries, self.enforcing_tags)
        barrier = enforce if self.mode == "rulebased" else np.zeros(nl + 1, bool)
        cum, starts = bt.leaf_tokens(page.text, np.ascontiguousarray(leaves, dtype=np.int32))
        cuts_a = np.concatenate([[0], np.flatnonzero(gap[1:nl]) + 1, [nl]]).astype(np.int64)
        fused = nat.fuse(cum, starts, cuts_a, np.ascontiguousarray(barrier, dtype=bool),
                         self.wrap_width, self.theta_max)
        return fused, lo, hi, starts

    def segment_flat(self, page: Page) -> Segmentation:
        """One segment per fused block, flat (what ``level1="none"`` returns). With the C
        extensions built, the tokens, the block texts and the roots are made in C
        (``webseg/_native/blocktext.c``), the same values as the Python code below."""
        compiled = self._compiled() if len(page.text_leaves) else None
        if compiled is not None:
            nat, bt = compiled
            fused, lo, hi, starts = self._fuse_compiled(page, nat, bt)
            leaves32 = np.ascontiguousarray(page.text_leaves, dtype=np.int32)
            texts = bt.block_texts(page.text, leaves32, fused)
            roots = bt.block_roots(np.ascontiguousarray(page.parent, dtype=np.int32), leaves32,
                                   np.ascontiguousarray(lo, dtype=np.int64),
                                   np.ascontiguousarray(hi, dtype=np.int64), int(page.body),
                                   fused)
        else:
            fused, lo, hi, toks = self._fuse(page)
            if not fused:
                return Segmentation(page, [], algorithm=self.name, params=self.params)
            lo_l, hi_l = lo.tolist(), hi.tolist()
            roots = [tuple(sorted(block_roots(page, lo_l, hi_l, a, b))) for a, b, _ in fused]
            texts = [" ".join(chain.from_iterable(toks[a:b])) for a, b, _ in fused]
        boxes = (_union_boxes(page, roots) if page.has_layout
                 else [(0.0, 0.0, 0.0, 0.0)] * len(roots))
        segs = [Segment(id=k, nodes=r, box=box, text=text, attrs={"density": float(rho)})
                for k, ((_, _, rho), r, box, text)
                in enumerate(zip(fused, roots, boxes, texts, strict=True))]
        if compiled is not None:  # each text's word count, known from the token starts
            st = np.frombuffer(starts, dtype=np.int64).tolist()
            for s, (a, b, _) in zip(segs, fused, strict=True):
                remember_words(s, st[b] - st[a])
        return Segmentation(page, segs, algorithm=self.name, params=self.params)


def _union_boxes(page: Page, roots: list[tuple[int, ...]]
                 ) -> list[tuple[float, float, float, float]]:
    """:func:`~webseg.segmentation.node_union_box` of every root set, in one vectorised pass.

    The root sets' subtrees are disjoint pre-order ranges, so per-range minima and maxima come
    from one ``reduceat`` each.
    """
    n = page.n
    b = page.box
    ok = page.visible & (b[:, 2] > 0) & (b[:, 3] > 0)
    inf = np.float32(np.inf)
    cols = np.empty((4, n + 1), dtype=np.float32)
    cols[0, :n] = np.where(ok, b[:, 0], inf)
    cols[1, :n] = np.where(ok, b[:, 1], inf)
    cols[2, :n] = np.where(ok, b[:, 0] + b[:, 2], -inf)
    cols[3, :n] = np.where(ok, b[:, 1] + b[:, 3], -inf)
    cols[:2, n], cols[2:, n] = inf, -inf
    flat = sorted((r, k) for k, rs in enumerate(roots) for r in rs)
    starts = np.array([r for r, _ in flat], dtype=np.int64)
    seg = np.array([k for _, k in flat], dtype=np.int64)
    idx = np.empty(2 * len(flat), dtype=np.int64)
    idx[0::2] = starts
    idx[1::2] = page.subtree_end[starts]
    lo = np.minimum.reduceat(cols[:2], idx, axis=1)[:, 0::2]
    hi = np.maximum.reduceat(cols[2:], idx, axis=1)[:, 0::2]
    m = len(roots)
    out = np.empty((4, m), dtype=np.float32)
    out[:2], out[2:] = inf, -inf
    np.minimum.at(out[0], seg, lo[0])
    np.minimum.at(out[1], seg, lo[1])
    np.maximum.at(out[2], seg, hi[0])
    np.maximum.at(out[3], seg, hi[1])
    empty = ~np.isfinite(out[0])
    out[2:] -= out[:2]  # float32 widths and heights, as node_union_box computes them
    out[:, empty] = 0.0
    return [(x, y, w, h) for x, y, w, h in out.T.tolist()]
