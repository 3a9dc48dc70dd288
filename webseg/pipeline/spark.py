"""The indexing pipeline as a Spark job (``pip install webseg[spark]``).

::

    webseg spark crawl/*.warc.gz -o out/ --master local[2]
    spark-submit --py-files webseg.zip webseg/pipeline/spark.py s3a://bucket/crawl/ -o s3a://bucket/out/

What runs where:

* **Read.** ``binaryFiles`` over the inputs (any Hadoop path: local, ``hdfs://``, ``s3a://``);
  each WARC file is split into its response records on an executor
  (:func:`webseg.inputs.iter_warc_stream`), HTML files are one record each. Record ids are the
  single-machine ids (``<path>#<offset>`` for WARC records), so outputs can be compared.
* **Pages.** Records are repartitioned and every partition is rendered and processed by
  :class:`~webseg.pipeline.process.PageProcessor` — the same code as the single-machine run —
  with **one Chromium per executor Python process**, started on first use and reused by every
  later partition of that process (``spark.python.worker.reuse``, Spark's default). With
  ``--no-render`` (``PipelineConfig.parsed``) pages are parsed instead and the executors
  need no browser at all.
* **Duplicates** as DataFrame operations: the MinHash signature of each page is cut into the
  same bands as datasketch's ``MinHashLSH`` (:func:`lsh_bands`), pages sharing a band are
  candidate pairs (a self-join), candidates are verified with the papers' bottom-k rule, and
  clusters are the connected components of the verified pairs, found by iterative min-label
  propagation. Cluster ids are :func:`webseg.pipeline.run.cluster_label` of the smallest member,
  exactly as on one machine.
* **Output**: ``OUT/pages.parquet`` (columns below) and ``OUT/pages.jsonl/`` (part files, one
  JSON line per input record, the same fields as the single-machine ``pages.jsonl``).

With the ``index`` stage (the default) the job also writes ``OUT/index_docs/`` (each page's
stored index document: analysed terms and stored blocks) and ``OUT/lucene_docs/`` (the same as
Anserini ``JsonCollection`` lines); ``webseg index OUT/ -o INDEX`` builds the search index from
them without rendering anything (:mod:`ir.from_output`).
"""

from __future__ import annotations

import atexit
import json
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from webseg.pipeline.process import PipelineConfig

__all__ = ["lsh_bands", "run_spark"]

_STATE: dict[str, Any] = {}


PIN_MODES = ("auto", "on", "off")


def task_slots(master: str, conf: dict[str, str] | None = None) -> int:
    """Task slots per node for a Spark master: ``local[N]`` -> N, ``local[*]`` -> this
    machine's cores, ``local`` -> 1; on a cluster ``spark.executor.cores`` (0 when not set:
    unknown, so ``auto`` pinning stays off)."""
    m = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if m:
        n = m.group(1)
        return 1 if n is None else (_cores() if n == "*" else int(n))
    try:
        return int((conf or {}).get("spark.executor.cores", "0"))
    except ValueError:
        return 0


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def should_pin(mode: str, slots: int, cores: int) -> bool:
    """Whether each Python worker (and its Chromium) gets a core of its own.

    Why: one Chromium spreads a page's work (renderer, browser and utility processes) over
    every core, so on a node whose task slots already cover its cores, N workers fight over
    all of them and ``local[2]`` is barely faster than ``local[1]`` (measured: 1.05x on 2
    cores; ``local[1]`` alone kept both busy). Pinned, a slot is a core, as Spark's
    scheduler assumes, and throughput scales with slots (1.84x end to end). With fewer
    slots than cores (``local[1]`` on 2 cores) pinning would idle cores, so ``auto`` pins
    only when ``slots >= cores``. ``WEBSEG_SPARK_PIN=1``/``0`` overrides the mode."""
    env = os.environ.get("WEBSEG_SPARK_PIN")
    if env in ("0", "1"):
        return env == "1"
    if mode not in PIN_MODES:
        raise ValueError(f"pin must be one of {', '.join(PIN_MODES)}, not {mode!r}")
    return mode == "on" or (mode == "auto" and slots > 0 and slots >= cores)


def _pin_to_core(mode: str = "auto", slots: int = 0) -> int | None:
    """Claim a free core slot on this machine (a lock file held for the worker's life) and
    pin this Python worker, and so the Chromium it starts next, to that core, when
    :func:`should_pin` says so. Returns the core, or None."""
    if "pin" in _STATE:
        return _STATE.get("pin")
    if not hasattr(os, "sched_setaffinity") or not should_pin(mode, slots, _cores()):
        _STATE["pin"] = None
        return None
    import fcntl
    import tempfile

    cores = sorted(os.sched_getaffinity(0))
    for slot in range(len(cores) * 4):
        f = open(os.path.join(tempfile.gettempdir(),  # noqa: SIM115 - held while alive
                              f"webseg-spark-slot-{slot}.lock"), "w")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            continue
        core = cores[slot % len(cores)]
        os.sched_setaffinity(0, {core})
        _STATE["pin"], _STATE["pin_lock"] = core, f  # the lock lives as long as the worker
        return core
    _STATE["pin"] = None
    return None


def _worker_renderer(render_options: dict[str, Any], pin: str = "auto", slots: int = 0) -> Any:
    """This Python worker's Chromium, started once and reused by later partitions."""
    key = json.dumps(render_options, sort_keys=True)
    r = _STATE.get("renderer")
    if r is None or _STATE.get("renderer_key") != key:
        if r is not None:
            r.__exit__(None, None, None)
        _pin_to_core(pin, slots)
        from webseg.render import Renderer

        r = Renderer(**render_options)
        r.__enter__()
        _STATE["renderer"], _STATE["renderer_key"] = r, key
        atexit.register(lambda: r.__exit__(None, None, None))
    return r


def _worker_processor(config_json: str) -> Any:
    from webseg.pipeline.process import PageProcessor

    procs = _STATE.setdefault("processors", {})
    if config_json not in procs:
        d = json.loads(config_json)
        d["stages"] = tuple(d["stages"])
        procs[config_json] = PageProcessor(PipelineConfig(**d))
    return procs[config_json]


def _local_path(path: str) -> str:
    """Hadoop's ``file:/abs/path`` -> ``/abs/path`` (the single-machine id); others unchanged."""
    if path.startswith("file://"):
        return path[len("file://"):]
    if path.startswith("file:"):
        return path[len("file:"):]
    return path


def _records_of_file(item: tuple[str, bytes]) -> Iterator[tuple[Any, ...]]:
    """(id, url, payload, error, skipped, warc facts) of every page record in one input file."""
    import dataclasses
    import gzip
    import io

    from webseg.inputs import WARC_SUFFIXES, iter_warc_stream

    path, data = item
    local = _local_path(path)
    name = local.lower()
    if name.endswith(WARC_SUFFIXES):
        for rec in iter_warc_stream(io.BytesIO(data), local):
            yield (rec.id, rec.url, rec.source if isinstance(rec.source, bytes) else None,
                   rec.error, rec.skipped,
                   None if rec.warc is None else dataclasses.asdict(rec.warc))
    else:
        try:
            payload = gzip.decompress(data) if name.endswith(".gz") else data
            yield local, None, payload, None, False, None
        except (OSError, EOFError) as e:
            yield local, None, None, f"read: cannot gunzip: {e}", False, None


def _process_partition(rows: Iterable[tuple[Any, ...]],
                       config_json: str, render_options: dict[str, Any],
                       concurrency: int, pin: str = "auto",
                       slots: int = 0) -> Iterator[tuple[Any, ...]]:
    """Render (or, without rendering, parse) and process one partition of records; a
    rendering worker uses its own Chromium, a parsing one never starts a browser."""
    from webseg.inputs import InputRecord, WarcFacts, parse_inputs_html, render_inputs
    from webseg.pipeline.run import page_phase_gc, record_line

    records = [InputRecord(rid, url, payload, "warc" if "#" in rid else "file", err, skipped,
                           None if warc is None else WarcFacts(**warc))
               for rid, url, payload, err, skipped, warc in rows]
    if not records:
        return
    processor = _worker_processor(config_json)
    if processor.config.render:
        renderer = _worker_renderer(render_options, pin, slots)
        results = ((*r, None) for r in render_inputs(records, concurrency, renderer=renderer))
    else:
        results = parse_inputs_html(records, int(render_options.get("max_nodes", 200_000)))
    with page_phase_gc():
        for rec, page, err, html in results:
            yield _row(record_line(rec, page, err, processor, html))


def _row(line: dict[str, Any]) -> tuple[Any, ...]:
    """A DataFrame row: the page-result fields (:data:`webseg.clean.json_out.FIELDS`, same
    names and types as the JSON line), the pipeline's columns, and the whole output line as
    JSON."""
    from webseg import fastjson
    from webseg.clean.json_out import FIELDS
    from webseg.pipeline.run import INTERNAL_FIELDS

    public = {k: v for k, v in line.items() if k not in INTERNAL_FIELDS}
    lang = line.get("language")
    if lang is not None:
        lang = {"code": lang.get("code"), "source": lang.get("source"),
                "confidence": None if lang.get("confidence") is None
                else float(lang["confidence"])}
    pt = line.get("page_type")
    if pt is not None:
        pt = {"type": pt.get("type"),
              "probability": None if pt.get("probability") is None
              else float(pt["probability"]),
              "probabilities": None if pt.get("probabilities") is None
              else {k: float(v) for k, v in pt["probabilities"].items()}}
    fields = {**{k: line.get(k) for k in FIELDS}, "language": lang, "page_type": pt}
    return (*(fields[k] for k in FIELDS),
            (line.get("segmentation") or {}).get("segments"),
            [str(v) for v in line.get("sketch") or []],
            [int(v) for v in line.get("minhash") or []],  # uint32 values: fit in a long
            json.dumps(public, ensure_ascii=False),
            # compact JSON by orjson (webseg.fastjson): the same document for every reader
            # (from_json, ir.from_output) at a fifth of the standard module's CPU, 1.3 ms a
            # page for a ~100 KB stored document
            None if not line.get("index_doc") else fastjson.dumps(
                line["index_doc"], exact_nan=True).decode("utf-8"))


#: ``lsh_bands`` of the pipeline's defaults (64 permutations, threshold 0.3), as datasketch's
#: MinHashLSH computes them (``tests/test_pipeline_collect.py`` checks it): importing datasketch
#: to compute them loads scipy.integrate, about 0.5 CPU s per process.
_KNOWN_BANDS: dict[tuple[int, float], tuple[int, int]] = {(64, 0.3): (21, 3)}


def lsh_bands(num_perm: int, threshold: float) -> tuple[int, int]:
    """(bands, rows) that datasketch's MinHashLSH picks for this threshold and signature size."""
    known = _KNOWN_BANDS.get((num_perm, threshold))
    if known is not None:
        return known
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return lsh.b, lsh.r


def _schema() -> Any:
    from pyspark.sql import types as T

    s, d = T.StringType(), T.DoubleType()
    strs = T.ArrayType(s)

    def struct(*cols: tuple[str, Any]) -> Any:
        return T.StructType([T.StructField(k, t, True) for k, t in cols])

    # The page-result schema (webseg.clean.json_out.FIELDS), in its order and JSON types.
    types = {"error": struct(("stage", s), ("message", s)),
             "language": struct(("code", s), ("confidence", d), ("source", s)),
             "authors": strs, "tags": strs, "xpaths": strs, "site_repeated": strs,
             "roles": T.ArrayType(T.MapType(s, s)),
             "page_type": struct(("type", s), ("probability", d),
                                 ("probabilities", T.MapType(s, d))),
             "warc": struct(("record_id", s), ("date", s), ("target_uri", s),
                            ("http_status", T.IntegerType()), ("content_type", s))}
    from webseg.clean.json_out import FIELDS

    return T.StructType([
        *(T.StructField(k, types.get(k, s), k not in ("id", "status")) for k in FIELDS),
        T.StructField("segments", T.IntegerType(), True),
        T.StructField("sketch", T.ArrayType(T.StringType()), True),
        T.StructField("minhash", T.ArrayType(T.LongType()), True),
        T.StructField("line", T.StringType(), False),
        T.StructField("index_doc", T.StringType(), True),
    ])


def revisit_originals(df: Any) -> Any:
    """DataFrame ``(id, duplicate_of)`` of every revisit record: the id of the record it
    refers to when that is in the input (by WARC-Refers-To, else by refers-to URI and date;
    the smallest id if several match), else null. As
    :meth:`webseg.pipeline.collect.JournalScan.revisit_originals` on one machine."""
    from pyspark.sql import functions as F

    def w(key: str) -> Any:
        return F.get_json_object(F.col("line"), f"$.warc.{key}")

    typ = w("type")
    orig = df.where(typ.isNotNull() & (typ != "revisit")).select(
        F.col("id").alias("orig"), w("record_id").alias("rid"), w("target_uri").alias("uri"),
        w("date").alias("date"))
    rv = df.where(typ == "revisit").select(
        "id", w("refers_to_record_id").alias("ref"), w("refers_to_uri").alias("ruri"),
        w("refers_to_date").alias("rdate"))
    by_id = rv.join(orig, rv["ref"] == orig["rid"], "left").groupBy("id") \
        .agg(F.min("orig").alias("o1"))
    by_uri = rv.join(orig, (rv["ruri"] == orig["uri"]) & (rv["rdate"] == orig["date"]),
                     "left").groupBy("id").agg(F.min("orig").alias("o2"))
    return rv.select("id").join(by_id, "id", "left").join(by_uri, "id", "left") \
        .select("id", F.coalesce("o1", "o2").alias("duplicate_of"))


def with_revisits(clusters: Any, revisits: Any) -> Any:
    """Duplicate clusters ``(id, duplicate_cluster)`` with each matched revisit in its
    original's cluster; an original in no cluster forms one with its revisits, named like
    any cluster (:func:`webseg.pipeline.run.cluster_label` of its smallest member)."""
    from pyspark.sql import functions as F

    links = revisits.where(F.col("duplicate_of").isNotNull())
    oc = links.join(clusters.select(F.col("id").alias("duplicate_of"),
                                    F.col("duplicate_cluster").alias("oc")),
                    "duplicate_of", "left")
    lab = oc.groupBy("duplicate_of").agg(F.first("oc", ignorenulls=True).alias("oc"),
                                         F.min(F.least("id", "duplicate_of")).alias("m"))
    name = F.concat(F.lit("dup-"), F.substring(F.sha1(F.col("m").cast("binary")), 1, 12))
    lab = lab.withColumn("label", F.coalesce(F.col("oc"), name))
    new_orig = lab.where(F.col("oc").isNull()).select(
        F.col("duplicate_of").alias("id"), F.col("label").alias("duplicate_cluster"))
    new_rv = links.join(lab.select("duplicate_of", "label"), "duplicate_of").select(
        "id", F.col("label").alias("duplicate_cluster"))
    return clusters.unionByName(new_orig).unionByName(new_rv)


def duplicate_clusters(df: Any, config: PipelineConfig, max_iterations: int = 50) -> Any:
    """DataFrame ``(id, duplicate_cluster)`` for pages in a cluster of >= 2 duplicates."""
    from pyspark.sql import functions as F

    from dedup.shingle import ShingleParams

    params = ShingleParams(**config.dedup_params)
    bands, rows = lsh_bands(config.minhash_perm, config.lsh_threshold)
    sig = df.where(F.size("minhash") > 0).select("id", "minhash", "sketch")
    banded = sig.select("id", F.posexplode(F.expr(
        f"transform(sequence(0, {bands - 1}), i -> concat_ws(',', "
        f"transform(slice(minhash, i * {rows} + 1, {rows}), v -> cast(v as string))))"))
        .alias("band", "key"))
    cand = (banded.alias("a").join(banded.alias("b"), ["band", "key"])
            .where(F.col("a.id") < F.col("b.id"))
            .select(F.col("a.id").alias("a"), F.col("b.id").alias("b")).distinct())
    sk = sig.select("id", "sketch")

    # The papers' bottom-k rule (dedup.shingle.is_duplicate) in SQL, no Python worker:
    # both sketches hold >= threshold hashes and share >= threshold of them (sketch values
    # are distinct, so array_intersect counts shared hashes).
    t = int(params.threshold)
    verified = F.expr(f"size(sa) >= {t} AND size(sb) >= {t} AND "
                      f"size(array_intersect(sa, sb)) >= {t}")
    edges = (cand.join(sk.withColumnRenamed("id", "a").withColumnRenamed("sketch", "sa"), "a")
             .join(sk.withColumnRenamed("id", "b").withColumnRenamed("sketch", "sb"), "b")
             .where(verified).select("a", "b").cache())
    # Connected components: every vertex takes the smallest label among itself and its
    # neighbours until nothing changes (at most the component diameter rounds).
    both = edges.select(F.col("a").alias("src"), F.col("b").alias("dst")).union(
        edges.select(F.col("b").alias("src"), F.col("a").alias("dst")))
    labels = both.select(F.col("src").alias("id")).distinct().withColumn("label", F.col("id"))
    for _ in range(max_iterations):
        nxt = (both.join(labels.withColumnRenamed("id", "dst").withColumnRenamed(
            "label", "nl"), "dst").groupBy("src").agg(F.min("nl").alias("nl"))
            .withColumnRenamed("src", "id").join(labels, "id")
            .select("id", F.least("label", "nl").alias("label"))).cache()
        changed = nxt.join(labels.withColumnRenamed("label", "old"), "id") \
            .where(F.col("label") != F.col("old")).limit(1).count()
        labels = nxt
        if not changed:
            break
    else:
        raise RuntimeError("connected components did not converge; raise max_iterations")

    # webseg.pipeline.run.cluster_label in SQL: "dup-" + the first 12 hex digits of the
    # SHA-1 of the smallest member's id (UTF-8), so both pipelines name clusters alike.
    name = F.concat(F.lit("dup-"), F.substring(F.sha1(F.col("label").cast("binary")), 1, 12))
    return labels.select("id", name.alias("duplicate_cluster"))


def run_spark(inputs: list[str], out: str, config: PipelineConfig | None = None, *,
              master: str | None = None, partitions: int | None = None,
              render_options: dict[str, Any] | None = None, concurrency: int = 2,
              spark: Any = None, pin: str = "auto") -> dict[str, Any]:
    """Run the pipeline on Spark; returns counts. ``spark`` reuses an existing session;
    ``pin`` (auto / on / off) gives each worker and its Chromium a core of its own
    (:func:`should_pin`)."""
    if pin not in PIN_MODES:
        raise ValueError(f"pin must be one of {', '.join(PIN_MODES)}, not {pin!r}")
    from pyspark import StorageLevel
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    config = config or PipelineConfig()
    own = spark is None
    if own:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from webseg.progress import is_quiet

        b = SparkSession.builder.appName("webseg-pipeline").config("spark.ui.enabled", "false")
        if is_quiet():  # Spark's own stage bar is the job's progress output
            b = b.config("spark.ui.showConsoleProgress", "false")
        if master:
            b = b.master(master)
        spark = b.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    try:
        sc = spark.sparkContext
        paths = ",".join(_hadoop_paths(inputs))
        # Several partitions per core: a worker that finishes early takes the next one
        # instead of idling while the last big partition renders (pages vary 10x in cost).
        n = partitions or max(2, sc.defaultParallelism * 4)
        if own:
            # The collection stages shuffle tiny tables (ids, bands, pairs): Spark's default
            # of 200 shuffle partitions turns each of their many small jobs into 200 tasks.
            spark.conf.set("spark.sql.shuffle.partitions", str(max(2, sc.defaultParallelism * 2)))
        t_start = time.perf_counter()
        records = sc.binaryFiles(paths).flatMap(_records_of_file).repartition(n)
        cfg_json = json.dumps(config.to_dict(), sort_keys=True)
        opts = dict(render_options or {})
        slots = task_slots(sc.master, dict(sc.getConf().getAll()))
        rows = records.mapPartitions(
            lambda it: _process_partition(it, cfg_json, opts, concurrency, pin, slots))
        # Render every page exactly once: keep the processed rows and materialise them
        # before the DataFrame work (which would otherwise re-run the lineage per action).
        rows = rows.persist(StorageLevel.MEMORY_AND_DISK)
        rows.count()
        t_pages = time.perf_counter()
        df = spark.createDataFrame(rows, _schema()).cache()
        revisits = revisit_originals(df).cache()  # (revisit id, id of its original | null)
        dedup = "dedup" in config.stages
        if dedup:
            clusters = with_revisits(duplicate_clusters(df, config), revisits)
            df = df.join(clusters, "id", "left")
        else:
            df = df.withColumn("duplicate_cluster", F.lit(None).cast("string"))
        df = df.join(revisits, "id", "left").cache()
        # The output line: the page's JSON line with "duplicate_cluster" (and, for a revisit,
        # "duplicate_of") appended as its last keys, exactly as json.dumps writes them on one
        # machine (", " and ": " separators; cluster ids are "dup-" + hex, nothing to escape;
        # record ids are escaped by to_json). Pure SQL: no Python worker.
        is_revisit = F.coalesce(F.get_json_object("line", "$.warc.type") == "revisit",
                                F.lit(False))
        of_json = F.coalesce(F.expr("substring(to_json(named_struct('v', duplicate_of)), 6, "
                                    "length(to_json(named_struct('v', duplicate_of))) - 6)"),
                             F.lit("null"))
        parts = [F.expr("substring(line, 1, length(line) - 1)")]
        if dedup:
            parts += [F.lit(', "duplicate_cluster": '),
                      F.coalesce(F.concat(F.lit('"'), F.col("duplicate_cluster"), F.lit('"')),
                                 F.lit("null"))]
        parts += [F.when(is_revisit, F.concat(F.lit(', "duplicate_of": '), of_json))
                  .otherwise(F.lit("")), F.lit("}")]
        with_cluster = F.when(F.lit(dedup) | is_revisit, F.concat(*parts)) \
            .otherwise(F.col("line"))
        df.drop("line", "minhash").write.mode("overwrite").parquet(f"{out}/pages.parquet")
        df.select(with_cluster.alias("value")).write.mode("overwrite").text(
            f"{out}/pages.jsonl")
        if "index" in config.stages:
            # What `webseg index OUT/` builds the search index from, without rendering:
            # the stored documents (terms + blocks), and the same documents as Anserini
            # JsonCollection lines (id + pre-tokenised terms) for its multi-threaded indexer.
            docs = df.where(F.col("index_doc").isNotNull()).select("index_doc")
            docs.write.mode("overwrite").text(f"{out}/index_docs")
            _lucene_docs(docs).write.mode("overwrite").text(f"{out}/lucene_docs")
        counts = {r["status"]: r["count"] for r in df.groupBy("status").count().collect()}
        clusters_n = df.where(F.col("duplicate_cluster").isNotNull()) \
            .select("duplicate_cluster").distinct().count()
        return {"records": sum(counts.values()), "ok": counts.get("ok", 0),
                "empty": counts.get("empty", 0), "skipped": counts.get("skipped", 0),
                "errors": sum(v for k, v in counts.items()
                              if k not in ("ok", "empty", "skipped")),
                "duplicate_clusters": clusters_n,
                "seconds": {"pages": round(t_pages - t_start, 2),
                            "collection": round(time.perf_counter() - t_pages, 2)}}
    finally:
        if own:
            spark.stop()


def _lucene_docs(docs: Any) -> Any:
    """One-column DataFrame: the Anserini JsonCollection line of each stored index document
    in ``docs.index_doc`` (``id`` and every term repeated by its count, terms sorted), built
    in SQL like :func:`_lucene_line` (no Python worker)."""
    from pyspark.sql import functions as F

    parsed = docs.select(F.from_json("index_doc", "id string, terms map<string, int>")
                         .alias("d"))
    contents = F.expr("array_join(flatten(transform(sort_array(map_entries(d.terms)), "
                      "e -> array_repeat(e.key, e.value))), ' ')")
    return parsed.select(F.to_json(F.struct(F.col("d.id").alias("id"),
                                            contents.alias("contents"))).alias("value"))


def _lucene_line(index_doc: str) -> str:
    from ir.from_output import lucene_contents

    d = json.loads(index_doc)
    return json.dumps({"id": d["id"], "contents": lucene_contents(d["terms"])},
                      ensure_ascii=False)


def _hadoop_paths(inputs: list[str]) -> list[str]:
    """Local files and directories -> absolute file: globs of their pages; URIs unchanged."""
    from webseg.inputs import HTML_SUFFIXES, WARC_SUFFIXES

    out: list[str] = []
    for s in inputs:
        if "://" in s:
            out.append(s)
            continue
        p = Path(s).resolve()
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file()
                           and f.name.lower().endswith(WARC_SUFFIXES + HTML_SUFFIXES))
            out.extend(f"file://{f}" for f in files)
        elif p.is_file():
            out.append(f"file://{p}")
        else:
            raise FileNotFoundError(f"no such file or directory: {s}")
    if not out:
        raise ValueError("no input pages or WARC files found")
    return out


def main(argv: list[str] | None = None) -> int:
    """``spark-submit webseg/pipeline/spark.py INPUTS -o OUT`` entry point."""
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--master", default=None)
    ap.add_argument("--partitions", type=int, default=None)
    ap.add_argument("--stages", default=None)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--pin", choices=PIN_MODES, default="auto",
                    help="One core per worker and its Chromium (auto: when slots >= cores).")
    ap.add_argument("--no-render", dest="render", action="store_false",
                    help="Parse pages without a browser (no Chromium on the executors).")
    a = ap.parse_args(argv)
    fields: dict[str, Any] = {} if a.stages is None else {
        "stages": tuple(s for s in a.stages.split(",") if s)}
    cfg = PipelineConfig(**fields) if a.render else PipelineConfig.parsed(**fields)
    res = run_spark(a.inputs, a.output, cfg, master=a.master, partitions=a.partitions,
                    render_options={"timeout": a.timeout}, pin=a.pin)
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
