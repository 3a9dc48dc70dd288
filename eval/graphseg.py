"""GCuts / CClus evaluation: the paper's table on the test pages and the lambda sweeps.

    python -m eval.graphseg --data ../shared/data/segmentation/kreuzer-random \\
        --out eval/results/graphseg

1. **Lambda sweeps** (Chakrabarti et al. 2008, Figures 3 and 5): every variant (with the Dp(xi)
   its model chose) over a lambda grid on the validation and the test pages, scored at both
   gold levels -> ``sweep.csv.gz``, ``lambda_sweep.png``. The test curves are for the figure only;
   nothing is chosen on them (lambda comes from the shipped model, chosen on ``val`` by
   ``python -m webseg.graphseg.train``).
2. **The table**: the shared harness (``eval.segmentation``) on the test split with the
   shipped models and their validated lambda, beside the baselines that are registered
   (``single``, ``dom``, and ``vips`` / ``blockfusion`` when present) -> ``test/`` (per-page
   scores, summary, cumulative ARI plot) and ``table.md`` (the paper's AdjRAND / NMI table).
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

from eval.segmentation import write_csv

VARIANTS = ["gcuts", "gcuts-np", "gcuts-nl", "cclus", "cclus-nl"]
BASELINES = ["single", "dom", "vips", "blockfusion"]
SWEEP = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0,
         100.0]
#: Extra lambdas for the CClus variants (same grid as webseg.graphseg.train.CCLUS_LAMBDAS).
CCLUS_EXTRA = [200.0, 500.0, 1000.0]


def run_sweeps(data: Path, cache: Path, variants: list[str], lambdas: list[float],
               splits: list[str]) -> list[dict[str, Any]]:
    from eval.segmentation import gold_labels, load_pages, read_dataset
    from eval.splits import select
    from webseg.metrics import segmentation_scores
    from webseg.page import Page
    from webseg.segmenters import get_segmenter

    recs = read_dataset(data)
    rows: list[dict[str, Any]] = []
    for split in splits:
        keep = set(select([r.id for r in recs], split))
        sel = [r for r in recs if r.id in keep]
        rendered = load_pages(sel, cache, 2, 60.0, progress=False)
        for name in variants:
            seg = get_segmenter(name)
            t0 = time.perf_counter()
            for r in sel:
                page = rendered.get(r.id)
                if not isinstance(page, Page):
                    continue
                golds = {lv: gold_labels(page, r.blocks, lv)[0] for lv in (1, 2)}
                prep = seg.prepare(page)
                grid = lambdas + CCLUS_EXTRA if name.startswith("cclus") else lambdas
                for lam in grid:
                    pl = seg.segment_prepared(prep, lam).leaf_labels()
                    for lv, gl in golds.items():
                        sc = segmentation_scores(gl, pl, unassigned="background")
                        rows.append({"split": split, "level": lv, "segmenter": name,
                                     "lambda": lam, "page": r.id, "ari": sc["ari"],
                                     "nmi": sc["nmi"], "segments": sc["n_pred"]})
            print(f"sweep: {split} {name} done in {time.perf_counter() - t0:.0f} s",
                  file=sys.stderr)
    return rows


def mean_table(rows: list[dict[str, Any]]) -> dict[tuple, dict[str, float]]:
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["split"], r["level"], r["segmenter"], r["lambda"]), []).append(r)
    return {k: {m: float(np.nanmean([x[m] for x in v])) for m in ("ari", "nmi", "segments")}
            for k, v in groups.items()}


def plot_sweeps(means: dict[tuple, dict[str, float]], chosen: dict[str, float],
                variants: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8), squeeze=False)
    for i, lv in enumerate((1, 2)):
        for j, metric in enumerate(("ari", "nmi")):
            ax = axes[i][j]
            for k, name in enumerate(variants):
                c = f"C{k}"
                for split, ls in (("test", "-"), ("val", ":")):
                    pts = sorted((lam, v[metric]) for (s, lv_, n, lam), v in means.items()
                                 if s == split and lv_ == lv and n == name)
                    if not pts:
                        continue
                    x, y = zip(*pts, strict=True)
                    ax.plot(x, y, ls, color=c, marker="o" if split == "test" else None,
                            ms=3, label=f"{name} ({split})")
                if name in chosen:
                    v = means.get(("test", lv, name, chosen[name]))
                    if v:
                        ax.plot([chosen[name]], [v[metric]], "*", color=c, ms=12, mec="k")
            ax.set_xscale("log")
            ax.set_xlabel("lambda")
            ax.set_ylabel("mean " + ("adjusted Rand index" if metric == "ari" else "NMI"))
            ax.set_title(f"gold level {lv}: {metric.upper()} vs lambda "
                         "(star = lambda chosen on val)")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


#: Paired comparisons reported in ``paired.md`` (the paper's claims, plus the baselines).
PAIRS = [("gcuts", "cclus"), ("gcuts", "gcuts-np"), ("gcuts", "gcuts-nl"),
         ("cclus", "cclus-nl"), ("gcuts", "dom"), ("gcuts", "vips"), ("cclus", "vips")]


def paired_differences(per_page: Path, seed: int = 0) -> list[str]:
    """Mean per-page ARI difference, bootstrap 95% interval and Wilcoxon p, per gold level.

    40 test pages are few: the table alone cannot say whether a 0.05 gap is real, so every
    claim in the README is checked against these paired statistics.
    """
    from scipy.stats import wilcoxon

    rows = list(csv.DictReader(per_page.open(encoding="utf-8")))
    lines = ["| level | A | B | mean ARI(A) - ARI(B) | bootstrap 95% CI | Wilcoxon p | pages |",
             "|---:|---|---|---:|---|---:|---:|"]
    for lv in ("1", "2"):
        for a, b in PAIRS:
            A = {r["page"]: float(r["ari"]) for r in rows if r["segmenter"] == a
                 and r["level"] == lv}
            B = {r["page"]: float(r["ari"]) for r in rows if r["segmenter"] == b
                 and r["level"] == lv}
            ks = sorted(set(A) & set(B))
            if len(ks) < 5:
                continue
            d = np.array([A[k] - B[k] for k in ks])
            rng = np.random.default_rng(seed)
            boot = d[rng.integers(0, len(d), (5000, len(d)))].mean(axis=1)
            lo, hi = np.percentile(boot, [2.5, 97.5])
            p = wilcoxon(d).pvalue if np.any(d != 0) else 1.0
            lines.append(f"| {lv} | {a} | {b} | {d.mean():+.3f} | [{lo:+.3f}, {hi:+.3f}] | "
                         f"{p:.3f} | {len(ks)} |")
    return lines


def chosen_params() -> tuple[dict[str, float], dict[str, float]]:
    from webseg.graphseg.model import CClusModel, GCutsModel

    g, c = GCutsModel.load(), CClusModel.load()
    return {**g.lam, **c.lam}, dict(g.dxi)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.graphseg", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/pages"))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--lambdas", default=",".join(map(str, SWEEP)))
    ap.add_argument("--skip-sweep", action="store_true", help="only the test table")
    args = ap.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    lambdas = [float(x) for x in args.lambdas.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    lam, dxi = chosen_params()

    if not args.skip_sweep:
        rows = run_sweeps(args.data, args.cache, variants, lambdas, ["val", "test"])
        # per-page rows: gzip keeps the committed results small (~0.6 MB -> ~0.1 MB)
        write_csv(args.out / "sweep.csv.gz", rows, list(rows[0]))
        means = mean_table(rows)
        plot_sweeps(means, lam, variants, args.out / "lambda_sweep.png")
        full = lambdas + CCLUS_EXTRA
        lines = ["| split | level | segmenter | " + " | ".join(f"{x:g}" for x in full)
                 + " |", "|---|---:|---|" + "---:|" * len(full)]
        for split in ("val", "test"):
            for lv in (1, 2):
                for name in variants:
                    vals = [means.get((split, lv, name, x), {}).get("ari", np.nan)
                            for x in full]
                    lines.append(f"| {split} | {lv} | {name} | "
                                 + " | ".join("" if np.isnan(v) else f"{v:.3f}" for v in vals)
                                 + " |")
        (args.out / "sweep.md").write_text("Mean ARI by lambda\n\n" + "\n".join(lines) + "\n",
                                           encoding="utf-8")

    from eval import segmentation as harness
    from webseg.segmenters import available

    algos = [b for b in BASELINES if b in available()] + variants
    harness.main(["--data", str(args.data), "--split", "test", "--algos", ",".join(algos),
                  "--out", str(args.out / "test"), "--cache", str(args.cache), "--quiet"])
    summary = list(csv.DictReader((args.out / "test" / "summary.csv").open(encoding="utf-8")))
    get = {(r["segmenter"], r["level"]): r for r in summary}
    lines = ["| segmenter | lambda | Dp(xi) | AdjRAND L1 | NMI L1 | AdjRAND L2 | NMI L2 | "
             "segments | median ms |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for a in algos:
        r1, r2 = get.get((a, "1")), get.get((a, "2"))
        if not r1 or not r2:
            continue
        lines.append(f"| {a} | {lam.get(a, '')} | {dxi.get(a, '')} | {float(r1['ari']):.3f} | "
                     f"{float(r1['nmi']):.3f} | {float(r2['ari']):.3f} | "
                     f"{float(r2['nmi']):.3f} | {float(r2['segments']):.1f} | "
                     f"{float(r2['ms_median']):.0f} |")
    (args.out / "table.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    paired = paired_differences(args.out / "test" / "per_page.csv")
    (args.out / "paired.md").write_text(
        "Paired per-page ARI differences on the test pages\n\n" + "\n".join(paired) + "\n",
        encoding="utf-8")
    (args.out / "run.json").write_text(json.dumps({
        "command": "python -m eval.graphseg " + " ".join(sys.argv[1:] if argv is None
                                                         else argv),
        "lambda": lam, "dxi": dxi, "variants": variants, "lambdas": lambdas}, indent=2),
        encoding="utf-8")
    print("\n".join(lines + [""] + paired))
    return 0


if __name__ == "__main__":
    sys.exit(main())
