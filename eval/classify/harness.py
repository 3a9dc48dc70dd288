"""Page-type classification harness: cross-validated comparison of the methods.

``python -m eval.classify --data DIR [--data DIR ...] --out DIR``

Tasks, chosen from the dataset's manifest:

* a set with ``page_type`` (WCXB): one task over all types, 5-fold stratified CV *grouped by
  site* (:class:`~sklearn.model_selection.StratifiedGroupKFold`, shuffled with seed 0), so pages
  of one site are never on both sides (a site without a known ``site`` is its own group);
* a set with ``university`` (WebKB): leave-one-university-out over cornell, texas, washington
  and wisconsin; each fold trains on the three other universities **plus the misc pages** (as
  the WebKB distributors recommend; misc is never a test fold) and tests on the held-out one.
  Two tasks: ``4class`` (student, faculty, course, project; the other pages are left out of
  both sides, the standard setting) and ``7class`` (all labels).

Every method sees only the training fold when fitting (vocabulary, ISF, information gain, SVM).
Per task the harness writes ``summary.md`` / ``summary.csv`` (pooled out-of-fold macro
precision / recall / F1 and accuracy, plus the mean and standard deviation of the per-fold macro
F1), ``per_class.csv``, ``per_class_f1.png`` (paper Figure 6), ``confusion_<method>.png``,
``predictions.csv`` and ``run.json`` (command, view keys, counts, pages without views and why).
Pages that lack a view (not rendered, or a segmenter failed) are left out of *every* method of
that task so all methods are scored on the same pages; their ids and reasons are in
``run.json``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support
from sklearn.model_selection import StratifiedGroupKFold

from classify.corpus import compute_views, view_key
from classify.text import term_counts
from eval.classify.methods import ABLATIONS, MAIN, METHODS, NB
from webseg.datasets import PageRecord, load_records

UNIVERSITIES = ("cornell", "texas", "washington", "wisconsin")
WEBKB4 = ("course", "faculty", "project", "student")


def _stable(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def sample_records(records: Sequence[PageRecord], n: int) -> list[PageRecord]:
    """A deterministic sample of ``n`` records, stratified by label (and by university where
    the set has one), taking in each stratum the records with the smallest hash of their id."""
    if n <= 0 or n >= len(records):
        return list(records)
    by: dict[tuple[str, str], list[PageRecord]] = {}
    for r in records:
        by.setdefault((str(r.label), str(r.extra.get("university", ""))), []).append(r)
    out: list[PageRecord] = []
    for _key, rs in sorted(by.items()):
        k = max(1, round(n * len(rs) / len(records)))
        out.extend(sorted(rs, key=lambda r: _stable(r.id))[:k])
    return sorted(out, key=lambda r: r.id)


def tasks_for(records: Sequence[PageRecord]) -> list[tuple[str, list[PageRecord], list]]:
    """(task name, records, folds) where folds = [(fold name, train idx, test idx)]."""
    recs = [r for r in records if r.label]
    if recs and all("university" in r.extra for r in recs):
        out = []
        for name, keep in (("4class", set(WEBKB4)), ("7class", None)):
            rs = [r for r in recs if keep is None or r.label in keep]
            uni = np.array([r.extra["university"] for r in rs])
            folds = [(u, np.flatnonzero(uni != u), np.flatnonzero(uni == u))
                     for u in UNIVERSITIES if (uni == u).any()]
            out.append((name, rs, folds))
        return out
    y = np.array([r.label for r in recs])
    groups = np.array([r.site or f"#{r.id}" for r in recs])
    cv = StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=0)
    folds = [(str(k), tr, te) for k, (tr, te) in enumerate(cv.split(np.zeros(len(y)), y,
                                                                     groups))]
    return [("types", recs, folds)]


def macro(y: np.ndarray, p: np.ndarray, labels: Sequence[str]) -> dict[str, float]:
    pr, rc, f1, _ = precision_recall_fscore_support(y, p, labels=list(labels),
                                                    average="macro", zero_division=0)
    return {"precision": float(pr), "recall": float(rc), "f1": float(f1),
            "accuracy": float(np.mean(y == p))}


def run_task(name: str, recs: list[PageRecord], folds: list, texts: dict[str, dict[str, Any]],
             methods: Sequence[str], log: Any = print) -> dict[str, Any]:
    """Cross-validate every method; returns predictions, metrics and timings."""
    y = np.array([r.label for r in recs])
    labels = sorted(set(y.tolist()))
    preds: dict[str, np.ndarray] = {}
    fold_f1: dict[str, list[float]] = {}
    fit_s: dict[str, list[float]] = {}
    pred_ms: dict[str, list[float]] = {}
    fold_of = np.empty(len(recs), dtype=object)
    for fname, _, te in folds:
        fold_of[te] = fname
    for m in methods:
        meth = METHODS[m]
        X = [texts[meth.view][r.id] for r in recs]
        p = np.empty(len(recs), dtype=object)
        p[:] = ""
        for _fname, tr, te in folds:
            t0 = time.perf_counter()
            pipe = meth.build().fit([X[i] for i in tr], y[tr])
            t1 = time.perf_counter()
            p[te] = pipe.predict([X[i] for i in te])
            t2 = time.perf_counter()
            fit_s.setdefault(m, []).append(t1 - t0)
            pred_ms.setdefault(m, []).append(1000 * (t2 - t1) / max(1, len(te)))
            fold_labels = sorted(set(y[te].tolist()))
            fold_f1.setdefault(m, []).append(macro(y[te], p[te], fold_labels)["f1"])
        preds[m] = p
        tested = fold_of != None  # noqa: E711 - object array comparison
        s = macro(y[tested], p[tested].astype(str), labels)
        log(f"  {name} {m:20s} P {s['precision']:.3f} R {s['recall']:.3f} F1 {s['f1']:.3f} "
            f"acc {s['accuracy']:.3f} (fit {np.mean(fit_s[m]):.1f} s/fold)")
    tested = np.array([f is not None for f in fold_of])
    return {"name": name, "y": y, "labels": labels, "preds": preds, "fold_of": fold_of,
            "tested": tested, "fold_f1": fold_f1, "fit_s": fit_s, "pred_ms": pred_ms}


def write_task(res: dict[str, Any], recs: list[PageRecord], out: Path, meta: dict[str, Any]
               ) -> list[dict[str, Any]]:
    """Tables, plots and predictions of one task; returns the summary rows."""
    out.mkdir(parents=True, exist_ok=True)
    y, labels, t = res["y"], res["labels"], res["tested"]
    rows = []
    per_class: dict[str, np.ndarray] = {}
    for m, p in res["preds"].items():
        s = macro(y[t], p[t].astype(str), labels)
        ff = res["fold_f1"][m]
        rows.append({"method": m, "label": METHODS[m].label, **{k: round(v, 4)
                                                                for k, v in s.items()},
                     "f1_fold_mean": round(float(np.mean(ff)), 4),
                     "f1_fold_sd": round(float(np.std(ff)), 4),
                     "fit_s_per_fold": round(float(np.mean(res["fit_s"][m])), 2),
                     "predict_ms_per_page": round(float(np.mean(res["pred_ms"][m])), 3)})
        per_class[m] = precision_recall_fscore_support(y[t], p[t].astype(str), labels=labels,
                                                       zero_division=0)[2]
    with (out / "summary.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with (out / "per_class.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["method", *labels])
        for m, v in per_class.items():
            w.writerow([m, *[f"{x:.4f}" for x in v]])
    with (out / "predictions.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "site", "label", "fold", *res["preds"]])
        for i, r in enumerate(recs):
            w.writerow([r.id, r.site or "", r.label, res["fold_of"][i],
                        *[res["preds"][m][i] for m in res["preds"]]])
    counts = {lab: int((y[t] == lab).sum()) for lab in labels}
    extra = (f" Training folds also use {int((~t).sum())} pages never tested (WebKB misc)."
             if (~t).any() else "")
    md = [f"# {meta['dataset']} / {res['name']}", "",
          f"{int(t.sum())} test pages, {len(labels)} classes "
          f"({', '.join(f'{k} {v}' for k, v in counts.items())}); {meta['cv']}.{extra}", "",
          "| method | macro P | macro R | macro F1 | accuracy | F1 per fold (mean ± sd) "
          "| fit s/fold | predict ms/page |",
          "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        md.append(f"| {r['method']} ({r['label']}) | {r['precision']:.3f} | {r['recall']:.3f} "
                  f"| {r['f1']:.3f} | {r['accuracy']:.3f} | {r['f1_fold_mean']:.3f} ± "
                  f"{r['f1_fold_sd']:.3f} | {r['fit_s_per_fold']:.1f} | "
                  f"{r['predict_ms_per_page']:.2f} |")
    md += ["", "Per-class F1:", "", "| method | " + " | ".join(labels) + " |",
           "|---|" + "---:|" * len(labels)]
    for m, v in per_class.items():
        md.append(f"| {m} | " + " | ".join(f"{x:.3f}" for x in v) + " |")
    md += ["", f"Command: `{meta['command']}`", ""]
    (out / "summary.md").write_text("\n".join(md), encoding="utf-8")
    _plots(res, per_class, out)
    (out / "run.json").write_text(json.dumps(meta, indent=1, default=str) + "\n")
    return rows


def _plots(res: dict[str, Any], per_class: dict[str, np.ndarray], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = res["labels"]
    shown = [m for m in MAIN if m in per_class] or list(per_class)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(labels)), 3.8))
    width = 0.8 / len(shown)
    for k, m in enumerate(shown):
        ax.bar(np.arange(len(labels)) + (k - (len(shown) - 1) / 2) * width, per_class[m],
               width, label=METHODS[m].label)
    ax.set_xticks(np.arange(len(labels)), labels, rotation=20)
    ax.set_ylabel("F1")
    ax.set_ylim(0, 1)
    ax.set_title(f"Per-class F1, {res['name']}")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "per_class_f1.png", dpi=110)
    plt.close(fig)
    y, t = res["y"], res["tested"]
    for m in [x for x in ("wps-positions", "text") if x in res["preds"]]:
        cm = confusion_matrix(y[t], res["preds"][m][t].astype(str), labels=labels)
        confusion_png(cm, labels, f"{METHODS[m].label}, {res['name']}",
                      out / f"confusion_{m}.png")


def confusion_png(cm: np.ndarray, labels: list[str], title: str, path: Path) -> None:
    """A confusion matrix as a PNG (counts in the cells); shared by both classify harnesses."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(labels), 0.6 + 0.7 * len(labels)))
    ax.imshow(cm, cmap="Blues")
    for i in range(len(labels)):
        for j in range(len(labels)):
            ax.text(j, i, str(cm[i, j]), ha="center", va="center", fontsize=8,
                    color="white" if cm[i, j] > cm.max() / 2 else "black")
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.classify", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", action="append", required=True, type=Path,
                    help="dataset folder with manifest.jsonl (repeat for several)")
    ap.add_argument("--out", required=True, type=Path, help="output folder")
    ap.add_argument("--methods", default=",".join(MAIN + ABLATIONS + NB),
                    help="comma-separated methods (default: all)")
    ap.add_argument("--sample", type=int, default=0,
                    help="evaluate a deterministic stratified sample of N pages per dataset")
    ap.add_argument("--render", action="store_true",
                    help="render pages missing from the render cache (else: reported missing)")
    ap.add_argument("--cached-only", action="store_true",
                    help="use only views already in the view cache (compute nothing)")
    a = ap.parse_args(argv)
    methods = [m for m in a.methods.split(",") if m]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        ap.error(f"unknown methods {bad}; known: {', '.join(METHODS)}")
    views = sorted({METHODS[m].view for m in methods})
    command = "python -m eval.classify " + " ".join(sys.argv[1:] if argv is None else argv)
    summary = ["# Page-type classification", "", f"Command: `{command}`", ""]
    for data in a.data:
        all_recs = load_records(data)
        recs = sample_records(all_recs, a.sample)
        t0 = time.perf_counter()
        vs = compute_views(recs, views, render=a.render, cached_only=a.cached_only,
                           log=lambda m: print(m, flush=True))
        have = [r for r in recs if all(r.id in vs.texts[v] for v in views)]
        missing = {r.id: vs.missing.get(r.id, "view missing") for r in recs if r not in have}
        print(f"{data.name}: {len(have)}/{len(recs)} pages with all views "
              f"({len(missing)} without), views {time.perf_counter() - t0:.0f} s", flush=True)
        counted = {v: {k: (term_counts(x) if isinstance(x, str) else
                           [term_counts(s) for s in x]) for k, x in vs.texts[v].items()}
                   for v in views}  # tokenise once, not once per method and fold
        wps_sha = hashlib.sha256(Path("webseg/models/wps-margin.json").read_bytes()
                                 ).hexdigest() if Path("webseg/models/wps-margin.json"
                                                       ).is_file() else None
        if not have:
            print(f"{data.name}: no page has all views {views}; nothing to evaluate",
                  flush=True)
            continue
        for name, trecs, folds in tasks_for(have):
            cv = ("leave-one-university-out, train = 3 universities + misc"
                  if name in ("4class", "7class") else
                  "5-fold stratified CV grouped by site (StratifiedGroupKFold, seed 0)")
            print(f"{data.name}/{name}: {len(trecs)} pages, {len(folds)} folds", flush=True)
            res = run_task(name, trecs, folds, counted, methods)
            meta = {"dataset": data.name, "task": name, "command": command, "cv": cv,
                    "pages_in_dataset": len(all_recs), "pages_sampled": len(recs),
                    "pages_with_views": len(have), "pages_in_task": len(trecs),
                    "pages_without_views": missing,
                    "folds": {f: {"train": len(tr), "test": len(te)} for f, tr, te in folds},
                    "views": {v: view_key(v) for v in views}, "wps_margin_sha256": wps_sha,
                    "view_seconds": vs.seconds, "python": platform.python_version()}
            sub = f"{data.name}-{name}" if name != "types" else data.name
            write_task(res, trecs, a.out / sub, meta)
            summary += [f"## {data.name} / {name}", "",
                        (a.out / sub / "summary.md").read_text().split("\n", 2)[2], ""]
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "summary.md").write_text("\n".join(summary), encoding="utf-8")
    return 0
