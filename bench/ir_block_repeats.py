"""Cost of the block repetition counts (``Index.content_blocks``) and of the default queries.

``python bench/ir_block_repeats.py --web .cache/webseg/prf/web/cacm-k1-s0`` opens that web
version's content index (built by ``eval.prf.content index``) with ``chosen.json``'s settings
and prints, in one run:

* CPU time of loading the block store and of counting the block texts (first use), then the
  memory both take (tracemalloc, a second pass: tracing slows them down);
* steady-state CPU per query (k=1000, no snippets, after one warm-up query) over the version's
  topics: the default index with session 7's passages (repeated blocks give evidence) and with
  the default ones (repeated blocks masked), and block PRF with ``BEST_BLOCKS`` with and
  without ``repeat_pages``.

Numbers printed, nothing asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.prf.collection import load_collection  # noqa: E402
from eval.prf.content import RESULTS, content_index_path  # noqa: E402
from ir import Index  # noqa: E402
from ir.feedback import BEST_BLOCKS  # noqa: E402


def _open(web: Path, chosen: dict[str, Any], passages: dict[str, Any]) -> Index:
    return Index.open(content_index_path(web, chosen["model"]), k1=chosen["k1"], b=chosen["b"],
                      fields=chosen["fields"], passages=passages,
                      repeats=chosen.get("repeats") or {})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--web", required=True, type=Path)
    ap.add_argument("--source", default="vips")
    a = ap.parse_args(argv)
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    rp = int(chosen["passages"].get("repeat_pages", 2))

    ix = _open(a.web, chosen, chosen["passages"])
    t0 = time.process_time()
    ix.blocks(0)
    load = time.process_time() - t0
    t0 = time.process_time()
    tracker = ix.block_repeats(a.source, rp)
    count = time.process_time() - t0
    n_blocks = sum(len(ix._source_blocks(r, a.source)) for r in ix.pos.values())
    texts, pages = tracker.stats()
    print(f"{a.web.name}: {len(ix)} pages, {n_blocks} {a.source} blocks; {texts} block texts on "
          f">= {rp} pages, on {pages} pages")
    print(f"CPU: block store load {load:.1f} s, block repetition counts {count:.1f} s")

    ix = _open(a.web, chosen, chosen["passages"])
    tracemalloc.start()
    m0 = tracemalloc.get_traced_memory()[0]
    ix.blocks(0)
    m1 = tracemalloc.get_traced_memory()[0]
    ix.block_repeats(a.source, rp)
    m2 = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(f"memory: block store {(m1 - m0) / 2**20:.0f} MiB, block repetition counts "
          f"{(m2 - m1) / 2**20:.0f} MiB ({(m2 - m1) / max(n_blocks, 1):.0f} B per block)")

    queries = list(load_collection(a.web, docs_file="pages.jsonl").topics.values())
    old = {k: v for k, v in chosen["passages"].items() if k not in ("repeat_pages", "repeated")}
    runs = (("default index, repeated blocks give evidence (session 7)", old, "none", {}),
            ("default index, repeated blocks masked (default)", chosen["passages"], "none", {}),
            ("block PRF, repeat_pages 0", chosen["passages"], "blocks",
             {**BEST_BLOCKS, "repeat_pages": 0}),
            ("block PRF, BEST_BLOCKS (default)", chosen["passages"], "blocks", BEST_BLOCKS))
    for label, pas, prf, kw in runs:
        ix = _open(a.web, chosen, pas)
        t0 = time.process_time()
        ix.search(queries[0], k=1000, prf=prf, snippets=False, **kw)
        first = time.process_time() - t0
        t0 = time.process_time()
        for q in queries:
            ix.search(q, k=1000, prf=prf, snippets=False, **kw)
        per = 1000 * (time.process_time() - t0) / len(queries)
        print(f"{label}: first query {first:.1f} s CPU, then {per:.1f} ms CPU per query "
              f"({len(queries)} topics, k=1000)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
