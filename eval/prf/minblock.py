"""Sensitivity of block PRF to the minimum block size (analysis, not tuning).

``python -m eval.prf.minblock --web .cache/webseg/prf/web/med-k1-s0`` prints MAP of
``blocks(S)`` for ``min_block_terms`` in 3 (default), 10 and 25 and for each source: VIPS at
PDoC 0.6 cuts pages into many tiny blocks (median 2 terms), and a tiny boilerplate block that
happens to hold a query term gets a large share in the relevance model (each unit is
L1-normalised), so its other terms (site names, menu words) become expansion terms.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eval.prf.collection import load_collection
from eval.prf.measures import evaluate
from eval.prf.run import System, run_system


def main(argv: list[str] | None = None) -> int:
    from ir import Index

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--web", required=True, help="a built web collection folder")
    ap.add_argument("--sources", default="vips,dom,wps,pagelevel")
    a = ap.parse_args(argv)
    web = Path(a.web)
    coll = load_collection(web, docs_file="pages.jsonl")
    ix = Index.open(web.parent / f"{web.name}-index")
    sizes = (3, 10, 25)
    print(f"| source | {' | '.join(f'min_block_terms {m}' for m in sizes)} |")
    print("|---|" + "---:|" * len(sizes))
    for s in a.sources.split(","):
        row = []
        for m in sizes:
            run, _ = run_system(System("x", ix, "blocks", {"source": s, "min_block_terms": m}),
                                coll, log=lambda x: None)
            ap_ = evaluate(run, coll.qrels, coll.judged_topics)["AP"]
            row.append(f"{sum(ap_.values()) / len(ap_):.4f}")
        print(f"| {s} | {' | '.join(row)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
