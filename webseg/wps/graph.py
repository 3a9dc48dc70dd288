"""WPS-graph construction (Bing et al., SIGIR 2014, Section 3.2 and Algorithm 1).

A *WPS-graph* has one vertex per candidate segmentation boundary of a page and one directed edge
``<b_i, b_j>`` per dependency "``b_j`` can be Y only if ``b_i`` is Y" (Definition 1). It is built
top-down, breadth first (Algorithm 1):

* A *region* is a rectangle of the page holding a set of DOM subtrees (its ``items``). The root
  region is the whole page with the ``<body>`` subtree in it.
* While a region is made of a single subtree, the subtree is replaced by its children that have
  visible content (``table -> tbody -> tr -> td``); a subtree with no block-level content below
  it (a paragraph, a link, a text node, an image) is an *atom* and is never opened.
* A region is *separable* when its items can be cut apart by horizontal lines (tried first) or,
  failing that, by vertical lines: items are projected on the y (x) axis and every gap in the
  projection is a candidate boundary. A boundary therefore never cuts a subtree, and the
  sub-regions between consecutive boundaries are rectangles (full width of the region for
  horizontal cuts, full height for vertical ones).
* Boundaries that split a region ``s`` depend on the boundaries that *form* ``s``: the one or two
  boundaries of the split of ``s``'s parent region that are adjacent to ``s``. So every vertex
  depends directly on at most two others, and indirectly on the rest of its frame.

Only visible content counts: text leaves (``page.text_leaves``) and replaced elements (images,
video, iframes, form controls ...) that are visible, have a non-empty box and are not entirely
off the page (left of / above the origin, or beyond the page size). Every other node is
invisible to the construction: it takes no space and is never a region item.

Vertex ids are assigned in construction (breadth-first) order, which is a topological order of
the graph: a vertex's dependencies always have smaller ids.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from webseg.page import TEXT, Page
from webseg.segmentation import Segment, Segmentation

HORIZONTAL = 0  #: a horizontal line: splits a region into bands one above the other
VERTICAL = 1  #: a vertical line: splits a region into columns side by side

#: Elements whose box is content even without text.
REPLACED_TAGS = frozenset({"img", "image", "svg", "video", "audio", "canvas", "iframe", "embed",
                           "object", "input", "select", "textarea", "button", "frame"})

#: Display values that do not start a block: content under such nodes flows in lines.
INLINE_DISPLAYS = frozenset({"inline", "#text", "contents", "ruby"})


@dataclass
class Region:
    """A rectangular region of the WPS construction (a node of the segment tree).

    ``items``: root ids of the DOM subtrees inside, in document order (after descending through
    single-subtree chains). ``rect``: (x0, y0, x1, y1) in document px. ``forming``: the vertices
    adjacent to the region in its parent's split (the direct dependencies of every boundary that
    splits this region). ``split``: orientation of this region's own boundaries (-1 when the
    region is inseparable); ``boundaries`` and ``children`` list them and the sub-regions between
    them in reading order (``len(children) == len(boundaries) + 1``).
    """

    id: int
    items: tuple[int, ...]
    rect: tuple[float, float, float, float]
    parent: int = -1
    forming: tuple[int, ...] = ()
    level: int = 0
    split: int = -1
    boundaries: tuple[int, ...] = ()
    children: tuple[int, ...] = ()


@dataclass
class WPSGraph:
    """Candidate boundaries (vertices, column-wise) and their dependencies of one page.

    Vertex columns (length ``n``): ``orientation`` (:data:`HORIZONTAL` / :data:`VERTICAL`),
    ``position`` (y of a horizontal line, x of a vertical one), ``gap`` (whitespace between the
    two sides, px; may be slightly negative within the overlap tolerance), ``region`` (the region
    the boundary splits), ``before`` / ``after`` (the adjacent sub-regions above/left and
    below/right: the paper's ``s_i^o`` and ``s_i^b``), ``depth`` (level of the split region, 0 for
    the page). ``deps[i]``: the vertices ``b_i`` directly depends on (at most two).
    """

    page: Page
    regions: list[Region]
    orientation: np.ndarray
    position: np.ndarray
    gap: np.ndarray
    region: np.ndarray
    before: np.ndarray
    after: np.ndarray
    depth: np.ndarray
    deps: list[tuple[int, ...]]
    params: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of vertices (candidate boundaries)."""
        return len(self.orientation)

    def __len__(self) -> int:
        return self.n

    @property
    def edges(self) -> np.ndarray:
        """(m, 2) int array of edges ``(i, j)``: ``j`` depends on ``i`` (``x_i >= x_j``)."""
        e = [(i, j) for j, ds in enumerate(self.deps) for i in ds]
        return np.asarray(e, dtype=np.int64).reshape(-1, 2)

    def side_nodes(self, v: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """DOM subtree roots of the two sides of boundary ``v`` (``s_v^o``, ``s_v^b``)."""
        return self.regions[int(self.before[v])].items, self.regions[int(self.after[v])].items

    def is_feasible(self, labels: Sequence[bool] | np.ndarray) -> bool:
        """True when the labelling (Y = True) respects every dependency edge."""
        y = _as_labels(labels, self.n)
        e = self.edges
        return bool(np.all(y[e[:, 0]] >= y[e[:, 1]])) if len(e) else True

    def closure(self, labels: Sequence[bool] | np.ndarray) -> np.ndarray:
        """The labelling with every Y whose dependencies are not all Y turned into N."""
        y = _as_labels(labels, self.n).copy()
        for j in range(self.n):  # ids are topologically ordered
            if y[j] and not all(y[i] for i in self.deps[j]):
                y[j] = False
        return y

    def to_segmentation(self, labels: Sequence[bool] | np.ndarray, algorithm: str = "wps",
                        check: bool = True) -> Segmentation:
        """The hierarchical segmentation of a labelling (Y = True splits).

        In every region split by at least one Y boundary, the Y boundaries cut the sub-regions
        into groups of consecutive sub-regions; each group is a segment (one level below the
        region's), and a group of one sub-region is split further by its own Y boundaries. A
        segment's ``nodes`` are the DOM subtrees inside it and ``attrs["rect"]`` its rectangle;
        the top level is the split of the whole page (one segment when nothing splits it).
        With ``check`` an infeasible labelling raises ``ValueError``; without, Y labels below an
        N dependency are ignored (as :meth:`closure` does).
        """
        y = _as_labels(labels, self.n)
        if check and not self.is_feasible(y):
            bad = [j for j in range(self.n) if y[j] and not all(y[i] for i in self.deps[j])]
            raise ValueError(f"labelling violates WPS dependencies at vertices {bad[:10]} "
                             f"(a boundary is Y while one it depends on is N)")
        segs: list[Segment] = []

        def add(items: Sequence[int], rect: tuple[float, ...], parent: int | None) -> int:
            sid = len(segs)
            segs.append(Segment(id=sid, nodes=tuple(sorted(set(items))), parent=parent,
                                attrs={"rect": [round(float(v), 2) for v in rect]}))
            return sid

        def emit(reg: Region, parent: int | None) -> None:
            cuts = [k for k, b in enumerate(reg.boundaries) if y[b]]
            if not cuts:
                return
            bounds = [0, *[k + 1 for k in cuts], len(reg.children)]
            for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
                group = [self.regions[c] for c in reg.children[lo:hi]]
                items = [i for g in group for i in g.items]
                rect = (min(g.rect[0] for g in group), min(g.rect[1] for g in group),
                        max(g.rect[2] for g in group), max(g.rect[3] for g in group))
                sid = add(items, rect, parent)
                if len(group) == 1:
                    emit(group[0], sid)

        root = self.regions[0]
        if root.items:
            if any(y[b] for b in root.boundaries):
                emit(root, None)
            else:
                add(root.items, root.rect, None)
        return Segmentation(self.page, segs, algorithm=algorithm, params=dict(self.params))

    def leaf_regions(self) -> list[Region]:
        """Regions that are not split further (the finest possible segments)."""
        return [r for r in self.regions if r.split < 0]


def _as_labels(labels: Sequence[bool] | np.ndarray, n: int) -> np.ndarray:
    y = np.asarray(labels).astype(bool).ravel()
    if len(y) != n:
        raise ValueError(f"labelling has {len(y)} entries, the WPS-graph has {n} vertices")
    return y


def content_mask(page: Page) -> np.ndarray:
    """Nodes that are visible content atoms: text leaves and sized replaced elements on the page."""
    b = page.box.astype(np.float64)
    sized = page.visible & (b[:, 2] > 0) & (b[:, 3] > 0)
    w = float(page.width) if page.width > 0 else np.inf
    h = float(page.height) if page.height > 0 else np.inf
    on_page = (b[:, 0] + b[:, 2] > 0) & (b[:, 1] + b[:, 3] > 0) & (b[:, 0] < w) & (b[:, 1] < h)
    replaced = np.fromiter((t in REPLACED_TAGS for t in page.tag), dtype=bool, count=page.n)
    return sized & on_page & (page.text_leaf_mask | (replaced & page.is_element))


def content_boxes(page: Page, mask: np.ndarray) -> np.ndarray:
    """(n, 4) x0, y0, x1, y1 union of the content atoms of each subtree (NaN without content)."""
    b = page.box.astype(np.float64)
    cb = np.full((page.n, 4), np.nan)
    cb[mask, 0] = b[mask, 0]
    cb[mask, 1] = b[mask, 1]
    cb[mask, 2] = b[mask, 0] + b[mask, 2]
    cb[mask, 3] = b[mask, 1] + b[mask, 3]
    lo = np.where(np.isnan(cb[:, :2]), np.inf, cb[:, :2])
    hi = np.where(np.isnan(cb[:, 2:]), -np.inf, cb[:, 2:])
    depth = page.depth
    par = page.parent
    order = np.argsort(-depth, kind="stable")
    # propagate one depth level at a time, deepest first (vectorised per level)
    levels = np.split(order, np.flatnonzero(np.diff(depth[order])) + 1)
    for nodes in levels:
        nodes = nodes[par[nodes] >= 0]
        if not len(nodes):
            continue
        p = par[nodes]
        np.minimum.at(lo, p, lo[nodes])
        np.maximum.at(hi, p, hi[nodes])
    out = np.concatenate([lo, hi], axis=1)
    out[~np.isfinite(out[:, 0])] = np.nan
    return out


def atom_mask(page: Page, has_content: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Nodes never opened by the construction: content atoms and subtrees without block content.

    A node is an atom when no element strictly below it has content and a block-level display
    (so a paragraph with links, or a link with an image, stays whole).
    """
    inline = np.array([d in INLINE_DISPLAYS for d in page.displays], dtype=bool)
    disp_inline = inline[page.display] if len(page.displays) else np.ones(page.n, bool)
    blocky = page.is_element & has_content & ~disp_inline & ~mask
    cs = np.concatenate([[0], np.cumsum(blocky)])
    below = cs[page.subtree_end] - cs[np.arange(page.n) + 1]
    return mask | (below == 0) | (page.kind == TEXT)


def _cuts(lo: np.ndarray, hi: np.ndarray, tol: float) -> tuple[np.ndarray, list[tuple[int, ...]],
                                                                list[float], list[float]]:
    """Gaps of the projection of intervals [lo, hi]: (order, groups, positions, gaps)."""
    order = np.lexsort((hi, lo))
    runmax = np.maximum.accumulate(hi[order])
    nxt = lo[order][1:]
    cut = np.flatnonzero(runmax[:-1] <= nxt + tol)
    groups = np.split(order, cut + 1)
    pos = [float((runmax[k] + nxt[k]) / 2) for k in cut]
    gaps = [float(nxt[k] - runmax[k]) for k in cut]
    return order, [tuple(int(i) for i in g) for g in groups], pos, gaps


def build_graph(page: Page, *, overlap_tol: float = 1.0, open_inline: bool = False,
                root: int | None = None) -> WPSGraph:
    """Build the WPS-graph of a rendered page (Algorithm 1).

    ``overlap_tol``: two items whose projections overlap by at most this many px may still be
    cut apart (rendered boxes of adjacent lines often overlap by a fraction of a pixel).
    ``open_inline``: also descend into subtrees without block-level content (lines of text,
    runs of inline links), which adds vertical boundaries between words and links.
    ``root``: the node whose subtree is segmented (default ``<body>``).
    """
    page.require_layout()
    mask = content_mask(page)
    cbox = content_boxes(page, mask)
    has_content = ~np.isnan(cbox[:, 0])
    atom = mask.copy() if open_inline else atom_mask(page, has_content, mask)
    root_id = page.body if root is None else int(root)

    def open_chain(items: list[int]) -> list[int]:
        while len(items) == 1 and not atom[items[0]]:
            ch = page.children(items[0])
            ch = ch[has_content[ch]]
            if not len(ch):
                break
            items = [int(c) for c in ch]
        return items

    regions: list[Region] = []
    cols: dict[str, list] = {k: [] for k in ("orientation", "position", "gap", "region", "before",
                                             "after", "depth")}
    deps: list[tuple[int, ...]] = []
    if has_content[root_id]:
        x1 = max(float(page.width), float(cbox[root_id, 2]))
        y1 = max(float(page.height), float(cbox[root_id, 3]))
        regions.append(Region(0, tuple(open_chain([root_id])), (0.0, 0.0, x1, y1)))
    else:
        regions.append(Region(0, (), (0.0, 0.0, float(page.width), float(page.height))))
    queue = deque([0] if regions[0].items else [])
    while queue:
        reg = regions[queue.popleft()]
        items = np.asarray(reg.items, dtype=np.int64)
        if len(items) < 2:
            continue
        for orient in (HORIZONTAL, VERTICAL):
            lo_c, hi_c = (1, 3) if orient == HORIZONTAL else (0, 2)
            _, groups, pos, gaps = _cuts(cbox[items, lo_c], cbox[items, hi_c], overlap_tol)
            if len(groups) > 1:
                break
        else:
            continue  # inseparable: a leaf region
        first_v = len(deps)
        k = len(groups)
        vids = tuple(range(first_v, first_v + k - 1))
        edges = [reg.rect[lo_c]] + pos + [reg.rect[hi_c]]
        child_ids = []
        for g_idx, g in enumerate(groups):
            rid = len(regions)
            sub = sorted(int(items[i]) for i in g)
            rect = list(reg.rect)
            rect[lo_c], rect[hi_c] = edges[g_idx], edges[g_idx + 1]
            forming = tuple(v for v in (first_v + g_idx - 1, first_v + g_idx)
                            if first_v <= v < first_v + k - 1)
            regions.append(Region(rid, tuple(open_chain(sub)), (rect[0], rect[1], rect[2],
                                                                 rect[3]),
                                  parent=reg.id, forming=forming, level=reg.level + 1))
            child_ids.append(rid)
            queue.append(rid)
        for t in range(k - 1):
            cols["orientation"].append(orient)
            cols["position"].append(pos[t])
            cols["gap"].append(gaps[t])
            cols["region"].append(reg.id)
            cols["before"].append(child_ids[t])
            cols["after"].append(child_ids[t + 1])
            cols["depth"].append(reg.level)
            deps.append(reg.forming)
        reg.split, reg.boundaries, reg.children = orient, vids, tuple(child_ids)
    return WPSGraph(
        page=page, regions=regions,
        orientation=np.asarray(cols["orientation"], dtype=np.int8),
        position=np.asarray(cols["position"], dtype=np.float64),
        gap=np.asarray(cols["gap"], dtype=np.float64),
        region=np.asarray(cols["region"], dtype=np.int32),
        before=np.asarray(cols["before"], dtype=np.int32),
        after=np.asarray(cols["after"], dtype=np.int32),
        depth=np.asarray(cols["depth"], dtype=np.int32),
        deps=deps,
        params={"overlap_tol": overlap_tol, "open_inline": open_inline},
    )


def region_leaf_labels(graph: WPSGraph, leaf_labels: np.ndarray) -> list[set[int]]:
    """Set of leaf labels (``leaf_labels`` over ``page.text_leaves``) inside every region."""
    page = graph.page
    leaves = page.text_leaves
    labels = np.asarray(leaf_labels)
    if len(labels) != len(leaves):
        raise ValueError(f"leaf_labels has {len(labels)} entries, the page has {len(leaves)} "
                         f"text leaves")
    out = []
    for reg in graph.regions:
        s: set[int] = set()
        for r in reg.items:
            lo, hi = np.searchsorted(leaves, [r, page.subtree_end[r]])
            s.update(int(v) for v in np.unique(labels[lo:hi]))
        out.append(s)
    return out


def raw_boundary_labels(graph: WPSGraph, leaf_labels: np.ndarray,
                        unassigned: int = -1) -> np.ndarray:
    """Per-boundary gold, before the dependency constraints are imposed.

    A boundary is Y when no gold block has leaves on both of its sides (leaves outside every
    block, label ``unassigned``, are ignored in that test) and the two sides are not both made
    only of unassigned leaves.
    """
    sets = region_leaf_labels(graph, leaf_labels)
    y = np.zeros(graph.n, dtype=bool)
    for v in range(graph.n):
        a, b = sets[int(graph.before[v])], sets[int(graph.after[v])]
        a2, b2 = a - {unassigned}, b - {unassigned}
        y[v] = bool(a2 or b2) and not (a2 & b2)
    return y
