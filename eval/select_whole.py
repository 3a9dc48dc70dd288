"""Nested 4-fold CV of two refinements of ``select``'s first-split reading (issue 17).

    python -m eval.select_whole --data ../shared/data/segmentation/kreuzer-random \
        --out eval/results/cv/select-whole                    # nested rows (default)
    python -m eval.select_whole --data ... --rows oof --out eval/results/cv/select-whole-oof

``select`` (:mod:`webseg.select`) reads the tree cut at its *first split* (the coarsest cut with
>= 2 segments over :data:`webseg.select.SPLIT_WS`). Two ideas, each a fixed set of variants
decided before the evaluation; which variant a fold gets is chosen by inner CV on its training
folds only:

1. **Keep the page whole** (``RULES``): the first split always cuts, but some pages are one
   level-1 block in the gold (a split there scores ~0). Rules: ``none`` (shipped behaviour),
   ``vips`` (whole iff VIPS returns one level-1 segment; no parameter), ``wsplit`` (whole iff
   the first-split weight ``w`` >= t: the tree cut needs a large pair weight to split the page,
   i.e. the model sees it as one block; pages it never splits are whole too), ``margin`` (whole
   iff the root's split advantage at ``w`` = 1, ``(sum of children's best - root gain) /
   root pairs``, is <= -t), ``vips|wsplit``. ``t`` is fitted on the training rows (the value
   maximising their mean level-1 ARI; ties -> the fewest whole pages).
2. **Level-1 model trained for the first split** (``QS``): ``frac`` (shipped: logistic model of
   the same-block pair fraction, C = 0.1), ``sep`` (binary target: the node's leaves are all in
   one gold level-1 block, i.e. its children are never separated at level 1), ``sep-top``
   (``sep`` trained only on the nodes that decide the first split: the root and every child of
   a node the gold separates - deeper nodes inside a block do not change level 1).

Rows (as :mod:`eval.select_l1`): fold *k*'s pages with models fitted on the other three folds
(test rows); the training rows of fold *j* != *k* come from models fitted on the two folds
that are neither *k* nor *j* (``--rows nested``) or on the three folds other than *j*
(``--rows oof``). ``selected``: per outer fold, the (q, rule) pair with the best
leave-one-fold-out mean ARI over its three training folds (``t`` refitted per inner split; ties
-> the first in variant order, i.e. ``frac`` before ``sep``, ``none`` before the rules, step 0
first), then ``t`` refitted on the three folds. ``--steps 0,2,4`` also chooses the grid step
*d* after the first split (as ``select_l1``'s ``fixed`` does). Level 2, as
:func:`webseg.select.segment`: the tree cut's level-2 cut (``frac`` q fitted on the other folds,
w = 1) inside the first-split cut whether or not level 1 keeps the page whole (inside the root
for a whole page the tree cut never splits; VIPS level 2 where it never splits and the rule
does not keep it whole, as ``select`` falls back to VIPS).

``--ship FILE``: the variant chosen by the same rule over all four folds' out-of-fold rows, its
``t`` and (not ``frac``) its q fitted on all pages, as a :class:`webseg.select.SelectModel`.

Outputs in ``--out``: ``per_page.csv``, ``summary.csv`` (means, fold std., paired Wilcoxon vs
``vips1``, vs the current ``select`` as ``select_l1`` evaluated it, and vs ``split+0``),
``choices.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

C_TREECUT = 0.1
W2 = 1.0
QS = ("frac", "sep", "sep-top")
RULES = ("none", "vips", "wsplit", "margin", "vips|wsplit")
#: The shipped ``select`` before this harness: frac q, first split, never whole (``split+0``).
SHIPPED = "frac/none"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] select_whole: {msg}", file=sys.stderr, flush=True)


def q_targets(tree: Any, pairs: np.ndarray, same: np.ndarray, kind: str
              ) -> tuple[np.ndarray, np.ndarray]:
    """(pairs, same) for :func:`webseg.treecut.fit_q` under the q variant ``kind``."""
    if kind == "frac":
        return pairs, same
    pure = same >= pairs - 1e-9
    p = pairs.copy()
    if kind == "sep-top":
        par = tree.parent
        keep = np.zeros(tree.n, dtype=bool)
        keep[0] = True
        keep[1:] = ~pure[par[1:]]
        p = np.where(keep, p, 0.0)
    return p, p * pure


# ---------------------------------------------------------------------- rules
def rule_score(rule: str, r: dict[str, Any]) -> float:
    """The thresholded feature of ``rule`` (whole iff >= t), -inf for parameter-free rules."""
    if rule in ("wsplit", "vips|wsplit"):
        return r["log_w"]
    if rule == "margin":
        return -r["margin"]
    return -np.inf


def decide(rule: str, t: float, r: dict[str, Any]) -> bool:
    """Whole (True) or the first split (:func:`webseg.select.keep_whole`, as shipped)."""
    from webseg.select import keep_whole

    return keep_whole(rule, t, r)


def fit_t(rule: str, rows: Sequence[dict[str, Any]]) -> float:
    """Threshold maximising the mean level-1 ARI of ``rows`` (ties: the largest, fewest whole)."""
    if rule in ("none", "vips"):
        return np.inf
    cands = sorted({rule_score(rule, r) for r in rows}) + [np.inf]
    best_t, best = np.inf, -np.inf
    for t in reversed(cands):
        m = np.mean([r["ari_whole"] if decide(rule, t, r) else r["ari_split"] for r in rows])
        if m > best + 1e-12:
            best_t, best = t, m
    return float(best_t)


def apply(rule: str, t: float, rows: Sequence[dict[str, Any]]) -> list[float]:
    return [r["ari_whole"] if decide(rule, t, r) else r["ari_split"] for r in rows]


# ---------------------------------------------------------------------- rows
def qname(kind: str, d: int) -> str:
    """Row key of q variant ``kind`` read ``d`` grid steps after its first split."""
    return kind if d == 0 else f"{kind}+{d}"


def build(items: Sequence[Any], preps: dict[str, Any], bases: dict[str, Any], nested: bool,
          steps: Sequence[int] = (0,)) -> dict[tuple[str, tuple[int, int], str], dict[str, Any]]:
    """Rows per (q variant and step, context, page); context ``(k, j)`` as in
    :mod:`eval.select_l1`."""
    from eval.cv import score
    from webseg.select import split_cuts, whole_features
    from webseg.treecut import best_cut, cut_labels, fit_q, pair_stats

    folds = sorted({it.fold for it in items})
    same = {lv: {it.id: pair_stats(preps[it.id].tree, it.gold[lv])[1].astype(float)
                 for it in items} for lv in (1, 2)}

    def fit_on(fs: set[int], lv: int, kind: str) -> Any:
        tr = [it for it in items if it.fold in fs]
        pt = [q_targets(preps[it.id].tree, preps[it.id].pairs, same[lv][it.id], kind)
              for it in tr]
        return fit_q([preps[it.id].X for it in tr], [p for p, _ in pt], [s for _, s in pt],
                     C_TREECUT)

    rows: dict[tuple[str, tuple[int, int], str], dict[str, Any]] = {}
    for k in folds:
        q2 = fit_on(set(folds) - {k}, 2, "frac")
        for j in (folds if nested else [k]):
            for kind in QS:
                model = fit_on(set(folds) - {k, j}, 1, kind)
                for it in items:
                    if it.fold != j:
                        continue
                    p, b = preps[it.id], bases[it.id]
                    q1 = model.predict(p.X)
                    cuts, w = split_cuts(p.tree, p.pairs, q1, steps)
                    root = np.array([0], dtype=np.int64)
                    lab_whole = cut_labels(p.tree, root)
                    feats = whole_features(p.tree, p.pairs, q1, w, b["vips1"])
                    ari_whole = score(it.gold[1], lab_whole)["ari"]
                    g2 = p.pairs * (q2.predict(p.X) * (1 + W2) - W2) if j == k else None
                    for d in steps:
                        c1 = cuts.get(d)
                        lab_split = (cut_labels(p.tree, c1) if c1 is not None
                                     else np.asarray(b["vips1"]))
                        r: dict[str, Any] = dict(feats, ari_whole=ari_whole,
                                                 ari_split=score(it.gold[1], lab_split)["ari"])
                        if g2 is not None:
                            # level 2 as webseg.select.segment: inside the split cut (the
                            # root if the tree cut never splits) whether level 1 is whole
                            in_whole = cut_labels(p.tree, best_cut(
                                p.tree, g2, c1.tolist() if c1 is not None else [0]))
                            r["lab1"] = {"split": lab_split, "whole": lab_whole}
                            r["lab2"] = {"split": in_whole if c1 is not None
                                         else np.asarray(b["vips2"]), "whole": in_whole}
                        rows[qname(kind, d), (k, j), it.id] = r
        log(f"fold {k}: rows done")
    return rows


def read_select(path: Path) -> dict[str, float]:
    """Per-page level-1 ARI of the current ``select`` (``select:fixed``) in a select_l1 run."""
    out = {}
    with path.open(encoding="utf-8") as f:
        for d in csv.DictReader(f):
            if d["method"] == "select:fixed" and d["level"] == "1":
                out[d["page"]] = float(d["ari"])
    return out


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import wilcoxon

    from eval.cv import score
    from eval.segmentation import write_csv
    from eval.select_l1 import prepared_items
    from webseg.datasets import DEFAULT_PAGE_CACHE

    ap = argparse.ArgumentParser(prog="python -m eval.select_whole", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_PAGE_CACHE)
    ap.add_argument("--rows", choices=["nested", "oof"], default="nested")
    ap.add_argument("--select-run", type=Path,
                    help="per_page.csv of the matching eval.select_l1 run (current select); "
                         "default eval/results/cv/select[-oof]/per_page.csv")
    ap.add_argument("--ship", type=Path, help="also choose the variant by leave-one-fold-out "
                    "over all four folds' out-of-fold rows, fit its threshold (and q) on all "
                    "pages and write the selector model (JSON)")
    ap.add_argument("--steps", default="0",
                    help="first-split steps d to choose among (comma-separated; default 0, "
                         "the shipped reading; 0,2,4 also chooses d on the training folds)")
    ap.add_argument("--diagnose", action="store_true",
                    help="print training-fold diagnostics only (fold 0 held out, never scored)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    nested = args.rows == "nested"
    items, bases, preps = prepared_items(args.data, args.cache)
    steps = [int(x) for x in args.steps.split(",")]
    rows = build(items, preps, bases, nested, steps)
    folds = sorted({it.fold for it in items})
    by_fold = {k: [it for it in items if it.fold == k] for k in folds}
    variants = [(qname(q, d), rule) for d in steps for q in QS for rule in RULES]

    def ctx(k: int, j: int) -> tuple[int, int]:
        return (k, j) if nested else (j, j)

    def rws(q: str, k: int, fs: Sequence[int]) -> list[dict[str, Any]]:
        return [rows[q, ctx(k, j), it.id] for j in fs for it in by_fold[j]]

    if args.diagnose:
        diagnose(rws, folds, variants)
        return 0

    picks: dict[str, dict[str, tuple[str, bool]]] = {}  # method -> page -> (q, whole)
    choices: dict[str, Any] = {"rows": args.rows, "selected": {}, "inner_cv_ari": {},
                               "t": {}}
    for k in folds:
        tr = [j for j in folds if j != k]
        inner = {}
        for q, rule in variants:
            a = []
            for j in tr:
                t = fit_t(rule, rws(q, k, [f for f in tr if f != j]))
                a += apply(rule, t, rws(q, k, [j]))
            inner[f"{q}/{rule}"] = round(float(np.mean(a)), 4)
        best = max(inner, key=lambda v: inner[v])  # first in list order on ties
        choices["inner_cv_ari"][k] = inner
        choices["selected"][k] = best
        for q, rule in variants:
            t = fit_t(rule, rws(q, k, tr))
            choices["t"].setdefault(f"{q}/{rule}", {})[k] = t if np.isfinite(t) else None
            for it in by_fold[k]:
                r = rows[q, (k, k), it.id]
                pick = (q, decide(rule, t, r))
                picks.setdefault(f"{q}/{rule}", {})[it.id] = pick
                if f"{q}/{rule}" == best:
                    picks.setdefault("selected", {})[it.id] = pick
        log(f"fold {k}: selected {best} (inner {inner[best]:.3f})")

    recs: list[dict[str, Any]] = []
    for it in items:
        meths = {"vips1": None, **{m: picks[m][it.id] for m in picks}}
        for m, pick in meths.items():
            for lv in (1, 2):
                if pick is None:
                    lab = bases[it.id][f"vips{lv}"]
                else:
                    r = rows[pick[0], (it.fold, it.fold), it.id]
                    lab = r[f"lab{lv}"]["whole" if pick[1] else "split"]
                sc = score(it.gold[lv], lab)
                recs.append({"page": it.id, "fold": it.fold, "method": m, "level": lv,
                             "ari": round(sc["ari"], 4), "nmi": round(sc["nmi"], 4),
                             "segments": sc["segments"],
                             "whole": "" if pick is None else int(pick[1]),
                             "q": "" if pick is None else pick[0]})
    sel_path = args.select_run or Path("eval/results/cv") / (
        "select" if nested else "select-oof") / "per_page.csv"
    current = read_select(sel_path)
    summ = summarise(recs, folds, wilcoxon, current)
    for d in summ:
        print(json.dumps(d))
    print("selected per fold:", choices["selected"])
    if args.ship:
        choices["shipped"] = ship(args, items, preps, rows, by_fold, variants)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        write_csv(args.out / "per_page.csv", recs, list(recs[0]))
        write_csv(args.out / "summary.csv", summ, list(dict.fromkeys(k for d in summ for k in d)))
        choices["seconds"] = round(time.perf_counter() - t0, 1)
        choices["current_select"] = str(sel_path)
        (args.out / "choices.json").write_text(json.dumps(choices, indent=1) + "\n",
                                               encoding="utf-8")
    return 0


def ship(args: argparse.Namespace, items: Sequence[Any], preps: dict[str, Any],
         rows: dict[Any, dict[str, Any]], by_fold: dict[int, list[Any]],
         variants: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The shipped selector: variant by leave-one-fold-out over the four folds' out-of-fold
    rows (the rule each outer fold used, on all 81 pages), threshold on all of them, q refitted
    on every page (``frac``: the shipped tree-cut model's own level-1 q, the same fit)."""
    from webseg.select import SelectModel, candidate_names
    from webseg.treecut import fit_q, pair_stats

    folds = sorted(by_fold)

    def oof(q: str, fs: Sequence[int]) -> list[dict[str, Any]]:
        return [rows[q, (j, j), it.id] for j in fs for it in by_fold[j]]

    lofo = {}
    for q, rule in variants:
        a = []
        for j in folds:
            t = fit_t(rule, oof(q, [f for f in folds if f != j]))
            a += apply(rule, t, oof(q, [j]))
        lofo[f"{q}/{rule}"] = round(float(np.mean(a)), 4)
    best = max(lofo, key=lambda v: lofo[v])
    q, rule = best.split("/", 1)
    t = fit_t(rule, oof(q, folds))
    kind, _, dd = q.partition("+")
    q1 = None
    if kind != "frac":
        pt = [q_targets(preps[it.id].tree, preps[it.id].pairs,
                        pair_stats(preps[it.id].tree, it.gold[1])[1].astype(float), kind)
              for it in items]
        q1 = fit_q([preps[it.id].X for it in items], [p for p, _ in pt], [s for _, s in pt],
                   C_TREECUT).to_dict()
    info = {"command": "python -m eval.select_whole " + " ".join(sys.argv[1:]),
            "pages": len(items), "dataset": args.data.name, "variant": best,
            "q": q, "lofo_ari": lofo}
    model = SelectModel("fixed", candidate_names(), f"split+{dd or 0}", info=info, whole=rule,
                        whole_t=float(t) if np.isfinite(t) else None, q1=q1)
    args.ship.parent.mkdir(parents=True, exist_ok=True)
    model.save(args.ship)
    log(f"selector model ({best}, t {t}) -> {args.ship}")
    return {"variant": best, "t": float(t) if np.isfinite(t) else None, "lofo_ari": lofo}


def diagnose(rws: Any, folds: Sequence[int], variants: Sequence[tuple[str, str]]) -> None:
    """Training-fold-only look (outer fold 0 held out): per q variant, the first-split ARI and
    the whole-page gain the rules could reach on folds 1-3, and the spread of their features."""
    k, tr = folds[0], list(folds[1:])
    for q in QS:
        rs = rws(q, k, tr)
        a_s = np.array([r["ari_split"] for r in rs])
        a_w = np.array([r["ari_whole"] for r in rs])
        lw = np.array([r["log_w"] for r in rs])
        mg = np.array([r["margin"] for r in rs])
        vw = np.array([r["vips_whole"] for r in rs], dtype=bool)
        better = a_w > a_s + 0.01
        print(f"{q}: split {a_s.mean():.3f}, per-page max(split, whole) "
              f"{np.maximum(a_s, a_w).mean():.3f}, whole better on {better.sum()}/{len(rs)}; "
              f"vips whole on {vw.sum()} (of which whole better {int((vw & better).sum())})")
        for name, f in (("log_w", lw), ("margin", mg)):
            qs = np.round(np.percentile(f[~better], [10, 25, 50, 75, 90]), 2).tolist()
            print(f"   {name}: whole-better pages {np.round(np.sort(f[better]), 2).tolist()}"
                  f" | others deciles 1/3/5/7/9 (approx.) {qs}")
        for rule in RULES:
            t = fit_t(rule, rs)
            print(f"   {rule}: in-sample t {t:.3f} -> {np.mean(apply(rule, t, rs)):.3f}")


def summarise(recs: list[dict[str, Any]], folds: Sequence[int], wilcoxon: Any,
              current: dict[str, float]) -> list[dict[str, Any]]:
    """Mean ARI / NMI / segments per method and level, fold std., paired tests vs ``vips1``,
    vs the current ``select`` as evaluated by eval.select_l1 (level 1, ``select:fixed``: its
    candidate chosen on the training folds) and vs :data:`SHIPPED` (what ``select`` ships:
    ``split+0``)."""
    ref = {(r["page"], r["level"]): r["ari"] for r in recs if r["method"] == "vips1"}
    ref0 = {(r["page"], r["level"]): r["ari"] for r in recs if r["method"] == SHIPPED}

    def paired(a: np.ndarray, v: np.ndarray, tag: str) -> dict[str, Any]:
        diff = a - v
        return {f"diff_vs_{tag}": round(float(diff.mean()), 4),
                f"better_worse_{tag}": f"{int((diff > 0.01).sum())}/{int((diff < -0.01).sum())}",
                f"p_{tag}": (round(float(wilcoxon(a, v).pvalue), 4)
                             if np.any(np.abs(diff) > 0) else 1.0)}

    out = []
    methods = list(dict.fromkeys(r["method"] for r in recs))
    for lv in (1, 2):
        for m in methods:
            rs = [r for r in recs if r["method"] == m and r["level"] == lv]
            fm = [np.mean([r["ari"] for r in rs if r["fold"] == k]) for k in folds]
            d: dict[str, Any] = {"method": m, "level": lv,
                                 "ari": round(float(np.mean([r["ari"] for r in rs])), 4),
                                 "ari_fold_std": round(float(np.std(fm)), 4),
                                 "nmi": round(float(np.mean([r["nmi"] for r in rs])), 4),
                                 "segments": round(float(np.mean([r["segments"] for r in rs])), 2),
                                 "whole": sum(1 for r in rs if r["whole"] == 1)}
            a = np.array([r["ari"] for r in rs])
            if m != "vips1":
                d.update(paired(a, np.array([ref[r["page"], lv] for r in rs]), "vips"))
            if lv == 1 and current:
                d.update(paired(a, np.array([current[r["page"]] for r in rs]), "select"))
            if m != SHIPPED:
                d.update(paired(a, np.array([ref0[r["page"], lv] for r in rs]), "split0"))
            out.append(d)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
