"""Segmentation harness: score registered segmenters against gold blocks.

    python -m eval.segmentation --data ../shared/data/segmentation/kreuzer-random \\
        --algos single,dom --out eval/results/segmentation

Input format (``shared/data/segmentation``): ``manifest.jsonl`` with ``id``, ``html`` (path
relative to the manifest), ``gold`` (``{"blocks": [{"xpath", "level", "type"}]}``) and
``render`` settings (``javascript``, ``viewport_width``), so the harness runs unchanged on any
dataset in that format.

Scoring, and the choices behind it:

* **Atoms** are the visible text leaves of the rendered page (``Page.text_leaves``); BCubed is
  reported over text nodes and over characters.
* **Gold labels at level L**: a leaf belongs to the innermost gold block among the blocks of
  level <= L whose element contains it (level-2 blocks refine level-1 blocks; text of a level-1
  block outside all of its level-2 blocks stays with the level-1 block).
* **Leaves outside every gold block** (``unassigned``) are reported per page
  (``gold_unassigned``) and by default scored as one extra "rest of the page" cluster, on both
  sides (``--unassigned background``); ``--unassigned singleton`` makes each its own cluster.
* **Predicted labels at level L** are the segmenter's segments at hierarchy level L (the
  finest segment of level <= L covering the leaf); flat segmenters give the same labels at
  every level. ``--pred-level finest`` compares the finest segments with both gold levels.
* Gold XPaths that do not resolve in our rendering are reported (``gold_missing``) and skipped.
* Pages that fail to render or segment are listed in ``errors.csv`` and left out of the means.

Gold reading, gold labels and the render cache live in :mod:`webseg.datasets` (the trainers
share them); they are re-exported here under their old names.

Outputs in ``--out``: ``per_page.csv``, ``summary.csv``, ``summary.md``, ``errors.csv``,
``ari_cdf.png`` (cumulative distribution of per-page ARI per segmenter, one panel per level, as
Figure 2a of Chakrabarti et al. 2008) and ``run.json`` (command, versions, settings).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import math
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from eval.splits import select
from webseg import __version__
from webseg.datasets import GoldPage, gold_cache_key, gold_labels, render_gold_pages
from webseg.datasets import read_gold_pages as read_dataset
from webseg.metrics import segmentation_scores
from webseg.page import Page
from webseg.segmentation import UNASSIGNED

PER_PAGE_FIELDS = ["page", "segmenter", "level", "ari", "nmi", "bcubed_p", "bcubed_r",
                   "bcubed_f", "bcubed_char_f", "n_leaves", "n_gold", "n_pred",
                   "gold_unassigned", "gold_missing", "seconds"]


def cache_key(gp: GoldPage, settings: dict[str, Any]) -> str:
    return gold_cache_key(gp, settings)


def load_pages(pages: list[GoldPage], cache: Path, concurrency: int, timeout: float,
               progress: bool = True) -> dict[str, Page | Exception]:
    """Render every page with its manifest settings, reusing ``cache`` when it is current."""
    return render_gold_pages(pages, cache, concurrency, timeout, progress)


def evaluate(pages: list[GoldPage], rendered: dict[str, Page | Exception], algos: list[str],
             levels: list[int], unassigned: str, pred_level: str,
             params: dict[str, dict[str, Any]]) -> tuple[list[dict], list[dict]]:
    """Score every (page, segmenter, level); returns (rows, errors)."""
    from webseg.segmenters import get_segmenter

    segmenters = {a: get_segmenter(a, **params.get(a, {})) for a in algos}
    rows: list[dict] = []
    errors: list[dict] = []
    for gp in pages:
        page = rendered.get(gp.id)
        if not isinstance(page, Page):
            errors.append({"page": gp.id, "segmenter": "", "stage": getattr(page, "stage",
                           "render"), "error": str(page)})
            continue
        chars = np.array([len(page.leaf_text(i)) for i in page.text_leaves], dtype=float)
        golds = {lv: gold_labels(page, gp.blocks, lv) for lv in levels}
        for name, seg in segmenters.items():
            t0 = time.perf_counter()
            try:
                result = seg.segment(page)
            except Exception as e:  # noqa: BLE001 - one failure must not end the run
                errors.append({"page": gp.id, "segmenter": name, "stage": "segment",
                               "error": f"{type(e).__name__}: {e}"})
                continue
            secs = time.perf_counter() - t0
            for lv in levels:
                gl, n_gold, missing = golds[lv]
                pl = result.leaf_labels(None if pred_level == "finest" else lv)
                sc = segmentation_scores(gl, pl, char_weights=chars, unassigned=unassigned)
                rows.append({
                    "page": gp.id, "segmenter": name, "level": lv,
                    "ari": sc["ari"], "nmi": sc["nmi"], "bcubed_p": sc["bcubed_p"],
                    "bcubed_r": sc["bcubed_r"], "bcubed_f": sc["bcubed_f"],
                    "bcubed_char_f": sc.get("bcubed_char_f", math.nan),
                    "n_leaves": len(gl), "n_gold": n_gold,
                    "n_pred": len({int(x) for x in pl if x != UNASSIGNED}),
                    "gold_unassigned": int((gl == UNASSIGNED).sum()),
                    "gold_missing": len(missing), "seconds": round(secs, 4)})
    return rows, errors


def summarise(rows: list[dict], algos: list[str], levels: list[int]) -> list[dict]:
    out = []
    for lv in levels:
        for a in algos:
            sel = [r for r in rows if r["segmenter"] == a and r["level"] == lv]
            if not sel:
                continue

            def col(k: str, sel: list[dict] = sel) -> np.ndarray:
                v = np.array([r[k] for r in sel], dtype=float)
                return v[~np.isnan(v)]

            out.append({"level": lv, "segmenter": a, "pages": len(sel),
                        "ari": col("ari").mean(), "ari_median": np.median(col("ari")),
                        "nmi": col("nmi").mean(), "bcubed_f": col("bcubed_f").mean(),
                        "bcubed_char_f": col("bcubed_char_f").mean(),
                        "segments": col("n_pred").mean(), "gold_blocks": col("n_gold").mean(),
                        "ms_median": 1000 * np.median(col("seconds"))})
    return out


def write_csv(path: Path, rows: list[dict], fields: list[str]) -> None:
    """Rows as CSV with floats to 4 decimals (gzip-compressed when ``path`` ends in .gz);
    every harness writes its tables through this one function."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})


def write_outputs(out: Path, rows: list[dict], errors: list[dict], summary: list[dict],
                  algos: list[str], levels: list[int], run: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "per_page.csv", rows, PER_PAGE_FIELDS)
    write_csv(out / "errors.csv", errors, ["page", "segmenter", "stage", "error"])
    write_csv(out / "summary.csv", summary, list(summary[0]) if summary else ["level",
                                                                              "segmenter"])
    lines = [f"# Segmentation results: {run['dataset']}", "",
             f"Command: `{run['command']}`", "",
             f"Pages scored: {run['pages_scored']} of {run['pages']}; render/segment errors: "
             f"{len(errors)}. Unassigned gold leaves scored as: `{run['unassigned']}`; predicted "
             f"level: `{run['pred_level']}`.", "",
             "| gold level | segmenter | pages | ARI | ARI median | NMI | BCubed-F (nodes) "
             "| BCubed-F (chars) | segments | gold blocks | median ms |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary:
        lines.append(f"| {r['level']} | {r['segmenter']} | {r['pages']} | {r['ari']:.3f} | "
                     f"{r['ari_median']:.3f} | {r['nmi']:.3f} | {r['bcubed_f']:.3f} | "
                     f"{r['bcubed_char_f']:.3f} | {r['segments']:.1f} | {r['gold_blocks']:.1f} | "
                     f"{r['ms_median']:.1f} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "run.json").write_text(json.dumps(run, indent=2), encoding="utf-8")
    plot_ari_cdf(rows, algos, levels, out / "ari_cdf.png")


def plot_ari_cdf(rows: list[dict], algos: list[str], levels: list[int], path: Path) -> None:
    """Cumulative distribution of per-page ARI (fraction of pages with ARI <= x)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(levels), figsize=(5.5 * len(levels), 4.2), squeeze=False)
    for ax, lv in zip(axes[0], levels, strict=True):
        for a in algos:
            v = np.sort([r["ari"] for r in rows if r["segmenter"] == a and r["level"] == lv
                         and not math.isnan(r["ari"])])
            if len(v):
                ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=a)
        ax.set_xlabel("adjusted Rand index")
        ax.set_ylabel("fraction of pages with ARI <= x")
        ax.set_title(f"gold level {lv}")
        ax.set_xlim(-0.2, 1.0)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parse_params(items: list[str]) -> dict[str, dict[str, Any]]:
    """``algo:key=value`` strings -> {algo: {key: value}} (values parsed as JSON when possible)."""
    out: dict[str, dict[str, Any]] = {}
    for it in items:
        try:
            algo, kv = it.split(":", 1)
            k, v = kv.split("=", 1)
        except ValueError:
            raise SystemExit(f"--param needs ALGO:KEY=VALUE, got {it!r}") from None
        try:
            val: Any = json.loads(v)
        except json.JSONDecodeError:
            val = v
        out.setdefault(algo, {})[k] = val
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.segmentation", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, type=Path, help="dataset folder (manifest.jsonl)")
    ap.add_argument("--algos", default="single,dom", help="comma-separated segmenter names")
    ap.add_argument("--out", required=True, type=Path, help="output folder")
    ap.add_argument("--levels", default="1,2", help="gold levels to score (default 1,2)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="rendered-page cache (default: .cache/webseg/pages)")
    ap.add_argument("--pages", default=None, help="comma-separated page ids to run")
    ap.add_argument("--limit", type=int, default=None, help="first N pages only")
    ap.add_argument("--split", default="all", choices=["all", "train", "val", "dev", "test"],
                    help="fixed page split of eval.splits (dev = train + val); default all")
    ap.add_argument("--unassigned", choices=["background", "singleton"], default="background")
    ap.add_argument("--pred-level", choices=["match", "finest"], default="match")
    ap.add_argument("--param", action="append", default=[], metavar="ALGO:KEY=VALUE")
    ap.add_argument("--concurrency", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)

    algos = [a.strip() for a in args.algos.split(",") if a.strip()]
    levels = [int(x) for x in args.levels.split(",")]
    only = set(args.pages.split(",")) if args.pages else None
    pages = read_dataset(args.data, only, None)
    if args.split != "all":
        keep = set(select([p.id for p in pages], args.split))
        pages = [p for p in pages if p.id in keep]
    pages = pages[: args.limit] if args.limit else pages
    if not pages:
        raise SystemExit("eval.segmentation: no pages with gold to score")
    cache = args.cache or Path(".cache/webseg/pages")
    t0 = time.time()
    rendered = load_pages(pages, cache, args.concurrency, args.timeout, not args.quiet)
    t_render = time.time() - t0
    rows, errors = evaluate(pages, rendered, algos, levels, args.unassigned, args.pred_level,
                            parse_params(args.param))
    summary = summarise(rows, algos, levels)
    run = {"command": "python -m eval.segmentation " + " ".join(
               sys.argv[1:] if argv is None else argv),
           "dataset": args.data.name, "split": args.split, "pages": len(pages),
           "pages_scored": len({r["page"] for r in rows}), "algos": algos, "levels": levels,
           "unassigned": args.unassigned, "pred_level": args.pred_level,
           "webseg": __version__, "python": platform.python_version(),
           "render_seconds": round(t_render, 1)}
    write_outputs(args.out, rows, errors, summary, algos, levels, run)
    print((args.out / "summary.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
