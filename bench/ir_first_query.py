"""Cost of a process's first query on a default (passage) index: passages files vs block store.

``python bench/ir_first_query.py --web .cache/webseg/prf/web/cacm-k1-s0`` takes that web
version's content index (built by ``eval.prf.content index``, written without passages files)
and copies its documents once into an index created with ``chosen.json``'s settings, in
shards of 200 pages: every shard gets its passages file, as ``webseg index`` writes them.
Then, each in a fresh process, it opens one of the two, runs one query (k=10) and reads its
hits with snippets, as one ``webseg search`` does. Printed per index: CPU seconds of the open,
the first query and the snippets, and the process's peak resident memory. The two rankings
of every topic of the version (k=1000) are compared too: they must be identical.

Numbers printed, nothing asserted (the equality is a test: tests/test_ir_passage_store.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.prf.collection import load_collection  # noqa: E402
from eval.prf.content import RESULTS, content_index_path  # noqa: E402
from ir import Index  # noqa: E402
from ir.store import IndexStore  # noqa: E402


def _settings(chosen: dict[str, Any]) -> dict[str, Any]:
    return {"k1": chosen["k1"], "b": chosen["b"], "fields": chosen["fields"],
            "passages": chosen["passages"], "repeats": chosen.get("repeats") or {}}


def _copy(src: Path, dst: Path, chosen: dict[str, Any]) -> None:
    """``src``'s documents with their blocks, as an index with passages files."""
    store = IndexStore.open(src)
    docs = list(store.iter_docs_with_blocks())
    ix = Index.create(dst, backend=store.settings["backend"],
                      sources=store.settings.get("sources", ["vips"]), overwrite=True,
                      **_settings(chosen))
    for i in range(0, len(docs), 200):  # shards of 200 pages, as `webseg index` writes
        ix.add(docs[i:i + 200])


def _peak_mib() -> float:
    """This process's peak resident memory: VmHWM (``ru_maxrss`` would keep the parent's
    peak across exec on Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _one(path: str, query: str) -> None:
    """Child process: open, first query, snippets; prints one JSON line."""
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    t0 = time.process_time()
    ix = Index.open(path, **_settings(chosen))
    t1 = time.process_time()
    res = ix.search(query, k=10)
    t2 = time.process_time()
    hits = res.hits
    t3 = time.process_time()
    print(json.dumps({"open_s": t1 - t0, "query_s": t2 - t1, "snippets_s": t3 - t2,
                      "peak_mib": _peak_mib(),
                      "compact": ix._pas_data is not None, "top": hits[0].id if hits else None}))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--web", type=Path)
    ap.add_argument("--copy", type=Path, default=None,
                    help="where to write the copy (default: beside the content index)")
    ap.add_argument("--child", nargs=2, metavar=("INDEX", "QUERY"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        _one(*a.child)
        return 0
    chosen = json.loads((RESULTS / "chosen.json").read_text())
    src = content_index_path(a.web, chosen["model"])
    dst = a.copy or src.with_name(src.name + "-passages")
    if not (dst / "index.json").is_file():
        t0 = time.process_time()
        _copy(src, dst, chosen)
        print(f"copied {src.name} -> {dst.name} with passages files "
              f"({time.process_time() - t0:.1f} s CPU, once)")
    coll = load_collection(a.web, docs_file="pages.jsonl")
    queries = list(coll.topics.values())
    for name, path in (("block store (no passages files)", src), ("passages files", dst)):
        out = subprocess.run([sys.executable, __file__, "--child", str(path), queries[0]],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{name}: open {r['open_s']:.1f} s, first query {r['query_s']:.2f} s, "
              f"snippets of 10 hits {r['snippets_s']:.2f} s, peak RSS {r['peak_mib']:.0f} MiB "
              f"(CPU; read compactly: {r['compact']})")
    ixs = [Index.open(p, **_settings(chosen)) for p in (src, dst)]
    same = sum(ixs[0].search(q, k=1000, snippets=False).ids
               == ixs[1].search(q, k=1000, snippets=False).ids for q in queries)
    print(f"identical top-1000 rankings: {same} of {len(queries)} topics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
