"""Content tree, node features and pair features for GCuts and CClus, vectorised over a Page.

**The content tree.** The graph algorithms work on the DOM restricted to the nodes that hold
visible text (``Page.text_length > 0``): its leaves are exactly ``Page.text_leaves`` (the atoms
every metric scores) and its internal nodes are their element ancestors. Nodes without visible
text (images, empty wrappers, hidden subtrees) are dropped: they can never change which segment
a scored leaf is in, and as labels they would only add alpha-expansions. The set is closed under
ancestors, so the restriction is again a tree in pre-order and every subtree is a contiguous
range of rows, which the code below uses for O(n) subtree sums.

**Node features** (:data:`NODE_FEATURES`) are fixed-scaled so that every column lives roughly in
[0, 1] without statistics from data. That matters for the no-learning variants (GCuts-NL uses
the plain Euclidean distance over these columns) and gives the learned metric a sane start.
Text nodes carry their parent element's style; their "tag" is the parent's tag group, because
``#text`` says nothing.

**Pair features** (:data:`PAIR_FEATURES`) are *dissimilarities*: every column is >= 0 and larger
means "more likely to belong to different segments", again fixed-scaled. The no-learning Vpq is
a uniformly weighted sum of these columns passed through a sigmoid, which only makes sense when
all of them point the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from webseg.page import Page

#: Tag groups for the one-hot tag features (anything else is "other").
TAG_GROUPS: dict[str, tuple[str, ...]] = {
    "a": ("a",),
    "p": ("p", "blockquote", "pre", "address"),
    "div": ("div", "section", "article", "main", "center", "body", "html"),
    "span": ("span", "font", "small", "big", "label", "abbr", "cite", "code", "sup", "sub"),
    "emph": ("b", "strong", "em", "i", "u", "mark"),
    "list": ("ul", "ol", "li", "dl", "dt", "dd", "menu", "dir"),
    "table": ("table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption"),
    "heading": ("h1", "h2", "h3", "h4", "h5", "h6", "hgroup"),
    "form": ("form", "input", "select", "option", "button", "textarea", "fieldset", "legend"),
    "landmark": ("nav", "header", "footer", "aside"),
}
TAG_GROUP_NAMES = [*TAG_GROUPS, "other"]
_TAG_TO_GROUP = {t: k for k, (_, tags) in enumerate(TAG_GROUPS.items()) for t in tags}

BLOCK_DISPLAYS = frozenset({"block", "flex", "grid", "table", "list-item", "table-row",
                            "table-cell", "table-row-group", "table-header-group", "flow-root",
                            "table-footer-group", "table-caption", "inline-block"})

NODE_FEATURES = [
    "cx", "cy", "width", "log_height", "log_aspect", "bg_r", "bg_g", "bg_b", "fg_r", "fg_g",
    "fg_b", "font_size", "bold", "italic", "family_1st", "family_2nd", "family_other",
    "log_text_len", "log_sentence_len", "anchor_text_frac", "log_links", "log_leaves",
    "log_children", "depth", "is_text", "is_block", "is_positioned",
    *(f"tag_{g}" for g in TAG_GROUP_NAMES),
]

PAIR_FEATURES = [
    "gap", "gap_x", "gap_y", "dx_center", "dy_center", "misalign", "tree_dist", "rel_tree_dist",
    "depth_diff", "font_size_diff", "bold_diff", "italic_diff", "family_diff", "fg_dist",
    "bg_dist", "tag_diff", "anchor_diff", "text_len_ratio", "anchor_frac_diff", "block_diff",
    "parent_diff",
]

_SENT_END = re.compile(r"[.!?]+(?:\s|$)")
_WORD = re.compile(r"\S+")


@dataclass
class ContentTree:
    """The DOM restricted to text-bearing nodes, in pre-order, with local ids ``0..n-1``.

    ``nodes[i]`` is the page node id of local node ``i``; ``parent`` holds local ids (-1 at the
    root); ``end[i]`` is one past the last local descendant of ``i``; ``leaves`` are the local
    ids of the text leaves in document order and ``leaf_lo[i]:leaf_hi[i]`` indexes the leaves of
    the subtree of ``i`` in that list.
    """

    page: Page
    nodes: np.ndarray
    parent: np.ndarray
    end: np.ndarray
    depth: np.ndarray
    is_leaf: np.ndarray
    leaves: np.ndarray
    internal: np.ndarray
    leaf_lo: np.ndarray
    leaf_hi: np.ndarray

    @property
    def n(self) -> int:
        return len(self.nodes)

    @cached_property
    def n_children(self) -> np.ndarray:
        return np.bincount(self.parent[1:], minlength=self.n).astype(np.int64)

    @cached_property
    def _lift(self) -> np.ndarray:
        """Binary-lifting ancestor table ``up[k][i]`` = 2^k-th ancestor (root maps to itself)."""
        par = np.where(self.parent < 0, np.arange(self.n), self.parent)
        levels = [par]
        for _ in range(max(1, int(self.depth.max(initial=0)).bit_length())):
            levels.append(levels[-1][levels[-1]])
        return np.stack(levels)

    def lca(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Lowest common ancestors of the pairs ``(a[k], b[k])`` (vectorised binary lifting)."""
        a = np.asarray(a, dtype=np.int64).copy()
        b = np.asarray(b, dtype=np.int64).copy()
        up = self._lift
        swap = self.depth[a] < self.depth[b]
        a[swap], b[swap] = b[swap], a[swap]
        diff = self.depth[a] - self.depth[b]
        for k in range(len(up)):
            sel = (diff >> k) & 1 == 1
            a[sel] = up[k][a[sel]]
        for k in range(len(up) - 1, -1, -1):
            sel = up[k][a] != up[k][b]
            a[sel] = up[k][a[sel]]
            b[sel] = up[k][b[sel]]
        return np.where(a == b, a, up[0][a])


def content_tree(page: Page) -> ContentTree | None:
    """The content tree of ``page``, or ``None`` when the page has no visible text."""
    nodes = np.flatnonzero(page.text_length > 0).astype(np.int64)
    if len(nodes) == 0:
        return None
    local = np.full(page.n, -1, dtype=np.int64)
    local[nodes] = np.arange(len(nodes))
    par = page.parent[nodes].astype(np.int64)
    parent = np.where(par >= 0, local[np.maximum(par, 0)], -1)
    parent[0] = -1  # the first content node is the root of the content tree
    end = np.searchsorted(nodes, page.subtree_end[nodes]).astype(np.int64)
    is_leaf = page.text_leaf_mask[nodes]
    leaves = np.flatnonzero(is_leaf).astype(np.int64)
    internal = np.flatnonzero(~is_leaf).astype(np.int64)
    depth = (page.depth[nodes] - page.depth[nodes[0]]).astype(np.int64)
    lo = np.searchsorted(leaves, np.arange(len(nodes)))
    hi = np.searchsorted(leaves, end)
    return ContentTree(page, nodes, parent, end, depth, is_leaf, leaves, internal, lo, hi)


@dataclass
class NodeAttrs:
    """Raw per-node attributes of the content tree (what the feature columns are made from)."""

    box: np.ndarray          # (n, 4) float64
    font_size: np.ndarray
    bold: np.ndarray
    italic: np.ndarray
    family_rank: np.ndarray  # 0 = the family of most text on the page, 1 = second, 2 = other
    fg: np.ndarray           # (n, 3) float64
    bg: np.ndarray           # (n, 3) float64
    tag_group: np.ndarray
    in_anchor: np.ndarray
    text_len: np.ndarray
    words: np.ndarray
    sentences: np.ndarray
    anchor_chars: np.ndarray
    links: np.ndarray
    n_leaves: np.ndarray
    is_block: np.ndarray
    is_positioned: np.ndarray
    page_w: float
    page_h: float


def node_attrs(tree: ContentTree) -> NodeAttrs:
    """Per-node attributes; subtree sums (text, words, links) in O(n) via pre-order ranges."""
    page = tree.page
    nodes = tree.nodes
    n_all = page.n
    # style of text nodes is their parent's (the renderer already copies it; keep it explicit)
    style_src = nodes.copy()
    txt = ~page.is_element[nodes]
    style_src[txt] = page.parent[nodes[txt]]

    tags = page.tag
    group_all = np.fromiter((_TAG_TO_GROUP.get(t, len(TAG_GROUPS)) for t in tags),
                            dtype=np.int64, count=n_all)
    is_a = np.fromiter((t == "a" for t in tags), dtype=bool, count=n_all)
    # in_anchor: ancestor-or-self is <a>; propagate top-down in pre-order
    in_a = is_a.copy()
    par = page.parent
    for i in range(1, n_all):
        if in_a[par[i]]:
            in_a[i] = True

    own_chars = np.zeros(n_all, dtype=np.float64)
    own_words = np.zeros(n_all, dtype=np.float64)
    own_sent = np.zeros(n_all, dtype=np.float64)
    for j in page.text_leaves:
        t = page.leaf_text(int(j))
        own_chars[j] = len(t)
        own_words[j] = len(_WORD.findall(t))
        own_sent[j] = len(_SENT_END.findall(t))
    own_leaf = page.text_leaf_mask.astype(np.float64)

    def subtree_sum(v: np.ndarray) -> np.ndarray:
        c = np.concatenate([[0.0], np.cumsum(v)])
        return (c[page.subtree_end] - c[np.arange(n_all)])[nodes]

    fam = page.font_family[style_src]
    fam_chars = np.bincount(page.font_family[page.parent[page.text_leaves]],
                            weights=own_chars[page.text_leaves],
                            minlength=len(page.font_families) or 1)
    order = np.argsort(-fam_chars, kind="stable")
    rank_of = np.full(len(fam_chars), 2, dtype=np.int64)
    rank_of[order[:2]] = np.arange(min(2, len(order)))
    displays = np.array([d in BLOCK_DISPLAYS for d in page.displays] or [False])
    positioned = np.array([p in ("absolute", "fixed", "sticky") for p in page.positions]
                          or [False])
    w = float(page.width) if page.width > 0 else float(page.viewport_width)
    h = float(page.height) if page.height > 0 else w
    return NodeAttrs(
        box=page.box[nodes].astype(np.float64),
        font_size=page.font_size[style_src].astype(np.float64),
        bold=page.font_weight[style_src] >= 600,
        italic=page.italic[style_src].astype(bool),
        family_rank=rank_of[fam],
        fg=page.color[style_src, :3].astype(np.float64),
        bg=page.bg[nodes].astype(np.float64),
        tag_group=group_all[style_src],
        in_anchor=in_a[nodes],
        text_len=subtree_sum(own_chars),
        words=subtree_sum(own_words),
        sentences=subtree_sum(own_sent),
        anchor_chars=subtree_sum(own_chars * in_a),
        links=subtree_sum(is_a.astype(np.float64)),
        n_leaves=subtree_sum(own_leaf),
        is_block=displays[page.display[style_src]] & page.is_element[nodes],
        is_positioned=positioned[page.position[style_src]],
        page_w=w, page_h=h)


def node_features(tree: ContentTree, attrs: NodeAttrs | None = None) -> np.ndarray:
    """Feature matrix (n, len(NODE_FEATURES)) of the content tree, columns fixed-scaled."""
    a = attrs or node_attrs(tree)
    n = tree.n
    x, y, w, h = a.box.T
    X = np.zeros((n, len(NODE_FEATURES)), dtype=np.float64)
    X[:, 0] = (x + w / 2) / a.page_w
    X[:, 1] = (y + h / 2) / a.page_h
    X[:, 2] = w / a.page_w
    X[:, 3] = np.log1p(np.maximum(h, 0)) / 8
    X[:, 4] = np.log((w + 1) / (h + 1)) / 4
    X[:, 5:8] = a.bg / 255
    X[:, 8:11] = a.fg / 255
    X[:, 11] = a.font_size / 24
    X[:, 12] = a.bold
    X[:, 13] = a.italic
    X[np.arange(n), 14 + np.minimum(a.family_rank, 2)] = 1
    X[:, 17] = np.log1p(a.text_len) / 10
    X[:, 18] = np.log1p(a.words / np.maximum(a.sentences, 1)) / 4
    X[:, 19] = a.anchor_chars / np.maximum(a.text_len, 1)
    X[:, 20] = np.log1p(a.links) / 5
    X[:, 21] = np.log1p(a.n_leaves) / 5
    X[:, 22] = np.log1p(tree.n_children) / 4
    X[:, 23] = tree.depth / max(1, int(tree.depth.max(initial=0)))
    X[:, 24] = tree.is_leaf
    X[:, 25] = a.is_block
    X[:, 26] = a.is_positioned
    X[np.arange(n), 27 + a.tag_group] = 1
    return X


def rect_gaps(b1: np.ndarray, b2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal and vertical gaps between boxes (0 where their projections overlap)."""
    gx = np.maximum(0.0, np.maximum(b1[..., 0], b2[..., 0])
                    - np.minimum(b1[..., 0] + b1[..., 2], b2[..., 0] + b2[..., 2]))
    gy = np.maximum(0.0, np.maximum(b1[..., 1], b2[..., 1])
                    - np.minimum(b1[..., 1] + b1[..., 3], b2[..., 1] + b2[..., 3]))
    return gx, gy


def leaf_adjacency(tree: ContentTree, attrs: NodeAttrs, k: int = 4,
                   chunk: int = 512) -> np.ndarray:
    """Visually adjacent leaf pairs ``(E, 2)`` of local ids, ``p < q``, sorted.

    Each leaf is joined to its ``k`` nearest leaves by rectangle gap (ties broken by centre
    distance) and to the next leaf in document order (text flow: an inline run split over lines
    is adjacent even when the renderer puts the pieces far apart). Computed exactly, in row
    chunks, so memory stays O(chunk * leaves) on pages with thousands of leaves.
    """
    leaves = tree.leaves
    m = len(leaves)
    if m < 2:
        return np.zeros((0, 2), dtype=np.int64)
    box = attrs.box[leaves]
    cen = box[:, :2] + box[:, 2:] / 2
    kk = min(k, m - 1)
    pairs = [np.stack([np.arange(m - 1), np.arange(1, m)], axis=1)]
    for s in range(0, m, chunk):
        rows = np.arange(s, min(m, s + chunk))
        gx, gy = rect_gaps(box[rows, None, :], box[None, :, :])
        key = np.hypot(gx, gy) + 1e-3 * np.hypot(*(cen[rows, None, :] - cen[None, :, :])
                                                  .transpose(2, 0, 1))
        key[np.arange(len(rows)), rows] = np.inf
        nn = np.argpartition(key, kk - 1, axis=1)[:, :kk]
        pairs.append(np.stack([np.repeat(rows, kk), nn.ravel()], axis=1))
    p = np.concatenate(pairs)
    p = np.sort(p, axis=1)
    p = np.unique(p[p[:, 0] != p[:, 1]], axis=0)
    return leaves[p]


def pair_features(tree: ContentTree, attrs: NodeAttrs, a: np.ndarray, b: np.ndarray,
                  lca: np.ndarray | None = None) -> np.ndarray:
    """Dissimilarity features ``(len(a), len(PAIR_FEATURES))`` of the local node pairs."""
    A = attrs
    ba, bb = A.box[a], A.box[b]
    gx, gy = rect_gaps(ba, bb)
    ca = ba[:, :2] + ba[:, 2:] / 2
    cb = bb[:, :2] + bb[:, 2:] / 2
    if lca is None:
        lca = tree.lca(a, b)
    da, db, dl = tree.depth[a], tree.depth[b], tree.depth[lca]
    tdist = (da - dl) + (db - dl)
    misalign = np.minimum.reduce([np.abs(ba[:, 0] - bb[:, 0]),
                                  np.abs(ba[:, 0] + ba[:, 2] - bb[:, 0] - bb[:, 2]),
                                  np.abs(ca[:, 0] - cb[:, 0]), np.abs(ba[:, 1] - bb[:, 1])])
    fa = A.anchor_chars[a] / np.maximum(A.text_len[a], 1)
    fb = A.anchor_chars[b] / np.maximum(A.text_len[b], 1)
    F = np.empty((len(a), len(PAIR_FEATURES)), dtype=np.float64)
    F[:, 0] = np.log1p(np.hypot(gx, gy)) / 6
    F[:, 1] = np.log1p(gx) / 6
    F[:, 2] = np.log1p(gy) / 6
    F[:, 3] = np.abs(ca[:, 0] - cb[:, 0]) / A.page_w
    F[:, 4] = np.log1p(np.abs(ca[:, 1] - cb[:, 1])) / 8
    F[:, 5] = np.log1p(misalign) / 6
    F[:, 6] = np.log1p(tdist) / 3
    F[:, 7] = tdist / np.maximum(da + db, 1)
    F[:, 8] = np.abs(da - db) / 10
    F[:, 9] = np.abs(np.log(np.maximum(A.font_size[a], 1) / np.maximum(A.font_size[b], 1)))
    F[:, 10] = A.bold[a] != A.bold[b]
    F[:, 11] = A.italic[a] != A.italic[b]
    F[:, 12] = A.family_rank[a] != A.family_rank[b]
    F[:, 13] = np.linalg.norm(A.fg[a] - A.fg[b], axis=1) / 441.7
    F[:, 14] = np.linalg.norm(A.bg[a] - A.bg[b], axis=1) / 441.7
    F[:, 15] = A.tag_group[a] != A.tag_group[b]
    F[:, 16] = A.in_anchor[a] != A.in_anchor[b]
    F[:, 17] = np.abs(np.log1p(A.text_len[a]) - np.log1p(A.text_len[b])) / 5
    F[:, 18] = np.abs(fa - fb)
    F[:, 19] = A.is_block[a] != A.is_block[b]
    F[:, 20] = tree.parent[a] != tree.parent[b]
    return F


def parent_child_features(tree: ContentTree, attrs: NodeAttrs, X: np.ndarray) -> np.ndarray:
    """Features of every (child, parent) edge, rows for local nodes ``1..n-1``.

    The cost of such an edge is Vqu(., xi): what it costs to make the parent invisible while the
    child stays visible, i.e. to put a segment boundary at the parent. So beside the
    child-parent dissimilarities the row carries the parent's own node features, whose purity
    (one segment or several below it) is what the cost should predict.
    """
    child = np.arange(1, tree.n)
    par = tree.parent[child]
    pf = pair_features(tree, attrs, child, par, lca=par)
    return np.concatenate([pf, X[par]], axis=1)


PARENT_CHILD_FEATURES = [*PAIR_FEATURES, *(f"parent_{f}" for f in NODE_FEATURES)]
