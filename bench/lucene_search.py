"""Lucene backend: the start cost of a search process and the per-query latency after it.

``python bench/lucene_search.py [--collection ../shared/data/ir/cacm] [-k 1000]``

A one-off ``webseg search`` on a Lucene index pays for starting the JVM and opening the
searcher; a topics file (``webseg search --topics``) pays that once and then only per query,
because :class:`ir.index.Index` keeps one :class:`ir.lucene.LuceneBackend` searcher open for
its lifetime. This prints the two separately: the start (JVM start, index open, first query)
and the latency of every further query at depth ``k`` (median, 95th percentile, mean), plus
pyserini's searcher on the same Lucene index (the path plain queries took before) and the
embedded backend's on the same documents for comparison. The index is built once under
``.cache/bench-lucene`` (not timed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _build(coll: Path, path: Path, backend: str) -> None:
    from ir import Index, doc_from_text

    try:
        if len(Index.open(path)) > 0:
            return
    except Exception:  # noqa: BLE001 - missing or partial: rebuild
        pass
    ix = Index.create(path, backend=backend, sources=["windows"], overwrite=True)
    with (coll / "docs.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(x) for x in f if x.strip()]
    ix.add(doc_from_text(str(r["id"]), str(r.get("text", "")), ix.analyzer,
                         title=str(r.get("title") or "")) for r in rows)


def _latencies(ix, queries: list[str], k: int) -> list[float]:
    out = []
    for q in queries:
        t = time.perf_counter()
        ix.search(q, k=k, snippets=False)
        out.append(1000 * (time.perf_counter() - t))
    return out


def _summary(ms: list[float]) -> str:
    p95 = sorted(ms)[max(0, int(0.95 * len(ms)) - 1)]
    return (f"median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, "
            f"mean {statistics.fmean(ms):.1f} ms over {len(ms)} queries")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="../shared/data/ir/cacm")
    ap.add_argument("-k", type=int, default=1000)
    ap.add_argument("--work", default=".cache/bench-lucene")
    a = ap.parse_args()
    coll = Path(a.collection)
    work = Path(a.work)
    with (coll / "topics.jsonl").open(encoding="utf-8") as f:
        queries = [json.loads(x)["query"] for x in f if x.strip()]
    for backend in ("lucene", "bm25"):
        _build(coll, work / f"{coll.name}-{backend}", backend)

    from ir import Index
    from ir.lucene import _java

    t0 = time.perf_counter()
    _java()  # the JVM and the classes
    t1 = time.perf_counter()
    ix = Index.open(work / f"{coll.name}-lucene")
    t2 = time.perf_counter()
    ix.search(queries[0], k=a.k, snippets=False)  # opens the searcher
    t3 = time.perf_counter()
    print(f"{coll.name}, Lucene backend, k={a.k}")
    print(f"  start: JVM {t1 - t0:.2f} s, index open {t2 - t1:.2f} s, first query (opens the "
          f"searcher) {t3 - t2:.2f} s; total {t3 - t0:.2f} s")
    lat = _latencies(ix, queries[1:], a.k)
    print(f"  after start: {_summary(lat)}")
    # the same queries through pyserini's searcher (which loads each hit's stored document)
    lb = ix._lucene_backend()
    ps = lb.searcher()
    ms = []
    for q in queries[1:]:
        w = {t: float(c) for t, c in Counter(ix.query_terms(q)).items()}
        t = time.perf_counter()
        [(h.docid, float(h.score)) for h in ps.search(lb._query(w), k=a.k)]
        ms.append(1000 * (time.perf_counter() - t))
    print(f"  pyserini's searcher on the same index: {_summary(ms)}")
    emb = Index.open(work / f"{coll.name}-bm25")
    emb.search(queries[0], k=a.k, snippets=False)
    print(f"  embedded backend, after start: {_summary(_latencies(emb, queries[1:], a.k))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
