"""Per-page segmentation time after rendering, for every registered segmenter.

    python bench/segment.py --data ../shared/data/segmentation/kreuzer-random --algos dom,vips

Pages are rendered once (through the harness's cache, ``.cache/webseg/pages``) and then every
segmenter runs on every page ``--repeat`` times; the time of the fastest repeat per page is kept
(the others measure the machine's noise, not the algorithm). Prints median, p95 and max
milliseconds per page and the node counts, so a target such as "median <= 30 ms" can be checked
by eye. Nothing here asserts: targets are reported, not tested.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.segmentation import load_pages, parse_params, read_dataset  # noqa: E402
from eval.splits import select  # noqa: E402
from webseg.page import Page  # noqa: E402
from webseg.segmenters import available, get_segmenter  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--algos", default=",".join(available()))
    ap.add_argument("--split", default="all", choices=["all", "train", "val", "dev", "test"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cache", type=Path, default=Path(".cache/webseg/pages"))
    ap.add_argument("--json", type=Path, help="also write the numbers as JSON")
    ap.add_argument("--param", action="append", default=[], metavar="ALGO:KEY=VALUE",
                    help="segmenter parameter, e.g. blockfusion:level1=none (repeatable)")
    args = ap.parse_args(argv)

    gold = read_dataset(args.data)
    if args.split != "all":
        keep = set(select([g.id for g in gold], args.split))
        gold = [g for g in gold if g.id in keep]
    rendered = load_pages(gold, args.cache, concurrency=3, timeout=60, progress=False)
    pages = [p for p in rendered.values() if isinstance(p, Page)]
    nodes = np.array([p.n for p in pages])
    print(f"{len(pages)} pages, nodes per page: median {np.median(nodes):.0f}, "
          f"max {nodes.max()}")
    print(f"{'segmenter':16s} {'median ms':>10s} {'p95 ms':>8s} {'max ms':>8s}")
    params = parse_params(args.param)
    out = {}
    for name in [a.strip() for a in args.algos.split(",") if a.strip()]:
        seg = get_segmenter(name, **params.get(name, {}))
        times = []
        for p in pages:
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                seg.segment(p)
                best = min(best, time.perf_counter() - t0)
            times.append(best * 1000)
        t = np.array(times)
        out[name] = {"median_ms": float(np.median(t)), "p95_ms": float(np.percentile(t, 95)),
                     "max_ms": float(t.max()), "pages": len(t)}
        print(f"{name:16s} {np.median(t):10.1f} {np.percentile(t, 95):8.1f} {t.max():8.1f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
