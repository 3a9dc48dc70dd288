"""``webseg dedup``: near-duplicate pages after template stripping, with reports.

Registered into the ``webseg`` command line through ``COMMANDS`` (see ``webseg/cli.py``); heavy
imports stay inside the command so ``webseg --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click

from webseg.cli import EXIT_FAILED, EXIT_OK, _err, with_render_opts
from webseg.progress import is_quiet, progress_bar, quiet_option

STRIP_CHOICES = ("none", "largest", "blocks", "pagelevel", "sitelevel", "extractor")
#: ``--strip`` default: the method of ``webseg clean`` (webseg.clean.DEFAULT_METHOD).
DEFAULT_STRIP = "blocks"

#: An open :class:`~webseg.render.Renderer` to reuse instead of starting a browser per command
#: (embedding and tests set it; the render options of the command are then the renderer's).
RENDERER: Any = None


def site_of(url: str | None, record_id: str, kind: str, site_key: str) -> str | None:
    """Site group of a page for ``--strip sitelevel``.

    ``host``: the URL's host name without a leading ``www.`` (files without an http(s) URL fall
    back to their directory); ``dir``: the directory of the file (the URL's host for URL and
    WARC input).
    """
    host = None
    if url and url.lower().startswith(("http://", "https://")):
        host = (urlsplit(url).hostname or "").removeprefix("www.") or None
    if kind == "file" and (site_key == "dir" or host is None):
        return str(Path(record_id).parent)
    return host


def _storage(redis: str | None, basename: str) -> dict[str, Any] | None:
    if not redis:
        return None
    host, _, port = redis.rpartition(":")
    if not host or not port.isdigit():
        raise click.UsageError(f"--lsh-redis needs HOST:PORT, got {redis!r}")
    try:
        import redis as _redis  # noqa: F401 - datasketch's Redis storage needs it
    except ImportError:
        raise click.UsageError("--lsh-redis needs the redis package: pip install redis") from None
    return {"type": "redis", "basename": basename.encode(),
            "redis": {"host": host, "port": int(port)}}


@click.command("dedup")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--strip", "strip", type=click.Choice(STRIP_CHOICES), default=DEFAULT_STRIP,
              show_default=True, help="Which text of each page is shingled.")
@click.option("--segmenter", default=None,
              help="Segmenter of --strip largest (any of `webseg algos`). Default: gcuts; "
              "blockfusion with --no-render.")
@click.option("--report", "report", type=click.Path(file_okay=False),
              help="Write summary/clusters/pairs (JSON, CSV) and report.html into this directory."
              " Without it, clusters are printed as JSON lines.")
@click.option("--window", default=6, show_default=True, help="Words per shingle.")
@click.option("--k", "k", default=8, show_default=True, help="Hashes kept per sketch.")
@click.option("--threshold", default=4, show_default=True,
              help="Shared sketch hashes that make two pages duplicates.")
@click.option("--candidates", type=click.Choice(["lsh", "all"]), default="lsh",
              show_default=True, help="MinHash LSH candidates, or compare all pairs (exact).")
@click.option("--num-perm", default=64, show_default=True, help="MinHash permutations.")
@click.option("--lsh-threshold", default=0.3, show_default=True,
              help="Jaccard threshold the LSH bands are tuned to (recall of candidates).")
@click.option("--lsh-redis", metavar="HOST:PORT",
              help="Keep the LSH buckets in Redis (datasketch storage) instead of memory.")
@click.option("--lsh-basename", default="webseg-dedup", show_default=True,
              help="Key prefix of the Redis storage (reuse it to add to an index).")
@click.option("--site-key", type=click.Choice(["host", "dir"]), default="host",
              show_default=True, help="How pages are grouped into sites for --strip sitelevel.")
@click.option("--theta", default=0.1, show_default=True,
              help="--strip sitelevel: the fraction of a site's pages a subtree must occur on "
                   "to count as the site's template (and be left out).")
@click.option("-c", "--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse pages without a browser (no Chromium needed). Strips that need "
              "layout (pagelevel, sitelevel) are refused; --strip blocks (the default) and "
              "extractor run as they are, --strip largest uses blockfusion.")
@quiet_option
@with_render_opts
def dedup(inputs: tuple[str, ...], strip: str, segmenter: str | None, report: str | None,
          window: int, k: int, threshold: int, candidates: str, num_perm: int,
          lsh_threshold: float, lsh_redis: str | None, lsh_basename: str, site_key: str,
          theta: float, concurrency: int, no_render: bool, timeout: float,
          javascript: bool | None, max_nodes: int) -> None:
    """Find near-duplicate pages: shingle their non-template text, cluster the duplicates.

    INPUTS are HTML files, directories of pages, WARC files, text files of URLs (.txt/.urls)
    or http(s) URLs. Text is shingled as in Chakrabarti et al. (6-word shingles, sketch of the
    8 smallest hashes, duplicates share >= 4).

    \b
    Examples:
      webseg dedup pages/ --report out/             # --strip blocks: the block model
      webseg dedup crawl.warc.gz --strip largest --segmenter gcuts --report out/
      webseg dedup urls.txt --strip none            # clusters as JSON lines on stdout
      webseg dedup crawl.warc.gz --no-render --report out/   # no browser
    """
    from dedup.run import run_items
    from dedup.shingle import ShingleParams
    from dedup.strip import Item, Stripper
    from webseg.inputs import iter_inputs, parse_inputs, render_inputs
    from webseg.pipeline.process import PARSED_SEGMENTER, needs_layout
    from webseg.segmenters import available

    if segmenter is None:
        segmenter = PARSED_SEGMENTER if no_render else "gcuts"
    if no_render and (strip in ("pagelevel", "sitelevel")
                      or (strip == "largest" and needs_layout(segmenter))):
        what = f"--segmenter {segmenter}" if strip == "largest" else f"--strip {strip}"
        raise click.UsageError(f"--no-render: {what} needs layout (use --strip blocks, none, "
                               f"extractor, or largest with {PARSED_SEGMENTER} or dom)")

    try:
        params = ShingleParams(window=window, k=k, threshold=threshold)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    if strip == "largest" and segmenter not in available():
        raise click.UsageError(f"unknown segmenter {segmenter!r} (see `webseg algos`)")
    if not 0.0 < lsh_threshold < 1.0:
        raise click.UsageError("--lsh-threshold must be in (0, 1)")
    storage = _storage(lsh_redis, lsh_basename)
    for a in inputs:
        if not (a.startswith(("http://", "https://")) or Path(a).exists()):
            raise click.UsageError(f"no such file or directory: {a}")
    try:
        stripper = Stripper(strip, segmenter=segmenter, theta=theta)
    except RuntimeError as e:
        raise click.UsageError(str(e)) from None

    failed: dict[str, str] = {}
    records = list(iter_inputs(list(inputs)))
    if not records:
        raise click.UsageError("no pages found in the inputs")
    opts = {"timeout": timeout, "javascript": javascript, "max_nodes": max_nodes}
    if no_render:
        rendered = parse_inputs(records, max_nodes)
    else:
        rendered = (render_inputs(records, concurrency, renderer=RENDERER)
                    if RENDERER is not None else render_inputs(records, concurrency, **opts))
    skipped: dict[str, int] = {}

    bar = progress_bar(total=len(records), desc="dedup", unit="page")

    from webseg.clean.run import page_url

    def items() -> Iterator[tuple[str, Item, str]]:
        for rec, page, error in rendered:
            bar.update(1)
            if rec.skipped:  # a WARC's redirect, error page, revisit or non-HTML record
                why = (error or "").split(" (", 1)[0].split(" ->", 1)[0]
                skipped[why] = skipped.get(why, 0) + 1
                continue
            if error is not None or page is None:
                failed[rec.id] = error or "render: no page"
                _err(f"{rec.id}: {failed[rec.id]}")
                continue
            html = None
            if strip == "extractor" and rec.kind != "url":
                try:
                    html = rec.read_bytes()
                except (OSError, ValueError) as e:
                    failed[rec.id] = f"read: {e}"
                    _err(f"{rec.id}: read: {e}")
                    continue
            # the address the page result gives (webseg clean, the pipeline): the record's
            # URL, a local file's canonical URL, else its own file:// URI
            url = page_url(rec, page, None)
            yield rec.id, Item(page=page, html=html, url=url,
                               site=site_of(url, rec.id, rec.kind, site_key)), page.title

    run = run_items(items(), stripper, params, candidates, num_perm, lsh_threshold, storage,
                    on_error=lambda rid, msg: _err(f"{rid}: {msg}"))
    bar.close()
    failed.update(run.failed)
    run.failed = failed
    for note, n in run.notes.items():
        if not is_quiet():
            click.echo(f"webseg: note: {note}: {n} page(s)", err=True)
    for why, n in sorted(skipped.items()):
        if not is_quiet():
            click.echo(f"webseg: note: skipped (not a page): {why}: {n} record(s)", err=True)
    result, infos = run.result, run.pages
    if report:
        meta = {"strip": strip, "segmenter": segmenter if strip == "largest" else None,
                "candidates": candidates, "num_perm": num_perm, "lsh_threshold": lsh_threshold}
        summary = run.report(report, **meta)
        click.echo(f"{summary['pages']} pages, {summary['failed']} failed, "
                   f"{summary['duplicate_pairs']} duplicate pairs in {summary['clusters']} "
                   f"clusters -> {Path(report) / 'report.html'}", err=True)
    else:
        for c, members in enumerate(result.clusters):
            click.echo(json.dumps({"cluster": c, "pages": [
                {"id": m, "url": infos[m].url, "title": infos[m].title} for m in members]},
                ensure_ascii=False))
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


COMMANDS = [dedup]
