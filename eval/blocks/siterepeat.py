"""``python -m eval.blocks.siterepeat``: does dropping text repeated across a site's pages
help the block model's main-content decision? (:mod:`webseg.blocks.siterepeat`)

    # 1. out-of-fold per-leaf decisions of the existing site-grouped CV (same table, folds,
    #    seeds and configuration as eval/results/blocks/perpage; ~5 min)
    OMP_NUM_THREADS=1 python -m eval.blocks.siterepeat oof --out eval/results/blocks/siterepeat
    # 2. the rule applied to them, site group = the other rendered pages of the page's
    #    manifest ``site`` in the same dataset
    python -m eval.blocks.siterepeat measure --out eval/results/blocks/siterepeat

Step 2 needs the leaves' texts, which the table does not keep: it loads each rendered page
from the render cache, reveals it as the table did (:func:`webseg.blocks.reveal.revealed`) and
checks that its text leaves are exactly the table's rows of that page (same count; pages that
do not match are reported and left unchanged).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

LEAF_DECODERS = ("blocks-stack-page", "blocks-stack-nested")
OOF_CACHE = Path(".cache/webseg/blocks/siterepeat")


def run_oof(out: Path, max_rows: int, max_iter: int, cache: Path) -> None:
    from eval.blocks.cv import cv_predict, write_rows
    from webseg.blocks.train import TABLE_ROOT, load_tables, table_dir

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    datasets = ["wcxb", "dragnet", "cleaneval", "l3s-gn1", "cleanportaleval"]
    t = load_tables(datasets, TABLE_ROOT)
    log(f"table {table_dir(TABLE_ROOT)}: {t.n_pages} pages, {len(t.y)} leaves")
    leaf_out: dict[str, np.ndarray] = {}
    out.mkdir(parents=True, exist_ok=True)
    rows = cv_predict(t, 5, log, max_rows=max_rows, out_csv=out / "oof_per_page.csv.gz",
                      tree_decoders=(), leaf_out=leaf_out, max_iter=max_iter)
    write_rows(out / "oof_per_page.csv.gz", rows)
    cache.mkdir(parents=True, exist_ok=True)
    keys = [f"{m['dataset']}\t{m['id']}\t{m['variant']}" for m in t.meta]
    np.savez_compressed(cache / "oof_leaves.npz", off=t.off, keys=np.array(keys),
                        meta=np.array(json.dumps(t.meta)),
                        **{d: np.packbits(leaf_out[d]) for d in LEAF_DECODERS},
                        n=np.array(len(t.y)))
    log(f"wrote {cache / 'oof_leaves.npz'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m eval.blocks.siterepeat", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=("oof", "measure"))
    ap.add_argument("--out", type=Path, default=Path("eval/results/blocks/siterepeat"))
    ap.add_argument("--cache", type=Path, default=OOF_CACHE)
    ap.add_argument("--max-rows", type=int, default=16)
    ap.add_argument("--max-iter", type=int, default=80)
    a = ap.parse_args(argv)
    if a.step == "oof":
        run_oof(a.out, a.max_rows, a.max_iter, a.cache)
    else:
        from eval.blocks.siterepeat_measure import measure

        measure(a.out, a.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
