"""Local and context features of WPS boundaries (Bing et al., SIGIR 2014, Section 4), vectorised.

For every region of a :class:`~webseg.wps.graph.WPSGraph` :func:`region_features` computes local
*segment* features ``Phi(s)`` (geometry, content, text appearance, colour, tag richness); for
every boundary ``b_i`` :func:`boundary_features` stacks ``Phi(s_i^o)``, ``Phi(s_i^b)`` and the
*relation* features ``Phi(s_i^o, s_i^b)`` (gap, size/text/font/colour/depth differences, text and
DOM-structure similarity) plus the boundary's own orientation and depth and a bias.

Label coupling (Eqs. 3-11): ``Psi(b_i, c) = phi_i (x) Lambda(c)`` with ``Lambda(Y) = (1, 0)``,
``Lambda(N) = (0, 1)``; so with ``w = (w_Y, w_N)`` the ILP score of :mod:`webseg.wps.inference`
is ``f_i = F_i - F̄_i = phi_i . (w_Y - w_N)`` (:func:`scores`), and the joint feature map of a
whole labelling is :func:`joint_feature`.

Regions' quantities are sums over their DOM subtrees; each subtree is a contiguous pre-order
interval, so a region sum is a difference of prefix sums, whatever the number of regions.
**Context features** (Section 4.2, :func:`context_features`): a boundary ``b_i`` splits a
region into the *sibling sequence* ``S`` of its sub-regions, and ``s_i^o``, ``s_i^b`` are two
consecutive members of ``S``. Records of a list (search results, posts, products) are siblings
with the same DOM structure that repeat at regular intervals; the boundary between two of them
should usually be N at the record level, and the boundary between a repeated run and something
else Y. Per side: the mean DOM-structure similarity to the other siblings, the occurrence
frequency of its structure in ``S`` and the mean and standard deviation of the intervals between
those occurrences; per boundary (context relation features): the difference of the two
frequencies, whether both sides have the same structure, and the frequency of the pair pattern
(``s_i^o``-like followed by ``s_i^b``-like) among the consecutive pairs of ``S`` - the
occurrence of the "forest" of the two segments. DOM-structure similarity is the weighted
Jaccard ``sum min / sum max`` of the counts of element tags (with content) and text leaves in
the two subtrees; two siblings have "the same structure" when it is at least
:data:`SAME_STRUCTURE`.

:data:`LOCAL_FEATURES` is the feature set without context (the ablation of
``eval/results/wps``); models name their features, so a model trained on a subset keeps working.
"""

from __future__ import annotations

import re

import numpy as np

from webseg.page import Page, normalize_text
from webseg.wps.graph import VERTICAL, WPSGraph, content_mask

REGION_FEATURES = [
    "rect_w", "rect_h", "rect_area", "content_fill", "n_items", "log_chars", "log_tokens",
    "n_leaves", "n_links", "link_char_ratio", "n_images", "n_headings", "n_list_items",
    "n_elements", "token_density", "title_term_ratio", "font_size_mean", "font_size_max",
    "bold_ratio", "italic_ratio", "bg_r", "bg_g", "bg_b", "item_depth_mean",
]
RELATION_FEATURES = [
    "gap", "log_gap", "d_log_chars", "d_area", "d_font_size", "d_font_size_max", "d_bold",
    "bg_distance", "same_font_family", "d_item_depth", "text_jaccard", "tag_similarity",
    "d_link_ratio", "same_item_tags",
]
CONTEXT_FEATURES = [
    "o_ctx_sim_mean", "o_ctx_freq", "o_ctx_interval_mean", "o_ctx_interval_std",
    "b_ctx_sim_mean", "b_ctx_freq", "b_ctx_interval_mean", "b_ctx_interval_std",
    "ctx_d_freq", "ctx_same_structure", "ctx_pair_freq",
]
#: Features without context (Section 4.1 only).
LOCAL_FEATURES = (["bias", "vertical", "depth", "n_siblings"]
                  + [f"o_{n}" for n in REGION_FEATURES] + [f"b_{n}" for n in REGION_FEATURES]
                  + RELATION_FEATURES)
#: Every feature :func:`boundary_features` computes, in column order.
BOUNDARY_FEATURES = LOCAL_FEATURES + CONTEXT_FEATURES
#: Weighted-Jaccard DOM-structure similarity from which two siblings count as one structure.
SAME_STRUCTURE = 0.7

_WORD = re.compile(r"\w+", re.UNICODE)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _region_intervals(graph: WPSGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(region index, start, end) of every DOM subtree item of every region."""
    page = graph.page
    reg, lo, hi = [], [], []
    for r in graph.regions:
        for i in r.items:
            reg.append(r.id)
            lo.append(i)
            hi.append(int(page.subtree_end[i]))
    return (np.asarray(reg, dtype=np.int64), np.asarray(lo, dtype=np.int64),
            np.asarray(hi, dtype=np.int64))


def _region_sums(values: np.ndarray, iv: tuple[np.ndarray, np.ndarray, np.ndarray],
                 n_regions: int) -> np.ndarray:
    """Sum of per-node ``values`` (n,) or (n, k) over every region's subtrees."""
    reg, lo, hi = iv
    v = values.astype(np.float64)
    cs = np.concatenate([np.zeros((1,) + v.shape[1:]), np.cumsum(v, axis=0)])
    out = np.zeros((n_regions,) + v.shape[1:])
    if len(reg):
        np.add.at(out, reg, cs[hi] - cs[lo])
    return out


def _node_columns(page: Page) -> dict[str, np.ndarray]:
    mask = content_mask(page)
    leaf = mask & page.is_text
    chars = np.zeros(page.n)
    tokens = np.zeros(page.n)
    title_hits = np.zeros(page.n)
    title_terms = {t.lower() for t in _WORD.findall(page.title or "") if len(t) > 2}
    for i in np.flatnonzero(leaf):
        t = normalize_text(page.text[i])
        chars[i] = len(t)
        words = _WORD.findall(t)
        tokens[i] = len(words)
        if title_terms:
            title_hits[i] = sum(w.lower() in title_terms for w in words)
    # content flag per subtree (for counting elements that show something)
    cs = np.concatenate([[0], np.cumsum(mask)])
    has_content = (cs[page.subtree_end] - cs[np.arange(page.n)]) > 0
    tags = np.asarray(page.tag, dtype=object)
    is_a = (tags == "a") & page.is_element & has_content
    # chars inside links: mark the pre-order interval of every <a>
    diff = np.zeros(page.n + 1)
    np.add.at(diff, np.flatnonzero(is_a), 1)
    np.add.at(diff, page.subtree_end[is_a], -1)
    in_link = np.cumsum(diff)[:-1] > 0
    bold = page.font_weight >= 600
    return {
        "mask": mask, "leaf": leaf.astype(float), "chars": chars, "tokens": tokens,
        "title_hits": title_hits, "link": is_a.astype(float),
        "link_chars": chars * in_link,
        "image": (mask & page.is_element).astype(float),
        "heading": (np.isin(tags, list(_HEADINGS)) & has_content).astype(float),
        "li": ((tags == "li") & has_content).astype(float),
        "element": (page.is_element & has_content).astype(float),
        "fs_chars": chars * page.font_size, "bold_chars": chars * bold,
        "italic_chars": chars * page.italic,
        "bg_chars": chars[:, None] * page.bg.astype(np.float64),
    }


def region_features(graph: WPSGraph) -> np.ndarray:
    """(n_regions, len(REGION_FEATURES)) local segment features ``Phi(s)`` of every region."""
    page = graph.page
    R = len(graph.regions)
    out = np.zeros((R, len(REGION_FEATURES)))
    if R == 0:
        return out
    cols = _node_columns(page)
    iv = _region_intervals(graph)
    s = {k: _region_sums(v, iv, R) for k, v in cols.items() if k != "mask"}
    pw = max(float(page.width), 1.0)
    ph = max(float(page.height), 1.0)
    rect = np.array([r.rect for r in graph.regions], dtype=np.float64)
    rw = np.maximum(rect[:, 2] - rect[:, 0], 0.0)
    rh = np.maximum(rect[:, 3] - rect[:, 1], 0.0)
    area = rw * rh
    # content bounding box of each region (union over its item subtrees)
    b = page.box.astype(np.float64)
    m = cols["mask"]
    x0 = np.where(m, b[:, 0], np.inf)
    y0 = np.where(m, b[:, 1], np.inf)
    x1 = np.where(m, b[:, 0] + b[:, 2], -np.inf)
    y1 = np.where(m, b[:, 1] + b[:, 3], -np.inf)
    reg, lo, hi = iv
    cx0, cy0 = np.full(R, np.inf), np.full(R, np.inf)
    cx1, cy1 = np.full(R, -np.inf), np.full(R, -np.inf)
    for k in range(len(reg)):  # one slice per item; items are few per region
        sl = slice(lo[k], hi[k])
        r = reg[k]
        cx0[r] = min(cx0[r], x0[sl].min())
        cy0[r] = min(cy0[r], y0[sl].min())
        cx1[r] = max(cx1[r], x1[sl].max())
        cy1[r] = max(cy1[r], y1[sl].max())
    carea = np.where(np.isfinite(cx0), np.maximum(cx1 - cx0, 0) * np.maximum(cy1 - cy0, 0), 0.0)
    chars = s["chars"]
    cdiv = np.maximum(chars, 1.0)
    depth = page.depth.astype(np.float64)
    n_items = np.bincount(reg, minlength=R).astype(np.float64)
    item_depth = np.bincount(reg, weights=depth[lo], minlength=R) / np.maximum(n_items, 1)
    fs_max = np.zeros(R)
    fsz = np.where(cols["leaf"] > 0, page.font_size, 0.0)
    for k in range(len(reg)):
        fs_max[reg[k]] = max(fs_max[reg[k]], fsz[lo[k]:hi[k]].max(initial=0.0))
    bg = np.where(chars[:, None] > 0, s["bg_chars"] / cdiv[:, None], 255.0) / 255.0
    feats = {
        "rect_w": rw / pw, "rect_h": rh / ph, "rect_area": area / (pw * ph),
        "content_fill": np.where(area > 0, carea / np.maximum(area, 1e-9), 0.0),
        "n_items": np.log1p(n_items), "log_chars": np.log1p(chars),
        "log_tokens": np.log1p(s["tokens"]), "n_leaves": np.log1p(s["leaf"]),
        "n_links": np.log1p(s["link"]), "link_char_ratio": s["link_chars"] / cdiv,
        "n_images": np.log1p(s["image"]), "n_headings": np.log1p(s["heading"]),
        "n_list_items": np.log1p(s["li"]), "n_elements": np.log1p(s["element"]),
        "token_density": s["tokens"] / np.maximum(carea / 1e4, 1.0),
        "title_term_ratio": s["title_hits"] / np.maximum(s["tokens"], 1.0),
        "font_size_mean": s["fs_chars"] / cdiv / 16.0, "font_size_max": fs_max / 16.0,
        "bold_ratio": s["bold_chars"] / cdiv, "italic_ratio": s["italic_chars"] / cdiv,
        "bg_r": bg[:, 0], "bg_g": bg[:, 1], "bg_b": bg[:, 2], "item_depth_mean": item_depth / 10,
    }
    for k, name in enumerate(REGION_FEATURES):
        out[:, k] = feats[name]
    return out


def _region_words(graph: WPSGraph) -> list[set[str]]:
    page = graph.page
    return [{w.lower() for i in r.items for w in _WORD.findall(page.node_text(i))}
            for r in graph.regions]


def _region_tag_counts(graph: WPSGraph, mask: np.ndarray) -> np.ndarray:
    """(n_regions, n_tag_codes) counts of element tags with content in every region."""
    page = graph.page
    codes: dict[str, int] = {}
    tag_code = np.fromiter((codes.setdefault(t, len(codes)) for t in page.tag), dtype=np.int64,
                           count=page.n)
    cs = np.concatenate([[0], np.cumsum(mask)])
    keep = page.is_element & ((cs[page.subtree_end] - cs[np.arange(page.n)]) > 0)
    onehot = np.zeros((page.n, max(len(codes), 1)))
    onehot[np.flatnonzero(keep), tag_code[keep]] = 1.0
    return _region_sums(onehot, _region_intervals(graph), len(graph.regions))


def _sequence_stats(sim: np.ndarray) -> np.ndarray:
    """(k, 4) per-member context features of one sibling sequence from its similarity matrix.

    Columns: mean similarity to the other members, occurrence frequency of the member's
    structure (members at least :data:`SAME_STRUCTURE` similar, itself included, over ``k``),
    mean and standard deviation of the intervals between consecutive occurrences (over ``k``;
    a structure that occurs once gets interval 1 and deviation 0).
    """
    k = len(sim)
    out = np.zeros((k, 4))
    off = ~np.eye(k, dtype=bool)
    out[:, 0] = np.where(off, sim, 0.0).sum(1) / max(k - 1, 1)
    same = sim >= SAME_STRUCTURE
    np.fill_diagonal(same, True)
    out[:, 1] = same.sum(1) / k
    out[:, 2] = 1.0
    for j in np.flatnonzero(out[:, 1] * k > 1):
        gaps = np.diff(np.flatnonzero(same[j])) / k
        out[j, 2], out[j, 3] = gaps.mean(), gaps.std()
    return out


def structure_similarity(counts: np.ndarray) -> np.ndarray:
    """(k, k) weighted Jaccard similarity ``sum min / sum max`` of rows of ``counts``."""
    c = np.asarray(counts, dtype=np.float64)
    c = c[:, c.any(0)]  # tags absent from the whole sequence add nothing
    k = len(c)
    if k * k * c.shape[1] <= 2_000_000:  # one broadcast
        mn = np.minimum(c[:, None, :], c[None, :, :]).sum(2)
        mx = np.maximum(c[:, None, :], c[None, :, :]).sum(2)
    else:  # one row at a time keeps memory at k * n_tags
        mn = np.stack([np.minimum(c[j], c).sum(1) for j in range(k)])
        mx = np.stack([np.maximum(c[j], c).sum(1) for j in range(k)])
    return np.where(mx > 0, mn / np.maximum(mx, 1e-12), 1.0)


def context_features(graph: WPSGraph, structure: np.ndarray | None = None) -> np.ndarray:
    """(n_vertices, len(CONTEXT_FEATURES)) context features of every boundary (Section 4.2).

    ``structure``: (n_regions, m) DOM-structure count vectors (default: content-element tag
    counts plus the text-leaf count of every region). See the module docstring.
    """
    X = np.zeros((graph.n, len(CONTEXT_FEATURES)))
    if graph.n == 0:
        return X
    if structure is None:
        page = graph.page
        mask = content_mask(page)
        leaves = _region_sums((mask & page.is_text).astype(float), _region_intervals(graph),
                              len(graph.regions))
        structure = np.column_stack([_region_tag_counts(graph, mask), leaves])
    for reg in graph.regions:
        if len(reg.boundaries) == 0:
            continue
        kids = np.asarray(reg.children, dtype=np.int64)
        k = len(kids)
        sim = structure_similarity(structure[kids])
        st = _sequence_stats(sim)
        same = sim >= SAME_STRUCTURE
        vs = np.asarray(reg.boundaries, dtype=np.int64)
        o, b = np.arange(k - 1), np.arange(1, k)
        X[vs, 0:4] = st[o]
        X[vs, 4:8] = st[b]
        X[vs, 8] = np.abs(st[o, 1] - st[b, 1])
        X[vs, 9] = same[o, b]
        # pair pattern: consecutive members (j, j + 1) like (o, b), over the k - 1 pairs
        pairs = same[:-1, :-1] & same[1:, 1:]  # [o, j]: o ~ j and o + 1 ~ j + 1
        X[vs, 10] = pairs.sum(1) / (k - 1)
    return X


def boundary_features(graph: WPSGraph, context: bool = True) -> np.ndarray:
    """(n_vertices, len(BOUNDARY_FEATURES)) feature vector ``phi_i`` of every boundary.

    Local features (Section 4.1) first, then :func:`context_features` (Section 4.2); with
    ``context=False`` the context columns are left at 0 (for models that do not use them).
    """
    n = graph.n
    X = np.zeros((n, len(BOUNDARY_FEATURES)))
    if n == 0:
        return X
    page = graph.page
    rf = region_features(graph)
    o, b = graph.before.astype(np.int64), graph.after.astype(np.int64)
    fo, fb = rf[o], rf[b]
    idx = {name: k for k, name in enumerate(REGION_FEATURES)}

    def d(name: str) -> np.ndarray:
        return np.abs(fo[:, idx[name]] - fb[:, idx[name]])

    words = _region_words(graph)
    jac = np.array([len(words[i] & words[j]) / max(len(words[i] | words[j]), 1)
                    for i, j in zip(o, b, strict=True)])
    cmask = content_mask(page)
    tags = _region_tag_counts(graph, cmask)
    to, tb = tags[o], tags[b]
    tag_sim = np.minimum(to, tb).sum(1) / np.maximum(np.maximum(to, tb).sum(1), 1.0)
    # dominant font family of each region: family of its longest text leaf
    fam = np.full(len(graph.regions), -1, dtype=np.int64)
    leaves = page.text_leaves
    lens = np.array([len(page.text[i]) for i in leaves]) if len(leaves) else np.zeros(0)
    for r in graph.regions:
        best = -1
        for i in r.items:
            a, z = np.searchsorted(leaves, [i, page.subtree_end[i]])
            if z > a:
                k = a + int(np.argmax(lens[a:z]))
                if best < 0 or lens[k] > lens[best]:
                    best = k
        if best >= 0:
            fam[r.id] = page.font_family[leaves[best]]
    item_tags = [tuple(page.tag[i] for i in r.items) for r in graph.regions]
    n_sib = np.array([len(graph.regions[int(r)].children) for r in graph.region], dtype=float)
    ext = np.where(graph.orientation == VERTICAL, max(float(page.width), 1.0),
                   max(float(page.height), 1.0))
    area_o = np.maximum(fo[:, idx["rect_area"]], 1e-9)
    area_b = np.maximum(fb[:, idx["rect_area"]], 1e-9)
    rel = {
        "gap": graph.gap / ext, "log_gap": np.sign(graph.gap) * np.log1p(np.abs(graph.gap)),
        "d_log_chars": d("log_chars"), "d_area": np.abs(np.log(area_o / area_b)),
        "d_font_size": d("font_size_mean"), "d_font_size_max": d("font_size_max"),
        "d_bold": d("bold_ratio"),
        "bg_distance": np.sqrt(((fo[:, [idx["bg_r"], idx["bg_g"], idx["bg_b"]]]
                                 - fb[:, [idx["bg_r"], idx["bg_g"], idx["bg_b"]]]) ** 2).sum(1)
                               / 3.0),
        "same_font_family": (fam[o] == fam[b]).astype(float),
        "d_item_depth": d("item_depth_mean"), "text_jaccard": jac, "tag_similarity": tag_sim,
        "d_link_ratio": d("link_char_ratio"),
        "same_item_tags": np.array([item_tags[i] == item_tags[j] for i, j in zip(o, b,
                                                                                 strict=True)],
                                   dtype=float),
    }
    X[:, 0] = 1.0
    X[:, 1] = graph.orientation == VERTICAL
    X[:, 2] = graph.depth / 5.0
    X[:, 3] = np.log1p(n_sib)
    k = len(REGION_FEATURES)
    X[:, 4:4 + k] = fo
    X[:, 4 + k:4 + 2 * k] = fb
    for t, name in enumerate(RELATION_FEATURES):
        X[:, 4 + 2 * k + t] = rel[name]
    leaf_counts = (_region_sums((cmask & page.is_text).astype(float), _region_intervals(graph),
                                len(graph.regions)) if context else None)
    if context:
        X[:, len(LOCAL_FEATURES):] = context_features(graph,
                                                      np.column_stack([tags, leaf_counts]))
    return X


def scores(features: np.ndarray, w: np.ndarray) -> np.ndarray:
    """ILP scores ``f_i = F_i - F̄_i`` for ``w = (w_Y, w_N)`` (length 2d) or ``w_Y - w_N`` (d)."""
    w = np.asarray(w, dtype=np.float64)
    d = features.shape[1]
    if len(w) == 2 * d:
        w = w[:d] - w[d:]
    elif len(w) != d:
        raise ValueError(f"weights have length {len(w)}, expected {d} or {2 * d}")
    return features @ w


def joint_feature(features: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``Psi(G, C) = sum_i phi_i (x) Lambda(c_i)`` (Eq. 11): ``(sum_Y phi_i, sum_N phi_i)``."""
    y = np.asarray(labels, dtype=bool)
    return np.concatenate([features[y].sum(0), features[~y].sum(0)])
