"""Tree-cut segmentation: choose DOM subtrees as segments by exact dynamic programming.

A *cut* of the content tree (the DOM restricted to text-bearing nodes,
:func:`webseg.graphseg.features.content_tree`) is a set of nodes such that every text leaf has
exactly one of them as ancestor-or-self; each chosen node is one segment. The Kreuzer gold blocks
are DOM elements, so the gold partition is (up to background and level-1 residue) such a cut.

**Why a pair objective.** The agreement of a partition with the gold over leaf pairs
(``#same-gold pairs inside segments - w * #different-gold pairs inside segments``) decomposes
over segments, so the best cut under it is found exactly by one bottom-up pass:
``best(v) = max(gain(v), sum of best(child))`` with ``gain(v) = same(v) - w * diff(v)``. With
``w = 1`` this is the Rand index up to a constant; ``w`` trades merging against splitting
(ARI rewards neither uniformly), so it is chosen by cross-validation per gold level.

* :func:`oracle_gain`: ``gain`` from the gold itself -> the best cut reachable (candidate-space
  ceiling, used by ``eval/oracle.py``);
* :class:`TreeCutModel`: ``same(v) = q(v) * pairs(v)`` with ``q(v)``, the predicted fraction of
  same-block leaf pairs under ``v``, from a logistic model over node features (geometry, tag,
  style, :data:`webseg.graphseg.features.NODE_FEATURES`) and over how the unlearned segmenters
  ``dom``, ``vips`` and ``blockfusion`` treat ``v`` (fraction of its leaf pairs they put in one
  segment, fraction of its leaves whose segment crosses its border) - a learned combination of
  DOM structure, visual separators and text-density blocks. One model per gold level; level 2
  is cut inside each level-1 segment, so the output is a proper two-level hierarchy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webseg.graphseg.features import NODE_FEATURES, ContentTree, node_attrs, node_features
from webseg.graphseg.learn import Logistic
from webseg.page import Page

__all__ = ["BASES", "BASE_PARAMS", "FEATURES", "TreeCutModel", "base_labels", "best_cut",
           "cut_labels", "cut_segmentation", "fit", "node_table", "oracle_gain", "pair_stats"]

MODELS_DIR = Path(__file__).resolve().parent / "models"
MODEL_SCHEMA = "webseg.treecut.model"
MODEL_VERSION = 1
#: Unlearned segmenters whose output is a feature: (registered name, level).
BASES = [("dom", 1), ("dom", 2), ("vips", 1), ("vips", 2), ("blockfusion", 1)]
#: Parameters of the :data:`BASES` segmenters: blockfusion's features are its fused blocks
#: (flat, as the shipped models were trained), not its VIPS-grouped level 1.
BASE_PARAMS: dict[str, dict[str, Any]] = {"blockfusion": {"level1": "none"}}
_OWN = ["log_leaves", "leaf_frac", "log_pairs", "area_frac", "text_frac", "root"]
FEATURES = [*_OWN, *(f"node_{f}" for f in NODE_FEATURES),
            *(f"{b}{lv}_{k}" for b, lv in BASES for k in ("same", "cross"))]


# ---------------------------------------------------------------------- pair counts
def _codes(labels: np.ndarray) -> np.ndarray:
    """Labels -> 0..k-1 (the unassigned label -1 is one more cluster, as the scores treat it)."""
    return np.unique(np.asarray(labels, dtype=np.int64), return_inverse=True)[1].reshape(-1)


def pair_stats(tree: ContentTree, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """Per content-tree node: (leaf pairs, same-label leaf pairs, leaves whose label also
    occurs outside the node)."""
    codes = _codes(labels)
    k = int(codes.max(initial=-1)) + 1
    onehot = np.zeros((len(codes) + 1, max(k, 1)), dtype=np.int64)
    onehot[np.arange(1, len(codes) + 1), codes] = 1
    pref = np.cumsum(onehot, axis=0)
    cnt = pref[tree.leaf_hi] - pref[tree.leaf_lo]           # (n, k)
    total = pref[-1]
    n = cnt.sum(1)
    pairs = n * (n - 1) // 2
    same = (cnt * (cnt - 1) // 2).sum(1)
    cross = (cnt * (cnt < total[None, :])).sum(1)
    return pairs, same, cross


def oracle_gain(tree: ContentTree, gold: np.ndarray, w: float = 1.0) -> np.ndarray:
    """``same - w * diff`` leaf pairs under every node, from the gold labels."""
    pairs, same, _ = pair_stats(tree, gold)
    return same - w * (pairs - same)


# ---------------------------------------------------------------------- the cut
def best_cut(tree: ContentTree, gain: np.ndarray, roots: Sequence[int] | None = None
             ) -> np.ndarray:
    """Local ids of the nodes of the cut maximising the sum of ``gain`` (exact DP).

    Leaves have no pairs: their gain is taken as 0. ``roots``: cut only below these nodes
    (each becomes the top of its own sub-cut); default the content-tree root. Ties keep the
    larger segment.
    """
    n = tree.n
    g = np.where(tree.is_leaf, 0.0, np.asarray(gain, dtype=np.float64))
    split = np.zeros(n)
    best = np.zeros(n)
    for v in range(n - 1, -1, -1):
        best[v] = g[v] if tree.is_leaf[v] else max(g[v], split[v])
        if tree.parent[v] >= 0:
            split[tree.parent[v]] += best[v]
    children: list[list[int]] = [[] for _ in range(n)]
    for v in range(1, n):
        if tree.parent[v] >= 0:
            children[int(tree.parent[v])].append(v)
    out = []
    stack = list(roots) if roots is not None else [0]
    while stack:
        v = stack.pop()
        if tree.is_leaf[v] or g[v] >= split[v] - 1e-9:
            out.append(v)
        else:
            stack.extend(children[v])
    return np.array(sorted(out), dtype=np.int64)


def cut_labels(tree: ContentTree, cut: np.ndarray) -> np.ndarray:
    """Label of every text leaf: the index in ``cut`` of its cut ancestor (-1 if none)."""
    lab = np.full(len(tree.leaves), -1, dtype=np.int64)
    for k, v in enumerate(np.asarray(cut).tolist()):
        lab[tree.leaf_lo[v]:tree.leaf_hi[v]] = k
    return lab


# ---------------------------------------------------------------------- features
def base_labels(page: Page) -> dict[str, np.ndarray]:
    """Leaf labels of the :data:`BASES` segmenters (``"<name><level>"`` keys)."""
    from webseg.segmenters import get_segmenter

    out: dict[str, np.ndarray] = {}
    for name in dict.fromkeys(b for b, _ in BASES):
        seg = get_segmenter(name, **BASE_PARAMS.get(name, {})).segment(page)
        for b, lv in BASES:
            if b == name:
                out[f"{b}{lv}"] = seg.leaf_labels(lv)
    return out


def node_table(tree: ContentTree, bases: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(features of every content-tree node, its leaf-pair count)."""
    page = tree.page
    attrs = node_attrs(tree)
    n_all = len(tree.leaves)
    nl = (tree.leaf_hi - tree.leaf_lo).astype(np.float64)
    pairs = nl * (nl - 1) / 2
    box = attrs.box
    area = np.maximum(box[:, 2], 0) * np.maximum(box[:, 3], 0)
    page_area = max(float(area[0]), float(attrs.page_w * attrs.page_h), 1.0)
    tl = page.text_length[tree.nodes].astype(np.float64)
    own = np.stack([np.log1p(nl) / 5, nl / max(n_all, 1), np.log1p(pairs) / 10,
                    np.minimum(area / page_area, 1.0), tl / max(float(tl[0]), 1.0),
                    (np.arange(tree.n) == 0).astype(float)], 1)
    cols = [own, node_features(tree, attrs)]
    for b, lv in BASES:
        p, s, c = pair_stats(tree, bases[f"{b}{lv}"])
        cols.append(np.stack([np.where(p > 0, s / np.maximum(p, 1), 1.0),
                              c / np.maximum(nl, 1)], 1))
    return np.concatenate(cols, 1), pairs


# ---------------------------------------------------------------------- model
@dataclass
class TreeCutModel:
    """Per gold level: the logistic model of ``q(v)`` and the pair weight ``w``."""

    q: dict[int, Logistic]
    w: dict[int, float]
    info: dict[str, Any] = field(default_factory=dict)

    def gains(self, X: np.ndarray, pairs: np.ndarray, level: int, w: float | None = None
              ) -> np.ndarray:
        ww = self.w.get(level, 1.0) if w is None else w
        q = self.q[level].predict(X)
        return pairs * (q * (1 + ww) - ww)

    def cuts(self, tree: ContentTree, X: np.ndarray, pairs: np.ndarray,
             w1: float | None = None, w2: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(level-1 cut, level-2 cut inside the level-1 segments)."""
        c1 = best_cut(tree, self.gains(X, pairs, 1, w1))
        c2 = best_cut(tree, self.gains(X, pairs, 2, w2), roots=c1.tolist())
        return c1, c2

    def to_dict(self) -> dict[str, Any]:
        return {"schema": MODEL_SCHEMA, "version": MODEL_VERSION, "features": FEATURES,
                "bases": [f"{b}{lv}" for b, lv in BASES],
                "q": {str(k): v.to_dict() for k, v in self.q.items()},
                "w": {str(k): v for k, v in self.w.items()}, "info": self.info}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path | None = None) -> TreeCutModel:
        path = Path(path) if path else MODELS_DIR / "treecut.json"
        if not path.is_file():
            raise FileNotFoundError(f"tree-cut model {path} not found; train it with "
                                    "python -m webseg.treecut --data DIR --out DIR")
        d = json.loads(path.read_text(encoding="utf-8"))
        if d.get("schema") != MODEL_SCHEMA or d.get("version") != MODEL_VERSION:
            raise ValueError(f"{path} is not a tree-cut model of version {MODEL_VERSION}")
        if d.get("features") != FEATURES:
            raise ValueError(f"{path}: its features differ from this webseg's; retrain it")
        return cls({int(k): Logistic.from_dict(v) for k, v in d["q"].items()},
                   {int(k): float(v) for k, v in d["w"].items()}, d.get("info", {}))


def fit_q(Xs: Sequence[np.ndarray], pairs: Sequence[np.ndarray], same: Sequence[np.ndarray],
          C: float = 1.0) -> Logistic:
    """Logistic model of the same-pair fraction ``same / pairs`` of internal nodes.

    Fractional targets as two weighted samples (label 1 with weight ``q``, label 0 with
    ``1 - q``); a node weighs ``sqrt(pairs)``, so large nodes, whose choice moves many pairs,
    count more without drowning the rest.
    """
    from sklearn.linear_model import LogisticRegression

    X = np.concatenate([x[p > 0] for x, p in zip(Xs, pairs, strict=True)])
    P = np.concatenate([p[p > 0] for p in pairs])
    S = np.concatenate([s[p > 0] for s, p in zip(same, pairs, strict=True)])
    q = S / P
    wt = np.sqrt(P)
    mean = X.mean(0)
    scale = X.std(0)
    scale[scale < 1e-9] = 1.0
    Z = (X - mean) / scale
    lr = LogisticRegression(C=C, max_iter=5000)
    lr.fit(np.concatenate([Z, Z]), np.r_[np.ones(len(Z)), np.zeros(len(Z))],
           sample_weight=np.r_[wt * q, wt * (1 - q)] + 1e-9)
    return Logistic(mean, scale, lr.coef_[0].copy(), float(lr.intercept_[0]))


@dataclass
class Prepared:
    """A page's content tree, node features and pair counts (what fitting and cutting need)."""

    tree: ContentTree
    X: np.ndarray
    pairs: np.ndarray


def prepare(page: Page, bases: dict[str, np.ndarray] | None = None) -> Prepared | None:
    """Content tree and node table of a page (``None`` without visible text)."""
    from webseg.graphseg.features import content_tree

    tree = content_tree(page)
    if tree is None:
        return None
    X, pairs = node_table(tree, bases if bases is not None else base_labels(page))
    return Prepared(tree, X, pairs)


def fit(preps: Sequence[Prepared], golds: dict[int, Sequence[np.ndarray]],
        w: dict[int, float] | None = None, C: float = 1.0) -> TreeCutModel:
    """One ``q`` model per gold level in ``golds`` (leaf labels per page, -1 = unassigned)."""
    q = {}
    for lv, gl in golds.items():
        same = [pair_stats(p.tree, g)[1].astype(np.float64) for p, g in
                zip(preps, gl, strict=True)]
        q[lv] = fit_q([p.X for p in preps], [p.pairs for p in preps], same, C)
    return TreeCutModel(q, dict(w or {lv: 1.0 for lv in golds}),
                        {"train_pages": len(preps), "C": C})


def segment(page: Page, model: TreeCutModel, name: str = "treecut",
            prep: Prepared | None = None) -> Any:
    """Two-level segmentation of ``page``: level-1 cut, level-2 cut inside each level-1 node."""
    from webseg.segmentation import Segmentation

    prep = prep or prepare(page)
    if prep is None:
        return Segmentation(page, [], name, {})
    c1, c2 = model.cuts(prep.tree, prep.X, prep.pairs)
    return cut_segmentation(page, prep.tree, c1, c2, name,
                            {"w": {str(k): v for k, v in model.w.items()}})


def cut_segmentation(page: Page, tree: ContentTree, c1: np.ndarray, c2: np.ndarray, name: str,
                     params: dict[str, Any]) -> Any:
    """Two-level segmentation from a level-1 cut and a level-2 cut nested in it (a level-1
    segment with a single level-2 node inside gets no children)."""
    from webseg.segmentation import Segment, Segmentation, node_union_box, nodes_text

    segs: list[Segment] = []

    def add(v: int, parent: int | None) -> int:
        node = int(tree.nodes[v])
        segs.append(Segment(len(segs), (node,), parent, node_union_box(page, [node]),
                            nodes_text(page, [node])))
        return len(segs) - 1

    c2s = np.asarray(c2).tolist()
    for v in np.asarray(c1).tolist():
        sid = add(v, None)
        inside = [u for u in c2s if v <= u < tree.end[v]]  # pre-order: the subtree of v
        if len(inside) > 1:
            for u in inside:
                add(u, sid)
    return Segmentation(page, segs, name, params)


def main(argv: list[str] | None = None) -> int:
    """``python -m webseg.treecut --data DIR --out DIR --w1 W --w2 W``: fit on every page."""
    import argparse
    import sys
    import time

    from webseg.datasets import (
        DEFAULT_PAGE_CACHE,
        gold_labels,
        read_gold_pages,
        render_gold_pages,
    )

    ap = argparse.ArgumentParser(prog="python -m webseg.treecut", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_PAGE_CACHE)
    ap.add_argument("--w1", type=float, required=True, help="pair weight of level 1 (by CV)")
    ap.add_argument("--w2", type=float, required=True, help="pair weight of level 2 (by CV)")
    ap.add_argument("--C", type=float, default=1.0)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    recs = read_gold_pages(args.data)
    rendered = render_gold_pages(recs, args.cache, 2, 60.0, progress=False)
    preps, golds = [], {1: [], 2: []}
    for r in recs:
        page = rendered.get(r.id)
        if not isinstance(page, Page):
            print(f"treecut: skipping {r.id}: {page}", file=sys.stderr)
            continue
        p = prepare(page)
        if p is None:
            continue
        preps.append(p)
        for lv in (1, 2):
            golds[lv].append(gold_labels(page, r.blocks, lv)[0])
    model = fit(preps, golds, {1: args.w1, 2: args.w2}, args.C)
    model.info.update(dataset=args.data.name, pages=[r.id for r in recs],
                      command="python -m webseg.treecut " + " ".join(
                          sys.argv[1:] if argv is None else argv),
                      seconds=round(time.perf_counter() - t0, 1))
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "treecut.json")
    print(json.dumps({"model": str(args.out / "treecut.json"), "pages": len(preps)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
