"""IR benchmarks: block-PRF query latency on a 10,000-page index, indexing throughput.

Latency (``--pages 10000``): the pages are **synthetic**, built from real stored blocks: the
blocks (text, terms, geometry rank) of every page of an existing index (``--from-index``, by
default the med web version's) are pooled, and each synthetic page takes one page's blocks
plus blocks drawn at random from other pages, so it has the same kind of boilerplate/content
mix. That is fine for timing (what is measured is store access and scoring, not relevance)
but the pages are not real. Queries are the collection's topics; each is run with
``--prf blocks`` (top 80 pages, top 20 blocks, 10 terms; stored blocks, never recomputed) on
the embedded backend and timed end to end (analysis, two retrievals, block ranking, RM).

Throughput (``--throughput N``): N pages of the web collection rendered (offline, concurrency
2), segmented with the given sources and added to a fresh index; pages/s over the whole run,
plus CPU seconds per page of this process (Chromium's own CPU is not included).

    python bench/ir.py --pages 10000 --throughput 60
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ir import Index, StoredDoc  # noqa: E402

WEB = Path(".cache/webseg/prf/web/med-k1-s0")


def synthetic_index(src: Index, source: str, n_pages: int, path: Path, seed: int = 0) -> Index:
    rng = random.Random(seed)
    pool = [(i, src.blocks(i).get(source, [])) for i in range(len(src))]
    pool = [(i, bl) for i, bl in pool if bl]
    flat = [b for _, bl in pool for b in bl]
    ix = Index.create(path, sources=[source], overwrite=True)
    batch = []
    for n in range(n_pages):
        _, own = pool[n % len(pool)]
        extra = rng.sample(flat, k=min(len(flat), rng.randint(5, 30)))
        blocks = sorted(own + extra, key=lambda b: b.rank)
        terms: dict[str, int] = {}
        for b in blocks:
            for t, c in b.terms.items():
                terms[t] = terms.get(t, 0) + c
        batch.append(StoredDoc(f"s{n:05d}", terms, status="ok", blocks={source: blocks}))
        if len(batch) == 1000:
            ix.add(batch)
            batch = []
    if batch:
        ix.add(batch)
    return ix


def latency(args: argparse.Namespace) -> dict:
    src = Index.open(args.from_index)
    topics = [json.loads(line)["query"] for line in (WEB / "topics.jsonl").open()]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        synthetic_index(src, args.source, args.pages, Path(tmp) / "idx")
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        ix = Index.open(Path(tmp) / "idx")
        ix.blocks(0)  # load the block store once, as a server would at start
        load = time.perf_counter() - t0
        out = {"pages": len(ix), "build_s": round(build, 1), "open_and_load_s": round(load, 1)}
        for prf in ("none", "rm3", "blocks"):
            kw = {"source": args.source} if prf == "blocks" else {}
            times, cpu = [], []
            for _ in range(args.repeat):
                for q in topics:
                    t, c = time.perf_counter(), time.process_time()
                    ix.search(q, k=10, prf=prf, **kw)
                    times.append(time.perf_counter() - t)
                    cpu.append(time.process_time() - c)
            times.sort()
            out[prf] = {"median_ms": round(1000 * statistics.median(times), 1),
                        "p90_ms": round(1000 * times[int(0.9 * (len(times) - 1))], 1),
                        "median_cpu_ms": round(1000 * statistics.median(cpu), 1),
                        "queries": len(times)}
    return out


def throughput(args: argparse.Namespace) -> dict:
    from eval.prf.web import index_web_collection

    pages = [json.loads(line) for line in (WEB / "pages.jsonl").open()][: args.throughput]
    with tempfile.TemporaryDirectory() as tmp:
        web = Path(tmp) / "web"
        (web / "pages").mkdir(parents=True)
        with (web / "pages.jsonl").open("w") as f:
            for p in pages:
                (web / p["html"]).write_bytes((WEB / p["html"]).read_bytes())
                f.write(json.dumps(p) + "\n")
        cpu0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        t0 = time.perf_counter()
        index_web_collection(web, Path(tmp) / "idx", args.sources.split(","),
                             concurrency=2, log=lambda m: None)
        wall = time.perf_counter() - t0
        cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - cpu0
    return {"pages": len(pages), "sources": args.sources, "wall_s": round(wall, 1),
            "pages_per_s": round(len(pages) / wall, 3),
            "python_cpu_s_per_page": round(cpu / len(pages), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from-index", default=".cache/webseg/prf/web/med-k1-s0-index")
    ap.add_argument("--source", default="vips")
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--throughput", type=int, default=0, help="pages to render+index (0: skip)")
    ap.add_argument("--sources", default="vips", help="block sources for the throughput run")
    args = ap.parse_args()
    res = {"load_average": os.getloadavg()[0]}
    if args.pages:
        res["latency"] = latency(args)
    if args.throughput:
        res["throughput"] = throughput(args)
    res["load_average_end"] = os.getloadavg()[0]
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
