"""End-to-end pipeline throughput on one machine and on Spark local[N], per stage, with memory.

::

    python bench/pipeline.py --data ../shared/data/wcxb-dev --pages 200 [--spark local[2]]

Real pages (the first ``--pages`` of the manifest, sorted by id) are written into one WARC
(in a temporary directory), then:

1. ``webseg pipeline`` (single machine, default stages and settings) runs on it in a child
   process; wall time, pages/s, the median seconds per page of every page stage (from the
   output lines) and the peak RSS of the process tree (the pipeline's Python + Chromium)
   are reported;
2. with ``--spark``, the same WARC goes through :func:`webseg.pipeline.spark.run_spark`
   (stages without ``index``), timed from session start to output written.

The projection for a cluster assumes throughput scales with cores because pages are
independent (render + per-page stages are > 95% of the work) and the collection stages
(dedup on sketches) are small; it states the per-core rate it extrapolates from.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def write_warc(data: Path, n: int, out: Path) -> int:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    from webseg.datasets import load_records

    recs = sorted(load_records(data), key=lambda r: r.id)[:n]
    with out.open("wb") as f:
        w = WARCWriter(f, gzip=True)
        for r in recs:
            body = r.read_html()
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                       protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(r.url or f"http://example.invalid/{r.id}",
                                                "response", payload=io.BytesIO(body),
                                                http_headers=headers))
    return len(recs)


def run_single(warc: Path, out: Path, concurrency: int) -> dict:
    cmd = [str(ROOT / ".venv" / "bin" / "webseg"), "pipeline", str(warc), "-o", str(out),
           "--no-progress", "--concurrency", str(concurrency)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    lines = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    stages: dict[str, list[float]] = {}
    for d in lines:
        for k, v in (d.get("timings") or {}).items():
            stages.setdefault(k, []).append(v)
    return {"pages": len(lines), "ok": sum(d["status"] == "ok" for d in lines),
            "wall_s": round(wall, 1), "pages_per_s": round(len(lines) / wall, 2),
            "stage_median_ms": {k: round(1000 * statistics.median(v), 1)
                                for k, v in stages.items()},
            "peak_rss_mb_largest_child": round(peak_kb / 1024)}


def run_spark_bench(warc: Path, out: Path, master: str) -> dict:
    from webseg.pipeline import PipelineConfig
    from webseg.pipeline.spark import run_spark

    cfg = PipelineConfig(stages=("segment", "clean", "classify", "sketch", "dedup"))
    t0 = time.perf_counter()
    res = run_spark([str(warc)], str(out), cfg, master=master)
    wall = time.perf_counter() - t0
    return {**res, "master": master, "wall_s": round(wall, 1),
            "pages_per_s": round(res["records"] / wall, 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/wcxb-dev")
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=3)
    ap.add_argument("--spark", default=None, help="Spark master, e.g. local[2]")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        warc = tmpd / "bench.warc.gz"
        n = write_warc(a.data, a.pages, warc)
        print(f"{n} pages from {a.data} in {warc.stat().st_size / 1e6:.1f} MB WARC; "
              f"{os.cpu_count()} cores", flush=True)
        single = run_single(warc, tmpd / "single", a.concurrency)
        print("single machine:", json.dumps(single, indent=2), flush=True)
        per_core = single["pages_per_s"] / (os.cpu_count() or 1)
        if a.spark:
            sp = run_spark_bench(warc, tmpd / "spark", a.spark)
            print("spark:", json.dumps(sp, indent=2), flush=True)
        print(f"projection: {per_core:.2f} pages/s per core measured here; a cluster of "
              f"50 executors x 4 cores would process about {per_core * 200:.0f} pages/s "
              f"({per_core * 200 * 86400 / 1e6:.1f} M pages/day), assuming linear scaling "
              "(pages are independent) and executors with >= 1.5 GB per Chromium.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
