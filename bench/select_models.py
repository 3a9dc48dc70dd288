"""CPU time per page of the ``select`` segmenter under two selector models, interleaved.

    git show fe3a2c6:webseg/models/select.json > /tmp/old_select.json
    python bench/select_models.py --data ../shared/data/segmentation/kreuzer-random \
        --old /tmp/old_select.json

Why interleaved: the shared machine's load drifts over minutes, so two ``bench/segment.py`` runs
of the same code differ by more than the models do; running both models on each page back to
back compares them under the same load. ``time.process_time`` per call, fastest of
``--repeat`` per page; prints median, p95 and max ms. Nothing asserts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.cv import load_items  # noqa: E402
from webseg.datasets import DEFAULT_PAGE_CACHE  # noqa: E402
from webseg.segmenters.select import SelectSegmenter  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--old", required=True, help="selector model JSON to compare")
    ap.add_argument("--new", default=None, help="default: the shipped webseg/models/select.json")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    items = load_items(args.data, DEFAULT_PAGE_CACHE)
    segs = {"old": SelectSegmenter(model=args.old), "new": SelectSegmenter(model=args.new)}
    ms: dict[str, list[float]] = {k: [] for k in segs}
    for it in items:
        for k, s in segs.items():
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.process_time()
                s.segment(it.page)
                best = min(best, time.process_time() - t0)
            ms[k].append(1000 * best)
    print(f"{len(items)} pages")
    for k, v in ms.items():
        print(f"{k}: median {np.median(v):.1f} p95 {np.percentile(v, 95):.1f} max {max(v):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
