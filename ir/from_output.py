"""Build an index from what the indexing pipeline already computed: no rendering, no browser.

The per-page stage of ``webseg pipeline`` and of ``webseg spark`` stores each page's index
entry (``index_doc``: the :class:`~ir.store.StoredDoc` of :func:`ir.pipeline.doc_from_page`,
i.e. analysed terms, title, URL and the stored blocks of every block source) in its output:

* a ``webseg pipeline`` folder: the journal ``OUT/work/pages.jsonl``, one line per record;
* a ``webseg spark`` folder: ``OUT/index_docs/part-*`` (one stored document per line) and
  ``OUT/lucene_docs/part-*`` (Anserini ``JsonCollection`` lines: ``id`` and the analysed
  terms as pre-tokenised ``contents``); ``OUT/pages.parquet`` has the same entry in its
  ``index_doc`` column.

:func:`build_from_output` streams those documents into a new index with a bounded number of
documents in memory (:class:`IndexBuilder` writes store shards of ``shard_docs``). For the
``lucene`` backend the block store is written the same way and the Lucene index is built by
Anserini's multi-threaded ``IndexCollection`` over ``JsonCollection`` files (``-threads``,
``-pretokenized``, ``-storeDocvectors``), run in a child process through pyserini's jars, so
the result is what :class:`ir.lucene.LuceneBackend` builds document by document.

Documents are added in a deterministic order whatever the output's partitioning: the
pipeline's input order (journal order), or for Spark part files the natural order of the
record ids (``path#offset`` by path, then numeric offset), which is the single-machine input
order for WARC input. Equal documents in equal order give equal ids and scores both ways.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ir.analysis import Analyzer
from ir.store import StoredDoc, block_row
from webseg import fastjson

__all__ = ["IndexBuilder", "build_from_output", "duplicate_clusters", "is_output_folder",
           "iter_output_docs", "lucene_contents"]

_ID = re.compile(rb'^\{"id":\s*("(?:[^"\\]|\\.)*")')


def lucene_contents(terms: dict[str, int]) -> str:
    """Pre-tokenised Lucene text of a term vector (each term repeated by its count)."""
    return " ".join(t for t, c in sorted(terms.items()) for _ in range(int(c)))


def natural_key(doc_id: str) -> tuple[str, int, str]:
    """``/a/crawl.warc.gz#1234`` sorts by path, then numeric offset (then the raw id)."""
    head, sep, tail = doc_id.rpartition("#")
    if sep and tail.isdigit():
        return head, int(tail), doc_id
    return doc_id, -1, doc_id


def _part_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("part-*") if p.is_file() and not p.name.endswith(".crc"))


def is_output_folder(path: str | Path) -> str | None:
    """``"pipeline"`` or ``"spark"`` when ``path`` is such an output folder, else ``None``."""
    p = Path(path)
    if (p / "work" / "pages.jsonl").is_file():
        return "pipeline"
    if (p / "index_docs").is_dir() or (p / "pages.parquet").is_dir():
        return "spark"
    return None


def iter_output_docs(path: str | Path) -> Iterator[dict[str, Any]]:
    """Every stored index entry of a pipeline or Spark output folder, in the order above.

    Memory: one id and one file offset per document are kept for the ordering pass; the
    documents themselves are read one at a time.
    """
    p = Path(path)
    kind = is_output_folder(p)
    if kind == "pipeline":
        yield from _pipeline_docs(p / "work" / "pages.jsonl")
    elif kind == "spark":
        if not (p / "index_docs").is_dir():
            raise ValueError(f"{p}: this Spark output has no index_docs/ (it was run without "
                             "the index stage); run `webseg spark` with the index stage")
        yield from _ordered_lines(_part_files(p / "index_docs"))
    else:
        raise ValueError(f"{p}: not a `webseg pipeline` or `webseg spark` output folder")


def _pipeline_docs(journal: Path) -> Iterator[dict[str, Any]]:
    with journal.open("rb") as f:
        for line in f:
            if not line.endswith(b"\n"):
                return
            try:
                rec = json.loads(line)
            except ValueError:
                return
            if rec.get("index_doc"):
                yield rec["index_doc"]


def _ordered_lines(files: list[Path]) -> Iterator[dict[str, Any]]:
    """JSON lines of ``files`` sorted by :func:`natural_key` of their ids (two passes)."""
    where: list[tuple[tuple[str, int, str], int, int]] = []
    for fi, f in enumerate(files):
        pos = 0
        with f.open("rb") as fh:
            for line in fh:
                m = _ID.match(line)
                rid = json.loads(m.group(1)) if m else str(json.loads(line)["id"])
                where.append((natural_key(rid), fi, pos))
                pos += len(line)
    where.sort()
    handles = [f.open("rb") for f in files]
    try:
        for _, fi, pos in where:
            fh = handles[fi]
            fh.seek(pos)
            yield json.loads(fh.readline())
    finally:
        for fh in handles:
            fh.close()


class IndexBuilder:
    """Streams stored documents into a new index directory in bounded memory.

    Uses the index's public pieces: :meth:`ir.index.Index.create` for the manifest (analyzer,
    BM25 parameters, block sources), the store's checksummed shards for documents and blocks
    (``shard_docs`` per shard), and for ``lucene`` a ``JsonCollection`` written beside and
    indexed once at :meth:`close` with Anserini's multi-threaded indexer.
    """

    def __init__(self, path: str | Path, backend: str = "bm25",
                 analyzer: Analyzer | None = None, sources: Iterable[str] = ("vips",),
                 k1: float | None = None, b: float | None = None, overwrite: bool = False,
                 shard_docs: int = 500, threads: int = 2, content: bool = True,
                 passage_source: str | None = None) -> None:
        """``passage_source`` replaces the tuned passage source (vips, which needs layout) for
        collections of parsed pages (``--no-render``: a layout-free segmenter)."""
        from ir.index import (
            DEFAULT_B,
            DEFAULT_FIELDS,
            DEFAULT_K1,
            DEFAULT_PASSAGES,
            DEFAULT_REPEATS,
            Index,
        )

        # The same configuration as `webseg index` on pages (the best measured one, see
        # eval/results/prf/content): tuned BM25 and, on the embedded backend, title/main/rest
        # fields and passage evidence from content blocks. Lucene's bulk JsonCollection path
        # indexes whole-page terms. ``content=False`` scores whole pages on both backends.
        embedded = content and backend == "bm25"
        fields = DEFAULT_FIELDS if embedded else None
        passages = DEFAULT_PASSAGES if embedded else None
        if passages is not None and passage_source is not None:
            passages = {**passages, "source": passage_source}
        if passages is not None and passages.get("source") not in tuple(sources):
            passages = None
        self.index = Index.create(path, backend=backend, analyzer=analyzer,
                                  k1=DEFAULT_K1 if k1 is None else k1,
                                  b=DEFAULT_B if b is None else b,
                                  sources=tuple(sources), overwrite=overwrite, fields=fields,
                                  passages=passages,
                                  repeats=DEFAULT_REPEATS if embedded else None)
        self.path = Path(path)
        self.backend = backend
        self.shard_docs = shard_docs
        self.threads = max(1, threads)
        self.count = 0
        self._pending: list[tuple[StoredDoc, dict[str, list[dict[str, Any]]] | None,
                                  dict[str, bytes] | None]] = []
        self._collection: Path | None = None
        self._files: list[Any] = []
        if backend == "lucene":
            self._collection = Path(tempfile.mkdtemp(prefix="collection-", dir=self.path))
            self._files = [(self._collection / f"docs{i:02d}.json").open("w", encoding="utf-8")
                           for i in range(self.threads)]

    def add(self, doc: StoredDoc | dict[str, Any], *, rows_made: bool = False,
            encoded: tuple[bytes, bytes] | None = None) -> None:
        """Add one document: a :class:`StoredDoc`, or its JSON (``StoredDoc.to_dict``), whose
        blocks then go to the store as rows (:func:`ir.store.block_row`), never as objects.

        ``rows_made``: ``doc`` is the dict :meth:`StoredDoc.to_dict` returned in this process
        (the pipeline's page phase hands over each page's entry as made), so its blocks are
        :meth:`Block.to_dict` rows already - :func:`block_row`'s format, which it would
        rebuild value for value (the box's values are rounded already, and rounding to one
        decimal again gives the same floats) - and they are stored as they are. Why: rebuilding
        ~150 rows a page was a third of the index's share of the collection stage. A dict read
        back from JSON (a resumed journal, another tool's file) goes through
        :func:`block_row`, which also normalises what a writer left out or typed otherwise.

        ``encoded`` (with ``rows_made``): orjson's texts of ``doc``'s fields but its blocks
        and of its blocks, made when its journal line was encoded
        (:func:`webseg.pipeline.collect.journal_line_parts`); the shard lines are then joined
        from them instead of being encoded again (:meth:`ir.store.IndexStore.append_rows`
        says when they are used; the same bytes either way)."""
        rows = None
        lines = None
        if isinstance(doc, StoredDoc):
            d = doc
        else:
            d = StoredDoc.from_dict({**doc, "blocks": {}})
            blocks = doc.get("blocks") or {}
            rows = (dict(blocks) if rows_made else
                    {s: [block_row(b) for b in bl] for s, bl in blocks.items()})
            if rows_made and encoded is not None:
                lines = self._encoded(d, doc, rows, encoded)
                if lines is not None:  # the shards need no more of the page than these
                    d, rows = StoredDoc(id=d.id, terms={},
                                        main_leaves=dict.fromkeys(d.main_leaves)), None
        if self._files:
            f = self._files[self.count % len(self._files)]
            f.write(json.dumps({"id": d.id, "contents": lucene_contents(d.terms)},
                               ensure_ascii=False) + "\n")
        self._pending.append((d, rows, lines))
        self.count += 1
        if len(self._pending) >= self.shard_docs:
            self._flush()

    def _encoded(self, d: StoredDoc, doc: dict[str, Any], rows: dict[str, Any],
                 encoded: tuple[bytes, bytes]) -> dict[str, bytes] | None:
        """The shard lines of a document added with ``encoded`` texts (see :meth:`add`): its
        docs and blocks lines (:func:`_encoded_lines`) and its passages line, encoded now;
        None when they cannot be joined from the texts. Why now: the page's objects can then
        go as soon as it is added (the pending shard holds its lines as bytes, a few times
        smaller than the objects)."""
        joined = _encoded_lines(d, doc, encoded)
        if joined is None:
            return None
        lines = {"docs": joined[0], "blocks": joined[1]}
        store = self.index.store
        if store.passage_settings() is not None:
            lines["passages"] = fastjson.dumps(store.passage_line(d, rows), exact_nan=True)
        return lines

    def _flush(self) -> None:
        if self._pending:
            self.index.store.append_rows(self._pending)
            self._pending = []

    def close(self, lucene_input: Path | None = None) -> int:
        """Write the last shard and build the Lucene index; returns the document count.

        ``lucene_input``: an existing ``JsonCollection`` folder (Spark's ``lucene_docs/``)
        to index instead of the one written while adding.
        """
        self._flush()
        for f in self._files:
            f.close()
        if self.backend == "lucene":
            try:
                run_anserini(lucene_input or self._collection, self.path / "lucene",
                             self.threads)
            finally:
                if self._collection is not None:
                    shutil.rmtree(self._collection, ignore_errors=True)
        return self.count


def _encoded_lines(d: StoredDoc, doc: dict[str, Any], encoded: tuple[bytes, bytes]
                   ) -> tuple[bytes, bytes] | None:
    """The document line and the blocks line of the shards, as
    :meth:`ir.store.IndexStore.append_rows` would encode them, joined from ``encoded`` (the
    texts of ``doc``'s fields and blocks); None when they might differ: the stored head is not
    ``doc``'s fields in their order, or a text holds ``null`` (the shards check each ``null``
    for a NaN, :func:`webseg.fastjson.dumps`' ``exact_nan``)."""
    from webseg.fastjson import _nulls_are_nones, _orjson

    fields, blocks = encoded
    if _orjson is None or b"null" in blocks:
        return None
    head = d.head_dict()  # its values are doc's own objects: the same text, when in order
    if list(head) != [k for k in doc if k != "blocks"] or any(
            head[k] is not doc[k] for k in head):
        return None
    if b"null" in fields and not _nulls_are_nones(fields, head):
        return None
    try:
        return fields, b'{"id":' + _orjson.dumps(d.id) + b',"blocks":' + blocks + b"}"
    except TypeError:  # an id only the standard module writes
        return None


def run_anserini(collection: Path | None, index_dir: Path, threads: int) -> None:
    """Anserini's ``IndexCollection`` (``JsonCollection``, pre-tokenised, doc vectors) in a
    child process: the JVM and its memory go away with it."""
    if collection is None:
        raise ValueError("no collection to index")
    src = Path(collection)
    files = [p for p in sorted(src.iterdir()) if p.is_file() and p.name.startswith(("part-",
                                                                                     "docs"))]
    with tempfile.TemporaryDirectory(prefix="anserini-in-") as tmp:
        for i, p in enumerate(files):  # JsonCollection reads *.json / *.jsonl files
            if p.stat().st_size:
                os.symlink(p.resolve(), Path(tmp) / f"{i:05d}.json")
        if index_dir.exists():
            shutil.rmtree(index_dir)
        args = ["-collection", "JsonCollection", "-input", tmp, "-index", str(index_dir),
                "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(threads),
                "-pretokenized", "-storeDocvectors"]
        proc = subprocess.run([sys.executable, "-m", "ir.from_output", "--anserini", *args],
                              capture_output=True, text=True, env=_child_env())
        if proc.returncode != 0 or not any(index_dir.glob("segments_*")):
            tail = (proc.stderr or proc.stdout)[-2000:]
            raise RuntimeError(f"Anserini indexing failed (exit {proc.returncode}): {tail}")


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


def build_from_output(folder: str | Path, out: str | Path, backend: str = "bm25",
                      analyzer: Analyzer | None = None, sources: Iterable[str] | None = None,
                      k1: float | None = None, b: float | None = None, overwrite: bool = False,
                      threads: int = 2, shard_docs: int = 500) -> int:
    """Index every stored entry of a pipeline or Spark output folder; returns the count.

    ``sources`` defaults to the block sources found in the first document. The analyzer must
    be the one the pipeline analysed the pages with (the default analyzer, as the pipeline
    uses); the terms are stored already analysed and are not analysed again.
    """
    import itertools

    docs = iter_output_docs(folder)
    # The block sources: the pipeline's configuration, else those of the first documents
    # (a page that failed to render has windows only, so look a little further).
    head = list(itertools.islice(docs, 200))
    if not head:
        raise ValueError(f"{folder}: holds no index entries (was the index stage run?)")
    if sources is None:
        cfg = Path(folder) / "work" / "config.json"
        if cfg.is_file():
            sources = [json.loads(cfg.read_text(encoding="utf-8")).get("segmenter", "vips")]
        else:
            found = {s for d in head for s in (d.get("blocks") or {}) if s != "windows"}
            sources = sorted(found) or ["windows"]
    builder = IndexBuilder(out, backend=backend, analyzer=analyzer, sources=sources, k1=k1,
                           b=b, overwrite=overwrite, threads=threads, shard_docs=shard_docs)
    clusters = duplicate_clusters(folder)
    for d in itertools.chain(head, docs):
        c = clusters.get(str(d.get("id")))
        builder.add({**d, "cluster": c} if c is not None else d)
    spark_lucene = Path(folder) / "lucene_docs"
    use = spark_lucene if backend == "lucene" and spark_lucene.is_dir() else None
    return builder.close(lucene_input=use)


def duplicate_clusters(folder: str | Path) -> dict[str, str]:
    """Page id -> duplicate cluster of the pages in one, from the output's final
    ``pages.jsonl`` (a file for ``webseg pipeline``, a folder of part files for ``webseg
    spark``); empty when it is missing (e.g. a run without the collection stage), so search
    results then fold exact main-text duplicates only."""
    p = Path(folder) / "pages.jsonl"
    files = [p] if p.is_file() else _part_files(p) if p.is_dir() else []
    out: dict[str, str] = {}
    for f in files:
        with f.open("rb") as fh:
            for line in fh:
                if b'"duplicate_cluster"' not in line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                c = r.get("duplicate_cluster")
                if c is not None and r.get("id") is not None:
                    out[str(r["id"])] = str(c)
    return out


def _anserini_main(args: list[str]) -> int:
    from ir.lucene import _java

    _java()
    from jnius import autoclass

    autoclass("io.anserini.index.IndexCollection").main(args)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--anserini"]:
        raise SystemExit(_anserini_main(sys.argv[2:]))
    raise SystemExit("usage: python -m ir.from_output --anserini ANSERINI-ARGS")
