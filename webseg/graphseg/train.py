"""Train GCuts / CClus on gold segmentations and choose lambda on validation pages.

    python -m webseg.graphseg.train gcuts --data ../shared/data/segmentation/kreuzer-random \\
        --out webseg/models
    python -m webseg.graphseg.train cclus --data ../shared/data/segmentation/kreuzer-random \\
        --out webseg/models

Pages are split by :func:`webseg.datasets.select_split` (the paper's 25:25:50): costs are
learned on ``train``, lambda of every variant is chosen on ``val`` (best mean adjusted Rand
index), ``test`` is never read. Everything is seeded, so the same data gives the same model file.

**Gold.** A leaf's gold segment is ``webseg.datasets.gold_labels(page, blocks, level)``; leaves
outside every gold block (label -1) form one "rest of the page" segment, exactly as the
evaluation harness scores them by default (``--unassigned background``), so that training and
scoring agree on what "same segment" means. ``--level`` picks the gold level (default 2: the
finer Kreuzer blocks, about 16 per page, the granularity closest to the paper's ~10 segments
per page; level-1 blocks are unions of them).

**Training pairs.**

* GCuts Vpq (leaves): every visually adjacent leaf pair of the training pages (the pairs the
  energy uses), class = same gold segment.
* GCuts Vpq (parent-child): every edge of the content tree, class = the parent's subtree lies in
  one gold segment (the edge's cost is what it costs to make the parent invisible).
* CClus Vpq: all leaf pairs, uniformly subsampled to ``--pairs-per-page`` per page (uniform, so
  the class balance - and thus the calibration the pivot's 1/2 threshold relies on - is that of
  all pairs; the cap keeps large pages from dominating).
* GCuts Dp: LMNN over the nodes whose subtree lies in one gold segment (leaves and pure internal
  nodes), classes = gold segments, triplets within a page.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist

from webseg.graphseg.features import (
    ContentTree,
    NodeAttrs,
    content_tree,
    leaf_adjacency,
    node_attrs,
    node_features,
    pair_features,
    parent_child_features,
)
from webseg.graphseg.learn import fit_lmnn, fit_logistic
from webseg.graphseg.model import CClusModel, GCutsModel
from webseg.page import Page

#: Lambda grid of the validation sweeps (log-spaced; the paper's best values were 0.5-1.5).
LAMBDAS = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0,
           100.0]
#: CClus's lambda scales the cost of separating; its no-learning variant needs larger values.
CCLUS_LAMBDAS = [*LAMBDAS, 200.0, 500.0, 1000.0]
#: Dp(xi) of internal nodes tried with every lambda (GCuts variants).
DXIS = [0.0, 0.5, 1.0]
MIXED = -2


@dataclass
class PageData:
    """A training page's content tree, features and gold labels (per leaf and per node)."""

    page: Page
    tree: ContentTree
    attrs: NodeAttrs
    X: np.ndarray
    leaf_gold: np.ndarray
    node_gold: np.ndarray


def node_gold(tree: ContentTree, leaf_gold: np.ndarray) -> np.ndarray:
    """Gold segment of every content-tree node whose leaves share one, else :data:`MIXED`."""
    lab = np.asarray(leaf_gold, dtype=np.int64)
    changes = np.concatenate([[0], np.cumsum(lab[1:] != lab[:-1])])
    lo, hi = tree.leaf_lo, tree.leaf_hi
    out = np.full(tree.n, MIXED, dtype=np.int64)
    ok = hi > lo
    pure = np.zeros(tree.n, dtype=bool)
    pure[ok] = changes[hi[ok] - 1] == changes[lo[ok]]
    out[pure] = lab[lo[pure]]
    return out


def page_data(page: Page, leaf_gold: np.ndarray) -> PageData | None:
    tree = content_tree(page)
    if tree is None or len(tree.leaves) < 2:
        return None
    leaf_gold = np.asarray(leaf_gold, dtype=np.int64)
    if len(leaf_gold) != len(tree.leaves):
        raise ValueError(f"{page.url}: gold has {len(leaf_gold)} leaves, page has "
                         f"{len(tree.leaves)}")
    attrs = node_attrs(tree)
    return PageData(page, tree, attrs, node_features(tree, attrs), leaf_gold,
                    node_gold(tree, leaf_gold))


def _data(pages: Sequence[Page], golds: Sequence[np.ndarray]) -> list[PageData]:
    out = []
    for p, g in zip(pages, golds, strict=True):
        d = page_data(p, g)
        if d is not None:
            out.append(d)
    if not out:
        raise ValueError("no training page has two or more text leaves")
    return out


def train_gcuts(pages: Sequence[Page], golds: Sequence[np.ndarray], k_adjacent: int = 4,
                seed: int = 0, lmnn: dict[str, Any] | None = None, C: float = 1.0
                ) -> GCutsModel:
    """Learn Dp (LMNN metric) and both Vpq (logistic regression); lambda is left empty."""
    data = _data(pages, golds)
    # Vpq, adjacent leaves
    Fs, ys = [], []
    for d in data:
        e = leaf_adjacency(d.tree, d.attrs, k_adjacent)
        lg = d.node_gold
        Fs.append(pair_features(d.tree, d.attrs, e[:, 0], e[:, 1]))
        ys.append(lg[e[:, 0]] == lg[e[:, 1]])
    leaf_lr = fit_logistic(np.concatenate(Fs), np.concatenate(ys).astype(int), C)
    n_leaf_pairs = int(sum(len(y) for y in ys))
    # Vpq, parent-child edges
    Fs, ys = [], []
    for d in data:
        Fs.append(parent_child_features(d.tree, d.attrs, d.X))
        ys.append(d.node_gold[d.tree.parent[1:]] != MIXED)
    pc_lr = fit_logistic(np.concatenate(Fs), np.concatenate(ys).astype(int), C)
    n_pc_pairs = int(sum(len(y) for y in ys))
    # Dp: LMNN over pure nodes
    groups = []
    for d in data:
        sel = d.node_gold != MIXED
        groups.append((d.X[sel], d.node_gold[sel]))
    L, rep = fit_lmnn(groups, seed=seed, **(lmnn or {}))
    # units: median Dp over (node, label) of the training pages, learned and Euclidean
    rng = np.random.default_rng(seed)

    def median_d(T: np.ndarray | None) -> float:
        vals = []
        for d in data:
            Z = d.X if T is None else d.X @ T.T
            D = cdist(Z, Z[d.tree.internal]).ravel()
            if len(D) > 20000:
                D = rng.choice(D, 20000, replace=False)
            vals.append(D)
        return float(np.median(np.concatenate(vals)))

    info = {"leaf_pairs": n_leaf_pairs, "parent_child_pairs": n_pc_pairs, "lmnn": rep,
            "seed": seed, "C": C, "k_adjacent": k_adjacent}
    return GCutsModel(L, median_d(L), median_d(None), leaf_lr, pc_lr, {}, {}, info)


def train_cclus(pages: Sequence[Page], golds: Sequence[np.ndarray], pairs_per_page: int = 3000,
                seed: int = 0, C: float = 1.0) -> CClusModel:
    """Learn CClus's Vpq over (subsampled) all leaf pairs; lambda is left empty."""
    data = _data(pages, golds)
    rng = np.random.default_rng(seed)
    Fs, ys = [], []
    for d in data:
        m = len(d.tree.leaves)
        iu = np.triu_indices(m, 1)
        if len(iu[0]) > pairs_per_page:
            sel = np.sort(rng.choice(len(iu[0]), pairs_per_page, replace=False))
            iu = (iu[0][sel], iu[1][sel])
        a, b = d.tree.leaves[iu[0]], d.tree.leaves[iu[1]]
        Fs.append(pair_features(d.tree, d.attrs, a, b))
        ys.append(d.leaf_gold[iu[0]] == d.leaf_gold[iu[1]])
    y = np.concatenate(ys).astype(int)
    lr = fit_logistic(np.concatenate(Fs), y, C)
    info = {"pairs": int(len(y)),
            "positive_rate": float(y.mean()), "pairs_per_page": pairs_per_page, "seed": seed,
            "C": C}
    return CClusModel(lr, {}, info)


# ---------------------------------------------------------------------- lambda sweeps
def sweep(segmenter: Any, pages: Sequence[Page], golds: Sequence[np.ndarray],
          lambdas: Iterable[float], ids: Sequence[str] | None = None,
          char_weights: bool = True) -> list[dict[str, Any]]:
    """Score ``segmenter`` on ``pages`` for every lambda (costs prepared once per page)."""
    from webseg.metrics import segmentation_scores

    lambdas = list(lambdas)
    rows = []
    for k, (page, gold) in enumerate(zip(pages, golds, strict=True)):
        prep = segmenter.prepare(page)
        chars = np.array([len(page.leaf_text(i)) for i in page.text_leaves], dtype=float)
        for lam in lambdas:
            t0 = time.perf_counter()
            seg = segmenter.segment_prepared(prep, lam)
            secs = time.perf_counter() - t0 + prep.seconds
            pl = seg.leaf_labels()
            sc = segmentation_scores(gold, pl, char_weights=chars if char_weights else None,
                                     unassigned="background")
            rows.append({"page": ids[k] if ids else str(k), "segmenter": segmenter.name,
                         "lambda": lam, "ari": sc["ari"], "nmi": sc["nmi"],
                         "segments": len(seg), "seconds": secs})
    return rows


def best_lambda(rows: list[dict[str, Any]], metric: str = "ari") -> tuple[float, dict]:
    """Lambda with the best mean ``metric`` (ties: the smaller lambda), and the mean table."""
    means: dict[float, float] = {}
    for lam in sorted({r["lambda"] for r in rows}):
        v = [r[metric] for r in rows if r["lambda"] == lam and np.isfinite(r[metric])]
        means[lam] = float(np.mean(v)) if v else float("-inf")
    best = max(means, key=lambda k: (means[k], -k))
    return best, means


# ---------------------------------------------------------------------- CLI
def load_split(data: Path, split: str, level: int, cache: Path
               ) -> tuple[list[str], list[Page], list[np.ndarray]]:
    """Rendered pages of one split with their gold leaf labels (pages that fail are skipped)."""
    from webseg.datasets import gold_labels, read_gold_pages, render_gold_pages, select_split

    recs = read_gold_pages(data)
    keep = set(select_split([r.id for r in recs], split))
    recs = [r for r in recs if r.id in keep]
    rendered = render_gold_pages(recs, cache, 2, 60.0, progress=False)
    ids, pages, golds = [], [], []
    for r in recs:
        p = rendered.get(r.id)
        if not isinstance(p, Page):
            print(f"train: skipping {r.id}: {p}", file=sys.stderr)
            continue
        ids.append(r.id)
        pages.append(p)
        golds.append(gold_labels(p, r.blocks, level)[0])
    return ids, pages, golds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m webseg.graphseg.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("algo", choices=["gcuts", "cclus"])
    ap.add_argument("--data", required=True, type=Path, help="dataset folder (manifest.jsonl)")
    ap.add_argument("--out", required=True, type=Path, help="folder for <algo>.json")
    ap.add_argument("--level", type=int, default=2, help="gold level to learn (default 2)")
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/pages"))
    ap.add_argument("--lambdas", default=None,
                    help="comma-separated grid (default: LAMBDAS, CCLUS_LAMBDAS for cclus)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs-per-page", type=int, default=3000, help="CClus only")
    args = ap.parse_args(argv)
    lambdas = [float(x) for x in args.lambdas.split(",")] if args.lambdas else (
        CCLUS_LAMBDAS if args.algo == "cclus" else LAMBDAS)

    t0 = time.perf_counter()
    tr_ids, tr_pages, tr_gold = load_split(args.data, "train", args.level, args.cache)
    va_ids, va_pages, va_gold = load_split(args.data, "val", args.level, args.cache)
    print(f"train: {len(tr_pages)} train pages, {len(va_pages)} validation pages "
          f"(gold level {args.level})", file=sys.stderr)
    from webseg.segmenters import get_segmenter

    model: GCutsModel | CClusModel
    if args.algo == "gcuts":
        model = train_gcuts(tr_pages, tr_gold, seed=args.seed)
        variants = ["gcuts", "gcuts-np", "gcuts-nl"]
    else:
        model = train_cclus(tr_pages, tr_gold, pairs_per_page=args.pairs_per_page,
                            seed=args.seed)
        variants = ["cclus", "cclus-nl"]
    model.info.update(dataset=args.data.name, gold_level=args.level, train_pages=tr_ids,
                      val_pages=va_ids, lambdas=lambdas, validation={})
    for name in variants:
        best: tuple[float, float, float] | None = None  # (ari, lambda, dxi)
        grids = [(name, None)] if args.algo == "cclus" else [
            (f"{name} dxi={x}", x) for x in DXIS]
        for key, dxi in grids:
            seg = get_segmenter(name) if dxi is None else get_segmenter(name, dxi=dxi)
            seg.set_model(model)
            rows = sweep(seg, va_pages, va_gold, lambdas, va_ids)
            lam, means = best_lambda(rows)
            model.info["validation"][key] = {str(k): round(v, 4) for k, v in means.items()}
            if best is None or means[lam] > best[0] + 1e-12:
                best = (means[lam], lam, 0.0 if dxi is None else dxi)
        assert best is not None
        model.lam[name] = best[1]
        if isinstance(model, GCutsModel):
            model.dxi[name] = best[2]
        print(f"train: {name}: lambda = {best[1]}"
              + (f", dxi = {best[2]}" if isinstance(model, GCutsModel) else "")
              + f" (validation mean ARI {best[0]:.3f})", file=sys.stderr)
    print(f"train: done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"{args.algo}.json"
    model.save(out)
    print(json.dumps({"model": str(out), "lambda": model.lam,
                      "dxi": getattr(model, "dxi", None)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
