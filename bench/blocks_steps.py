"""CPU time of the block decoder's steps after the decision (:mod:`webseg.blocks.steps`).

    python bench/blocks_steps.py --cache .cache/webseg/boilerplate/wcxb \\
        --cache .cache/webseg/boilerplate/dragnet --limit 60

Per rendered page of each ``--cache`` folder (the first ``--limit`` in name order): the shipped
model's decision, then :func:`webseg.blocks.steps.decoder_steps` (copies, comment margin,
nearby-boilerplate margin, comment threads) timed together (CPU time, mean of 20 repeats);
prints the median and 90th percentile over pages.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webseg.blocks.features import leaf_features  # noqa: E402
from webseg.blocks.model import load_model  # noqa: E402
from webseg.blocks.steps import decoder_steps  # noqa: E402
from webseg.page import Page  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, action="append", required=True)
    ap.add_argument("--limit", type=int, default=60)
    a = ap.parse_args(argv)
    m = load_model(None)
    ms = []
    for d in a.cache:
        for f in sorted(d.glob("*.json.gz"))[:a.limit]:
            lf = leaf_features(Page.load(f))
            s, keep = m.decode(lf)
            thr = m.decision_threshold(s, lf)
            t0 = time.process_time()
            for _ in range(20):
                decoder_steps(lf, s, keep, thr)
            ms.append((time.process_time() - t0) / 20 * 1000)
    if not ms:
        raise SystemExit("no rendered pages (*.json.gz) in the --cache folders")
    print(f"{len(ms)} pages: the steps {np.median(ms):.3f} ms median, "
          f"{np.percentile(ms, 90):.3f} ms p90 (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
