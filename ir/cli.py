"""``webseg index`` and ``webseg search``: build a page index and query it from the shell.

Exit codes as everywhere in webseg: 0 ok, 1 some input failed (indexed text-only when its
HTML still parses, else reported and not indexed) or the index is corrupt, 2 usage error
(unknown index path, empty query, bad option).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from webseg.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, _err, with_render_opts
from webseg.cliopts import renamed, takes_alias
from webseg.progress import is_quiet, quiet_option

#: feedback parameter name -> type, for ``-P key=value``
_PARAM_TYPES = {"fb_docs": int, "fb_terms": int, "orig_weight": float, "max_df_ratio": float,
                "fb_pages": int, "fb_blocks": int, "min_block_terms": int,
                "page_weight": float, "min_block_weight": float, "weight_power": float,
                "idf_power": float, "score_power": float, "repeat_pages": int}


def _warn(msg: str) -> None:
    click.echo(f"webseg: warning: {msg}", err=True)


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


#: Input file names read as text collections (one JSON document per line, or a JSON array).
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson")


def _is_text_collection(path: str) -> bool:
    """A JSON-lines / JSON file, or a folder holding only such files (an Anserini collection
    folder): indexed as text documents, never rendered as a web page."""
    import os

    if os.path.isdir(path):
        names = [n for n in os.listdir(path) if not n.startswith(".")]
        return bool(names) and all(n.lower().endswith(JSONL_SUFFIXES) for n in names)
    return path.lower().endswith(JSONL_SUFFIXES)


def _collection_files(path: str) -> list[str]:
    import os

    if os.path.isdir(path):
        return sorted(os.path.join(path, n) for n in os.listdir(path)
                      if n.lower().endswith(JSONL_SUFFIXES))
    return [path]


def _records(path: str) -> Any:
    """(line number, JSON value) of a JSON-lines file, or of the items of a JSON array."""
    import gzip
    import itertools

    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        first = f.readline()
        skipped = 0
        while first and not first.strip():
            first, skipped = f.readline(), skipped + 1
        if first.lstrip().startswith("["):  # pyserini's JsonCollection: a JSON array per file
            try:
                items = json.loads(first + f.read())
            except json.JSONDecodeError as e:
                raise click.UsageError(f"{path}: not a JSON array ({e})") from None
            yield from enumerate(items, 1)
            return
        for ln, line in enumerate(itertools.chain([first], f), skipped + 1):
            if line.strip():
                yield ln, _loads(path, ln, line)


def _loads(path: str, ln: int, line: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as e:
        raise click.UsageError(f"{path}:{ln}: not a JSON record ({e})") from None


def _jsonl_docs(path: str, an: Any, warn: Any = None, surface: bool = False) -> Any:
    """Documents of a text collection: ``docs.jsonl`` records (``id``, ``title``, ``text``) or
    Anserini ``JsonCollection`` records (``id``, ``contents``; pyserini's ``docid`` too).
    A document with no text is indexed (its id stays known) and reported through ``warn``.
    ``surface``: with their unstemmed terms (an index with a surface field)."""
    from ir.pipeline import doc_from_text
    from webseg.lang import identify_many

    for chunk in _chunks(_records(path), 512):  # languages of 512 texts in one pass
        rows = []
        for ln, r in chunk:
            if not isinstance(r, dict) or ("id" not in r and "docid" not in r):
                raise click.UsageError(f"{path}:{ln}: a document needs an id (docs.jsonl: "
                                       "id, title, text; JsonCollection: id, contents)")
            text = r.get("text")
            if text is None:
                text = r.get("contents")
            rows.append((ln, str(r["id"] if "id" in r else r["docid"]),
                         "" if text is None else str(text), str(r.get("title") or ""),
                         [r["lang"]] if isinstance(r.get("lang"), str) else [], r.get("url")))
        langs = identify_many([text or title for _, _, text, title, _, _ in rows],
                              [hints for *_, hints, _ in rows])
        for (ln, did, text, title, hints, url), lang in zip(rows, langs, strict=True):
            doc = doc_from_text(did, text, an, title=title, url=url, lang_hints=hints,
                                surface=surface, language=lang)
            if doc.status != "ok" and warn is not None:
                warn(f"{path}:{ln}: document {did}: no text to index ({doc.reason}); "
                     "fields read: text or contents, and title")
            yield doc


def _chunks(items: Any, n: int) -> Any:
    import itertools

    it = iter(items)
    while chunk := list(itertools.islice(it, n)):
        yield chunk


def _note(message: str) -> None:
    """A summary line on stderr, left out with ``-q`` (errors are always shown)."""
    if not is_quiet():
        click.echo(message, err=True)


@click.command("index")
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", required=True, help="Index directory to create (or add to).")
@click.option("--backend", type=click.Choice(["bm25", "lucene"]), default="bm25",
              show_default=True, help="Embedded BM25, or Lucene via pyserini.")
@click.option("--segmenter", "sources", default=None,
              help="Block source(s) stored per page, comma-separated: vips, dom, gcuts, wps, "
                   "pagelevel, windows or any registered segmenter. Windows are always kept. "
                   "Default: vips; blockfusion with --no-render.")
@click.option("--input-format", "fmt", type=click.Choice(["auto", "html", "jsonl"]),
              default="auto", show_default=True, callback=takes_alias("fmt"),
              help="html: pages, directories, WARC, URL lists; jsonl: text collections "
                   "(docs.jsonl with id, title, text, or Anserini JsonCollection with id, "
                   "contents); auto: jsonl for .jsonl/.json(.gz) files and folders of them, "
                   "else html.")
@renamed("--format", "--input-format", "fmt", type=click.Choice(["auto", "html", "jsonl"]))
@click.option("--append", is_flag=True, help="Add to an existing index (incremental).")
@click.option("--overwrite", is_flag=True, help="Replace an existing index.")
@click.option("--stemmer", type=click.Choice(["porter", "english", "none"]), default="porter",
              show_default=True,
              help="Stemmer of Latin-script words (taken as English): porter (Lucene's "
                   "PorterStemFilter) or english (Porter2/Snowball); Cyrillic, Greek, Arabic "
                   "and other scripts get their language's Snowball stemmer, Chinese, Japanese "
                   "and Korean character bigrams; none turns every stemmer off.")
@click.option("--stopwords", type=click.Choice(["nltk", "lucene", "none"]), default="nltk",
              show_default=True,
              help="Stop words of Latin-script words: nltk (NLTK's English list, 179 words) "
                   "or lucene (Lucene's English set, 33); the other scripts' languages get "
                   "their own list; none keeps every word in every language.")
@click.option("--fields", "fields_opt", default="default", show_default=True,
              help="What a page is scored by: 'default' (content-aware: title, main text and "
                   "the rest of the page as weighted fields, weights chosen on the dev "
                   "collection; for --input-format jsonl, whole documents), 'page' (whole page "
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
@click.option("--surface", default=None, type=float,
              help="Weight of the surface field (unstemmed terms: an exact word form scores "
                   "beside its stem) of a text collection indexed as whole documents "
                   "(default 0.5 there; 0 turns it off; pages have none).")
@click.option("-c", "--concurrency", default=3, show_default=True, help="Pages rendered at once.")
@click.option("--no-render", "no_render", is_flag=True,
              help="Parse pages without a browser (no Chromium needed): blocks and passages "
                   "from blockfusion (layout-free), main-text fields from the block model; "
                   "reads files and WARC records, not URLs.")
@quiet_option
@with_render_opts
def index_cmd(inputs: tuple[str, ...], output: str, backend: str, sources: str | None,
              fmt: str, append: bool, overwrite: bool, stemmer: str, stopwords: str,
              fields_opt: str, passages: bool, repeats: bool, k1: float | None,
              b: float | None, surface: float | None, concurrency: int, no_render: bool,
              timeout: float,
              javascript: bool | None, max_nodes: int) -> None:
    """Index pages: render and segment each once, store its blocks beside the index.

    \b
    Examples:
      webseg index pages/ -o idx                        # vips blocks, embedded BM25
      webseg index crawl.warc.gz -o idx --segmenter vips,dom
      webseg index crawl.warc.gz -o idx --no-render     # no browser (blockfusion blocks)
      webseg index more/ -o idx --append                # incremental add
      webseg index docs.jsonl --input-format jsonl -o idx --backend lucene
      webseg index out/ -o idx --backend lucene         # a pipeline / spark output folder
    """
    from ir import Analyzer, Index
    from ir.blocks import SOURCES
    from ir.index import (
        DEFAULT_B,
        DEFAULT_K1,
        DEFAULT_PASSAGES,
        DEFAULT_REPEATS,
        TEXT_B,
        TEXT_K1,
        TEXT_SURFACE,
    )
    from ir.store import IndexCorruptError, IndexNotFoundError

    if append and overwrite:
        raise click.UsageError("--append and --overwrite exclude each other")
    if fmt == "auto":
        kinds = {_is_text_collection(p) for p in inputs}
        if len(kinds) > 1:
            raise click.UsageError("inputs mix text collections (.jsonl/.json) and pages: "
                                   "index them in two runs (the second with --append)")
        fmt = "jsonl" if kinds == {True} else "html"
    if no_render:  # the pipeline and the segmenter registry load only when needed (start-up)
        from webseg.pipeline.process import PARSED_SEGMENTER, needs_layout
    if sources is None:
        sources = PARSED_SEGMENTER if no_render else "vips"
    srcs = [s.strip() for s in sources.split(",") if s.strip()]
    if no_render and (bound := [s for s in srcs if needs_layout(s)]):
        raise click.UsageError(f"--no-render: block source(s) {', '.join(bound)} need layout; "
                               f"use {PARSED_SEGMENTER}, dom or windows")
    pas = dict(DEFAULT_PASSAGES)
    if no_render and pas["source"] not in srcs:
        pas["source"] = srcs[0]  # the tuned source needs layout: the first layout-free one
    if any(s not in SOURCES for s in srcs):  # importing every segmenter costs 0.2 s
        from webseg.segmenters import available

        known = set(SOURCES) | set(available())
    else:
        known = set(SOURCES)
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
        # text collections as whole documents: their own BM25 defaults and a surface field
        whole_text = fmt == "jsonl" and fields_opt in ("default", "page")
        if surface is not None and surface < 0:
            raise click.UsageError("--surface must be >= 0")
        if surface and not whole_text:
            raise click.UsageError("--surface: only for text collections indexed as whole "
                                   "documents (--input-format jsonl, --fields default or page)")
        if append:
            ix = Index.open(output)
        else:
            ix = Index.create(output, backend=backend, sources=srcs, overwrite=overwrite,
                              analyzer=Analyzer(stopwords=stopwords, stemmer=stemmer),
                              k1=(TEXT_K1 if whole_text else DEFAULT_K1) if k1 is None else k1,
                              b=(TEXT_B if whole_text else DEFAULT_B) if b is None else b,
                              surface=(TEXT_SURFACE if whole_text else 0.0) if surface is None
                              else surface,
                              fields=None if whole_text else _parse_fields(fields_opt),
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
        empty = 0

        def warn(msg: str) -> None:
            nonlocal empty
            empty += 1
            if empty <= 20:
                _warn(msg)

        for p in [f for i in inputs for f in _collection_files(i)]:
            before = empty
            try:
                n = ix.add(_jsonl_docs(p, ix.analyzer, warn, surface=ix.surface > 0))
            except OSError as e:
                _err(f"{p}: read: {e}")
                failed += 1
                continue
            note = f" ({empty - before} without text)" if empty > before else ""
            _note(f"{p}: {n} documents{note}")
        if empty > 20:
            _warn(f"{empty} documents without text in all ({empty - 20} not listed)")
    else:
        from ir.pipeline import index_paths
        from webseg.progress import progress_bar

        with progress_bar(desc="index", unit="page") as bar:
            rep = index_paths(ix, list(inputs), ix.sources, concurrency=concurrency,
                              log=lambda m: _err(m), timeout=timeout, render=not no_render,
                              javascript=javascript, max_nodes=max_nodes,
                              progress=bar)
        failed = len(rep.failures or [])
        _note(f"indexed {rep.added} pages ({rep.text_only} text-only, {rep.empty} empty"
              f"{f'; {rep.skipped} WARC records skipped: not pages' if rep.skipped else ''})"
              f"{f'; {rep.failed} failed, not indexed' if rep.failed else ''}")
    stored = ("text documents, no blocks" if fmt == "jsonl"
              else f"blocks {','.join(ix.sources)}")
    _note(f"{output}: {len(ix)} documents, backend {ix.backend_name}, {stored}")
    rs = ix.repeat_stats()
    if rs is not None and not is_quiet():
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
    _note(f"{output}: {n} documents from {folder} (no rendering), backend {backend}")
    sys.exit(EXIT_OK)


@click.command("search")
@click.argument("index")
@click.argument("query", required=False)
@click.option("--prf", type=click.Choice(["none", "rm3", "blocks", "anserini-rm3"]),
              default="none", show_default=True,
              help="Pseudo-relevance feedback (rm3, blocks: parameters chosen by their "
                   "worst case on the dev collections; -P changes them).")
@click.option("-k", "--hits", "k", default=None, type=click.IntRange(1, 100_000),
              help="Pages to return per query (default 10; 1000 with --topics).")
@click.option("--source", default=None,
              help="Block source for --prf blocks and snippets (default: the index's first).")
@click.option("-P", "--param", "params", multiple=True, metavar="KEY=VALUE",
              help="Feedback parameter, e.g. -P fb_pages=80 -P fb_blocks=20 -P fb_terms=10.")
@click.option("--format", "--output-format", "fmt", default=None,
              type=click.Choice(["text", "json", "trec", "msmarco"]),
              help="Output: text (default for one query), json (one query: the hits with "
                   "snippets and their query-term offsets; --topics: one JSON line per topic), "
                   "trec (default with --topics: qid Q0 docid rank score tag) or msmarco.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--collapse/--no-collapse", default=True, show_default=True,
              help="Fold pages with the same main text (and, in an index of a pipeline's "
                   "output, the same duplicate cluster) into the best-scoring one, listing "
                   "the others under it. Runs (--topics) are never collapsed.")
@click.option("--topics", type=click.Path(dir_okay=False),
              help="Topics file (qid<TAB>query .tsv/.txt, .jsonl with qid and query, or .json;"
                   " as pyserini reads them): writes a run instead of showing hits.")
@click.option("--output", type=click.Path(dir_okay=False),
              help="Run file to write with --topics (default: standard output).")
@click.option("--run-tag", default="webseg", show_default=True,
              help="The run's name in the last column of a TREC run.")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1, 256),
              help="Topics searched at once (embedded backend).")
@click.option("--batch-size", default=64, show_default=True, type=click.IntRange(1, 100_000),
              help="Topics handed to the threads at a time.")
def search_cmd(index: str, query: str | None, prf: str, k: int | None, source: str | None,
               params: tuple[str, ...], fmt: str | None, as_json: bool, collapse: bool,
               topics: str | None, output: str | None, run_tag: str, threads: int,
               batch_size: int) -> None:
    """Search an index; each hit shows its best-matching main-text passage as the snippet.

    \b
    Examples:
      webseg search idx "crystalline lens"
      webseg search idx "crystalline lens" --prf blocks -P fb_blocks=10 --json
      webseg search idx --topics topics.tsv --output run.txt --run-tag bm25 --threads 2
    """
    from ir import EmptyQueryError, Index
    from ir.feedback import BEST_BLOCKS, BEST_RM3
    from ir.store import IndexCorruptError, IndexNotFoundError

    if as_json:
        if fmt not in (None, "json"):
            raise click.UsageError("--json and --format exclude each other")
        fmt = "json"
    if topics is None:
        if query is None:
            raise click.UsageError("give a QUERY, or --topics FILE for a run")
        if fmt in ("trec", "msmarco"):
            raise click.UsageError(f"--format {fmt} writes a run: use it with --topics")
        if output is not None:
            raise click.UsageError("--output writes a run: use it with --topics")
    elif query is not None:
        raise click.UsageError("give a QUERY or --topics, not both")
    elif fmt == "text":
        raise click.UsageError("--topics writes a run: --format trec, msmarco or json")
    kw = _parse_params(params)
    if prf == "blocks":
        kw = {**BEST_BLOCKS, **kw}  # the best measured configuration unless -P says otherwise
        if source:
            kw["source"] = source
    elif prf == "rm3":
        kw = {**BEST_RM3, **kw}
    try:
        ix = Index.open(index)
    except IndexNotFoundError as e:
        _err(str(e) + _index_hint(index))
        sys.exit(EXIT_USAGE)
    except IndexCorruptError as e:
        _err(f"{index}: open: {e}")
        sys.exit(EXIT_FAILED)
    if prf == "blocks" and kw["source"] not in (*ix.sources, "windows"):
        kw["source"] = "windows"  # the tuned source is not stored here: windows always are
    if topics is not None:
        _run_topics(ix, topics, output, fmt or "trec", run_tag, k or 1000, threads, batch_size,
                    prf, kw)
        return
    assert query is not None
    try:
        res = ix.search(query, k=k or 10, prf=prf, snippet_source=source, collapse=collapse,
                        **kw)
    except EmptyQueryError as e:
        _err(str(e))
        sys.exit(EXIT_USAGE)
    except IndexCorruptError as e:
        _err(f"{index}: search: {e}")
        sys.exit(EXIT_FAILED)
    except (ValueError, ImportError) as e:
        raise click.UsageError(str(e)) from None
    if fmt == "json":
        click.echo(json.dumps(res.to_dict(), ensure_ascii=False, indent=1))
        return
    if prf != "none" and res.expanded:
        top = sorted(res.expanded.items(), key=lambda kv: -kv[1])
        click.echo("expanded: " + " ".join(f"{t}:{w:.3f}" for t, w in top))
    if not res.hits:
        click.echo("no matching pages")
    tty = sys.stdout.isatty()
    for h in res.hits:
        flag = "" if h.status == "ok" else f" [{h.status}]"
        where = h.url or h.id  # a WARC record's id is path#offset: its URL says more
        title = f"  {shorten(h.title)}" if h.title.strip() else ""  # text collections: none
        click.echo(f"{h.rank:3d}. {h.score:8.3f}  {where}{flag}{title}")
        if h.snippet:
            click.echo(f"       {_marked(h.snippet, h.highlights, tty)}")
        if h.duplicates:
            more = len(h.duplicates) - 5
            shown = ", ".join(d["url"] or d["id"] for d in h.duplicates[:5])
            click.echo(f"       also: {shown}{f' and {more} more' if more > 0 else ''}")


def _index_hint(index: str) -> str:
    """Where the index is when ``index`` is a pipeline's or Spark job's output folder.

    ``webseg pipeline -o out`` writes the index to ``out/index``; a user who passes ``out``
    should be told so rather than only that ``out`` is no index.
    """
    from pathlib import Path

    inner = Path(index) / "index"
    if (inner / "index.json").is_file():
        return f" (did you mean {inner}? `webseg pipeline` writes its index there)"
    if (Path(index) / "index_docs").is_dir():
        return f" (a Spark output: build its index with `webseg index {index} -o IDX`)"
    return ""


def shorten(title: str, width: int = 60) -> str:
    """``title`` cut to ``width`` terminal columns, at a word boundary where there is one.

    A wide character (Chinese, Japanese, Korean, full-width forms) takes two columns, so a
    title is cut by what it occupies on screen, not by its length; a cut title ends in "…"
    so it is not mistaken for the whole one.
    """
    import unicodedata

    def cols(ch: str) -> int:
        return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1

    title = " ".join(title.split())
    if sum(cols(c) for c in title) <= width:
        return title
    used, end = 0, 0
    while used + cols(title[end]) <= width - 1:  # one column is left for the ellipsis
        used += cols(title[end])
        end += 1
    cut = title[:end]
    space = cut.rfind(" ")
    if space >= len(cut) // 2:  # a word boundary not too far back: cut there
        cut = cut[:space]
    return cut.rstrip(" -|:,;") + "…"


def _marked(text: str, spans: list[tuple[int, int]], tty: bool) -> str:
    """``text`` with the query-term words in bold on a terminal, else between brackets."""
    out, at = [], 0
    for a, b in spans:
        out.append(text[at:a])
        out.append(click.style(text[a:b], bold=True) if tty else f"[{text[a:b]}]")
        at = b
    out.append(text[at:])
    return "".join(out)


def _run_topics(ix: Any, topics: str, output: str | None, fmt: str, tag: str, k: int,
                threads: int, batch_size: int, prf: str, kw: dict[str, Any]) -> None:
    """``webseg search --topics``: every topic through the one opened index, as a run."""
    import time

    from ir.runs import TopicsError, read_topics, search_topics, write_hits
    from ir.store import IndexCorruptError

    if any(c.isspace() for c in tag):
        raise click.UsageError("--run-tag must not contain white space (a TREC run column)")
    try:
        tops = read_topics(topics)
    except TopicsError as e:
        raise click.UsageError(str(e)) from None
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    t0 = time.perf_counter()
    n = lines = 0
    try:
        for qid, res in search_topics(ix, tops, k, threads, batch_size,
                                      warn=_warn, prf=prf, **kw):
            lines += write_hits(out, qid, res, fmt, tag)
            n += 1
    except IndexCorruptError as e:
        _err(f"{ix.store.path}: search: {e}")
        sys.exit(EXIT_FAILED)
    except (ValueError, ImportError) as e:
        _err(str(e))
        sys.exit(EXIT_FAILED if "white space" in str(e) else EXIT_USAGE)
    finally:
        if output:
            out.close()
    dt = time.perf_counter() - t0
    click.echo(f"{len(tops)} topics, {n} with results, {lines} lines "
               f"({fmt}){' to ' + output if output else ''}; {dt:.2f} s "
               f"({1000 * dt / max(len(tops), 1):.1f} ms/topic)", err=True)


COMMANDS = [index_cmd, search_cmd]
