"""Batch search in the formats IR tools exchange: topics files in, TREC runs out.

Topics are read as pyserini reads them: ``.tsv`` / ``.txt`` (optionally ``.gz``): one
``qid<TAB>query`` per line; ``.jsonl``: one JSON object per line with ``qid`` (or ``id``) and
``query`` (or ``title`` / ``text``); ``.json``: an object ``{qid: {"title": query}}`` or
``{qid: query}``. Runs are written as pyserini writes them: ``trec`` (``qid Q0 docid rank
score tag``, the format trec_eval and ir_measures read) or ``msmarco`` (``qid<TAB>docid<TAB>
rank``); ``json`` writes one JSON object per topic (its hits with scores).

:func:`search_topics` runs the topics through one opened :class:`ir.index.Index` (so the
Lucene backend's searcher, and the embedded engine's weights, are built once for the whole
file), in batches over a thread pool: numpy's scoring releases the GIL for most of a query.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

__all__ = ["RUN_FORMATS", "TopicsError", "read_topics", "search_topics", "write_hits"]

RUN_FORMATS = ("trec", "msmarco", "json")


class TopicsError(ValueError):
    """A topics file that cannot be read (its line is named)."""


def _open_text(path: Path) -> IO[str]:
    if path.name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return path.open(encoding="utf-8", errors="replace")


def _query_of(r: Any) -> str | None:
    if isinstance(r, str):
        return r
    if isinstance(r, dict):
        for k in ("query", "title", "text", "contents"):
            if isinstance(r.get(k), str):
                return r[k]
    return None


def read_topics(path: str | Path) -> list[tuple[str, str]]:
    """(qid, query) pairs of a topics file, in file order (see the module docstring)."""
    p = Path(path)
    name = p.name.removesuffix(".gz")
    if not p.is_file():
        raise TopicsError(f"{p}: no such topics file")
    out: list[tuple[str, str]] = []
    with _open_text(p) as f:
        if name.endswith(".json"):
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                raise TopicsError(f"{p}: not JSON ({e})") from None
            if not isinstance(data, dict):
                raise TopicsError(f"{p}: a .json topics file is an object {{qid: query}}")
            for qid, r in data.items():
                q = _query_of(r)
                if q is None:
                    raise TopicsError(f"{p}: topic {qid}: no query (title) text")
                out.append((str(qid), q))
        elif name.endswith(".jsonl"):
            for ln, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise TopicsError(f"{p}:{ln}: not JSON ({e})") from None
                qid = r.get("qid", r.get("id")) if isinstance(r, dict) else None
                q = _query_of(r)
                if qid is None or q is None:
                    raise TopicsError(f"{p}:{ln}: a topic needs qid (or id) and query")
                out.append((str(qid), q))
        elif name.endswith((".tsv", ".txt")):
            for ln, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                qid, tab, q = line.partition("\t")
                if not tab:
                    raise TopicsError(f"{p}:{ln}: expected qid<TAB>query")
                out.append((qid.strip(), q))
        else:
            raise TopicsError(f"{p}: unknown topics format: use .tsv, .txt, .jsonl or .json "
                              "(optionally .gz)")
    if not out:
        raise TopicsError(f"{p}: no topics")
    return out


def search_topics(index: Any, topics: list[tuple[str, str]], k: int, threads: int = 1,
                  batch_size: int = 64, warn: Callable[[str], None] | None = None,
                  **search_kw: Any) -> Iterator[tuple[str, Any]]:
    """(qid, :class:`ir.index.SearchResult`) for each topic, in topics order; a topic whose
    query has no index terms is reported through ``warn`` and yields no result (as pyserini,
    it is absent from the run)."""
    from ir.index import EmptyQueryError

    def one(item: tuple[str, str]) -> tuple[str, Any]:
        qid, q = item
        try:
            return qid, index.search(q, k=k, snippets=False, **search_kw)
        except EmptyQueryError as e:
            if warn:
                warn(f"topic {qid}: {e}; no results")
            return qid, None

    todo = list(topics)
    if not todo:
        return
    # the first query builds the engine's weights (and starts the Lucene searcher) alone
    first = one(todo[0])
    if first[1] is not None:
        yield first
    rest = todo[1:]
    if threads <= 1 or getattr(index, "backend_name", "bm25") == "lucene":
        for item in rest:
            got = one(item)
            if got[1] is not None:
                yield got
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for i in range(0, len(rest), max(1, batch_size)):
            for got in pool.map(one, rest[i: i + batch_size]):
                if got[1] is not None:
                    yield got


def write_hits(out: IO[str], qid: str, res: Any, fmt: str, tag: str) -> int:
    """Write one topic's ranked pages in ``fmt`` (:data:`RUN_FORMATS`); returns lines written.

    Document ids must not contain white space in the ``trec`` and ``msmarco`` formats (their
    columns are white-space separated): such an id is an error, not a silently broken run."""
    ids = res.ids
    if fmt == "json":
        out.write(json.dumps({"qid": qid, "query": res.query,
                              "hits": [{"rank": r, "id": d, "score": round(float(s), 6)}
                                       for r, (d, s) in enumerate(zip(ids, res.scores.tolist(),
                                                                      strict=True), 1)]},
                             ensure_ascii=False) + "\n")
        return 1
    for d in ids:
        if any(c.isspace() for c in d):
            raise ValueError(f"document id {d!r} contains white space: it cannot be written "
                             f"in the {fmt} run format (use --format json)")
    if fmt == "trec":
        for rank, (d, s) in enumerate(zip(ids, res.scores.tolist(), strict=True), 1):
            out.write(f"{qid} Q0 {d} {rank} {s:.6f} {tag}\n")
    elif fmt == "msmarco":
        for rank, d in enumerate(ids, 1):
            out.write(f"{qid}\t{d}\t{rank}\n")
    else:
        raise ValueError(f"unknown run format {fmt!r}: use one of {RUN_FORMATS}")
    return len(ids)
