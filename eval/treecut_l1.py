"""Level-1 tree-cut exploration: which ``q`` model gets the level-1 cut closest to the gold.

    python -m eval.treecut_l1 --data ../shared/data/segmentation/kreuzer-random [--analyse]

Same protocol as :mod:`eval.cv` (``--parts treecut``): the ``q`` model of every fold is fitted
on the other three folds, and the pair weight ``w`` of fold *k* is the one with the best mean ARI
on the other folds. Variants of the level-1 ``q`` model (the part the oracle says loses the
points, ``eval/results/oracle``):

* ``lr``: the shipped logistic model (:func:`webseg.treecut.fit_q`), C = 0.1;
* ``lr+ctx``: the same with context features (the parent's features, node minus parent, share of
  the parent's leaves, number of children, depth);
* ``gbr`` / ``gbr+ctx``: scikit-learn's histogram gradient boosting regressor of the same-pair
  fraction (weight ``pairs ** 0.5``), without / with the context features.

``--analyse`` prints per-page ARI of ``gbr+ctx`` next to the DOM-cut oracle and VIPS (why the
level-1 mean stays below 0.75). Exploration only: nothing here is shipped.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

WS = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]


def context_features(prep: Any) -> np.ndarray:
    """Node features plus the parent's, their difference, leaf share of parent, children, depth."""
    t, X = prep.tree, prep.X
    par = np.where(t.parent >= 0, t.parent, 0)
    nl = (t.leaf_hi - t.leaf_lo).astype(float)
    extra = np.stack([nl / np.maximum(nl[par], 1), np.log1p(t.n_children.astype(float)),
                      t.depth / 10.0], 1)
    return np.concatenate([X, X[par], X - X[par], extra], 1)


def fit_gbr(Xs: Sequence[np.ndarray], Ps: Sequence[np.ndarray], Ss: Sequence[np.ndarray]
            ) -> Callable[[np.ndarray], np.ndarray]:
    from sklearn.ensemble import HistGradientBoostingRegressor

    X = np.concatenate([x[p > 0] for x, p in zip(Xs, Ps, strict=True)])
    P = np.concatenate([p[p > 0] for p in Ps])
    S = np.concatenate([s[p > 0] for s, p in zip(Ss, Ps, strict=True)])
    m = HistGradientBoostingRegressor(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                      min_samples_leaf=20, random_state=0)
    m.fit(X, S / P, sample_weight=P ** 0.5)
    return lambda Z: np.clip(m.predict(Z), 0, 1)


def fit_lr(Xs: Sequence[np.ndarray], Ps: Sequence[np.ndarray], Ss: Sequence[np.ndarray]
           ) -> Callable[[np.ndarray], np.ndarray]:
    from webseg.treecut import fit_q

    return fit_q(Xs, Ps, Ss, 0.1).predict


def run(items: Sequence[Any], preps: dict[str, Any], kind: str, ctx: bool, level: int = 1
        ) -> tuple[np.ndarray, list[float], dict[float, float]]:
    """Per-page CV ARI (w chosen on the other folds), chosen w per fold, mean ARI per w."""
    from eval.cv import score
    from webseg.treecut import best_cut, cut_labels, pair_stats

    its = [it for it in items if preps[it.id] is not None]
    Xs = [context_features(preps[it.id]) if ctx else preps[it.id].X for it in its]
    Ss = [pair_stats(preps[it.id].tree, it.gold[level])[1].astype(float) for it in its]
    folds = sorted({it.fold for it in its})
    A = {w: np.zeros(len(its)) for w in WS}
    for k in folds:
        tr = [i for i, it in enumerate(its) if it.fold != k]
        fitter = fit_gbr if kind == "gbr" else fit_lr
        pred = fitter([Xs[i] for i in tr], [preps[its[i].id].pairs for i in tr],
                      [Ss[i] for i in tr])
        for i, it in enumerate(its):
            if it.fold != k:
                continue
            p = preps[it.id]
            q = pred(Xs[i])
            for w in WS:
                cut = best_cut(p.tree, p.pairs * (q * (1 + w) - w))
                A[w][i] = score(it.gold[level], cut_labels(p.tree, cut))["ari"]
    fo = np.array([it.fold for it in its])
    tot = np.zeros(len(its))
    chosen = []
    for k in folds:
        wb = max(WS, key=lambda w: float(A[w][fo != k].mean()))
        chosen.append(wb)
        tot[fo == k] = A[wb][fo == k]
    return tot, chosen, {w: float(A[w].mean()) for w in WS}


def main(argv: list[str] | None = None) -> int:
    from eval.cv import load_items, score
    from webseg.datasets import DEFAULT_PAGE_CACHE
    from webseg.treecut import base_labels, best_cut, cut_labels, oracle_gain, prepare

    ap = argparse.ArgumentParser(prog="python -m eval.treecut_l1", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_PAGE_CACHE)
    ap.add_argument("--analyse", action="store_true")
    args = ap.parse_args(argv)
    items = load_items(args.data, args.cache)
    bases = {it.id: base_labels(it.page) for it in items}
    preps = {it.id: prepare(it.page, bases[it.id]) for it in items}
    variants = [("gbr", True)] if args.analyse else [("lr", False), ("lr", True),
                                                     ("gbr", False), ("gbr", True)]
    for kind, ctx in variants:
        tot, chosen, per_w = run(items, preps, kind, ctx)
        print(f"{kind}{'+ctx' if ctx else ''}: CV ARI L1 {tot.mean():.3f}, w per fold {chosen}, "
              + " ".join(f"w={w:g}:{a:.3f}" for w, a in per_w.items()), flush=True)
    if not args.analyse:
        return 0
    its = [it for it in items if preps[it.id] is not None]
    print("ari\toracle\tvips\tgold_blocks\tunassigned\tleaves\tpage")
    rows = []
    for a, it in zip(tot, its, strict=True):
        p, g = preps[it.id], it.gold[1]
        orc = score(g, cut_labels(p.tree, best_cut(p.tree, oracle_gain(p.tree, g, 1.0))))["ari"]
        v = score(g, bases[it.id]["vips1"])["ari"]
        rows.append((a, orc, v, len(set(g.tolist()) - {-1}), float((g == -1).mean()), len(g),
                     it.id))
    for r in sorted(rows):
        print("\t".join([f"{r[0]:.3f}", f"{r[1]:.3f}", f"{r[2]:.3f}", str(r[3]), f"{r[4]:.2f}",
                         str(r[5]), r[6]]))
    arr = np.array([r[:3] for r in rows])
    low = arr[:, 0] < 0.5
    print(f"pages < 0.5: {low.sum()} (oracle {arr[low, 1].mean():.3f}, vips "
          f"{arr[low, 2].mean():.3f}); pages >= 0.5: {(~low).sum()} (mean "
          f"{arr[~low, 0].mean():.3f}); per-page max(gbr+ctx, vips): "
          f"{np.maximum(arr[:, 0], arr[:, 2]).mean():.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
