"""Fill the classification view cache for datasets (``python -m eval.classify.precompute``).

The harness computes missing views itself; this entry point only lets slow views (GCuts) run
in a separate, ``nice``d process while the others are computed or evaluated.
"""

from __future__ import annotations

import argparse
import time

from classify.corpus import VIEWS, compute_views
from eval.classify.harness import sample_records
from webseg.datasets import load_records


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", action="append", required=True, help="dataset folder (repeat)")
    ap.add_argument("--views", default=",".join(VIEWS), help="comma-separated view names")
    ap.add_argument("--render", action="store_true",
                    help="render pages missing from the render cache (render_cached)")
    ap.add_argument("--sample", type=int, default=0,
                    help="only a deterministic stratified sample of N pages (as the harness's)")
    ap.add_argument("--save-every", type=int, default=50, help="write the cache every N pages")
    ap.add_argument("--pageviews", action="store_true",
                    help="only the stacked model's page views (classify.pagefeatures)")
    a = ap.parse_args(argv)
    if a.pageviews:
        from classify.corpus import compute_page_views

        for d in a.data:
            recs = sample_records(load_records(d), a.sample)
            vs = compute_page_views(recs, log=lambda m: print(m, flush=True))
            src = [v.get("source") for v in vs.texts["pageviews"].values()]
            print(f"{d}: {len(src)}/{len(recs)} pages with page views "
                  f"({src.count('parse')} parsed without rendering), "
                  f"{vs.seconds['pageviews']:.0f} s; missing: {vs.missing}", flush=True)
        return 0
    views = [v for v in a.views.split(",") if v]
    for d in a.data:
        recs = sample_records(load_records(d), a.sample)
        t0 = time.perf_counter()
        vs = compute_views(recs, views, render=a.render, save_every=a.save_every,
                           log=lambda m: print(m, flush=True))
        print(f"{d}: {len(recs) - len(vs.missing)}/{len(recs)} pages with views "
              f"{','.join(views)} ({len(vs.missing)} missing) in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
