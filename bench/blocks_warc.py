"""CPU of the block model over the pages of a WARC parsed without a browser, in one process,
and a digest of its outputs (to check that a speed-up changes none).

    python bench/blocks_warc.py /work/cache/runs/s36/w400.warc.gz
    (in a checkout of the old code: the same; compare the digests and the CPU)

The pages are parsed first (not timed), as ``webseg pipeline --no-render`` parses them; then
:func:`webseg.blocks.block_functions` runs on every page in order, so what a run pays once
(the model's load) is in the total as in a pipeline run; the tree walk is the compiled one
when webseg's C extension is built (``WEBSEG_PURE_PYTHON=1`` for the numpy walk). Prints
the total CPU (``time.process_time``), its mean and median per page, and one SHA-1 over every
page's leaf features, leaf scores, node scores and keep mask (bit for bit). Nothing asserts.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webseg.blocks import block_functions  # noqa: E402
from webseg.blocks.model import load_model  # noqa: E402
from webseg.inputs import iter_warc, parse_inputs  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warc", type=Path)
    ap.add_argument("--limit", type=int, default=0, help="first N parsed pages (0: all)")
    a = ap.parse_args(argv)
    pages = [p for _, p, _ in parse_inputs(iter_warc(a.warc)) if p is not None]
    if a.limit:
        pages = pages[:a.limit]
    if not pages:
        print(f"no page parsed from {a.warc}")
        return 1
    load_model()
    h = hashlib.sha1()
    per = []
    t0 = time.process_time()
    for page in pages:
        c0 = time.process_time()
        bf = block_functions(page)
        per.append(time.process_time() - c0)
        lf = bf.leaf_features
        for arr in (lf.X if lf is not None else np.zeros(0), bf.leaf_scores, bf.main, bf.keep):
            h.update(np.ascontiguousarray(arr).tobytes())
    total = time.process_time() - t0
    ms = np.array(per) * 1000
    print(f"{len(pages)} pages: CPU {total:.2f} s, {total / len(pages) * 1000:.2f} ms per page "
          f"(median {np.median(ms):.2f} ms); digest {h.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
