"""Local features of WPS boundaries (Bing et al., SIGIR 2014, Section 4.1), vectorised.

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
Context features (Section 4.2: sibling-sequence statistics) are not implemented yet.
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
BOUNDARY_FEATURES = (["bias", "vertical", "depth", "n_siblings"]
                     + [f"o_{n}" for n in REGION_FEATURES] + [f"b_{n}" for n in REGION_FEATURES]
                     + RELATION_FEATURES)

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


def boundary_features(graph: WPSGraph) -> np.ndarray:
    """(n_vertices, len(BOUNDARY_FEATURES)) feature vector ``phi_i`` of every boundary."""
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
    tags = _region_tag_counts(graph, content_mask(page))
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
