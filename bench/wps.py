"""Speed of WPS-graph construction, features (local + context) and inference on rendered pages.

    python bench/wps.py .cache/webseg/pages/*.page.json.gz
    python bench/wps.py --loss slack .cache/webseg/pages/*.page.json.gz
    python bench/wps.py --random .cache/webseg/pages/*.page.json.gz

Scores come from the shipped ``wps-<loss>`` model (what the segmenter does), or are random with
``--random`` (inference time depends on the weights only through leaf pruning). Prints median,
90th percentile and max milliseconds per stage ("features" includes the context features only
when the model uses them - as the segmenter does -; the "of which context" line times them
separately in every case) and graph sizes; "total" is graph + features +
scoring + inference, i.e. the segmenter without building the ``Segmentation`` object.
Wall-clock and CPU (process) time are both printed: on a shared, loaded machine the CPU time
is the one that measures the code.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webseg.page import Page  # noqa: E402
from webseg.wps.features import boundary_features, context_features  # noqa: E402
from webseg.wps.graph import build_graph  # noqa: E402
from webseg.wps.inference import infer  # noqa: E402
from webseg.wps.train import WPSModel  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/wps.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pages", nargs="+", help="page JSON files (Page.save format)")
    ap.add_argument("--loss", choices=["margin", "slack"], default="margin")
    ap.add_argument("--random", action="store_true", help="random scores instead of the model")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    model = None if args.random else WPSModel.load(loss=args.loss)
    stages = ["graph", "features", "  of which context", "inference", "total"]
    wall: dict[str, list[float]] = {k: [] for k in stages}
    cpu: dict[str, list[float]] = {k: [] for k in stages}
    sizes, nodes, pruned = [], [], []
    clocks = (time.perf_counter, time.process_time)
    for path in args.pages:
        page = Page.load(path)
        for clock, t in zip(clocks, (wall, cpu), strict=True):
            t0 = clock()
            g = build_graph(page)
            t1 = clock()
            X = boundary_features(g, context=model is None or model.uses_context)
            t2 = clock()
            f = rng.normal(size=g.n) if model is None else model.scores(X)
            res = infer(g, f)
            t3 = clock()
            context_features(g)  # timed separately (it is part of boundary_features above)
            t4 = clock()
            t["graph"].append(t1 - t0)
            t["features"].append(t2 - t1)
            t["  of which context"].append(t4 - t3)
            t["inference"].append(t3 - t2)
            t["total"].append(t3 - t0)
        sizes.append(g.n)
        nodes.append(page.n)
        pruned.append(res.n_pruned / max(g.n, 1))
    print(f"pages: {len(sizes)}; scores: {'random' if model is None else 'wps-' + args.loss}; "
          f"DOM nodes median {np.median(nodes):.0f} max {max(nodes)}; WPS vertices median "
          f"{np.median(sizes):.0f} max {max(sizes)}; pruned before the LP: median "
          f"{100 * np.median(pruned):.0f}%")
    for label, t in (("wall", wall), ("cpu", cpu)):
        for k, v in t.items():
            print(f"{label:4s} {k:20s} median {1000 * np.median(v):7.1f} ms   p90 "
                  f"{1000 * np.percentile(v, 90):7.1f} ms   max {1000 * max(v):7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
