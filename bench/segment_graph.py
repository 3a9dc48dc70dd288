"""Speed of GCuts (and CClus): per-page times on kreuzer, growth with page size, profile.

    python bench/segment_graph.py --data ../shared/data/segmentation/kreuzer-random \\
        --out eval/results/graphseg/speed

Writes ``timings.csv`` (one row per page and algorithm: nodes, content-tree nodes, labels,
moves, wall and CPU seconds split into prepare = features + costs and solve = minimisation),
``summary.md`` (medians, the log-log slope of time against nodes), ``time_vs_nodes.png`` and
``profile.txt`` (cProfile of GCuts on the largest page).

Large pages: the kreuzer pages have at most ~1,900 DOM nodes, so to see how time grows past
5,000 nodes the bench also builds *tiled* pages - the body of a kreuzer page repeated k times
one below the other (a real DOM, real styles and text; only the geometry is shifted) - with
up to ~15,000 nodes. Times are wall-clock on a shared machine: the CPU column is the less noisy
one. Reported as numbers, never asserted (see the design habits).
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import pstats
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webseg.page import Page  # noqa: E402


def tile_page(page: Page, copies: int) -> Page:
    """The page with its ``<body>`` content repeated ``copies`` times, stacked vertically."""
    b = page.body
    end = int(page.subtree_end[b])
    inner = np.arange(b + 1, end)
    L = len(inner)
    head = np.arange(0, b + 1)
    idx = np.concatenate([head] + [inner] * copies)
    parent = [page.parent[head]]
    boxes = [page.box[head]]
    h = float(page.height or 1000.0)
    for c in range(copies):
        par = page.parent[inner].astype(np.int64)
        parent.append(np.where(par == b, b, par + c * L).astype(np.int32))
        bx = page.box[inner].copy()
        bx[:, 1] += c * h
        boxes.append(bx)
    box = np.concatenate(boxes)
    box[b, 3] = h * copies
    sel = idx.tolist()
    return replace(page, parent=np.concatenate(parent), kind=page.kind[idx],
                   tag=[page.tag[i] for i in sel], text=[page.text[i] for i in sel],
                   attrs=[page.attrs[i] for i in sel], box=box, bg=page.bg[idx],
                   color=page.color[idx], font_size=page.font_size[idx],
                   font_weight=page.font_weight[idx], italic=page.italic[idx],
                   font_family=page.font_family[idx], display=page.display[idx],
                   position=page.position[idx], visible=page.visible[idx],
                   height=h * copies, meta={**page.meta, "tiled": copies})


def time_one(seg, page: Page) -> dict:
    w0, c0 = time.perf_counter(), time.process_time()
    prep = seg.prepare(page)
    w1, c1 = time.perf_counter(), time.process_time()
    out = seg.segment_prepared(prep)
    w2, c2 = time.perf_counter(), time.process_time()
    tree = prep.tree
    return {"nodes": page.n, "tree_nodes": tree.n if tree is not None else 0,
            "leaves": len(tree.leaves) if tree is not None else 0,
            "labels": len(getattr(prep, "labels", [])), "moves": out.params.get("moves", ""),
            "segments": len(out), "prepare_s": w1 - w0, "solve_s": w2 - w1,
            "wall_s": w2 - w0, "cpu_s": (c1 - c0) + (c2 - c1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/pages"))
    ap.add_argument("--algos", default="gcuts,cclus")
    ap.add_argument("--tiles", default="1,2,4,6,8", help="copies for the tiled large pages")
    args = ap.parse_args(argv)

    from eval.segmentation import load_pages, read_dataset
    from webseg.segmenters import get_segmenter

    recs = read_dataset(args.data)
    rendered = load_pages(recs, args.cache, 2, 60.0, progress=False)
    pages = [(r.id, p) for r in recs if isinstance(p := rendered.get(r.id), Page)]
    algos = [a for a in args.algos.split(",") if a]
    rows = []
    for name in algos:
        seg = get_segmenter(name)
        seg.segment(pages[0][1])  # warm up (model load, imports)
        for pid, page in pages:
            rows.append({"algo": name, "page": pid, "kind": "kreuzer", **time_one(seg, page)})
    # tiled large pages from the largest kreuzer page and a median one
    by_size = sorted(pages, key=lambda x: x[1].n)
    bases = [by_size[len(by_size) // 2], by_size[-1]]
    tiles = [int(x) for x in args.tiles.split(",")]
    for name in algos:
        seg = get_segmenter(name)
        for pid, page in bases:
            for k in tiles:
                tp = tile_page(page, k)
                rows.append({"algo": name, "page": f"{pid}x{k}", "kind": "tiled",
                             **time_one(seg, tp)})
    args.out.mkdir(parents=True, exist_ok=True)
    fields = ["algo", "page", "kind", "nodes", "tree_nodes", "leaves", "labels", "moves",
              "segments", "prepare_s", "solve_s", "wall_s", "cpu_s"]
    with (args.out / "timings.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})

    # profile GCuts on the largest tiled page
    seg = get_segmenter("gcuts")
    big = tile_page(bases[-1][1], max(tiles))
    prof = cProfile.Profile()
    prof.enable()
    seg.segment(big)
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(25)
    (args.out / "profile.txt").write_text(
        f"cProfile of gcuts on {bases[-1][0]} tiled x{max(tiles)} ({big.n} nodes)\n\n"
        + s.getvalue(), encoding="utf-8")

    lines = ["# Segmentation speed: GCuts / CClus", "",
             f"Command: `python bench/segment_graph.py {' '.join(argv or sys.argv[1:])}`", "",
             "| algo | pages | median ms (wall) | median ms (CPU) | p90 ms (wall) | max ms "
             "(wall) | median prepare ms | median solve ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in algos:
        sel = [r for r in rows if r["algo"] == name and r["kind"] == "kreuzer"]
        wall = np.array([r["wall_s"] for r in sel]) * 1000
        cpu = np.array([r["cpu_s"] for r in sel]) * 1000
        lines.append(f"| {name} | {len(sel)} | {np.median(wall):.0f} | {np.median(cpu):.0f} | "
                     f"{np.percentile(wall, 90):.0f} | {wall.max():.0f} | "
                     f"{1000 * np.median([r['prepare_s'] for r in sel]):.0f} | "
                     f"{1000 * np.median([r['solve_s'] for r in sel]):.0f} |")
    lines += ["", "Growth with page size (all pages incl. tiled; least-squares slope of "
              "log CPU time on log DOM nodes):", "",
              "| algo | slope | largest page (nodes) | its CPU s | its labels | its moves |",
              "|---|---:|---:|---:|---:|---:|"]
    for name in algos:
        sel = [r for r in rows if r["algo"] == name and r["cpu_s"] > 0]
        x = np.log([r["nodes"] for r in sel])
        y = np.log([r["cpu_s"] for r in sel])
        slope = np.polyfit(x, y, 1)[0]
        big_r = max(sel, key=lambda r: r["nodes"])
        lines.append(f"| {name} | {slope:.2f} | {big_r['nodes']} | {big_r['cpu_s']:.2f} | "
                     f"{big_r['labels']} | {big_r['moves']} |")
    lines += ["", "Tiled pages (time as the page grows):", "",
              "| algo | page | nodes | tree nodes | leaves | labels | moves | prepare s | "
              "solve s | CPU s |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["kind"] == "tiled":
            lines.append(f"| {r['algo']} | {r['page']} | {r['nodes']} | {r['tree_nodes']} | "
                         f"{r['leaves']} | {r['labels']} | {r['moves']} | "
                         f"{r['prepare_s']:.2f} | {r['solve_s']:.2f} | {r['cpu_s']:.2f} |")
    (args.out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    plot(rows, algos, args.out / "time_vs_nodes.png")
    print("\n".join(lines))
    return 0


def plot(rows: list[dict], algos: list[str], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name, color in zip(algos, ["C0", "C1", "C2", "C3"], strict=False):
        for kind, marker in (("kreuzer", "o"), ("tiled", "^")):
            sel = [r for r in rows if r["algo"] == name and r["kind"] == kind]
            if sel:
                ax.scatter([r["nodes"] for r in sel], [r["cpu_s"] for r in sel], s=14,
                           marker=marker, color=color, alpha=0.7, label=f"{name} ({kind})")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--", label="500 ms")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("DOM nodes")
    ax.set_ylabel("CPU seconds per page (features + minimisation)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
