"""WPS cross-validation on a gold segmentation set (Bing et al., SIGIR 2014, Tables 2 and 4).

    python -m eval.wps --data ../shared/data/segmentation/kreuzer-random --out eval/results/wps

**Folds.** ``--folds`` (default 4, as the paper) deterministic folds: pages with byte-identical
``page.html`` form one group (so a page can never be in the training and the test part of a
fold, even under two ids), groups are ordered by the SHA-1 of their first id and dealt round
robin, which gives folds of equal size (+-1). Every page is a test page exactly once.

**Methods.** Per fold, on the training pages (gold level ``--level``, default 2):

* ``wps-margin`` / ``wps-slack``: retrained (:func:`webseg.wps.train.fit`) with the C and the
  feature set of the shipped models (``--models``; C was chosen on the fixed train/val split of
  :mod:`eval.splits` *before* this run). Ablation (``--ablation-models``): the same with the
  other feature set and the C of its own sweep, named ``*-context`` (all features) or
  ``*-local`` (no context features). ``*-tree``: the models with ``hierarchy="tree"``.
* ``cclus``: retrained per fold (:func:`webseg.graphseg.train.train_cclus`, seconds per fold)
  with the shipped model's lambda.
* ``gcuts``: its LMNN training takes well over 3 minutes per fold on this machine, so the shipped
  model is used and it is scored only on pages outside its training split
  (``eval.splits`` ``train``; its lambda was chosen on ``val``) - column ``gcuts_seen`` of
  ``per_page.csv``.
* ``vips``, ``blockfusion``: shipped parameters (tuned on the dev pages, not retrained).

**Scores** (``per_page.csv``): ARI, NMI, BCubed-F over text leaves and over characters, exactly as
``python -m eval.segmentation`` computes them (unassigned gold leaves = one background cluster;
predicted labels at the gold level, i.e. the segments of hierarchy level <= L).

**Informative segment** (Table 4; ``informative.csv``). Gold: the Kreuzer block of type
``Article`` or ``Content`` (either level) with the most visible text
(:func:`webseg.wps.train.informative_block`); pages without one are left out and counted.
Two success criteria per page and method:

* ``exact`` (the paper's Section 7.4): some segment of the predicted hierarchy (any level) covers
  exactly the gold block's text leaves - neither split nor merged with other text;
* ``rule`` (the paper's Section 8 rule): the predicted informative segment is the largest (by
  the area of its leaves' bounding box) segment at level ``L`` that starts within the first
  1000 px of the page; success when its character-weighted Jaccard similarity with the gold
  block's text leaves is >= 0.5. Reported at levels 1 and 2.

Outputs in ``--out``: ``folds.csv``, ``per_page.csv``, ``informative.csv``, ``train_times.csv``,
``summary.csv`` / ``summary.md`` (means over pages and mean +- std over folds, paired Wilcoxon
tests of WPS against each baseline), ``ari_cdf.png``, ``scores_by_method.png``,
``informative.png``, ``run.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eval.segmentation import gold_labels, load_pages, read_dataset, write_csv
from eval.splits import split_of
from webseg import __version__
from webseg.metrics import segmentation_scores
from webseg.page import Page
from webseg.segmentation import UNASSIGNED, Segmentation

FIRST_SCREEN = 1000.0  #: px: the paper's "first screen" of a page (Section 8)
JACCARD_OK = 0.5  #: rule success threshold
WPS = ("wps-margin", "wps-slack")
BASELINES = ("gcuts", "cclus", "blockfusion", "vips")


# ---------------------------------------------------------------------- folds
def make_folds(ids: Sequence[str], html: dict[str, bytes], k: int = 4) -> dict[str, int]:
    """Fold of every page id (see module docstring): identical HTML -> same fold."""
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(hashlib.sha256(html[i]).hexdigest(), []).append(i)
    ordered = sorted(groups.values(),
                     key=lambda g: hashlib.sha1(min(g).encode("utf-8")).hexdigest())
    out: dict[str, int] = {}
    for rank, g in enumerate(ordered):
        for i in g:
            out[i] = rank % k
    return out


# ---------------------------------------------------------------------- informative segment
def _segment_boxes(page: Page, labels: np.ndarray) -> dict[int, tuple[float, float]]:
    """label -> (area, top) of the union box of its text leaves."""
    leaves = page.text_leaves
    b = page.box[leaves].astype(np.float64)
    out = {}
    for lab in np.unique(labels):
        if lab == UNASSIGNED:
            continue
        sel = labels == lab
        x0, y0 = b[sel, 0].min(), b[sel, 1].min()
        x1, y1 = (b[sel, 0] + b[sel, 2]).max(), (b[sel, 1] + b[sel, 3]).max()
        out[int(lab)] = (float((x1 - x0) * (y1 - y0)), float(y0))
    return out


def rule_informative(page: Page, labels: np.ndarray) -> int | None:
    """Label of the largest-area segment whose box starts above :data:`FIRST_SCREEN`."""
    boxes = _segment_boxes(page, labels)
    cands = [(a, -lab) for lab, (a, top) in boxes.items() if top < FIRST_SCREEN]
    return -max(cands)[1] if cands else None


def informative_scores(page: Page, seg: Segmentation, node: int) -> dict[str, Any]:
    """``exact`` and ``rule`` success (and the rule's Jaccard) of one prediction, one page."""
    from webseg.wps.train import informative_segmented

    leaves = page.text_leaves
    lo, hi = np.searchsorted(leaves, [node, page.subtree_end[node]])
    gold = np.zeros(len(leaves), dtype=bool)
    gold[lo:hi] = True
    chars = np.array([len(page.leaf_text(i)) for i in leaves], dtype=float) + 1e-9
    levels = [None, *range(1, max(seg.depth, 1) + 1)]
    exact = any(informative_segmented(page, seg.leaf_labels(lv), node) for lv in levels)
    out: dict[str, Any] = {"exact": int(exact)}
    for lv in (1, 2):
        lab = seg.leaf_labels(lv)
        best = rule_informative(page, lab)
        if best is None:
            jac = 0.0
        else:
            pred = lab == best
            jac = float(chars[pred & gold].sum() / chars[pred | gold].sum())
        out[f"rule_l{lv}"] = int(jac >= JACCARD_OK)
        out[f"jaccard_l{lv}"] = round(jac, 4)
    return out


# ---------------------------------------------------------------------- methods
def _wps_models(path: Path) -> dict[str, Any]:
    from webseg.wps.train import WPSModel

    return {loss: WPSModel.load(path / f"wps-{loss}.json") for loss in ("margin", "slack")}


def feature_suffix(models: dict[str, Any]) -> str:
    """``-context`` for models with every feature, ``-local`` for local-only ones."""
    from webseg.wps.features import BOUNDARY_FEATURES, LOCAL_FEATURES

    feats = next(iter(models.values())).features
    return ("-context" if feats == BOUNDARY_FEATURES else
            "-local" if feats == LOCAL_FEATURES else "-custom")


def train_fold(train_recs: list, models: dict[str, Any], ablation: dict[str, Any] | None,
               cclus_lam: float) -> tuple[dict[str, Any], list[dict]]:
    """Segmenters trained on one fold's training pages, and the training times."""
    from webseg.graphseg.train import train_cclus
    from webseg.segmenters.cclus import CClusSegmenter
    from webseg.segmenters.wps import WPSSegmenter
    from webseg.wps.train import fit

    segs: dict[str, Any] = {}
    times = []
    sets = [("", models)] + ([(feature_suffix(ablation), ablation)] if ablation else [])
    for suffix, ms in sets:
        for loss, m in ms.items():
            name = f"wps-{loss}{suffix}"
            model = fit(loss, train_recs, float(m.info["C"]), m.features)
            segs[name] = WPSSegmenter(loss=loss, name=name, hierarchy="tree").set_model(model)
            rep = model.info["report"]
            times.append({"method": name, "C": m.info["C"], "seconds":
                          model.info["train_seconds"], "passes": rep["passes"],
                          "constraints": rep["constraints"], "converged": rep["converged"]})
    t0 = time.perf_counter()
    cm = train_cclus([r.page for r in train_recs], [r.gold for r in train_recs])
    times.append({"method": "cclus", "C": "", "seconds": round(time.perf_counter() - t0, 2),
                  "passes": "", "constraints": "", "converged": ""})
    segs["cclus"] = CClusSegmenter(lam=cclus_lam).set_model(cm)
    return segs, times


def fixed_segmenters() -> dict[str, Any]:
    from webseg.segmenters import get_segmenter

    return {a: get_segmenter(a) for a in ("gcuts", "blockfusion", "vips")}


def run_methods(page: Page, segs: dict[str, Any]) -> dict[str, Segmentation]:
    """Segmentation of every method; WPS ones give their two-level and tree outputs."""
    from webseg.segmenters.wps import two_level

    out = {}
    for name, seg in segs.items():
        s = seg.segment(page)
        if name.startswith("wps-"):
            out[name] = two_level(s)
            out[f"{name}-tree"] = s
        else:
            out[name] = s
    return out


# ---------------------------------------------------------------------- summary
def summarise(rows: list[dict], info: list[dict], methods: list[str], levels: list[int]
              ) -> list[dict]:
    """Per (level, method): mean over pages, mean +- std over fold means, informative rates."""
    out = []
    for lv in levels:
        for m in methods:
            sel = [r for r in rows if r["method"] == m and r["level"] == lv]
            if not sel:
                continue
            folds = sorted({r["fold"] for r in sel})
            fa = [np.nanmean([r["ari"] for r in sel if r["fold"] == f]) for f in folds]
            fn = [np.nanmean([r["nmi"] for r in sel if r["fold"] == f]) for f in folds]
            inf = [r for r in info if r["method"] == m]
            out.append({
                "level": lv, "method": m, "pages": len(sel),
                "ari": float(np.nanmean([r["ari"] for r in sel])),
                "ari_fold_std": float(np.std(fa)),
                "nmi": float(np.nanmean([r["nmi"] for r in sel])),
                "nmi_fold_std": float(np.std(fn)),
                "bcubed_f": float(np.nanmean([r["bcubed_f"] for r in sel])),
                "bcubed_char_f": float(np.nanmean([r["bcubed_char_f"] for r in sel])),
                "segments": float(np.mean([r["n_pred"] for r in sel])),
                "info_pages": len(inf),
                "info_exact": float(np.mean([r["exact"] for r in inf])) if inf else math.nan,
                "info_rule": (float(np.mean([r[f"rule_l{lv}"] for r in inf])) if inf
                              else math.nan),
            })
    return out


def paired_tests(rows: list[dict], a: str, others: Sequence[str], lv: int) -> list[dict]:
    """Wilcoxon signed-rank test of per-page ARI of ``a`` against each of ``others``."""
    from scipy.stats import wilcoxon

    out = []
    va = {r["page"]: r["ari"] for r in rows if r["method"] == a and r["level"] == lv}
    for b in others:
        vb = {r["page"]: r["ari"] for r in rows if r["method"] == b and r["level"] == lv}
        common = sorted(p for p in set(va) & set(vb)
                        if not (math.isnan(va[p]) or math.isnan(vb[p])))
        if len(common) < 5:
            continue
        x = np.array([va[p] for p in common])
        y = np.array([vb[p] for p in common])
        p = float(wilcoxon(x, y).pvalue) if np.any(x != y) else 1.0
        out.append({"level": lv, "a": a, "b": b, "pages": len(common),
                    "mean_diff": float((x - y).mean()), "wins": int((x > y).sum()),
                    "losses": int((x < y).sum()), "p_wilcoxon": p})
    return out


def plots(rows: list[dict], summary: list[dict], methods: list[str], levels: list[int],
          out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from eval.segmentation import plot_ari_cdf

    main = [m for m in methods if m in (*WPS, *BASELINES)]
    plot_ari_cdf([{**r, "segmenter": r["method"]} for r in rows], main, levels,
                 out / "ari_cdf.png")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    for ax, metric in zip(axes, ("ari", "nmi"), strict=True):
        width = 0.8 / len(levels)
        for k, lv in enumerate(levels):
            vals = [next((s[metric] for s in summary if s["method"] == m and s["level"] == lv),
                         np.nan) for m in methods]
            err = [next((s[f"{metric}_fold_std"] for s in summary if s["method"] == m
                         and s["level"] == lv), np.nan) for m in methods]
            ax.bar(np.arange(len(methods)) + k * width, vals, width, yerr=err, capsize=2,
                   label=f"gold level {lv}")
        ax.set_xticks(np.arange(len(methods)) + width * (len(levels) - 1) / 2)
        ax.set_xticklabels(methods, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel(f"mean {metric.upper()} (error bar: std over folds)")
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "scores_by_method.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4))
    keys = [("info_exact", "exact (any level)"), ("info_rule", "rule, level 1 / 2")]
    s1 = {s["method"]: s for s in summary if s["level"] == levels[0]}
    s2 = {s["method"]: s for s in summary if s["level"] == levels[-1]}
    x = np.arange(len(methods))
    ax.bar(x - 0.27, [s1[m]["info_exact"] for m in methods], 0.27, label=keys[0][1])
    ax.bar(x, [s1[m]["info_rule"] for m in methods], 0.27, label="rule at level 1")
    ax.bar(x + 0.27, [s2[m]["info_rule"] for m in methods], 0.27, label="rule at level 2")
    ax.set_xticks(x)
    ax.set_xticklabels(methods, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("informative-segment success rate")
    ax.set_ylim(0, 1)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "informative.png", dpi=110)
    plt.close(fig)


def write_summary_md(out: Path, summary: list[dict], tests: list[dict], times: list[dict],
                     run: dict[str, Any]) -> None:
    lines = [f"# WPS {run['folds']}-fold cross-validation: {run['dataset']}", "",
             f"Command: `{run['command']}`", "",
             f"Pages: {run['pages']} in the dataset, {run['pages_scored']} scored, render "
             f"failures: {len(run['render_errors'])}; pages with a gold informative block: "
             f"{run['informative_pages']}. gcuts is the shipped model scored on the "
             f"{run['gcuts_pages']} pages outside its training split only.", "",
             "| level | method | pages | ARI | +-folds | NMI | +-folds | BCubed-F | BCubed-F "
             "chars | segments | info exact | info rule |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in summary:
        lines.append(f"| {s['level']} | {s['method']} | {s['pages']} | {s['ari']:.3f} | "
                     f"{s['ari_fold_std']:.3f} | {s['nmi']:.3f} | {s['nmi_fold_std']:.3f} | "
                     f"{s['bcubed_f']:.3f} | {s['bcubed_char_f']:.3f} | {s['segments']:.1f} | "
                     f"{s['info_exact']:.3f} | {s['info_rule']:.3f} |")
    lines += ["", "Paired Wilcoxon signed-rank tests on per-page ARI (pages both scored):", "",
              "| level | A | B | pages | mean(A-B) | A wins | B wins | p |",
              "|---:|---|---|---:|---:|---:|---:|---:|"]
    for t in tests:
        lines.append(f"| {t['level']} | {t['a']} | {t['b']} | {t['pages']} | "
                     f"{t['mean_diff']:+.3f} | {t['wins']} | {t['losses']} | "
                     f"{t['p_wilcoxon']:.3g} |")
    lines += ["", "Training time per fold (seconds, wall clock, niced on a shared 2-core "
              "machine):", "", "| method | C | median s | max s | passes (median) |",
              "|---|---:|---:|---:|---:|"]
    for m in dict.fromkeys(t["method"] for t in times):
        sel = [t for t in times if t["method"] == m]
        passes = [t["passes"] for t in sel if t["passes"] != ""]
        lines.append(f"| {m} | {sel[0]['C']} | {np.median([t['seconds'] for t in sel]):.1f} | "
                     f"{max(t['seconds'] for t in sel):.1f} | "
                     f"{np.median(passes) if passes else '-'} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.wps", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path, help="dataset folder (manifest.jsonl)")
    ap.add_argument("--out", required=True, type=Path, help="output folder")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--level", type=int, default=2, help="gold level WPS/CClus learn")
    ap.add_argument("--models", type=Path, default=Path("webseg/models"),
                    help="folder of wps-margin.json / wps-slack.json: C and feature set")
    ap.add_argument("--ablation-models", type=Path,
                    default=Path("eval/results/wps/c-sweep/all"),
                    help="models whose C / features define the ablation ('' = none)")
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/pages"))
    ap.add_argument("--limit", type=int, default=None, help="first N pages only (smoke runs)")
    args = ap.parse_args(argv)
    from webseg.segmenters import get_segmenter
    from webseg.wps.train import PageRecord, informative_block

    t_start = time.time()
    recs = read_dataset(args.data, None, args.limit)
    rendered = load_pages(recs, args.cache, 2, 60.0, progress=False)
    render_errors = [{"page": r.id, "error": str(rendered.get(r.id))} for r in recs
                     if not isinstance(rendered.get(r.id), Page)]
    for e in render_errors:
        print(f"eval.wps: render failed, page left out: {e['page']}: {e['error']}",
              file=sys.stderr)
    recs = [r for r in recs if isinstance(rendered.get(r.id), Page)]
    folds = make_folds([r.id for r in recs], {r.id: r.html.read_bytes() for r in recs},
                       args.folds)
    models = _wps_models(args.models)
    ablation = (_wps_models(args.ablation_models)
                if str(args.ablation_models) not in ("", ".") else None)
    cclus_lam = get_segmenter("cclus").resolved_lambda
    fixed = fixed_segmenters()
    levels = [1, 2]
    rows: list[dict] = []
    info_rows: list[dict] = []
    times: list[dict] = []
    errors: list[dict] = []
    n_info = 0
    for f in range(args.folds):
        tr = [r for r in recs if folds[r.id] != f]
        te = [r for r in recs if folds[r.id] == f]
        train_recs = [PageRecord(r.id, rendered[r.id], r.blocks,
                                 gold_labels(rendered[r.id], r.blocks, args.level)[0])
                      for r in tr]
        segs, tt = train_fold(train_recs, models, ablation, cclus_lam)
        times += [{"fold": f, **t} for t in tt]
        print(f"eval.wps: fold {f}: {len(tr)} training pages, {len(te)} test pages; training "
              + ", ".join(f"{t['method']} {t['seconds']:.0f} s" for t in tt), file=sys.stderr)
        for r in te:
            page = rendered[r.id]
            chars = np.array([len(page.leaf_text(i)) for i in page.text_leaves], dtype=float)
            golds = {lv: gold_labels(page, r.blocks, lv)[0] for lv in levels}
            node = informative_block(page, r.blocks)
            n_info += node is not None
            gcuts_seen = split_of(r.id) == "train"
            try:
                outs = run_methods(page, {**segs, **{k: v for k, v in fixed.items()
                                                     if k != "gcuts" or not gcuts_seen}})
            except Exception as e:  # noqa: BLE001 - one failure must not end the run
                errors.append({"page": r.id, "error": f"{type(e).__name__}: {e}"})
                print(f"eval.wps: {r.id}: {e}", file=sys.stderr)
                continue
            for name, s in outs.items():
                for lv in levels:
                    sc = segmentation_scores(golds[lv], s.leaf_labels(lv), char_weights=chars)
                    pl = s.leaf_labels(lv)
                    rows.append({"page": r.id, "fold": f, "method": name, "level": lv,
                                 "ari": sc["ari"], "nmi": sc["nmi"],
                                 "bcubed_f": sc["bcubed_f"],
                                 "bcubed_char_f": sc["bcubed_char_f"],
                                 "n_pred": len({int(x) for x in pl if x != UNASSIGNED}),
                                 "gcuts_seen": int(gcuts_seen)})
                if node is not None:
                    info_rows.append({"page": r.id, "fold": f, "method": name,
                                      **informative_scores(page, s, node)})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    sfx = feature_suffix(ablation) if ablation else "-none"
    order = [m for m in (*WPS, *(f"{w}{sfx}" for w in WPS), *(f"{w}-tree" for w in WPS),
                         *BASELINES) if m in methods]
    summary = summarise(rows, info_rows, order, levels)
    tests = []
    for lv in levels:
        tests += paired_tests(rows, "wps-margin", ["wps-slack", f"wps-margin{sfx}",
                                                   "wps-margin-tree", *BASELINES], lv)
        tests += paired_tests(rows, "wps-slack", [f"wps-slack{sfx}", "wps-slack-tree"], lv)
    # the same comparison on the pages gcuts has not seen, so every method is on equal pages
    unseen = [r for r in rows if not r["gcuts_seen"]]
    summary_unseen = summarise(unseen, [i for i in info_rows if split_of(i["page"]) != "train"],
                               order, levels)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "folds.csv", [{"page": r.id, "fold": folds[r.id],
                                   "split": split_of(r.id)} for r in recs],
              ["page", "fold", "split"])
    write_csv(out / "per_page.csv", rows, list(rows[0]))
    write_csv(out / "informative.csv", info_rows, list(info_rows[0]))
    write_csv(out / "train_times.csv", times, list(times[0]))
    write_csv(out / "summary.csv", summary, list(summary[0]))
    write_csv(out / "summary_unseen_by_gcuts.csv", summary_unseen, list(summary_unseen[0]))
    write_csv(out / "tests.csv", tests, list(tests[0]) if tests else ["level"])
    write_csv(out / "errors.csv", render_errors + errors, ["page", "error"])
    run = {"command": "python -m eval.wps " + " ".join(sys.argv[1:] if argv is None else argv),
           "dataset": args.data.name, "folds": args.folds, "pages": len(recs) +
           len(render_errors), "pages_scored": len({r["page"] for r in rows}),
           "render_errors": render_errors, "segment_errors": errors,
           "informative_pages": n_info,
           "gcuts_pages": len({r["page"] for r in rows if r["method"] == "gcuts"}),
           "wps_C": {k: m.info["C"] for k, m in models.items()},
           "wps_features": {k: len(m.features) for k, m in models.items()},
           "ablation_C": ({k: m.info["C"] for k, m in ablation.items()} if ablation else None),
           "cclus_lambda": cclus_lam, "level": args.level, "webseg": __version__,
           "python": platform.python_version(), "seconds": round(time.time() - t_start, 1)}
    (out / "run.json").write_text(json.dumps(run, indent=2) + "\n", encoding="utf-8")
    write_summary_md(out, summary, tests, times, run)
    # append the equal-pages table
    md = (out / "summary.md").read_text(encoding="utf-8")
    lines = ["", f"Same table on the {run['gcuts_pages']} pages outside gcuts' training split "
             "(every method on the same pages):", "",
             "| level | method | pages | ARI | NMI | BCubed-F | info exact | info rule |",
             "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for s in summary_unseen:
        lines.append(f"| {s['level']} | {s['method']} | {s['pages']} | {s['ari']:.3f} | "
                     f"{s['nmi']:.3f} | {s['bcubed_f']:.3f} | {s['info_exact']:.3f} | "
                     f"{s['info_rule']:.3f} |")
    (out / "summary.md").write_text(md + "\n".join(lines) + "\n", encoding="utf-8")
    plots(rows, summary, order, levels, out)
    print((out / "summary.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
