"""Cross-validation of the stacked page-type model, its ablations and text baselines.

``python -m eval.classify.stacked --data DIR --out DIR``

Same tasks and folds as :mod:`eval.classify.harness` (WCXB: 5-fold stratified CV grouped by
site, seed 0; WebKB: leave-one-university-out, misc always in training). Per outer fold, every
view's model (:func:`classify.stacked.fit_view`) is fitted once on the training pages, with its
``C`` chosen by an inner 5-fold site-grouped CV *inside the training pages*, which also gives
the out-of-fold outputs the stacker learns from; the stacker's hyper-parameters are fixed a
priori. The test pages of a fold are never seen by any fitting or choice. Then:

* ``stacked``: all default views; the stacker kind (:data:`classify.stacked.STACKERS`: LR or
  gradient-boosted trees, each with or without balanced class weights) chosen per outer fold
  by the inner CV, temperature-calibrated (the shipped default);
* ``stacked-<kind>``: the same base outputs under each fixed stacker kind;
* ``stacked-no-<view>``: drop-one ablation, under the stacker kind the inner CV chose;
* ``stacked+<view>``: the default views plus one of ``--extra-views`` (``blocks``: the
  block-function view; ``wps``: the paper's WPS position texts as a view);
* ``paper``: the paper's WPS-positions SVM (:mod:`classify.model`) on the same folds;
* ``only-<view>``: one view's linear SVM alone (``only-text`` is the plain text TF-IDF
  baseline: words + bigrams, linear SVM, C by inner CV);
* ``tfidf-plain``: one linear SVM over the text, URL and DOM TF-IDF side by side (the
  "text-only" linear baseline of issue 15: page text, URL tokens, tag/class/id tokens).

Outputs per task: ``summary.md/csv``, ``per_class.csv`` (P/R/F1 per type and method),
``confusion_<method>.png`` and ``confusion.csv``, ``predictions.csv`` (with the stacked model's
probabilities), ``run.json``; calibration of ``stacked`` (log-loss, Brier, ECE over 10 bins).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

from classify.corpus import compute_page_views, compute_views, pageviews_key
from classify.stacked import (
    DEFAULT_VIEWS,
    VIEW_SPECS,
    StackedModel,
    ViewCounts,
    _field,
    _fit_linear,
    _folds,
    count_matrix,
    fit_view,
    wps_doc,
)
from eval.classify.harness import confusion_png, macro, sample_records, tasks_for
from eval.segmentation import write_csv
from webseg.datasets import load_records

PLAIN_VIEWS = ("text", "url", "dom")


def _sub(c: ViewCounts, idx: np.ndarray) -> ViewCounts:
    return ViewCounts(c.vocab, c.X[idx])


def run_fold(docs: list[dict[str, Any]], y: np.ndarray, groups: np.ndarray, tr: np.ndarray,
             te: np.ndarray, views: tuple[str, ...], counts: dict[str, ViewCounts],
             log: Any = print, ablations: bool = True, extra: tuple[str, ...] = (),
             paper: bool = False) -> dict[str, Any]:
    """Predictions of every method on the test pages ``te`` of one outer fold.

    ``views``: the default model's views; ``extra``: views evaluated as additions to it
    (``blocks``, ``wps``); ``paper``: also the paper's method on ``docs[i]["positions"]``.
    """
    classes = np.unique(y[tr])
    inner = _folds(y[tr], groups[tr], 5, 0)
    oof: dict[str, np.ndarray] = {}
    test: dict[str, np.ndarray] = {}
    Xs: dict[str, tuple[Any, Any]] = {}
    for v in views + tuple(e for e in extra if e not in views):
        t0 = time.perf_counter()
        c = counts.get(v)
        vm, o = fit_view(v, [_field(docs[i], v) for i in tr], y[tr], classes, inner,
                         _sub(c, tr) if c else None)
        if c is not None:
            Xte = vm.rep.transform_counts(c.X[te])
            Xs[v] = (vm.rep.transform_counts(c.X[tr]), Xte)
        else:
            Xte = vm.rep.transform([_field(docs[i], v) for i in te])
        oof[v], test[v] = o, vm.decision_X(Xte)
        log(f"    {v:9s} C={vm.C:<4g} inner acc {np.mean(classes[o.argmax(1)] == y[tr]):.3f} "
            f"test acc {np.mean(classes[test[v].argmax(1)] == y[te]):.3f} "
            f"({time.perf_counter() - t0:.0f} s)")
    out: dict[str, Any] = {"classes": classes, "pred": {}, "proba": None}
    for v in oof:
        out["pred"][f"only-{v}"] = classes[test[v].argmax(1)]
    s_tr = [docs[i].get("struct", {}) for i in tr]
    s_te = [docs[i].get("struct", {}) for i in te]

    def predict(m: StackedModel, vs: tuple[str, ...]) -> np.ndarray:
        return classes[m.proba_from_base(np.hstack([test[v] for v in vs]), s_te).argmax(1)]

    def stack(vs: tuple[str, ...], stacker: str) -> np.ndarray:
        m = StackedModel(views=vs, stacker=stacker)
        m.fit_stacker(np.hstack([oof[v] for v in vs]), s_tr, y[tr], inner, False)
        return predict(m, vs)

    t0 = time.perf_counter()
    # the default: stacker kind chosen by the inner CV among STACKERS, calibrated; the final
    # model of every candidate kind is kept, so each kind's test predictions come for free
    m = StackedModel(views=views, stacker="auto")
    metas = m.fit_stacker(np.hstack([oof[v] for v in views]), s_tr, y[tr], inner, True,
                          keep=True)
    proba = m.proba_from_base(np.hstack([test[v] for v in views]), s_te)
    out["pred"]["stacked"] = classes[proba.argmax(1)]
    out["proba"] = proba
    out["temperature"] = m.temperature
    kind = out["stacker"] = m.info.get("stacker")
    out["inner"] = dict(m.info)
    log(f"    stacker chosen by inner CV: {m.info}")
    for k, meta in metas.items():
        m.trees, m.meta_lr = (meta, None) if k.startswith("gbdt") else (None, meta)
        out["pred"][f"stacked-{k}"] = predict(m, views)
    # drop-one ablations and added views, with the kind the inner CV chose for this fold
    for v in (views if ablations else ()):
        out["pred"][f"stacked-no-{v}"] = stack(tuple(w for w in views if w != v), kind)
    for e in [(e,) for e in extra]:
        out["pred"]["stacked+" + "+".join(e)] = stack(views + e, kind)
    log(f"    stacks {time.perf_counter() - t0:.0f} s")
    if paper:
        from classify.model import make_pipeline

        t0 = time.perf_counter()
        pos = [docs[i].get("positions") or [""] * 10 for i in range(len(docs))]
        pipe = make_pipeline(platt_folds=0).fit([pos[i] for i in tr], y[tr])
        out["pred"]["paper"] = np.asarray(pipe.predict([pos[i] for i in te]), dtype=object)
        log(f"    paper method {time.perf_counter() - t0:.0f} s, test acc "
            f"{np.mean(out['pred']['paper'] == y[te]):.3f}")
    # the plain linear baseline: text, URL and DOM TF-IDF side by side, one SVM
    if all(v in Xs for v in PLAIN_VIEWS):
        Xtr = sp.hstack([Xs[v][0] for v in PLAIN_VIEWS]).tocsr()
        Xte = sp.hstack([Xs[v][1] for v in PLAIN_VIEWS]).tocsr()
        best = None
        for C in (0.1, 0.5, 2.0):
            pr = np.empty(len(tr), dtype=object)
            for itr, ite in inner:
                coef, icpt = _fit_linear(Xtr[itr], y[tr][itr], C, classes)
                pr[ite] = classes[(np.asarray(Xtr[ite] @ coef.T) + icpt).argmax(1)]
            acc = float(np.mean(pr == y[tr]))
            if best is None or acc > best[0]:
                best = (acc, C)
        assert best is not None
        coef, icpt = _fit_linear(Xtr, y[tr], best[1], classes)
        out["pred"]["tfidf-plain"] = classes[(np.asarray(Xte @ coef.T) + icpt).argmax(1)]
    return out


def calibration(proba: np.ndarray, y: np.ndarray, classes: list[str]) -> dict[str, float]:
    """Log-loss, multi-class Brier score and expected calibration error (10 bins, top class)."""
    yi = np.searchsorted(np.asarray(classes), y)
    onehot = np.eye(len(classes))[yi]
    conf = proba.max(1)
    correct = proba.argmax(1) == yi
    bins = np.minimum((conf * 10).astype(int), 9)
    ece = sum(abs(correct[bins == b].mean() - conf[bins == b].mean()) * (bins == b).mean()
              for b in range(10) if (bins == b).any())
    return {"log_loss": float(-np.mean(np.log(np.clip(proba[np.arange(len(yi)), yi], 1e-12,
                                                              1)))),
            "brier": float(np.mean(np.sum((proba - onehot) ** 2, axis=1))),
            "ece": float(ece)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.classify.stacked", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", action="append", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--views", default=",".join(DEFAULT_VIEWS))
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--tasks", default="", help="comma-separated task names (default: all)")
    ap.add_argument("--no-ablations", action="store_true", help="skip the stacked-no-<view>")
    ap.add_argument("--extra-views", default="blocks,wps",
                    help="views evaluated as additions to the stack (stacked+<view>)")
    ap.add_argument("--no-paper", action="store_true", help="skip the paper's method")
    ap.add_argument("--folds", default="", help="comma-separated outer folds to run (explore)")
    a = ap.parse_args(argv)
    views = tuple(v for v in a.views.split(",") if v)
    extra = tuple(v for v in a.extra_views.split(",") if v and v not in views)
    bad = [v for v in views + extra if v not in VIEW_SPECS]
    if bad:
        ap.error(f"unknown views {bad}")
    command = "python -m eval.classify.stacked " + " ".join(sys.argv[1:] if argv is None
                                                            else argv)
    for data in a.data:
        recs = [r for r in sample_records(load_records(data), a.sample) if r.label]
        vs = compute_page_views(recs, log=lambda m: print(m, flush=True))
        if "blocks" in views + extra:
            from classify.blockview import add_block_view

            add_block_view(recs, vs.texts["pageviews"], log=lambda m: print(m, flush=True))
        if "wps" in views + extra or not a.no_paper:
            # the paper's WPS position texts (cached per WPS model by classify.corpus)
            pos = compute_views(recs, ["positions"], log=lambda m: print(m, flush=True))
            for r in recs:
                v = vs.texts["pageviews"].get(r.id)
                if v is not None:
                    v["positions"] = pos.texts["positions"].get(r.id) or [""] * 10
                    v["wps"] = wps_doc(v["positions"])
            print(f"positions: {len(pos.texts['positions'])} pages, missing "
                  f"{len(pos.missing)}", flush=True)
        have = [r for r in recs if r.id in vs.texts["pageviews"]]
        parsed = sorted(r.id for r in have if vs.texts["pageviews"][r.id].get("source")
                        == "parse")
        print(f"{data.name}: {len(have)}/{len(recs)} pages with views, {len(parsed)} parsed "
              "without rendering", flush=True)
        for name, trecs, folds in tasks_for(have):
            if a.tasks and name not in a.tasks.split(","):
                continue
            t_start = time.perf_counter()
            docs = [vs.texts["pageviews"][r.id] for r in trecs]
            y = np.array([str(r.label) for r in trecs], dtype=object)
            groups = np.array([r.site or f"#{r.id}" for r in trecs])
            counts = {}
            for v in views + extra:
                if VIEW_SPECS[v][1] is not None:
                    vocab, X = count_matrix(VIEW_SPECS[v][1], [_field(d, v) for d in docs])
                    counts[v] = ViewCounts(vocab, X)
            labels = sorted(set(y.tolist()))
            preds: dict[str, np.ndarray] = {}
            proba = np.full((len(y), len(labels)), np.nan)
            tested = np.zeros(len(y), bool)
            fold_of = np.full(len(y), "", dtype=object)
            fold_acc: dict[str, list[float]] = {}
            temps, stackers = [], []
            inner_info: list[dict[str, Any]] = []
            if a.folds:
                folds = [f for f in folds if f[0] in a.folds.split(",")]
            for fname, tr, te in folds:
                print(f"{data.name}/{name} fold {fname}: {len(tr)} train, {len(te)} test",
                      flush=True)
                res = run_fold(docs, y, groups, tr, te, views, counts,
                               log=lambda m: print(m, flush=True),
                               ablations=not a.no_ablations, extra=extra,
                               paper=not a.no_paper)
                inner_info.append(res["inner"])
                for m, p in res["pred"].items():
                    preds.setdefault(m, np.full(len(y), "", dtype=object))[te] = p
                    fold_acc.setdefault(m, []).append(float(np.mean(p == y[te])))
                cols = np.searchsorted(np.asarray(labels), res["classes"])
                proba[np.ix_(te, cols)] = res["proba"]
                tested[te] = True
                fold_of[te] = fname
                temps.append(res["temperature"])
                stackers.append(res["stacker"])
                print(f"  fold {fname}: stacked acc {fold_acc['stacked'][-1]:.3f}, "
                      f"only-text {fold_acc['only-text'][-1]:.3f}", flush=True)
            proba = np.nan_to_num(proba, nan=0.0)
            sub = f"{data.name}-{name}" if name != "types" else data.name
            out = a.out / sub
            out.mkdir(parents=True, exist_ok=True)
            t = tested
            rows = []
            per_class = []
            for m, p in preds.items():
                s = macro(y[t], p[t].astype(str), labels)
                rows.append({"method": m, **{k: round(v, 4) for k, v in s.items()},
                             "acc_fold_mean": round(float(np.mean(fold_acc[m])), 4),
                             "acc_fold_sd": round(float(np.std(fold_acc[m])), 4)})
                pr, rc, f1, sup = precision_recall_fscore_support(
                    y[t], p[t].astype(str), labels=labels, zero_division=0)
                for k, lab in enumerate(labels):
                    per_class.append({"method": m, "type": lab, "precision": round(pr[k], 4),
                                      "recall": round(rc[k], 4), "f1": round(f1[k], 4),
                                      "support": int(sup[k])})
            write_csv(out / "summary.csv", rows, list(rows[0]))
            write_csv(out / "per_class.csv", per_class, list(per_class[0]))
            with (out / "confusion.csv").open("w", newline="") as f:
                w = csv.writer(f)
                for m in ("stacked", "only-text", "tfidf-plain", "paper"):
                    if m not in preds:
                        continue
                    cm = confusion_matrix(y[t], preds[m][t].astype(str), labels=labels)
                    w.writerow([f"{m}: true \\ predicted", *labels])
                    for lab, row in zip(labels, cm, strict=True):
                        w.writerow([lab, *row.tolist()])
                    confusion_png(cm, labels, f"{m}, {sub}", out / f"confusion_{m}.png")
            with (out / "predictions.csv").open("w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["id", "site", "label", "fold", *preds,
                            *[f"p_{lab}" for lab in labels]])
                for i, r in enumerate(trecs):
                    w.writerow([r.id, r.site or "", r.label, fold_of[i],
                                *[preds[m][i] for m in preds],
                                *[f"{x:.4f}" for x in proba[i]]])
            cal = calibration(proba[t], y[t], labels)
            counts_by = {lab: int((y[t] == lab).sum()) for lab in labels}
            md = [f"# {data.name} / {name}: stacked page-type model", "",
                  f"{int(t.sum())} test pages ("
                  f"{', '.join(f'{k} {v}' for k, v in counts_by.items())}"
                  f"); folds: {', '.join(f'{f} ({len(te)})' for f, _, te in folds)}.", "",
                  "| method | macro P | macro R | macro F1 | accuracy | acc per fold |",
                  "|---|---:|---:|---:|---:|---:|"]
            for r in rows:
                md.append(f"| {r['method']} | {r['precision']:.3f} | {r['recall']:.3f} | "
                          f"{r['f1']:.3f} | {r['accuracy']:.3f} | {r['acc_fold_mean']:.3f} ± "
                          f"{r['acc_fold_sd']:.3f} |")
            md += ["", "Per-type F1:", "", "| method | " + " | ".join(labels) + " |",
                   "|---|" + "---:|" * len(labels)]
            for m in preds:
                f1s = {p["type"]: p["f1"] for p in per_class if p["method"] == m}
                md.append(f"| {m} | " + " | ".join(f"{f1s[lab]:.3f}" for lab in labels) + " |")
            f1_st = {p["type"]: p["f1"] for p in per_class if p["method"] == "stacked"}
            few = [lab for lab, c in counts_by.items() if c < 30]
            low = [lab for lab in labels if f1_st.get(lab, 1.0) < 0.5]
            md += ["", f"Types with fewer than 30 pages: {', '.join(few) or 'none'}; types "
                   f"with F1 < 0.5 under `stacked`: {', '.join(low) or 'none'}."]
            md += ["", f"Calibration of `stacked` (pooled out-of-fold probabilities): log-loss "
                   f"{cal['log_loss']:.3f}, Brier {cal['brier']:.3f}, ECE {cal['ece']:.3f}; "
                   f"temperatures per fold {', '.join(f'{x:.2f}' for x in temps)}; stacker "
                   f"chosen by the inner CV per fold: {', '.join(map(str, stackers))}.", "",
                   f"Command: `{command}`", ""]
            (out / "summary.md").write_text("\n".join(md), encoding="utf-8")
            meta = {"dataset": data.name, "task": name, "command": command, "views": views,
                    "pageviews_key": pageviews_key(), "pages": len(trecs),
                    "pages_parsed_not_rendered": [r.id for r in trecs if r.id in parsed],
                    "folds": {f: {"train": len(tr), "test": len(te)} for f, tr, te in folds},
                    "calibration": cal, "temperatures": temps, "stackers": stackers,
                    "inner": inner_info, "extra_views": extra,
                    "seconds": round(time.perf_counter() - t_start, 1)}
            (out / "run.json").write_text(json.dumps(meta, indent=1) + "\n")
            print("\n".join(md), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
