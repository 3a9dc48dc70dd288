"""Paired analysis time of block models / decoders on the same pages, in one process.

    python bench/blocks_models.py --model old.json.gz --model webseg/models/blocks.json.gz \\
        --model webseg/models/blocks.json.gz:stack-page-forced \\
        --cache .cache/webseg/boilerplate/wcxb --cache .cache/webseg/boilerplate/dragnet

Each ``--model`` is ``PATH`` or ``PATH:DECODER`` (default: the model's own decoder). Every page
of the render caches (the first ``--limit`` per folder) is loaded fresh and run through
:func:`webseg.blocks.block_functions` once per model, one after the other (the order rotating
from page to page: the first run of a page is slower), so the models share the machine's load
page by page (a before/after comparison that separate runs on a shared machine cannot give).
Prints the CPU median / p90 ms per model and on how many pages each keeps the same nodes as
the first. Nothing asserts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webseg.blocks import block_functions  # noqa: E402
from webseg.blocks.model import BlockModel  # noqa: E402
from webseg.page import Page  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", action="append", required=True, help="PATH or PATH:DECODER")
    ap.add_argument("--cache", type=Path, action="append", required=True,
                    help="render cache folder of *.json.gz pages")
    ap.add_argument("--limit", type=int, default=100, help="pages per folder")
    a = ap.parse_args(argv)
    cfg = []
    for spec in a.model:
        path, _, dec = spec.partition(":")
        cfg.append((spec, BlockModel.from_file(path), dec or None))
    files = [f for c in a.cache for f in sorted(c.glob("*.json.gz"))[: a.limit]]
    if not files:
        raise SystemExit("no pages in the caches")
    block_functions(Page.load(files[0]), model=cfg[0][1])  # imports and caches
    ms: dict[str, list[float]] = {spec: [] for spec, _, _ in cfg}
    same = dict.fromkeys(ms, 0)
    for i, f in enumerate(files):
        keeps = {}
        for j in range(len(cfg)):
            spec, m, dec = cfg[(i + j) % len(cfg)]
            page = Page.load(f)
            c0 = time.process_time()
            keeps[spec] = block_functions(page, model=m, decoder=dec).keep
            ms[spec].append(1000 * (time.process_time() - c0))
        for spec in ms:
            same[spec] += bool(np.array_equal(keeps[spec], keeps[cfg[0][0]]))
    print(f"{len(files)} pages")
    for spec, v in ms.items():
        print(f"{spec}: CPU median {np.median(v):.1f} ms, p90 {np.percentile(v, 90):.1f} ms, "
              f"same nodes as the first on {same[spec]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
