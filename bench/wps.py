"""Speed of WPS-graph construction, features and inference on rendered pages.

    python bench/wps.py .cache/webseg/pages/*.page.json.gz

Scores are random (inference time does not depend on trained weights beyond pruning); prints
median and max milliseconds per stage and graph sizes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webseg.page import Page  # noqa: E402
from webseg.wps.features import boundary_features  # noqa: E402
from webseg.wps.graph import build_graph  # noqa: E402
from webseg.wps.inference import infer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/wps.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pages", nargs="+", help="page JSON files (Page.save format)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    t: dict[str, list[float]] = {"graph": [], "features": [], "inference": [], "total": []}
    sizes, nodes = [], []
    for path in args.pages:
        page = Page.load(path)
        t0 = time.perf_counter()
        g = build_graph(page)
        t1 = time.perf_counter()
        boundary_features(g)
        t2 = time.perf_counter()
        infer(g, rng.normal(size=g.n))
        t3 = time.perf_counter()
        t["graph"].append(t1 - t0)
        t["features"].append(t2 - t1)
        t["inference"].append(t3 - t2)
        t["total"].append(t3 - t0)
        sizes.append(g.n)
        nodes.append(page.n)
    print(f"pages: {len(sizes)}; DOM nodes median {np.median(nodes):.0f} max {max(nodes)}; "
          f"WPS vertices median {np.median(sizes):.0f} max {max(sizes)}")
    for k, v in t.items():
        print(f"{k:10s} median {1000 * np.median(v):7.1f} ms   max {1000 * max(v):7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
