"""Analysis time of the block model per page: features + prediction + decoding.

    python bench/blocks.py --cache .cache/webseg/boilerplate/wcxb --limit 100 --json out.json

Pages come from the render cache (already rendered: rendering is not timed); the first page
only warms caches and imports. ``--no-layout`` strips the layout flag (``has_layout=False``),
which is what the model sees on a page from :func:`webseg.parse.parse` (parsing is not timed).
Prints the median / p90 / max wall-clock ms per page, the same for the process CPU time
(``time.process_time``: a busy shared machine inflates it much less than wall-clock time), and
the wall-clock medians of the two parts (features; both tree stages). The target (issue 14) is
a median <= 20 ms. Nothing asserts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webseg.blocks import block_functions  # noqa: E402
from webseg.blocks.features import leaf_features  # noqa: E402
from webseg.blocks.model import load_model  # noqa: E402
from webseg.page import Page  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, action="append", required=True,
                    help="render-cache folder of one dataset (repeatable)")
    ap.add_argument("--limit", type=int, default=100, help="pages per folder")
    ap.add_argument("--no-layout", action="store_true",
                    help="time pages without layout (as parsed pages)")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    model = load_model()
    files = [f for c in a.cache for f in sorted(c.glob("*.json.gz"))[: a.limit]]
    total, cpu, feat, trees, nodes = [], [], [], [], []
    for k, f in enumerate(files):
        page = Page.load(f)
        if a.no_layout:
            page.has_layout = False
        c0 = time.process_time()
        t0 = time.perf_counter()
        block_functions(page, model=model)
        t1 = time.perf_counter()
        c1 = time.process_time()
        # the parts, on a fresh copy of the page (cached properties recomputed)
        page2 = Page.load(f)
        if a.no_layout:
            page2.has_layout = False
        t2 = time.perf_counter()
        lf = leaf_features(page2)
        t3 = time.perf_counter()
        model.scores(lf)
        t4 = time.perf_counter()
        if k == 0:
            continue  # warm-up
        total.append((t1 - t0) * 1e3)
        cpu.append((c1 - c0) * 1e3)
        feat.append((t3 - t2) * 1e3)
        trees.append((t4 - t3) * 1e3)
        nodes.append(page.n)
    res = {"pages": len(total), "median_ms": float(np.median(total)),
           "p90_ms": float(np.percentile(total, 90)), "max_ms": float(np.max(total)),
           "cpu_median_ms": float(np.median(cpu)), "cpu_p90_ms": float(np.percentile(cpu, 90)),
           "features_median_ms": float(np.median(feat)),
           "model_median_ms": float(np.median(trees)),
           "median_nodes": float(np.median(nodes)), "no_layout": a.no_layout}
    print(json.dumps(res, indent=1))
    if a.json:
        a.json.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
