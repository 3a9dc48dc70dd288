"""``webseg pipeline``: the indexing job on one machine (see :mod:`webseg.pipeline`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from webseg.cliopts import renamed, takes_alias
from webseg.pipeline.process import COLLECTION_STAGES, PAGE_STAGES
from webseg.progress import is_quiet, quiet_option


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="Output directory (created; an interrupted run there is resumed).")
@click.option("--stages", default=",".join(PAGE_STAGES + COLLECTION_STAGES), show_default=True,
              help="Comma-separated stages to run.")
@click.option("--segmenter", default=None,
              help="Segmenter for the stored blocks (webseg algos). Default: vips; "
              "blockfusion with --no-render.")
@click.option("--clean-method", "--clean-segmenter", "clean_segmenter", default=None,
              help="Main-text method (webseg clean --method): blocks, pagelevel, "
              "pagelevel-basic, pagelevel-merge. Default: webseg clean's default. The "
              "sketches for dedup use the same text.")
@click.option("--backend", default="bm25", show_default=True,
              type=click.Choice(["bm25", "lucene"]), help="Search index backend.")
@click.option("-c", "--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@click.option("--timeout", default=30.0, show_default=True, help="Per-page render time limit (s).")
@click.option("--max-nodes", default=200_000, show_default=True, help="DOM size limit per page.")
@click.option("--js/--no-js", "javascript", default=None, callback=takes_alias("javascript"),
              help="Run page scripts (default: off for local and WARC input, on for URLs).")
@renamed("--javascript/--no-javascript", "--js/--no-js", "javascript", default=None)
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse pages without a browser (no Chromium needed; measured: a third "
              "of the CPU per page end to end). Every stage then runs without layout: blocks "
              "from blockfusion, main text from the block model; reads files and WARC "
              "records, not URLs.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress: a bar on a terminal, a line every 30 s in a log.")
@quiet_option
def pipeline(inputs: tuple[str, ...], output: str, stages: str, segmenter: str | None,
             clean_segmenter: str, backend: str, concurrency: int, timeout: float,
             max_nodes: int, javascript: bool | None, no_render: bool, progress: bool) -> None:
    """Crawled pages -> OUTPUT/pages.jsonl, duplicate report and search index.

    INPUTS are page files (html, html.gz), directories of them, WARC / WARC.gz files or
    directories of them, text files of URLs, or URLs. Every input record gets exactly one line
    in OUTPUT/pages.jsonl (status ok, empty (no main text), skipped or error, with the
    reason); WARC lines carry the record's facts under "warc". Redirects, 4xx/5xx,
    204/206/304 responses, revisits and non-HTML records are skipped (not errors, not
    indexed). Run the same command again after an interruption: finished records are skipped.

    \b
    Examples:
      webseg pipeline crawl.warc.gz -o out/
      webseg pipeline crawl.warc.gz -o out/ --no-render   # no browser
      webseg pipeline pages/ -o out/ --stages segment,clean,index
      webseg search out/index "query"
    """
    from webseg.clean import DEFAULT_METHOD
    from webseg.pipeline import PipelineConfig, run_pipeline

    clean_method = clean_segmenter or DEFAULT_METHOD
    try:
        fields: dict[str, Any] = {
            "stages": tuple(s.strip() for s in stages.split(",") if s.strip()),
            "clean_segmenter": clean_method, "dedup_strip": clean_method,
            "index_backend": backend}
        if segmenter is not None:
            fields["segmenter"] = segmenter
        config = PipelineConfig.parsed(**fields) if no_render else PipelineConfig(**fields)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    opts: dict[str, Any] = {"timeout": timeout, "max_nodes": max_nodes}
    if javascript is not None:
        opts["javascript"] = javascript
    try:
        summary = run_pipeline(list(inputs), output, config, concurrency=concurrency,
                               render_options=opts, progress=progress)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    for rid, stage, message in summary.first_errors:  # errors are shown even with --quiet
        click.echo(f"webseg: error: {rid}: {stage}: {message}", err=True)
    more = sum(summary.errors.values()) - len(summary.first_errors)
    if more > 0:
        click.echo(f"webseg: error: {more} more failed records: status \"error\" in "
                   f"{Path(output) / 'pages.jsonl'}", err=True)
    if not is_quiet():
        click.echo(summary.table(), err=True)
        for name, path in summary.outputs.items():
            click.echo(f"  {name}: {path}", err=True)
    sys.exit(1 if summary.errors else 0)


@click.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", required=True,
              help="Output directory or URI (pages.parquet/ and pages.jsonl/ inside).")
@click.option("--master", default=None,
              help="Spark master, e.g. local[2] (default: from spark-submit / the session).")
@click.option("--partitions", type=int, default=None,
              help="Record partitions (default: 2 x the default parallelism).")
@click.option("--stages", default=",".join(PAGE_STAGES + COLLECTION_STAGES), show_default=True,
              help="Comma-separated stages (index: each page's index document is written to "
                   "OUTPUT/index_docs/; build the index with `webseg index OUTPUT/`).")
@click.option("--timeout", default=30.0, show_default=True, help="Per-page render time limit (s).")
@click.option("--pin", type=click.Choice(["auto", "on", "off"]), default="auto",
              show_default=True,
              help="Pin each worker and its Chromium to a core of its own (auto: when the "
                   "node's task slots cover its cores; WEBSEG_SPARK_PIN=1/0 overrides).")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse pages without a browser: the executors need no Chromium.")
@quiet_option
def spark(inputs: tuple[str, ...], output: str, master: str | None, partitions: int | None,
          stages: str, timeout: float, pin: str, no_render: bool) -> None:
    """The pipeline as a Spark job: WARC records -> Parquet and JSONL (pip install webseg[spark]).

    Each executor process starts one Chromium and reuses it across its partitions. Output
    lines match `webseg pipeline` on the same input (except timings).

    \b
    Examples:
      webseg spark crawl.warc.gz -o out/ --master local[2]
      webseg spark crawl.warc.gz -o out/ --master local[2] --no-render   # no browser
      spark-submit webseg/pipeline/spark.py s3a://bucket/crawl/ -o s3a://bucket/out/
    """
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise click.UsageError("pyspark is not installed: pip install webseg[spark]") from None
    from webseg.pipeline import PipelineConfig
    from webseg.pipeline.spark import run_spark

    try:
        st = tuple(s.strip() for s in stages.split(",") if s.strip())
        config = PipelineConfig.parsed(stages=st) if no_render else PipelineConfig(stages=st)
        res = run_spark(list(inputs), output, config, master=master, partitions=partitions,
                        render_options={"timeout": timeout}, pin=pin)
    except (ValueError, FileNotFoundError) as e:
        raise click.UsageError(str(e)) from None
    for k, v in res.items():
        click.echo(f"  {k}: {v}", err=True)
    sys.exit(1 if res.get("errors") else 0)


COMMANDS = [pipeline, spark]
