"""CPU time of GCuts / CClus, old code vs this checkout, interleaved page by page, and an
identity check of their output.

    git archive 933a152 webseg | tar -x -C /tmp/old      # the code to compare against
    python bench/graphseg_speed.py --data ../shared/data/segmentation/kreuzer-random \
        --old-src /tmp/old --algos gcuts,cclus

Why: issue 17 asks for inference "unchanged or better", and the two-level default of GCuts and
CClus (a second minimisation at the level-1 lambda) costs up to 2x the old flat time. This
script measures, on each page back to back so the shared machine's load drifts cancel:

* ``old-flat``: the old code with the level-1 lambda switched off (``lam1=0``: flat output, the
  speed before two levels existed);
* ``old``: the old code with its shipped model (two levels);
* ``new``: this checkout with its shipped model (two levels).

``time.process_time`` per call, fastest of ``--repeat`` per page; prints median, p95 and max
ms. Unless ``--no-check``, the output of ``old`` and ``new`` is compared on every page: the
leaf labels at both levels, the segments (ids, root nodes, parents, boxes, text, attrs) and the
solver's params (energy, move count, objective). A difference is reported page by page and the
exit status is 1.

The old code is imported from ``--old-src`` (a directory holding an old ``webseg`` package)
under its own module objects, then the modules of this checkout are restored, so both run in
one process on the same ``Page`` objects. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.cv import load_items  # noqa: E402
from webseg.datasets import DEFAULT_PAGE_CACHE  # noqa: E402
from webseg.segmenters.cclus import CClusSegmenter  # noqa: E402
from webseg.segmenters.gcuts import GCutsSegmenter  # noqa: E402

CLASSES = {"gcuts": ("webseg.segmenters.gcuts", "GCutsSegmenter"),
           "cclus": ("webseg.segmenters.cclus", "CClusSegmenter")}


def import_old(src: Path) -> dict[str, Any]:
    """The segmenter classes of the ``webseg`` package under ``src``, imported in isolation."""
    ours = {k: m for k, m in sys.modules.items() if k == "webseg" or k.startswith("webseg.")}
    for k in ours:
        del sys.modules[k]
    sys.path.insert(0, str(src))
    try:
        out = {name: getattr(importlib.import_module(mod), cls)
               for name, (mod, cls) in CLASSES.items()}
        # modules the old code imports lazily at call time must be its own, too
        for mod in ("webseg.segmentation", "webseg.graphseg.train"):
            importlib.import_module(mod)
        old_mods = {k: m for k, m in sys.modules.items()
                    if k == "webseg" or k.startswith("webseg.")}
    finally:
        sys.path.remove(str(src))
        for k in [k for k in sys.modules if k == "webseg" or k.startswith("webseg.")]:
            del sys.modules[k]
        sys.modules.update(ours)
    out["_modules"] = old_mods
    return out


def timed(fn: Any, repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return 1000 * best, out


def same_output(a: Any, b: Any) -> list[str]:
    """Differences between two segmentations: leaf labels (levels 1, 2), the segments
    themselves (ids, root nodes, parents, boxes, text, attrs) and the solver's params."""
    diffs = []
    for lv in (1, 2):
        if not np.array_equal(a.leaf_labels(lv), b.leaf_labels(lv)):
            diffs.append(f"level {lv} labels")
    if [s.to_dict() for s in a.segments] != [s.to_dict() for s in b.segments]:
        diffs.append("segments")
    for k in sorted(set(a.params) | set(b.params)):
        if a.params.get(k) != b.params.get(k):
            diffs.append(f"param {k}: {a.params.get(k)!r} != {b.params.get(k)!r}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--old-src", type=Path, required=True,
                    help="directory that holds the old `webseg` package")
    ap.add_argument("--algos", default="gcuts,cclus")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--pages", type=int, default=0, help="first N pages only (0 = all)")
    ap.add_argument("--no-check", action="store_true", help="skip the identity check")
    args = ap.parse_args(argv)

    old = import_old(args.old_src.resolve())
    items = load_items(args.data, DEFAULT_PAGE_CACHE)
    if args.pages:
        items = items[:args.pages]
    new_cls = {"gcuts": GCutsSegmenter, "cclus": CClusSegmenter}
    bad = 0
    for name in [a.strip() for a in args.algos.split(",") if a.strip()]:
        segs = {"old-flat": old[name](lam1=0.0), "old": old[name](), "new": new_cls[name]()}
        ms: dict[str, list[float]] = {k: [] for k in segs}
        for it in items:
            outs = {}
            for k, s in segs.items():
                t, outs[k] = timed(lambda s=s, p=it.page: s.segment(p), args.repeat)
                ms[k].append(t)
            if not args.no_check:
                d = same_output(outs["old"], outs["new"])
                if d:
                    bad += 1
                    print(f"{name} {it.id}: output differs: {'; '.join(d)}", flush=True)
        print(f"{name}: {len(items)} pages, CPU ms per page (fastest of {args.repeat})")
        for k, v in ms.items():
            print(f"  {k:9s} median {np.median(v):7.1f}  p95 {np.percentile(v, 95):7.1f}  "
                  f"max {max(v):7.1f}  total {sum(v) / 1000:6.1f} s")
        r = np.array(ms["new"]) / np.array(ms["old-flat"])
        print(f"  new / old-flat per page: median {np.median(r):.2f}, "
              f"new / old: median {np.median(np.array(ms['new']) / np.array(ms['old'])):.2f}")
        if not args.no_check:
            print(f"  identity old vs new: {'OK' if not bad else f'{bad} pages differ'}",
                  flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
