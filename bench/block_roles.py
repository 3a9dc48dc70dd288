"""Added time of the finer block roles (:mod:`webseg.blocks.roles`) per page.

    python bench/block_roles.py --cache .cache/webseg/boilerplate/wcxb --limit 100 --json out.json

Pages come from the render cache (rendering is not timed); the first page only warms caches.
Per page: the main model (``block_functions``), then the role heads on top of it
(``fine_proba`` of both heads: one multi-class ensemble per head over the leaf features that
``block_functions`` already computed, plus the per-element aggregation). Prints median / p90 /
max wall-clock ms of both parts. The roles are lazy: ``webseg clean`` pays for them only with
``--format json``. Nothing asserts.
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
from webseg.page import Page  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, action="append", required=True)
    ap.add_argument("--limit", type=int, default=100, help="pages per folder")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    files = [f for c in a.cache for f in sorted(c.glob("*.json.gz"))[:a.limit]]
    main_ms, role_ms = [], []
    for k, f in enumerate(files):
        page = Page.load(f)
        t0 = time.perf_counter()
        bf = block_functions(page)
        t1 = time.perf_counter()
        for head in bf.fine_roles:
            bf.fine_proba(head)
        t2 = time.perf_counter()
        if k:
            main_ms.append((t1 - t0) * 1e3)
            role_ms.append((t2 - t1) * 1e3)
    out = {}
    for name, v in (("block_functions", main_ms), ("fine_roles_added", role_ms)):
        arr = np.asarray(v)
        out[name] = {"pages": len(arr), "median_ms": float(np.median(arr)),
                     "p90_ms": float(np.percentile(arr, 90)), "max_ms": float(arr.max())}
        print(f"{name}: median {out[name]['median_ms']:.1f} ms, p90 {out[name]['p90_ms']:.1f} "
              f"ms, max {out[name]['max_ms']:.1f} ms ({len(arr)} pages)")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
