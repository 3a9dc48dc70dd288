"""End-to-end pipeline throughput on one machine and on Spark local[N], per stage, with memory.

::

    python bench/pipeline.py --data ../shared/data/wcxb-dev --pages 200 [--spark local[2]]
    python bench/pipeline.py --pages 400 --no-single --spark local[1],local[2]   # --pin on
    python bench/pipeline.py --collection 10000,100000      # collection stage only (synthetic)
    python bench/pipeline.py --collection-of OUT            # ... of a finished pipeline run

Real pages (the first ``--pages`` of the manifest, sorted by id) are written into one WARC
(in a temporary directory), then:

1. ``webseg pipeline`` (single machine, default stages and settings) runs on it in a child
   process, rendered and then parsed (``--no-render``, ``--modes``); wall time, pages/s, CPU
   seconds per page of the whole process tree (Chromium's processes included: see
   :func:`run_measured`), pages per CPU second, the median wall and CPU milliseconds per page
   of every page stage (from the journal: ``stage_cpu_median_ms`` is the CPU of the thread
   that ran the stage, ``stage_process_cpu_median_ms`` the whole process's, which in a
   rendered run also counts the renderer's thread preparing the next pages) and the peak RSS
   of the largest process are reported, and the parsed / rendered ratio of pages per CPU
   second;
2. with ``--spark``, the same WARC goes through :func:`webseg.pipeline.spark.run_spark` (the
   parsed pipeline by default, ``--spark-mode``) once per listed master, each in its own
   child process (a fresh JVM), in one run: session start-up (SparkSession + a trivial job)
   is timed apart from the job, pages/s are reported both with and without it, CPU seconds
   per page (JVM and Python workers), and the speed-up of the last master over the first.
3. with ``--collection N[,M]``, the collection stage alone (duplicate clusters, index, final
   pages.jsonl: :func:`webseg.pipeline.run.finalize`) runs in a child process on a synthetic
   journal of N lines (:func:`synthetic_record`: real-sized index entries, about 3% near
   duplicates); its time and peak RSS are reported, and the time to build an index from the
   N stored documents of that output folder (``webseg index OUT/``, :mod:`ir.from_output`).

The machine is shared: the 1-minute load average is printed before and after every timing.
The children run with Python's bytecode cache on, as an installed copy does (see
:func:`cache_bytecode`).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


def _proc_cpu(pid: int) -> float:
    """utime + stime of one live process, in seconds (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        out.extend(int(k) for k in kids)
        todo.extend(int(k) for k in kids)
    return out


def run_measured(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``cmd``; wall seconds and CPU seconds of its whole process tree.

    ``cpu_s``: user + system time of every descendant that was reaped (Chromium's browser,
    renderer and GPU processes are reaped by their parents up to the child: the kernel's
    RUSAGE_CHILDREN delta of this process). ``cpu_sampled_s``: a cross-check from /proc,
    the last seen CPU time of every process of the tree sampled every 0.2 s (a lower bound:
    it misses a process's last fraction of a second and processes shorter than a sample).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    seen: dict[int, float] = {}
    import threading

    err: list[bytes] = []
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()))  # type: ignore[union-attr]
    out_reader = threading.Thread(target=lambda: got.append(proc.stdout.read()))  # type: ignore[union-attr]
    reader.start()
    out_reader.start()
    while proc.poll() is None:
        for p in [proc.pid, *_descendants(proc.pid)]:
            c = _proc_cpu(p)
            if c:
                seen[p] = max(seen.get(p, 0.0), c)
        time.sleep(0.2)
    reader.join()
    out_reader.join()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise RuntimeError((b"".join(err))[-3000:].decode(errors="replace"))
    return {"wall_s": wall, "cpu_s": cpu, "cpu_sampled_s": sum(seen.values()),
            "peak_rss_mb_largest_child": after.ru_maxrss / 1024,
            "stdout": b"".join(got).decode(errors="replace")}


def run_single(warc: Path, out: Path, concurrency: int, parsed: bool = False) -> dict:
    """``webseg pipeline`` (rendered, or parsed with ``--no-render``) in a child process."""
    cmd = [sys.executable, "-c", "from webseg.cli import main; main()", "pipeline", str(warc),
           "-o", str(out), "--no-progress", "--concurrency", str(concurrency)]
    if parsed:
        cmd.append("--no-render")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = load()
    m = run_measured(cmd, env)
    # the journal keeps each stage's wall and CPU seconds (the final lines only the wall);
    # lines split at "\n" only: str.splitlines also splits at U+2028 and U+0085, which JSON
    # strings hold unescaped (a Russian or Chinese page's text has them)
    journal = (out / "work" / "pages.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(x) for x in journal.split("\n") if x]
    stages: dict[str, list[float]] = {}
    cpu_stages: dict[str, list[float]] = {}
    proc_stages: dict[str, list[float]] = {}
    for d in lines:
        for k, v in (d.get("timings") or {}).items():
            stages.setdefault(k, []).append(v)
        for k, v in (d.get("cpu_timings") or {}).items():
            cpu_stages.setdefault(k, []).append(v)
        for k, v in (d.get("process_cpu_timings") or {}).items():
            proc_stages.setdefault(k, []).append(v)
    n = len(lines)
    return {"mode": "parsed" if parsed else "rendered", "pages": n,
            "ok": sum(d["status"] == "ok" for d in lines),
            "wall_s": round(m["wall_s"], 1), "pages_per_s": round(n / m["wall_s"], 2),
            "cpu_s": round(m["cpu_s"], 1), "cpu_s_per_page": round(m["cpu_s"] / n, 3),
            "pages_per_cpu_s": round(n / m["cpu_s"], 2),
            "cpu_sampled_s": round(m["cpu_sampled_s"], 1),
            "stage_median_ms": {k: round(1000 * statistics.median(v), 1)
                                for k, v in stages.items()},
            "stage_cpu_median_ms": {k: round(1000 * statistics.median(v), 1)
                                    for k, v in cpu_stages.items()},
            # the whole process's CPU during each stage: the stage's own thread plus, in a
            # rendered run, the renderer's thread preparing the next pages meanwhile
            "stage_process_cpu_median_ms": {k: round(1000 * statistics.median(v), 1)
                                            for k, v in proc_stages.items()},
            "peak_rss_mb_largest_child": round(m["peak_rss_mb_largest_child"]),
            "load_before_after": [before, load()]}


def load() -> float:
    return round(os.getloadavg()[0], 2)


def spark_child(warc: str, out: str, master: str, partitions: int | None,
                concurrency: int, pin: str, parsed: bool = False) -> dict:
    """One Spark run in this (child) process: session start-up timed apart from the job."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from webseg.pipeline import PipelineConfig
    from webseg.pipeline.spark import run_spark

    t0 = time.perf_counter()
    spark = (SparkSession.builder.appName("bench").master(master)
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.sparkContext.parallelize(range(4), 2).count()  # JVM, executors and Python up
    startup = time.perf_counter() - t0
    stages = ("segment", "clean", "classify", "sketch", "dedup", "index")
    cfg = PipelineConfig.parsed(stages=stages) if parsed else PipelineConfig(stages=stages)
    t1 = time.perf_counter()
    res = run_spark([warc], out, cfg, spark=spark, partitions=partitions,
                    concurrency=concurrency, pin=pin)
    job = time.perf_counter() - t1
    spark.stop()
    total = startup + job
    return {**res, "master": master, "pin": pin, "mode": "parsed" if parsed else "rendered",
            "startup_s": round(startup, 1), "job_s": round(job, 1),
            "startup_share": round(startup / total, 3),
            "pages_per_s": round(res["records"] / total, 2),
            "pages_per_s_job_only": round(res["records"] / job, 2)}


def run_spark_bench(warc: Path, out: Path, master: str, partitions: int | None,
                    concurrency: int, pin: str = "auto", parsed: bool = False) -> dict:
    cmd = [sys.executable, __file__, "--spark-child", master, "--warc", str(warc),
           "--out", str(out), "--concurrency", str(concurrency), "--pin", pin]
    if partitions:
        cmd += ["--partitions", str(partitions)]
    if parsed:
        cmd.append("--parsed")
    before = load()
    m = run_measured(cmd)
    res = json.loads(m["stdout"].strip().splitlines()[-1])
    res["load_before_after"] = [before, load()]
    # The JVM and its Python workers are not reaped through the child (the kernel's
    # children count misses them): the /proc samples of the tree are the measure here, a
    # lower bound that includes the session start-up.
    res["cpu_sampled_s"] = round(m["cpu_sampled_s"], 1)
    res["cpu_s_per_page_sampled"] = round(m["cpu_sampled_s"] / max(res["records"], 1), 3)
    sec = res.get("seconds") or {}
    if sec.get("pages"):
        res["pages_per_s_page_phase"] = round(res["records"] / sec["pages"], 2)
    return res


# ---------------------------------------------------------------- synthetic collection stage
_VOCAB = [f"w{i}" for i in range(30_000)]
_CUM = list(__import__("itertools").accumulate(1.0 / (i + 10) for i in range(30_000)))


def synthetic_record(i: int, rng: Any, dup_rate: float = 0.03,
                     _recent: list[str] | None = None) -> dict[str, Any]:
    """A journal line shaped like the pipeline's (sizes of real pages): ~450 words of text,
    an index entry with ~20 VIPS blocks and the 50-word windows, sketch and MinHash.

    About ``dup_rate`` of the pages repeat an earlier page's text with a few words changed
    (near duplicates); 2% are render errors and 2% skipped non-pages.
    """
    from collections import Counter

    from dedup.lsh import minhash_values
    from dedup.shingle import shingle_hashes, sketch

    recent = _RECENT if _recent is None else _recent
    rid = f"/crawl/part-{i // 10_000:03d}.warc.gz#{1000 + i * 731}"
    url = f"http://site{i % 997}.example/page/{i}"
    roll = rng.random()
    if roll < 0.02:
        return {"id": rid, "url": url, "status": "skipped",
                "error": {"stage": "read", "message": "not an HTML response (image/png)"}}
    if roll < 0.04:
        return {"id": rid, "url": url, "status": "error",
                "error": {"stage": "render", "message": "timeout after 30 s"}, "title": None,
                "index_doc": {"id": rid, "url": url, "title": "", "status": "empty",
                              "reason": "render: timeout", "terms": {},
                              "blocks": {"windows": []}}}
    if recent and rng.random() < dup_rate:
        words = rng.choice(recent).split()
        for _ in range(3):
            words[rng.randrange(len(words))] = rng.choice(_VOCAB)
    else:
        words = rng.choices(_VOCAB, cum_weights=_CUM, k=450)
    text = " ".join(words)
    recent.append(text)
    del recent[:-200]
    hashes = shingle_hashes(text, 6)

    def block(ws: list[str], n: int) -> dict[str, Any]:
        return {"text": " ".join(ws), "terms": dict(Counter(ws)), "seg": n, "rank": n,
                "box": [10.0, 40.0 * n, 800.0, 38.0]}

    vips = [block(words[j:j + 22], n) for n, j in enumerate(range(0, len(words), 22))]
    windows = [block(words[j:j + 50], n) for n, j in enumerate(range(0, len(words), 50))]
    title = " ".join(words[:6])
    return {
        "id": rid, "url": url, "status": "ok", "error": None, "title": title,
        "segmentation": {"algorithm": "vips", "segments": 31, "depth": 3,
                         "top": [{"id": n, "box": [0, 40 * n, 800, 38], "words": 22}
                                 for n in range(6)]},
        "main_text": text, "page_type": {"type": "article", "probability": 0.91},
        "sketch": [int(v) for v in sketch(hashes, 8)],
        "minhash": [int(v) for v in minhash_values(hashes, 64)],
        "index_doc": {"id": rid, "url": url, "title": title, "status": "ok", "reason": None,
                      "terms": dict(Counter(words)), "blocks": {"vips": vips,
                                                                "windows": windows}},
        "timings": {"segment": 0.05, "clean": 0.08, "classify": 0.01, "sketch": 0.002,
                    "index": 0.01},
    }


_RECENT: list[str] = []


def write_synthetic_journal(out: Path, n: int, seed: int = 0, templates: int = 500
                            ) -> list[str]:
    """A journal of ``n`` lines: ``templates`` real-shaped records (:func:`synthetic_record`)
    reused as text templates, each line with its own id, URL, sketch and MinHash signature
    (random, so unrelated pages share no LSH band; 3% copy a recent page's values: duplicates).
    Writing 100k lines this way takes seconds, not the minutes of shingling each one."""
    import random

    rng = random.Random(seed)
    (out / "work").mkdir(parents=True, exist_ok=True)
    base = []
    for j in range(templates):
        rec = synthetic_record(j, rng)
        line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        for key in ("id", "url"):
            line = line.replace(json.dumps(rec[key]), f'"@@{key}@@"')
        if "sketch" in rec:
            line = line.replace(json.dumps(rec["sketch"], separators=(",", ":")), "@@sketch@@")
            line = line.replace(json.dumps(rec["minhash"], separators=(",", ":")), "@@minhash@@")
        base.append(line)
    ids = []
    recent: list[tuple[str, str]] = []
    with (out / "work" / "pages.jsonl").open("w", encoding="utf-8") as f:
        for i in range(n):
            rid = f"/crawl/part-{i // 10_000:03d}.warc.gz#{1000 + i * 731}"
            line = base[i % templates].replace("@@id@@", rid).replace(
                "@@url@@", f"http://site{i % 997}.example/page/{i}")
            if "@@sketch@@" in line:
                if recent and rng.random() < 0.03:
                    sk, mh = rng.choice(recent)
                else:
                    sk = json.dumps(sorted(rng.getrandbits(63) for _ in range(8)))
                    mh = json.dumps([rng.getrandbits(32) for _ in range(64)])
                    recent.append((sk, mh))
                    del recent[:-500]
                line = line.replace("@@sketch@@", sk).replace("@@minhash@@", mh)
            ids.append(rid)
            f.write(line + "\n")
    (out / "order.json").write_text(json.dumps(ids))
    return ids


def collection_child(out: str) -> dict:
    """finalize() on a prepared output folder, in this (child) process."""
    from webseg.pipeline import PipelineConfig
    from webseg.pipeline.run import finalize

    order = json.loads((Path(out) / "order.json").read_text())
    t0, c0 = time.perf_counter(), time.process_time()
    s = finalize(order, Path(out), PipelineConfig())
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"records": s.records, "duplicate_clusters": s.duplicate_clusters,
            "seconds": round(wall, 1), "cpu_s": round(cpu, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def journal_collection_bench(run: Path, tmp: Path, repeat: int = 3) -> dict:
    """The collection stage (:func:`webseg.pipeline.run.finalize`) alone on the journal of a
    finished ``webseg pipeline`` output ``run`` (copied, with its configuration), ``repeat``
    times in this process: CPU seconds of each (the first pass over the journal included, as
    in a resumed run; a fresh run makes it while writing the journal)."""
    from webseg.pipeline import PipelineConfig
    from webseg.pipeline.journal import read_journal
    from webseg.pipeline.run import finalize, page_phase_gc

    cfg = json.loads((run / "work" / "config.json").read_text())
    config = PipelineConfig(**{**cfg, "stages": tuple(cfg["stages"])})
    order = [str(r["id"]) for r in read_journal(run / "work" / "pages.jsonl")]
    cpu = []
    for i in range(repeat):
        out = tmp / f"journal-collection-{i}"
        shutil.copytree(run / "work", out / "work")
        c0 = time.process_time()
        with page_phase_gc():
            finalize(order, out, config)
        cpu.append(round(time.process_time() - c0, 3))
        shutil.rmtree(out)
    return {"pages": len(order), "collection_cpu_s": cpu,
            "median_cpu_s": statistics.median(cpu), "load": load()}


def run_collection_bench(n: int, tmp: Path, index_build: bool = True) -> dict:
    out = tmp / f"collect-{n}"
    t0 = time.perf_counter()
    write_synthetic_journal(out, n)
    gen = time.perf_counter() - t0
    size = (out / "work" / "pages.jsonl").stat().st_size
    before = load()
    proc = subprocess.run([sys.executable, __file__, "--collection-child", str(out)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    after = load()
    if not index_build:
        shutil.rmtree(out)
        return {"pages": n, "journal_mb": round(size / 1e6), "generate_s": round(gen, 1),
                "collection_s": res["seconds"], "collection_cpu_s": res["cpu_s"],
                "collection_peak_rss_mb": res["peak_rss_mb"],
                "duplicate_clusters": res["duplicate_clusters"],
                "load_before_after": [before, after]}
    # Index build from the N stored page documents of the output folder (webseg index OUT/).
    t1 = time.perf_counter()
    with open(tmp / "index.err", "w+b") as err:
        idx = subprocess.Popen([sys.executable, "-m", "webseg.cli", "index", str(out), "-o",
                                str(tmp / f"index-{n}")], stdout=subprocess.DEVNULL,
                               stderr=err)
        _, status, usage = os.wait4(idx.pid, 0)  # this child's own peak RSS
        # reaped here, so tell Popen (else it would count the child as still running)
        idx.returncode = os.waitstatus_to_exitcode(status)
        index_s = time.perf_counter() - t1
        if idx.returncode != 0:
            err.seek(0)
            raise RuntimeError(err.read()[-3000:].decode(errors="replace"))
    index_dir = tmp / f"index-{n}"
    index_mb = sum(f.stat().st_size for f in index_dir.rglob("*") if f.is_file()) / 1e6
    shutil.rmtree(out)
    shutil.rmtree(tmp / f"index-{n}")
    return {"pages": n, "journal_mb": round(size / 1e6), "generate_s": round(gen, 1),
            "collection_s": res["seconds"], "collection_cpu_s": res["cpu_s"],
            "collection_peak_rss_mb": res["peak_rss_mb"],
            "duplicate_clusters": res["duplicate_clusters"],
            "index_from_output_s": round(index_s, 1),
            "index_peak_rss_mb": round(usage.ru_maxrss / 1024), "index_mb": round(index_mb),
            "load_before_after": [before, after, load()]}


def cache_bytecode() -> None:
    """Let the measured children load the checkout's modules from compiled bytecode, as a
    normal install does (pip compiles them; a checkout writes ``__pycache__`` on first use).

    An environment with ``PYTHONDONTWRITEBYTECODE=1`` (some containers and CI images set it)
    makes every run compile the project's ~250 modules again, about 0.14 CPU s of pure
    overhead that no user pays and that would count in the fixed cost of every run. The
    cache goes to ``.cache/bench-pycache`` (not beside the sources) and is filled here,
    before any timing, so that no measured run pays for the compilation either."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(ROOT / ".cache" / "bench-pycache")
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0",
                    *(str(ROOT / p) for p in ("webseg", "ir", "dedup", "classify"))],
                   check=True, env=os.environ)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/wcxb-dev")
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--concurrency", type=int, default=3)
    ap.add_argument("--spark", default=None, help="Spark masters, e.g. local[1],local[2]")
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--spark-concurrency", type=int, default=2,
                    help="Pages in flight per Spark worker's Chromium.")
    ap.add_argument("--no-single", action="store_true", help="Skip the single-machine run.")
    ap.add_argument("--modes", default="rendered,parsed",
                    help="Single-machine pipelines to run on the same WARC: rendered (the "
                         "default pipeline), parsed (--no-render), or both.")
    ap.add_argument("--spark-mode", default="parsed", choices=["rendered", "parsed"],
                    help="Pipeline run by the --spark masters (default parsed: no browser).")
    ap.add_argument("--pin", default="on", choices=["auto", "on", "off"],
                    help="run_spark's pin mode. Default on: each Spark worker and its Chromium "
                         "on a core of its own, so local[N] uses N cores and the speed-up "
                         "measures what a slot adds (unpinned, local[1] alone keeps two cores "
                         "busy); auto is `webseg spark`'s default (pin only when the slots "
                         "cover the cores).")
    ap.add_argument("--collection", default=None,
                    help="Collection-stage sizes on synthetic journals, e.g. 10000,100000")
    ap.add_argument("--collection-of", type=Path, default=None,
                    help="A finished `webseg pipeline` output folder: time its collection "
                         "stage alone (CPU seconds, three times) on a copy of its journal.")
    ap.add_argument("--no-index-build", action="store_true",
                    help="With --collection: skip timing `webseg index OUT/` afterwards.")
    ap.add_argument("--spark-child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--collection-child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--warc", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--parsed", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.spark_child:
        print(json.dumps(spark_child(a.warc, a.out, a.spark_child, a.partitions,
                                     a.concurrency, a.pin, a.parsed)))
        return 0
    if a.collection_child:
        print(json.dumps(collection_child(a.collection_child)))
        return 0
    cache_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        if a.collection_of:
            res = journal_collection_bench(a.collection_of, tmpd)
            print("collection stage of", a.collection_of, json.dumps(res), flush=True)
            return 0
        if a.collection:
            for n in (int(x) for x in a.collection.split(",")):
                res = run_collection_bench(n, tmpd, not a.no_index_build)
                print("collection stage:", json.dumps(res), flush=True)
            return 0
        warc = tmpd / "bench.warc.gz"
        n = write_warc(a.data, a.pages, warc)
        print(f"{n} pages from {a.data} in {warc.stat().st_size / 1e6:.1f} MB WARC; "
              f"{os.cpu_count()} cores; load {load()}", flush=True)
        per_core = None
        singles: dict[str, dict] = {}
        if not a.no_single:
            one = tmpd / "one.warc.gz"  # a one-page crawl: the fixed cost of a run
            write_warc(a.data, 1, one)
            for mode in [m.strip() for m in a.modes.split(",") if m.strip()]:
                single = run_single(warc, tmpd / f"single-{mode}", a.concurrency,
                                    parsed=mode == "parsed")
                fixed = run_single(one, tmpd / f"one-{mode}", a.concurrency,
                                   parsed=mode == "parsed")
                # Start-up (imports, models, the browser) and one page, paid once per run:
                # what a page costs at crawl scale is the rest, per page.
                marginal = (single["cpu_s"] - fixed["cpu_s"]) / max(single["pages"] - 1, 1)
                single["fixed_cpu_s_one_page_run"] = fixed["cpu_s"]
                single["marginal_cpu_s_per_page"] = round(marginal, 3)
                single["marginal_pages_per_cpu_s"] = round(1 / marginal, 2) if marginal > 0 \
                    else None
                singles[mode] = single
                print(f"single machine, {mode}:", json.dumps(single, indent=2), flush=True)
            if "rendered" in singles:
                per_core = singles["rendered"]["pages_per_s"] / (os.cpu_count() or 1)
            if len(singles) == 2:
                r, p = singles["rendered"], singles["parsed"]
                pm, rm = p["marginal_cpu_s_per_page"], r["marginal_cpu_s_per_page"]
                print(f"parsed / rendered: {p['pages_per_cpu_s'] / r['pages_per_cpu_s']:.1f}x "
                      f"pages per CPU second (whole process tree), "
                      f"{rm / pm if pm > 0 else float('nan'):.1f}x "
                      f"per page without the fixed cost of a run, "
                      f"{p['pages_per_s'] / r['pages_per_s']:.1f}x pages/s", flush=True)
        if a.spark:
            runs = []
            for i, master in enumerate(a.spark.split(",")):
                sp = run_spark_bench(warc, tmpd / f"spark{i}", master, a.partitions,
                                     a.spark_concurrency, a.pin, a.spark_mode == "parsed")
                runs.append(sp)
                print("spark:", json.dumps(sp), flush=True)
            if len(runs) > 1:
                first, last = runs[0], runs[-1]
                job = last["pages_per_s_job_only"] / first["pages_per_s_job_only"]
                pages = (last.get("pages_per_s_page_phase", 0)
                         / max(first.get("pages_per_s_page_phase", 0), 1e-9))
                print(f"speed-up {last['master']} over {first['master']}: "
                      f"{last['pages_per_s'] / first['pages_per_s']:.2f}x with start-up, "
                      f"{job:.2f}x job only, {pages:.2f}x page phase", flush=True)
        if per_core is not None:
            print(f"projection: {per_core:.2f} pages/s per core measured here; a cluster of "
                  f"50 executors x 4 cores would process about {per_core * 200:.0f} pages/s "
                  f"({per_core * 200 * 86400 / 1e6:.1f} M pages/day), assuming linear "
                  "scaling (pages are independent) and executors with >= 1.5 GB per Chromium.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
