"""Nested 4-fold CV of the per-page level-1 selector (:mod:`webseg.select`), issue 17.

    python -m eval.select_l1 --data ../shared/data/segmentation/kreuzer-random \
        --out eval/results/cv/select

Protocol (folds :func:`eval.wps.make_folds`, as :mod:`eval.cv`):

* **Candidates** of a page (:func:`webseg.select.candidate_labels`) are ``vips`` / ``dom``
  level 1 (no training) and the tree cut's level-1 cut at its first split and 2 / 4 grid steps
  finer (:func:`webseg.select.split_cuts`), its ``q`` model (:func:`webseg.treecut.fit_q`,
  C = 0.1 as shipped) fitted without the page's fold.
* **Test rows** of fold *k*: its pages with the tree-cut model fitted on the other three folds.
* **Training rows** for fold *k*: the pages of every other fold *j* with a tree-cut model fitted
  on the two folds that are neither *k* nor *j* (``--rows nested``, default: the test fold's
  gold never touches the selector, not even through the candidates it is trained on), or their
  ordinary out-of-fold rows (``--rows oof``: tree cut fitted on the three folds other than *j*).
* **Selector variant** (ridge / boosted trees / fixed best candidate / unsupervised medoid, see
  :data:`VARIANTS`) of fold *k* chosen by leave-one-fold-out over its three training folds; then
  refitted on all three and applied to fold *k*. Nothing is chosen on the reported fold.

Level 2 of the selection, as the shipped ``select`` segmenter does it: the tree cut's level-2
cut (its level-2 ``q`` fitted on the other folds, ``w`` = 1 as chosen by the CV in every fold)
inside a tree-cut level-1 choice, VIPS / DOM level 2 for theirs. ``--ship FILE`` also fits
``--ship-variant`` on every page's out-of-fold rows and writes the selector model.

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

from webseg.select import (
    PAGE_FEATURES,
    SelectModel,
    candidate_labels,
    candidate_names,
    feature_names,
    interact,
    page_features,
)

C_TREECUT = 0.1
W2 = 1.0
#: Level 2 of a non-tree-cut candidate (a page the tree cut never splits falls back to VIPS).
LEVEL2 = {"vips1": "vips2", "dom1": "dom2"}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] select: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- selectors
Selector = Callable[[np.ndarray], np.ndarray]  # rows of one page -> predicted scores


def _std(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m, s = X.mean(0), X.std(0)
    s[s < 1e-9] = 1.0
    return m, s


def fit_ridge(Xs: list[np.ndarray], ys: list[np.ndarray], alpha: float, inter: bool,
              meta: dict[str, int]) -> Selector:
    from sklearn.linear_model import Ridge

    tf = (lambda Z: interact(Z, meta["n_cands"], meta["n_page"], meta["page_lo"])) if inter \
        else (lambda Z: Z)
    X = tf(np.concatenate(Xs))
    m, s = _std(X)
    r = Ridge(alpha=alpha).fit((X - m) / s, np.concatenate(ys))

    def sel(Z: np.ndarray) -> np.ndarray:
        return r.predict((tf(Z) - m) / s)

    sel.params = {"mean": m.tolist(), "scale": s.tolist(),  # type: ignore[attr-defined]
                  "coef": r.coef_.tolist(), "intercept": float(r.intercept_),
                  "interact": inter, "alpha": alpha}
    return sel


def fit_gbr(Xs: list[np.ndarray], ys: list[np.ndarray], depth: int, n: int) -> Selector:
    from sklearn.ensemble import GradientBoostingRegressor

    g = GradientBoostingRegressor(max_depth=depth, n_estimators=n, learning_rate=0.05,
                                  subsample=0.8, min_samples_leaf=10, random_state=0)
    g.fit(np.concatenate(Xs), np.concatenate(ys))
    return g.predict


def fit_fixed(Xs: list[np.ndarray], ys: list[np.ndarray]) -> Selector:
    best = int(np.argmax(np.mean(ys, 0)))

    def sel(Z: np.ndarray) -> np.ndarray:
        return -np.abs(np.arange(len(Z)) - best).astype(float)

    sel.best = best  # type: ignore[attr-defined]
    return sel


def make_variants(names: list[str]) -> dict[str, Callable[..., Selector]]:
    feats = feature_names(names)
    meta = {"n_cands": len(names), "n_page": len(PAGE_FEATURES),
            "page_lo": feats.index(PAGE_FEATURES[0])}
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
def build(items: Sequence[Any], preps: dict[str, Any], bases: dict[str, Any], nested: bool
          ) -> dict[tuple[tuple[int, int], str], dict[str, Any]]:
    """Rows (features, level-1 ARI per candidate, labels) per (context, page).

    Context ``(k, k)``: fold-*k* pages with the tree-cut models fitted on the other folds (the
    test rows, and with ``nested=False`` also the training rows of the other folds);
    ``(k, j)`` (``nested``): fold-*j* pages with the model fitted on folds other than *k*, *j*.
    Test rows also carry the level-2 labels of every candidate (``cands2``): the tree cut's
    level-2 cut inside the candidate's level-1 cut, or VIPS / DOM level 2.
    """
    from eval.cv import score
    from webseg.treecut import best_cut, cut_labels, fit_q, pair_stats

    folds = sorted({it.fold for it in items})
    same = {lv: {it.id: pair_stats(preps[it.id].tree, it.gold[lv])[1].astype(float)
                 for it in items} for lv in (1, 2)}

    def fit_on(fs: set[int], lv: int) -> Any:
        tr = [it for it in items if it.fold in fs]
        return fit_q([preps[it.id].X for it in tr], [preps[it.id].pairs for it in tr],
                     [same[lv][it.id] for it in tr], C_TREECUT)

    rows: dict[tuple[tuple[int, int], str], dict[str, Any]] = {}
    for k in folds:
        q2 = fit_on(set(folds) - {k}, 2)
        for j in (folds if nested else [k]):
            model = fit_on(set(folds) - {k, j}, 1)
            for it in items:
                if it.fold != j:
                    continue
                p, b = preps[it.id], bases[it.id]
                q1 = model.predict(p.X)
                cands, cuts, w_split = candidate_labels(p.tree, p.pairs, q1, b)
                X = page_features(cands, b, p.tree, q1, w_split)
                sc = [score(it.gold[1], lab) for lab in cands.values()]
                r = {"X": X, "ari": np.array([s["ari"] for s in sc]), "cands": cands}
                if j == k:
                    g2 = p.pairs * (q2.predict(p.X) * (1 + W2) - W2)
                    r["cands2"] = {c: (cut_labels(p.tree, best_cut(p.tree, g2, cuts[c].tolist()))
                                       if c in cuts else b[LEVEL2.get(c, "vips2")])
                                   for c in cands}
                rows[(k, j), it.id] = r
        log(f"fold {k}: candidates done")
    return rows


def prepared_items(data: Path, cache: Path) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """The CV items (``eval.cv.load_items``) with their base segmentations and tree-cut
    preparations; pages the tree cut cannot prepare (no content tree) are left out, as in
    ``eval.cv``. Shared by this harness and ``eval.select_whole``."""
    from eval.cv import load_items
    from webseg.treecut import base_labels, prepare

    t0 = time.perf_counter()
    items = load_items(data, cache)
    bases = {it.id: base_labels(it.page) for it in items}
    preps = {it.id: prepare(it.page, bases[it.id]) for it in items}
    items = [it for it in items if preps[it.id] is not None]
    log(f"{len(items)} pages prepared, {time.perf_counter() - t0:.0f} s")
    return items, bases, preps


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import wilcoxon

    from eval.cv import score
    from eval.segmentation import write_csv
    from webseg.datasets import DEFAULT_PAGE_CACHE

    ap = argparse.ArgumentParser(prog="python -m eval.select_l1", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_PAGE_CACHE)
    ap.add_argument("--rows", choices=["nested", "oof"], default="nested",
                    help="selector training rows: nested tree-cut models (default) or the "
                         "ordinary out-of-fold ones")
    ap.add_argument("--ship", type=Path, help="also fit --ship-variant on every page's "
                    "out-of-fold rows and write it as a selector model (JSON)")
    ap.add_argument("--ship-variant", default="fixed",
                    help="fixed, or ridgeA / ridgeA+int (A: the ridge alpha)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    nested = args.rows == "nested"
    items, bases, preps = prepared_items(args.data, args.cache)
    rows = build(items, preps, bases, nested)
    names = candidate_names()
    variants = make_variants(names)
    folds = sorted({it.fold for it in items})
    by_fold = {k: [it for it in items if it.fold == k] for k in folds}

    def ctx(k: int, j: int) -> tuple[int, int]:
        """Rows of fold-``j`` pages when fold ``k`` is the held-out one."""
        return (k, j) if nested else (j, j)

    def run_variant(fit: Callable[..., Selector], k: int, train: Sequence[int],
                    test: int) -> list[int]:
        """Fit on the rows of folds ``train`` (outer fold ``k``); argmax per page of ``test``."""
        tr = [rows[ctx(k, j), it.id] for j in train for it in by_fold[j]]
        sel = fit([r["X"] for r in tr], [r["ari"] for r in tr])
        return [int(np.argmax(sel(rows[ctx(k, test), it.id]["X"]))) for it in by_fold[test]]

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
                a += [rows[ctx(k, j), it.id]["ari"][c] for it, c in zip(by_fold[j], pk,
                                                                         strict=True)]
            inner[vn] = round(float(np.mean(a)), 4)
            for it, c in zip(by_fold[k], run_variant(fit, k, tr_folds, k), strict=True):
                picks[vn][it.id] = c
        inner_means[k] = inner
        chosen_variant[k] = max(inner, key=lambda v: inner[v])
        for it in by_fold[k]:
            picks["selected"][it.id] = picks[chosen_variant[k]][it.id]
        log(f"fold {k}: chosen {chosen_variant[k]} (inner {inner[chosen_variant[k]]:.3f})")

    # ---- scores
    recs: list[dict[str, Any]] = []
    for it in items:
        r = rows[(it.fold, it.fold), it.id]
        meths: dict[str, str] = {c: c for c in names}
        meths["oracle"] = names[int(np.argmax(r["ari"]))]
        for vn in picks:
            meths[f"select:{vn}"] = names[picks[vn][it.id]]
        for m, c in meths.items():
            for lv, lab in ((1, r["cands"][c]), (2, r["cands2"][c])):
                sc = score(it.gold[lv], lab)
                recs.append({"page": it.id, "fold": it.fold, "method": m, "level": lv,
                             "ari": round(sc["ari"], 4), "nmi": round(sc["nmi"], 4),
                             "segments": sc["segments"], "choice": c})
    summ = summarise(recs, folds, wilcoxon)
    for d in summ:
        print(json.dumps(d))
    print("chosen per fold:", chosen_variant)
    if args.ship:
        ship(args, rows, items, names, variants, chosen_variant)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        write_csv(args.out / "per_page.csv", recs, list(recs[0]))
        write_csv(args.out / "summary.csv", summ, list(dict.fromkeys(k for d in summ for k in d)))
        (args.out / "choices.json").write_text(json.dumps(
            {"rows": args.rows, "variant_per_fold": chosen_variant, "inner_cv_ari": inner_means,
             "candidates": names, "seconds": round(time.perf_counter() - t0, 1)}, indent=1)
            + "\n", encoding="utf-8")
    return 0


def ship(args: argparse.Namespace, rows: dict[Any, dict[str, Any]], items: Sequence[Any],
         names: list[str], variants: dict[str, Callable[..., Selector]],
         chosen: dict[int, str]) -> None:
    """Fit the shipped selector on every page's out-of-fold rows (tree cut trained without the
    page's fold, as the shipped tree-cut model never saw a page it cuts)."""
    tr = [rows[(it.fold, it.fold), it.id] for it in items]
    sel = variants[args.ship_variant]([r["X"] for r in tr], [r["ari"] for r in tr])
    info = {"command": "python -m eval.select_l1 " + " ".join(sys.argv[1:]),
            "pages": len(items), "dataset": args.data.name, "variant": args.ship_variant,
            "cv_variant_per_fold": {str(k): v for k, v in chosen.items()}}
    if args.ship_variant == "fixed":
        model = SelectModel("fixed", names, names[sel.best], info=info)  # type: ignore[attr-defined]
    else:
        model = SelectModel("ridge", names, ridge=sel.params, info=info)  # type: ignore[attr-defined]
    args.ship.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.ship)
    log(f"selector model ({args.ship_variant}, choice {model.choice}) -> {args.ship}")


def summarise(recs: list[dict[str, Any]], folds: Sequence[int], wilcoxon: Any
              ) -> list[dict[str, Any]]:
    """Mean ARI / NMI / segments per method and level, fold std., paired test vs vips."""
    ref = {(r["page"], r["level"]): r["ari"] for r in recs if r["method"] == "vips1"}
    out = []
    for m, lv in sorted({(r["method"], r["level"]) for r in recs}, key=lambda t: (t[1], t[0])):
        rs = [r for r in recs if r["method"] == m and r["level"] == lv]
        fm = [np.mean([r["ari"] for r in rs if r["fold"] == k]) for k in folds]
        d: dict[str, Any] = {"method": m, "level": lv,
                             "ari": round(float(np.mean([r["ari"] for r in rs])), 4),
                             "ari_fold_std": round(float(np.std(fm)), 4),
                             "nmi": round(float(np.mean([r["nmi"] for r in rs])), 4),
                             "segments": round(float(np.mean([r["segments"] for r in rs])), 2)}
        if m != "vips1":
            a = np.array([r["ari"] for r in rs])
            v = np.array([ref[r["page"], lv] for r in rs])
            diff = a - v
            d["diff_vs_vips"] = round(float(diff.mean()), 4)
            d["better_worse"] = f"{int((diff > 0.01).sum())}/{int((diff < -0.01).sum())}"
            d["wilcoxon_p"] = (round(float(wilcoxon(a, v).pvalue), 4)
                               if np.any(np.abs(diff) > 0) else 1.0)
        out.append(d)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
