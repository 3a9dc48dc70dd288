"""Nested 4-fold CV of the per-page level-1 selector (:mod:`webseg.select`), issue 17.

    python -m eval.select_l1 --data ../shared/data/segmentation/kreuzer-random \
        --out eval/results/cv/select

Protocol (folds :func:`eval.wps.make_folds`, as :mod:`eval.cv`):

* **Candidates** of a page are ``vips`` / ``dom`` level 1 (no training), the whole page, and the
  tree cut's level-1 cut at every ``w`` of :data:`webseg.select.CAND_WS`, its ``q`` model
  (:func:`webseg.treecut.fit_q`, C = 0.1 as shipped) fitted without the page's fold.
* **Test rows** of fold *k*: its pages with the tree-cut model fitted on the other three folds.
* **Training rows** for fold *k*: the pages of every other fold *j* with a tree-cut model fitted
  on the two folds that are neither *k* nor *j* (nested: the test fold's gold never touches the
  selector, not even through the candidates it is trained on).
* **Selector variant** (ridge / boosted trees / fixed best candidate / unsupervised medoid, see
  :data:`VARIANTS`) of fold *k* chosen by leave-one-fold-out over its three training folds; then
  refitted on all three and applied to fold *k*. Nothing is chosen on the reported fold.

Level 2 of the selection: the tree cut's level-2 cut (its level-2 ``q`` fitted on the other
folds, ``w`` = 1 as chosen by the CV in every fold) intersected with the selected level 1, so it
nests in level 1.

Outputs in ``--out``: ``per_page.csv`` (page, fold, method, level, ari, nmi, segments, choice),
``summary.csv``, ``summary.md`` (means, fold std., paired Wilcoxon vs vips), ``choices.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from webseg.select import candidate_labels, candidate_names, feature_names, page_features

C_TREECUT = 0.1
W2 = 1.0


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] select: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- selectors
Selector = Callable[[np.ndarray], np.ndarray]  # rows of one page -> predicted scores


def _std(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, s = X.mean(0), X.std(0)
    s[s < 1e-9] = 1.0
    return m, s


def interact(X: np.ndarray, n_cands: int, n_page: int, page_lo: int) -> np.ndarray:
    """X plus every page feature times every candidate one-hot (per-candidate page effects)."""
    P = X[:, page_lo:page_lo + n_page]
    H = X[:, -n_cands:]
    return np.concatenate([X, (P[:, :, None] * H[:, None, :]).reshape(len(X), -1)], 1)


def fit_ridge(Xs: list[np.ndarray], ys: list[np.ndarray], alpha: float, inter: bool,
              meta: dict[str, int]) -> Selector:
    from sklearn.linear_model import Ridge

    tf = (lambda Z: interact(Z, meta["n_cands"], meta["n_page"], meta["page_lo"])) if inter \
        else (lambda Z: Z)
    X = tf(np.concatenate(Xs))
    m, s = _std(X)
    r = Ridge(alpha=alpha).fit((X - m) / s, np.concatenate(ys))
    return lambda Z: r.predict((tf(Z) - m) / s)


def fit_gbr(Xs: list[np.ndarray], ys: list[np.ndarray], depth: int, n: int) -> Selector:
    from sklearn.ensemble import GradientBoostingRegressor

    g = GradientBoostingRegressor(max_depth=depth, n_estimators=n, learning_rate=0.05,
                                  subsample=0.8, min_samples_leaf=10, random_state=0)
    g.fit(np.concatenate(Xs), np.concatenate(ys))
    return g.predict


def fit_fixed(Xs: list[np.ndarray], ys: list[np.ndarray]) -> Selector:
    best = int(np.argmax(np.mean(ys, 0)))
    return lambda Z: -np.abs(np.arange(len(Z)) - best).astype(float)


def make_variants(names: list[str]) -> dict[str, Callable[..., Selector]]:
    feats = feature_names(names)
    meta = {"n_cands": len(names), "n_page": 7, "page_lo": feats.index("log_leaves")}
    agree = feats.index("agree_mean")
    v: dict[str, Callable[..., Selector]] = {
        "fixed": fit_fixed,
        "medoid": lambda Xs, ys: (lambda Z: Z[:, agree]),
    }
    for a in (1.0, 10.0, 100.0):
        v[f"ridge{a:g}"] = lambda Xs, ys, a=a: fit_ridge(Xs, ys, a, False, meta)
        v[f"ridge{a:g}+int"] = lambda Xs, ys, a=a: fit_ridge(Xs, ys, a, True, meta)
    for d, n in ((1, 100), (2, 100), (3, 100)):
        v[f"gbr{d}x{n}"] = lambda Xs, ys, d=d, n=n: fit_gbr(Xs, ys, d, n)
    return v


# ---------------------------------------------------------------------- data
def build(items: Sequence[Any], preps: dict[str, Any], bases: dict[str, Any]
          ) -> tuple[dict[tuple[int, int], dict[str, Any]], dict[int, Any]]:
    """Rows (features, ARI, NMI, labels) per (context, page); level-2 q per outer fold.

    Context ``(k, k)``: fold-*k* pages with the model fitted on the other folds (test rows);
    ``(k, j)``: fold-*j* pages with the model fitted on folds other than *k* and *j*.
    """
    from eval.cv import score
    from webseg.treecut import fit_q, pair_stats

    folds = sorted({it.fold for it in items})
    same = {lv: {it.id: pair_stats(preps[it.id].tree, it.gold[lv])[1].astype(float)
                 for it in items} for lv in (1, 2)}

    def fit_on(fs: set[int], lv: int) -> Any:
        tr = [it for it in items if it.fold in fs]
        return fit_q([preps[it.id].X for it in tr], [preps[it.id].pairs for it in tr],
                     [same[lv][it.id] for it in tr], C_TREECUT)

    rows: dict[tuple[int, int], dict[str, Any]] = {}
    q2: dict[int, Any] = {}
    for k in folds:
        q2[k] = fit_on(set(folds) - {k}, 2)
        for j in folds:
            model = fit_on(set(folds) - {k, j}, 1)
            for it in items:
                if it.fold != j:
                    continue
                p = preps[it.id]
                q1 = model.predict(p.X)
                cands, w_split = candidate_labels(p.tree, p.pairs, q1, bases[it.id])
                X = page_features(cands, bases[it.id], p.tree, q1, w_split)
                sc = [score(it.gold[1], lab) for lab in cands.values()]
                rows[(k, j), it.id] = {"X": X, "ari": np.array([s["ari"] for s in sc]),
                                       "nmi": np.array([s["nmi"] for s in sc]),
                                       "seg": np.array([s["segments"] for s in sc]),
                                       "cands": cands}
        log(f"fold {k}: candidates done")
    return rows, q2


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import wilcoxon

    from eval.cv import intersect, load_items, score
    from eval.segmentation import write_csv
    from webseg.datasets import DEFAULT_PAGE_CACHE
    from webseg.treecut import base_labels, best_cut, cut_labels, prepare

    ap = argparse.ArgumentParser(prog="python -m eval.select_l1", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_PAGE_CACHE)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    items = load_items(args.data, args.cache)
    bases = {it.id: base_labels(it.page) for it in items}
    preps = {it.id: prepare(it.page, bases[it.id]) for it in items}
    items = [it for it in items if preps[it.id] is not None]
    log(f"{len(items)} pages prepared, {time.perf_counter() - t0:.0f} s")
    rows, q2 = build(items, preps, bases)
    names = candidate_names()
    variants = make_variants(names)
    folds = sorted({it.fold for it in items})
    by_fold = {k: [it for it in items if it.fold == k] for k in folds}

    def run_variant(fit: Callable[..., Selector], ctx_k: int, train: Sequence[int],
                    test: int) -> list[int]:
        """Fit on fold rows ``(ctx_k, j)`` for j in train; argmax per page of fold ``test``."""
        tr = [rows[(ctx_k, j), it.id] for j in train for it in by_fold[j]]
        sel = fit([r["X"] for r in tr], [r["ari"] for r in tr])
        ctx = (test, test) if test == ctx_k else (ctx_k, test)
        return [int(np.argmax(sel(rows[ctx, it.id]["X"]))) for it in by_fold[test]]

    chosen_variant: dict[int, str] = {}
    inner_means: dict[int, dict[str, float]] = {}
    picks: dict[str, dict[str, int]] = {v: {} for v in [*variants, "selected"]}
    for k in folds:
        tr_folds = [j for j in folds if j != k]
        inner: dict[str, float] = {}
        for vn, fit in variants.items():
            a = []
            for j in tr_folds:
                pk = run_variant(fit, k, [f for f in tr_folds if f != j], j)
                a += [rows[(k, j), it.id]["ari"][c] for it, c in zip(by_fold[j], pk,
                                                                      strict=True)]
            inner[vn] = float(np.mean(a))
            for it, c in zip(by_fold[k], run_variant(fit, k, tr_folds, k), strict=True):
                picks[vn][it.id] = c
        inner_means[k] = inner
        chosen_variant[k] = max(inner, key=lambda v: inner[v])
        for it in by_fold[k]:
            picks["selected"][it.id] = picks[chosen_variant[k]][it.id]
        log(f"fold {k}: chosen {chosen_variant[k]} (inner {inner[chosen_variant[k]]:.3f})")

    # ---- scores
    recs: list[dict[str, Any]] = []
    per: dict[tuple[str, int], dict[str, float]] = {}
    for it in items:
        r = rows[(it.fold, it.fold), it.id]
        p = preps[it.id]
        q2v = q2[it.fold].predict(p.X)
        c2 = best_cut(p.tree, p.pairs * (q2v * (1 + W2) - W2))
        tc2 = cut_labels(p.tree, c2)
        meths: dict[str, tuple[np.ndarray, str]] = {c: (r["cands"][c], "") for c in names}
        meths["oracle"] = (r["cands"][names[int(np.argmax(r["ari"]))]], "")
        for vn in picks:
            meths[f"select:{vn}"] = (r["cands"][names[picks[vn][it.id]]], names[picks[vn][it.id]])
        for m, (lab1, note) in meths.items():
            s1 = score(it.gold[1], lab1)
            recs.append({"page": it.id, "fold": it.fold, "method": m, "level": 1,
                         "ari": round(s1["ari"], 4), "nmi": round(s1["nmi"], 4),
                         "segments": s1["segments"], "choice": note})
            per[m, 1] = per.get((m, 1), {}) | {it.id: s1["ari"]}
            if m in ("vips1", "select:selected"):
                lab2 = intersect(tc2, lab1)
                s2 = score(it.gold[2], lab2)
                if m == "vips1":
                    s2 = score(it.gold[2], bases[it.id]["vips2"])
                recs.append({"page": it.id, "fold": it.fold, "method": m, "level": 2,
                             "ari": round(s2["ari"], 4), "nmi": round(s2["nmi"], 4),
                             "segments": s2["segments"], "choice": note})
    summ = []
    for (m, lv) in sorted({(r["method"], r["level"]) for r in recs}, key=lambda t: (t[1], t[0])):
        rs = [r for r in recs if r["method"] == m and r["level"] == lv]
        fm = [np.mean([r["ari"] for r in rs if r["fold"] == k]) for k in folds]
        d = {"method": m, "level": lv, "ari": round(float(np.mean([r["ari"] for r in rs])), 4),
             "ari_fold_std": round(float(np.std(fm)), 4),
             "nmi": round(float(np.mean([r["nmi"] for r in rs])), 4),
             "segments": round(float(np.mean([r["segments"] for r in rs])), 2)}
        if lv == 1 and m != "vips1":
            a = np.array([r["ari"] for r in rs])
            v = np.array([next(x["ari"] for x in recs if x["page"] == r["page"]
                               and x["method"] == "vips1" and x["level"] == 1) for r in rs])
            diff = a - v
            d["diff_vs_vips"] = round(float(diff.mean()), 4)
            d["better_worse"] = f"{int((diff > 0.01).sum())}/{int((diff < -0.01).sum())}"
            d["wilcoxon_p"] = (round(float(wilcoxon(a, v).pvalue), 4)
                               if np.any(np.abs(diff) > 0) else 1.0)
        summ.append(d)
    for d in summ:
        print(json.dumps(d))
    print("chosen per fold:", chosen_variant)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        write_csv(args.out / "per_page.csv", recs, list(recs[0]))
        write_csv(args.out / "summary.csv", summ, list(dict.fromkeys(k for d in summ for k in d)))
        (args.out / "choices.json").write_text(json.dumps(
            {"variant_per_fold": chosen_variant, "inner_cv_ari": inner_means,
             "candidates": names, "seconds": round(time.perf_counter() - t0, 1)}, indent=1)
            + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
