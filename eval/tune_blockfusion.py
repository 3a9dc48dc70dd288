"""Tune block fusion's ``theta_max`` on the dev pages (train + val) only.

    python -m eval.tune_blockfusion --data ../shared/data/segmentation/kreuzer-random \\
        --out eval/results/tune_blockfusion

For every mode (``rulebased``, ``plain``, ``smoothed``) and every ``theta_max`` of the grid, the
``blockfusion`` segmenter is scored with the segmentation harness (:mod:`eval.segmentation`:
same pages, rendered-page cache, gold labels and metrics) at gold levels 1 and 2. The selection
criterion is the mean over pages of ARI, averaged over the two levels; ties go to the smaller
theta. Test pages are never read: ``--split`` only accepts ``dev``, ``train`` or ``val``.

Outputs in ``--out``: ``tune.csv`` (one row per mode and theta: ARI and NMI per level, their
average, mean segments per page, median ms per page), ``tune.png`` (ARI and NMI against theta,
one panel per mode), ``best.json`` (best theta per mode with its scores) and ``tune.md`` (the
table, with the command). The best theta per mode is printed at the end; it is what
``webseg.segmenters.blockfusion.DEFAULT_THETA_MAX`` should hold.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from eval.segmentation import (
    evaluate,
    load_pages,
    parse_params,
    read_dataset,
    summarise,
    write_csv,
)
from eval.splits import select
from eval.sweep import parse_grid

FIELDS = ["mode", "theta", "ari_l1", "ari_l2", "ari_avg", "nmi_l1", "nmi_l2", "nmi_avg",
          "segments", "ms_median", "pages", "errors"]


def sweep(pages: list, rendered: dict, modes: list[str], grid: list[float],
          fixed: dict[str, Any], progress: bool = True) -> list[dict]:
    """Score blockfusion for every (mode, theta); one summary row each."""
    out = []
    for mode in modes:
        for theta in grid:
            params = {"blockfusion": {**fixed, "mode": mode, "theta_max": theta}}
            rows, errors = evaluate(pages, rendered, ["blockfusion"], [1, 2], "background",
                                    "match", params)
            summ = {r["level"]: r for r in summarise(rows, ["blockfusion"], [1, 2])}
            if 1 not in summ or 2 not in summ:
                raise SystemExit(f"tune_blockfusion: nothing scored for mode={mode} "
                                 f"theta={theta}: {errors[:3]}")
            s1, s2 = summ[1], summ[2]
            out.append({"mode": mode, "theta": theta,
                        "ari_l1": s1["ari"], "ari_l2": s2["ari"],
                        "ari_avg": (s1["ari"] + s2["ari"]) / 2,
                        "nmi_l1": s1["nmi"], "nmi_l2": s2["nmi"],
                        "nmi_avg": (s1["nmi"] + s2["nmi"]) / 2,
                        "segments": s1["segments"], "ms_median": s1["ms_median"],
                        "pages": s1["pages"], "errors": len(errors)})
            if progress:
                r = out[-1]
                print(f"{mode:9s} theta={theta:.2f}  ARI L1 {r['ari_l1']:.3f} L2 "
                      f"{r['ari_l2']:.3f} avg {r['ari_avg']:.3f}  NMI avg {r['nmi_avg']:.3f}  "
                      f"segments {r['segments']:.1f}", file=sys.stderr)
    return out


def best_per_mode(table: list[dict]) -> dict[str, dict]:
    """Highest average ARI per mode; ties to the smaller theta."""
    best: dict[str, dict] = {}
    for r in table:
        b = best.get(r["mode"])
        if b is None or r["ari_avg"] > b["ari_avg"] + 1e-12:
            best[r["mode"]] = r
    return best


def plot(table: list[dict], modes: list[str], best: dict[str, dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(modes), figsize=(5.2 * len(modes), 4.0), squeeze=False,
                             sharey=True)
    for ax, mode in zip(axes[0], modes, strict=True):
        rows = [r for r in table if r["mode"] == mode]
        th = [r["theta"] for r in rows]
        for key, style, label in (("ari_l1", "-", "ARI level 1"), ("ari_l2", "-", "ARI level 2"),
                                  ("ari_avg", "-", "ARI average"),
                                  ("nmi_l1", "--", "NMI level 1"),
                                  ("nmi_l2", "--", "NMI level 2")):
            ax.plot(th, [r[key] for r in rows], style, label=label,
                    linewidth=2.2 if key == "ari_avg" else 1.2)
        if mode in best:
            ax.axvline(best[mode]["theta"], color="grey", linestyle=":", linewidth=1)
            ax.set_title(f"{mode}: best theta = {best[mode]['theta']:.2f}")
        ax.set_xlabel("theta_max")
        ax.set_ylim(-0.05, 1.0)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("mean over dev pages")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(out: Path, table: list[dict], best: dict[str, dict], run: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "tune.csv", table, FIELDS)
    (out / "best.json").write_text(json.dumps({"run": run, "best": best}, indent=2),
                                   encoding="utf-8")
    lines = [f"# blockfusion theta_max sweep: {run['dataset']}, split {run['split']} "
             f"({run['pages']} pages)", "", f"Command: `{run['command']}`", "",
             "Best (mean ARI averaged over gold levels 1 and 2): " + ", ".join(
                 f"{m} theta = {b['theta']:.2f} (ARI avg {b['ari_avg']:.3f})"
                 for m, b in best.items()), "",
             "| mode | theta | ARI L1 | ARI L2 | ARI avg | NMI L1 | NMI L2 | NMI avg "
             "| segments | median ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in table:
        mark = " **" if best.get(r["mode"]) is r else ""
        lines.append(f"| {r['mode']} | {r['theta']:.2f}{mark} | {r['ari_l1']:.3f} | "
                     f"{r['ari_l2']:.3f} | {r['ari_avg']:.3f} | {r['nmi_l1']:.3f} | "
                     f"{r['nmi_l2']:.3f} | {r['nmi_avg']:.3f} | {r['segments']:.1f} | "
                     f"{r['ms_median']:.1f} |")
    (out / "tune.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    plot(table, list(dict.fromkeys(r["mode"] for r in table)), best, out / "tune.png")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.tune_blockfusion", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path, help="dataset folder (manifest.jsonl)")
    ap.add_argument("--out", required=True, type=Path, help="output folder")
    ap.add_argument("--split", default="dev", choices=["dev", "train", "val"],
                    help="pages to tune on (eval.splits; never test); default dev = train+val")
    ap.add_argument("--modes", default="rulebased,plain,smoothed")
    ap.add_argument("--grid", default="0:1:0.02", help="START:STOP:STEP or a comma list")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                    help="other blockfusion parameters held fixed (JSON values), e.g. "
                         "boundaries=display")
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/pages"))
    ap.add_argument("--concurrency", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    grid = parse_grid(args.grid)
    fixed = parse_params([f"blockfusion:{p}" for p in args.param]).get("blockfusion", {})
    if {"mode", "theta_max"} & set(fixed):
        raise SystemExit("--param: mode and theta_max are swept, use --modes / --grid")
    pages = read_dataset(args.data)
    keep = set(select([p.id for p in pages], args.split))
    pages = [p for p in pages if p.id in keep]
    if not pages:
        raise SystemExit("tune_blockfusion: no pages with gold in the split")
    t0 = time.time()
    rendered = load_pages(pages, args.cache, args.concurrency, args.timeout, not args.quiet)
    table = sweep(pages, rendered, modes, grid, fixed, not args.quiet)
    best = best_per_mode(table)
    run = {"command": "python -m eval.tune_blockfusion " + " ".join(
               sys.argv[1:] if argv is None else argv),
           "dataset": args.data.name, "split": args.split, "pages": len(pages),
           "modes": modes, "grid": grid, "fixed": fixed,
           "seconds": round(time.time() - t0, 1)}
    write(args.out, table, best, run)
    print((args.out / "tune.md").read_text(encoding="utf-8"))
    for m, b in best.items():
        print(f"best theta_max for {m}: {b['theta']:.2f} (dev ARI L1 {b['ari_l1']:.3f}, "
              f"L2 {b['ari_l2']:.3f}, avg {b['ari_avg']:.3f}; NMI avg {b['nmi_avg']:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
