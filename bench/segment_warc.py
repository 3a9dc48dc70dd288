"""CPU of the segment stage (BlockFusion, the pipeline's segmenter) over the pages of a WARC
parsed without a browser, in one process, and a digest of its outputs (to check that a
speed-up changes none).

    PYTHONPATH=. python bench/segment_warc.py /work/cache/runs/s36/w400.warc.gz
    (with PYTHONPATH pointing at a checkout of other code: the same for that code; compare
    the digests and the CPU)

The pages are parsed first and their cached tree arrays (subtree ends, depths) computed, as
the stages before segmentation leave them (not timed); then ``BlockFusion().segment`` runs
on every page in order. Prints the total CPU (``time.process_time``), its mean and median
per page, and one SHA-1 over every segment's nodes, text, box and density. Nothing
asserts. The compiled merge loop runs when webseg's C extensions are built
(``WEBSEG_PURE_PYTHON=1`` for the Python loop). ``--stage`` times the pipeline's segment
stage instead (``PageProcessor._segment``: the segmenter and the summary it writes) plus the
leaf labels the clean and index stages read (``leaf_labels``); ``--repeat N`` passes.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

from webseg.inputs import iter_warc, parse_inputs
from webseg.segmenters.blockfusion import BlockFusion


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warc", type=Path)
    ap.add_argument("--limit", type=int, default=0, help="first N parsed pages (0: all)")
    ap.add_argument("--stage", action="store_true",
                    help="time the pipeline's segment stage (the segmenter and its summary "
                         "of the output) and the leaf labels the clean and index stages "
                         "read, not the segmenter alone; the digest covers the summaries and "
                         "labels too")
    ap.add_argument("--repeat", type=int, default=1, help="passes over the pages")
    a = ap.parse_args(argv)
    pages = [p for _, p, _ in parse_inputs(iter_warc(a.warc)) if p is not None]
    if a.limit:
        pages = pages[:a.limit]
    if not pages:
        print(f"no page parsed from {a.warc}")
        return 1
    for p in pages:
        _ = p.subtree_end, p.depth, p.text_leaves
    seg = BlockFusion()
    run = seg.segment
    if a.stage:
        # this folder holds a bench named ir.py, which would hide the ir package
        here = Path(__file__).resolve().parent
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
        from webseg.pipeline.process import PageProcessor, PipelineConfig

        proc = PageProcessor(PipelineConfig.parsed())
        seg = proc.segmenter

        def run(page):  # type: ignore[no-untyped-def]
            out: dict = {}
            scratch: dict = {}
            proc._segment(page, out, scratch)
            got = scratch["segmentation"]
            return got, out["segmentation"], got.leaf_labels()
    h = hashlib.sha1()
    per = []
    t0 = time.process_time()
    for rep in range(a.repeat):
        for page in pages:
            c0 = time.process_time()
            out = run(page)
            per.append(time.process_time() - c0)
            if rep:
                continue
            if a.stage:
                out, summary, labels = out
                h.update(repr(summary).encode() + labels.tobytes())
            for s in out.segments:
                h.update(repr((s.id, s.nodes, s.parent, s.text, s.box, s.attrs, s.level)).encode())
    total = time.process_time() - t0
    ms = np.array(per) * 1000
    n = len(pages) * a.repeat
    print(f"{len(pages)} pages x {a.repeat}: CPU {total:.2f} s, {total / n * 1000:.3f} ms per "
          f"page (median {np.median(ms):.3f} ms); digest {h.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
