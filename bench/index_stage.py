"""The pipeline's index stage alone, per page: CPU milliseconds and a digest of its output.

::

    python bench/index_stage.py --data ../shared/data/wcxb-dev --pages 150            # rendered
    python bench/index_stage.py --data ../shared/data/wcxb-dev --pages 150 --parsed   # no browser

The first ``--pages`` pages of the manifest (sorted by id) are rendered once (cached as Page
JSON under ``--render-cache``) or parsed (:func:`webseg.parse.parse`); the segment and clean
stages run first, as in ``webseg pipeline`` (their results are reused by the index stage), then
:meth:`webseg.pipeline.process.PageProcessor._index_doc` is timed with ``time.process_time()``
(the machine is shared: CPU, not wall time). Printed: the median and mean CPU ms per page, the
load average, and a SHA-256 of every page's index entry (JSON), so two checkouts can be checked
to build identical index entries: run the script in each and compare the digests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/wcxb-dev")
    ap.add_argument("--pages", type=int, default=150)
    ap.add_argument("--parsed", action="store_true", help="parse pages without a browser")
    ap.add_argument("--render-cache", type=Path, default=None,
                    help="Page JSON cache (default: webseg.datasets.DEFAULT_CACHE)")
    ap.add_argument("--repeat", type=int, default=1, help="time every page this many times")
    args = ap.parse_args(argv)

    from webseg.clean import extract
    from webseg.datasets import DEFAULT_CACHE, load_records, render_cached
    from webseg.parse import parse
    from webseg.pipeline.process import PageProcessor, PipelineConfig

    recs = sorted(load_records(args.data), key=lambda r: r.id)[:args.pages]
    if args.parsed:
        pages = [(r.id, parse(r.read_html(), url=r.url)) for r in recs]
        config = PipelineConfig.parsed()
    else:
        got = render_cached(recs, args.render_cache or DEFAULT_CACHE, 2)
        pages = [(r.id, got[r]) for r in recs if r in got]
        config = PipelineConfig()
    proc = PageProcessor(config)
    prepared = []
    for rid, page in pages:
        seg = proc.segmenter.segment(page)
        res = extract(page, config.clean_segmenter, threshold=config.template_threshold)
        _ = res.language  # the clean stage's (its output line has it): the index reuses it
        prepared.append((rid, page, {"segmentation": seg, "clean": res, "html": None}))
    rid, page, scratch = prepared[0]
    proc._index_doc(rid, None, page, scratch)  # imports and models, not a page's cost
    load = os.getloadavg()[0]
    times: list[float] = []
    digest = hashlib.sha256()
    for rid, page, scratch in prepared:
        best = float("inf")
        for _ in range(args.repeat):
            c0 = time.process_time()
            doc = proc._index_doc(rid, None, page, scratch)
            best = min(best, time.process_time() - c0)
        times.append(best)
        digest.update(json.dumps(doc, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    print(json.dumps({"mode": "parsed" if args.parsed else "rendered", "pages": len(times),
                      "index_cpu_ms_median": round(1000 * statistics.median(times), 1),
                      "index_cpu_ms_mean": round(1000 * statistics.mean(times), 1),
                      "load_before_after": [round(load, 1), round(os.getloadavg()[0], 1)],
                      "sha256": digest.hexdigest()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
