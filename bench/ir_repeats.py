"""Cost of the repetition rule (``ir/repeats.py``): adds and opening, with and without it.

``python bench/ir_repeats.py --from-index .cache/webseg/prf/web/cacm-k1-s0-content-index-max``
copies the stored pages of a content index (built by ``eval.prf.content index``) into two new
indexes in batches (``--batch``, default 200), one with the default fields only and one with
the default fields and :data:`ir.repeats.DEFAULT_REPEATS`, and prints the CPU time of the adds
(re-scoring included) and of opening each index (``--repeat`` times, median), plus the number
of repeated leaf texts and of pages holding one. Numbers printed, nothing asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ir import Index  # noqa: E402
from ir.index import DEFAULT_FIELDS  # noqa: E402
from ir.repeats import DEFAULT_REPEATS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from-index", required=True, type=Path)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    store = Index.open(a.from_index).store
    docs = list(store.iter_docs_with_blocks())
    print(f"{a.from_index.name}: {len(docs)} pages, batches of {a.batch}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, rep in (("without the rule", None), ("with the rule", DEFAULT_REPEATS)):
            path = Path(tmp) / label.replace(" ", "-")
            ix = Index.create(path, sources=store.settings["sources"], fields=DEFAULT_FIELDS,
                              repeats=rep)
            t0 = time.process_time()
            for i in range(0, len(docs), a.batch):
                ix.add(docs[i:i + a.batch])
            adds = time.process_time() - t0
            opens = []
            for _ in range(a.repeat):
                t0 = time.process_time()
                again = Index.open(path)
                again.engine.top({"x": 1.0}, 1)  # weights built, as before a first query
                opens.append(time.process_time() - t0)
            stats = again.repeat_stats()
            extra = "" if stats is None else (f"; {stats[0]} repeated leaf texts on "
                                              f"{stats[1]} pages")
            print(f"{label}: adds {adds:.2f} s CPU, open {statistics.median(opens):.2f} s CPU "
                  f"(median of {a.repeat}){extra}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
