"""``webseg index`` and ``webseg search``: build a page index and query it from the shell.

Exit codes as everywhere in webseg: 0 ok, 1 some input failed (still indexed text-only, or
unreadable) or the index is corrupt, 2 usage error (unknown index path, empty query, bad option).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from webseg.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, _err

#: feedback parameter name -> type, for ``-P key=value``
_PARAM_TYPES = {"fb_docs": int, "fb_terms": int, "orig_weight": float, "max_df_ratio": float,
                "fb_pages": int, "fb_blocks": int, "min_block_terms": int,
                "page_weight": float, "min_block_weight": float, "weight_power": float,
                "idf_power": float, "score_power": float, "repeat_pages": int}


def _parse_params(params: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params:
        if "=" not in p:
            raise click.UsageError(f"-P needs KEY=VALUE, got {p!r}")
        k, v = p.split("=", 1)
        typ = _PARAM_TYPES.get(k)
        if typ is None:
            raise click.UsageError(f"unknown feedback parameter {k!r}; known: "
                                   f"{', '.join(sorted(_PARAM_TYPES))}")
        try:
            out[k] = typ(v)
        except ValueError:
            raise click.UsageError(f"-P {k}: not a {typ.__name__}: {v!r}") from None
    return out


def _parse_fields(spec: str) -> dict[str, float] | None:
    """``default`` -> DEFAULT_FIELDS, ``page`` -> None, else ``name=weight,...``."""
    from ir.content import FIELDS
    from ir.index import DEFAULT_FIELDS

    if spec == "default":
        return dict(DEFAULT_FIELDS)
    if spec == "page":
        return None
    out: dict[str, float] = {}
    for part in spec.split(","):
        name, _, w = part.partition("=")
        name = name.strip()
        if name not in FIELDS:
            raise click.UsageError(f"--fields: unknown field {name!r}; use {', '.join(FIELDS)}")
        try:
            out[name] = float(w)
        except ValueError:
            raise click.UsageError(f"--fields {name}: not a number: {w!r}") from None
    return out


def _jsonl_docs(path: str, an: Any) -> Any:
    """Documents of a ``docs.jsonl`` text collection (id, title, text), for --format jsonl."""
    from ir.pipeline import doc_from_text

    with open(path, encoding="utf-8", errors="replace") as f:
        for ln, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                yield doc_from_text(str(r["id"]), str(r.get("text", "")), an,
                                    title=str(r.get("title") or ""), url=r.get("url"))
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise click.UsageError(f"{path}:{ln}: not a docs.jsonl record ({e})") from None


@click.command("index")
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", required=True, help="Index directory to create (or add to).")
@click.option("--backend", type=click.Choice(["bm25", "lucene"]), default="bm25",
              show_default=True, help="Embedded rank-bm25, or Lucene via pyserini.")
@click.option("--segmenter", "sources", default=None,
              help="Block source(s) stored per page, comma-separated: vips, dom, gcuts, wps, "
                   "pagelevel, windows or any registered segmenter. Windows are always kept. "
                   "Default: vips; blockfusion with --no-render.")
@click.option("--format", "fmt", type=click.Choice(["html", "jsonl"]), default="html",
              show_default=True, help="html: pages, directories, WARC, URL lists; jsonl: "
                                      "text collections (docs.jsonl with id, title, text).")
@click.option("--append", is_flag=True, help="Add to an existing index (incremental).")
@click.option("--overwrite", is_flag=True, help="Replace an existing index.")
@click.option("--stemmer", type=click.Choice(["porter", "english", "none"]), default="porter",
              show_default=True)
@click.option("--stopwords", type=click.Choice(["nltk", "lucene", "none"]), default="nltk",
              show_default=True)
@click.option("--fields", "fields_opt", default="default", show_default=True,
              help="What a page is scored by: 'default' (content-aware: title, main text and "
                   "the rest of the page as weighted fields, weights chosen on the dev "
                   "collection; for --format jsonl, whole documents), 'page' (whole page "
                   "text), or weights such as 'title=1,main=1,rest=0.25'.")
@click.option("--passages/--no-passages", default=True, show_default=True,
              help="Add each page's best content block score (passage evidence; the blocks "
                   "of the tuned source, which must be among --segmenter, else windows).")
@click.option("--repeats/--no-repeats", default=True, show_default=True,
              help="With fields: main-text leaves found on several pages of the index count "
                   "as the rest of the page (a template's text the main-content model "
                   "kept; ir.repeats).")
@click.option("--k1", default=None, type=float, help="BM25 k1 (default: the tuned value).")
@click.option("--b", "b", default=None, type=float, help="BM25 b (default: the tuned value).")
@click.option("--concurrency", default=2, show_default=True, help="Pages rendered at once.")
@click.option("--timeout", default=30.0, show_default=True, help="Per-page time limit (s).")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse pages without a browser (no Chromium needed): blocks and passages "
                   "from blockfusion (layout-free), main-text fields from the block model; "
                   "reads files and WARC records, not URLs.")
def index_cmd(inputs: tuple[str, ...], output: str, backend: str, sources: str | None,
              fmt: str, append: bool, overwrite: bool, stemmer: str, stopwords: str,
              fields_opt: str, passages: bool, repeats: bool, k1: float | None,
              b: float | None, concurrency: int, timeout: float, no_render: bool) -> None:
    """Index pages: render and segment each once, store its blocks beside the index.

    \b
    Examples:
      webseg index pages/ -o idx                        # vips blocks, embedded BM25
      webseg index crawl.warc.gz -o idx --segmenter vips,dom
      webseg index crawl.warc.gz -o idx --no-render     # no browser (blockfusion blocks)
      webseg index more/ -o idx --append                # incremental add
      webseg index docs.jsonl --format jsonl -o idx --backend lucene
      webseg index out/ -o idx --backend lucene         # a pipeline / spark output folder
    """
    from ir import Analyzer, Index
    from ir.blocks import SOURCES
    from ir.index import DEFAULT_B, DEFAULT_K1, DEFAULT_PASSAGES, DEFAULT_REPEATS
    from ir.store import IndexCorruptError, IndexNotFoundError
    from webseg.pipeline.process import PARSED_SEGMENTER, needs_layout
    from webseg.segmenters import available

    if append and overwrite:
        raise click.UsageError("--append and --overwrite exclude each other")
    if sources is None:
        sources = PARSED_SEGMENTER if no_render else "vips"
    srcs = [s.strip() for s in sources.split(",") if s.strip()]
    if no_render and (bound := [s for s in srcs if needs_layout(s)]):
        raise click.UsageError(f"--no-render: block source(s) {', '.join(bound)} need layout; "
                               f"use {PARSED_SEGMENTER}, dom or windows")
    pas = dict(DEFAULT_PASSAGES)
    if no_render and pas["source"] not in srcs:
        pas["source"] = srcs[0]  # the tuned source needs layout: the first layout-free one
    known = set(SOURCES) | set(available())
    for s in srcs:
        if s not in known:
            raise click.UsageError(f"unknown block source {s!r}; use one of "
                                   f"{', '.join(sorted(SOURCES))} or a registered segmenter")
    if fmt == "html" and len(inputs) == 1:
        from ir.from_output import is_output_folder

        if is_output_folder(inputs[0]):
            _index_output_folder(inputs[0], output, backend, overwrite, append, stemmer,
                                 stopwords, k1, b)
            return
    try:
        if append:
            ix = Index.open(output)
        else:
            ix = Index.create(output, backend=backend, sources=srcs, overwrite=overwrite,
                              analyzer=Analyzer(stopwords=stopwords, stemmer=stemmer),
                              k1=DEFAULT_K1 if k1 is None else k1,
                              b=DEFAULT_B if b is None else b,
                              fields=None if fmt == "jsonl" and fields_opt == "default"
                              else _parse_fields(fields_opt),
                              passages=pas if passages and fmt == "html" else None,
                              repeats=DEFAULT_REPEATS if repeats and fmt == "html" else None)
    except (FileExistsError, NotADirectoryError, IndexNotFoundError) as e:
        raise click.UsageError(f"{e} (use --append or --overwrite)" if isinstance(
            e, FileExistsError) else str(e)) from None
    except IndexCorruptError as e:
        _err(f"{output}: open: {e}")
        sys.exit(EXIT_FAILED)
    except (ImportError, ValueError) as e:
        raise click.UsageError(str(e)) from None
    if no_render and fmt == "html" and (bound := [s for s in ix.sources if needs_layout(s)]):
        raise click.UsageError(f"--no-render: {output} stores block source(s) "
                               f"{', '.join(bound)}, which need layout; add rendered pages, "
                               "or parsed pages to an index of layout-free sources")
    failed = 0
    if fmt == "jsonl":
        for p in inputs:
            try:
                n = ix.add(_jsonl_docs(p, ix.analyzer))
            except OSError as e:
                _err(f"{p}: read: {e}")
                failed += 1
                continue
            click.echo(f"{p}: {n} documents", err=True)
    else:
        from ir.pipeline import index_paths

        rep = index_paths(ix, list(inputs), ix.sources, concurrency=concurrency,
                          log=lambda m: _err(m), timeout=timeout, render=not no_render)
        failed = len(rep.failures or [])
        click.echo(f"indexed {rep.added} pages ({rep.text_only} text-only, {rep.empty} empty"
                   f"{f'; {rep.skipped} WARC records skipped: not pages' if rep.skipped else ''})",
                   err=True)
    click.echo(f"{output}: {len(ix)} documents, backend {ix.backend_name}, "
               f"blocks {','.join(ix.sources)}", err=True)
    rs = ix.repeat_stats()
    if rs is not None:
        click.echo(f"{output}: {rs[0]} main-text leaf texts found on "
                   f">= {ix.repeats['min_pages']} pages count as template ({rs[1]} pages)",
                   err=True)
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


def _index_output_folder(folder: str, output: str, backend: str, overwrite: bool, append: bool,
                         stemmer: str, stopwords: str, k1: float | None, b: float | None
                         ) -> None:
    """``webseg index OUT/`` on a `webseg pipeline` / `webseg spark` output folder: index the
    documents its per-page stage stored (no rendering; see :mod:`ir.from_output`)."""
    import os

    from ir import Analyzer
    from ir.from_output import build_from_output
    from ir.index import DEFAULT_B, DEFAULT_K1

    if append:
        raise click.UsageError("--append does not apply to a pipeline output folder: it is "
                               "indexed whole into a new index (use --overwrite to replace)")
    if (stemmer, stopwords) != ("porter", "nltk"):
        raise click.UsageError("a pipeline output folder holds terms analysed with the default "
                               "analyzer; --stemmer/--stopwords cannot change them")
    try:
        n = build_from_output(folder, output, backend=backend, analyzer=Analyzer(),
                              k1=DEFAULT_K1 if k1 is None else k1,
                              b=DEFAULT_B if b is None else b,
                              overwrite=overwrite, threads=os.cpu_count() or 1)
    except FileExistsError as e:
        raise click.UsageError(f"{e} (use --overwrite)") from None
    except (ImportError, ValueError) as e:
        raise click.UsageError(str(e)) from None
    except RuntimeError as e:
        _err(f"{folder}: index: {e}")
        sys.exit(EXIT_FAILED)
    click.echo(f"{output}: {n} documents from {folder} (no rendering), backend {backend}",
               err=True)
    sys.exit(EXIT_OK)


@click.command("search")
@click.argument("index")
@click.argument("query")
@click.option("--prf", type=click.Choice(["none", "rm3", "blocks", "anserini-rm3"]),
              default="none", show_default=True, help="Pseudo-relevance feedback.")
@click.option("-k", default=10, show_default=True, type=click.IntRange(1, 100_000),
              help="Pages to return.")
@click.option("--source", default=None,
              help="Block source for --prf blocks and snippets (default: the index's first).")
@click.option("-P", "--param", "params", multiple=True, metavar="KEY=VALUE",
              help="Feedback parameter, e.g. -P fb_pages=80 -P fb_blocks=20 -P fb_terms=10.")
@click.option("--json", "as_json", is_flag=True, help="JSON output (hits, expanded query).")
def search_cmd(index: str, query: str, prf: str, k: int, source: str | None,
               params: tuple[str, ...], as_json: bool) -> None:
    """Search an index; each hit shows its best-matching block as the snippet.

    \b
    Examples:
      webseg search idx "crystalline lens"
      webseg search idx "crystalline lens" --prf blocks -P fb_blocks=10 --json
    """
    from ir import EmptyQueryError, Index
    from ir.feedback import BEST_BLOCKS
    from ir.store import IndexCorruptError, IndexNotFoundError

    kw = _parse_params(params)
    if prf == "blocks":
        kw = {**BEST_BLOCKS, **kw}  # the best measured configuration unless -P says otherwise
        if source:
            kw["source"] = source
    try:
        ix = Index.open(index)
    except IndexNotFoundError as e:
        _err(str(e))
        sys.exit(EXIT_USAGE)
    except IndexCorruptError as e:
        _err(f"{index}: open: {e}")
        sys.exit(EXIT_FAILED)
    if prf == "blocks" and kw["source"] not in (*ix.sources, "windows"):
        kw["source"] = "windows"  # the tuned source is not stored here: windows always are
    try:
        res = ix.search(query, k=k, prf=prf, snippet_source=source, **kw)
    except EmptyQueryError as e:
        _err(str(e))
        sys.exit(EXIT_USAGE)
    except IndexCorruptError as e:
        _err(f"{index}: search: {e}")
        sys.exit(EXIT_FAILED)
    except (ValueError, ImportError) as e:
        raise click.UsageError(str(e)) from None
    if as_json:
        click.echo(json.dumps(res.to_dict(), ensure_ascii=False, indent=1))
        return
    if prf != "none" and res.expanded:
        top = sorted(res.expanded.items(), key=lambda kv: -kv[1])
        click.echo("expanded: " + " ".join(f"{t}:{w:.3f}" for t, w in top))
    if not res.hits:
        click.echo("no matching pages")
    for h in res.hits:
        flag = "" if h.status == "ok" else f" [{h.status}]"
        where = h.url or h.id  # a WARC record's id is path#offset: its URL says more
        click.echo(f"{h.rank:3d}. {h.score:8.3f}  {where}{flag}  {h.title[:60]}")
        if h.snippet:
            click.echo(f"       {h.snippet}")


COMMANDS = [index_cmd, search_cmd]
