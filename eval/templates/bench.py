"""PageLevel time per page on the boilerplate sets (bigger pages than kreuzer-random).

    python -m eval.templates.bench --data ../shared/data/wcxb-dev --limit 100

Pages come from the shared render cache (``webseg.datasets``; run ``eval.templates`` or
``python -m webseg.datasets DIR`` first), the first ``--limit`` in the harness's hash order.
Per page: the *cold* time (first ``segment`` call on a freshly loaded Page, so the Page's
cached tree properties are built inside the timing) and the best of ``--repeat`` warm calls.
Prints median / p95 / max milliseconds and node counts; asserts nothing (the issue's target
is a median <= 150 ms per page after rendering).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from webseg.datasets import DEFAULT_CACHE, cache_path, load_records
from webseg.page import Page
from webseg.segmenters.base import get_segmenter


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.templates.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--algos", default="pagelevel,pagelevel-basic,pagelevel-merge")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--render-cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    recs = sorted(load_records(args.data), key=lambda r: hashlib.sha1(r.id.encode()).hexdigest())
    paths = [p for r in recs if (p := cache_path(args.render_cache, r)).is_file()][: args.limit]
    if not paths:
        ap.error(f"no rendered pages of {args.data} in {args.render_cache}")
    algos = [a for a in args.algos.split(",") if a]
    segs = {a: get_segmenter(a) for a in algos}
    for s in segs.values():
        s.segment(Page.load(paths[0]))  # load the model outside the timings
    cold: dict[str, list[float]] = {a: [] for a in algos}
    warm: dict[str, list[float]] = {a: [] for a in algos}
    nodes = []
    for p in paths:
        nodes.append(Page.load(p).n)
        for a in algos:
            page = Page.load(p)
            t0 = time.perf_counter()
            segs[a].segment(page)
            cold[a].append(1000 * (time.perf_counter() - t0))
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                segs[a].segment(page)
                best = min(best, time.perf_counter() - t0)
            warm[a].append(1000 * best)
    n = np.array(nodes)
    print(f"{args.data.name}: {len(paths)} pages, nodes per page: median {np.median(n):.0f}, "
          f"max {n.max()}")
    print(f"{'segmenter':16s} {'cold median':>12s} {'cold p95':>9s} {'warm median':>12s} "
          f"{'warm p95':>9s} {'max':>8s}")
    out = {"pages": len(paths), "nodes_median": float(np.median(n)), "nodes_max": int(n.max())}
    for a in algos:
        c, w = np.array(cold[a]), np.array(warm[a])
        out[a] = {"cold_median_ms": float(np.median(c)), "cold_p95_ms": float(np.percentile(c, 95)),
                  "warm_median_ms": float(np.median(w)), "warm_p95_ms": float(np.percentile(w, 95)),
                  "max_ms": float(max(c.max(), w.max()))}
        print(f"{a:16s} {np.median(c):12.1f} {np.percentile(c, 95):9.1f} {np.median(w):12.1f} "
              f"{np.percentile(w, 95):9.1f} {max(c.max(), w.max()):8.1f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
