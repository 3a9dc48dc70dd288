"""The index API: create or open an index directory, add documents, search with feedback.

>>> from ir import Index, doc_from_text                               # doctest: +SKIP
>>> ix = Index.create("idx", backend="bm25")                          # doctest: +SKIP
>>> ix.add([doc_from_text("d1", "Block-based feedback for web search", ix.analyzer)])
>>> ix.search("web feedback", k=5, prf="blocks", source="windows")    # doctest: +SKIP

One API, two backends: ``bm25`` (embedded, rank-bm25, the default) and ``lucene`` (pyserini,
optional extra). Both index the same analysed terms (:mod:`ir.analysis`) and read feedback
blocks and document vectors from the same store (:mod:`ir.store`), so feedback never renders.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ir import feedback as fb
from ir.analysis import Analyzer
from ir.bm25 import EmbeddedBM25, bm25_term_scores
from ir.store import Block, IndexStore, StoredDoc

__all__ = ["BACKENDS", "EmptyQueryError", "Hit", "Index", "SearchResult"]

BACKENDS = ("bm25", "lucene")


class EmptyQueryError(ValueError):
    """The query has no index terms after analysis (empty, or only stop words)."""


@dataclass
class Hit:
    """One ranked page; ``snippet`` is its best-matching stored block for the query."""

    rank: int
    id: str
    score: float
    title: str = ""
    url: str | None = None
    status: str = "ok"
    snippet: str = ""
    snippet_source: str = ""
    snippet_seg: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "id": self.id, "score": round(self.score, 6),
                "title": self.title, "url": self.url, "status": self.status,
                "snippet": self.snippet, "snippet_source": self.snippet_source,
                "snippet_seg": self.snippet_seg}


@dataclass
class SearchResult:
    query: str
    prf: str
    hits: list[Hit]
    expanded: dict[str, float] = field(default_factory=dict)
    feedback_units: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "prf": self.prf,
                "expanded_query": {t: round(w, 6) for t, w in self.expanded.items()},
                "feedback_units": self.feedback_units,
                "hits": [h.to_dict() for h in self.hits]}


class Index:
    """An index directory opened for search and incremental adds."""

    def __init__(self, store: IndexStore) -> None:
        self.store = store
        s = store.settings
        self.backend_name: str = s["backend"]
        self.analyzer = Analyzer.from_dict(s["analyzer"])
        self.k1, self.b = float(s["k1"]), float(s["b"])
        self.sources: list[str] = list(s.get("sources", []))
        self._load_docs()
        self._blocks: list[dict[str, list[Block]]] | None = None
        self._lucene: Any = None

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def create(cls, path: str | Path, backend: str = "bm25", analyzer: Analyzer | None = None,
               k1: float = 1.5, b: float = 0.75, sources: Sequence[str] = ("vips",),
               overwrite: bool = False) -> Index:
        """A new, empty index at ``path`` (``sources``: block sources stored per page)."""
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}: use one of {BACKENDS}")
        if backend == "lucene":
            from ir import lucene

            lucene.require()
        an = analyzer or Analyzer()
        store = IndexStore.create(path, {"backend": backend, "analyzer": an.to_dict(),
                                         "k1": k1, "b": b, "sources": list(sources)},
                                  overwrite=overwrite)
        return cls(store)

    @classmethod
    def open(cls, path: str | Path) -> Index:
        """Open an existing index (raises IndexNotFoundError / IndexCorruptError)."""
        return cls(IndexStore.open(path))

    def _load_docs(self) -> None:
        by_id: dict[str, StoredDoc] = {}
        for d in self.store.iter_docs():
            by_id.pop(d.id, None)  # a re-added id supersedes (and moves to the end)
            by_id[d.id] = d
        self.docs: list[StoredDoc] = list(by_id.values())
        self.pos = {d.id: i for i, d in enumerate(self.docs)}
        self.engine = EmbeddedBM25([d.terms for d in self.docs], self.k1, self.b)

    def __len__(self) -> int:
        return len(self.docs)

    def add(self, docs: Iterable[StoredDoc]) -> int:
        """Append documents as one new shard (and to the Lucene index); returns the count."""
        batch = list(docs)
        if not batch:
            return 0
        self.store.append(batch)
        if self.backend_name == "lucene":
            self._lucene_backend().add(batch)
        self._load_docs()
        self._blocks = None
        return len(batch)

    # ------------------------------------------------------------------ access
    def blocks(self, idx: int) -> dict[str, list[Block]]:
        """Stored blocks of document ``idx`` per source (loaded once, on first use)."""
        if self._blocks is None:
            found: dict[str, dict[str, list[Block]]] = {}
            for did, bl in self.store.iter_blocks():
                found[did] = bl
            self._blocks = [found.get(d.id, {}) for d in self.docs]
        return self._blocks[idx]

    def _source_blocks(self, idx: int, source: str) -> list[Block]:
        """Blocks of ``source``; pages without them (text-only pages) fall back to windows."""
        bl = self.blocks(idx)
        got = bl.get(source)
        return got if got is not None else bl.get("windows", [])

    def _lucene_backend(self) -> Any:
        if self._lucene is None:
            from ir.lucene import LuceneBackend

            self._lucene = LuceneBackend(self.store.path / "lucene", self.k1, self.b)
        return self._lucene

    # ------------------------------------------------------------------ search
    def query_terms(self, query: str) -> list[str]:
        if not isinstance(query, str):
            raise TypeError("query must be a string")
        terms = self.analyzer.tokens(query)
        if not terms:
            raise EmptyQueryError(f"query {query[:60]!r} has no index terms after analysis "
                                  "(empty, or only stop words)")
        return terms

    def retrieve(self, weights: Mapping[str, float], k: int) -> list[tuple[int, float]]:
        """Top ``k`` (document index, score) for a weighted query on this index's backend."""
        if self.backend_name == "lucene":
            return [(self.pos[d], s) for d, s in self._lucene_backend().top(weights, k)
                    if d in self.pos]
        return self.engine.top(weights, k)

    def search(self, query: str, k: int = 10, prf: str = "none", snippets: bool = True,
               snippet_source: str | None = None, **params: Any) -> SearchResult:
        """Rank pages for ``query`` with feedback ``prf`` (none, rm3, blocks, anserini-rm3).

        ``params`` are the feedback parameters (:class:`ir.feedback.Rm3Params`,
        :class:`ir.feedback.BlockParams`). ``anserini-rm3`` (lucene backend only) runs
        Anserini's own RM3 for comparison.
        """
        if k < 1:
            raise ValueError("k must be >= 1")
        terms = self.query_terms(query)
        units: list[dict[str, Any]] = []
        if prf == "anserini-rm3":
            if self.backend_name != "lucene":
                raise ValueError("anserini-rm3 needs the lucene backend")
            p = fb.params_for("rm3", **params)
            ranked = [(self.pos[d], s) for d, s in self._lucene_backend().top_rm3(
                terms, k, p.fb_docs, p.fb_terms, p.orig_weight) if d in self.pos]
            weights: dict[str, float] = {}
        else:
            p = fb.params_for(prf, **params)
            weights = fb.query_vector(terms) if p is None else {}
            q_weights = {t: float(terms.count(t)) for t in dict.fromkeys(terms)}
            if p is None:
                ranked = self.retrieve(q_weights, k)
                weights = q_weights
            else:
                first = self.retrieve(q_weights, max(k, getattr(p, "fb_docs", 0),
                                                     getattr(p, "fb_pages", 0)))
                weights, units = self._feedback(terms, first, p)
                ranked = self.retrieve(weights, k)
        hits = []
        for r, (i, s) in enumerate(ranked, 1):
            d = self.docs[i]
            h = Hit(rank=r, id=d.id, score=s, title=d.title, url=d.url, status=d.status)
            if snippets:
                self._snippet(h, i, terms, snippet_source)
            hits.append(h)
        return SearchResult(query=query, prf=prf, hits=hits, expanded=weights,
                            feedback_units=units)

    def _feedback(self, terms: list[str], first: list[tuple[int, float]],
                  p: fb.Rm3Params | fb.BlockParams
                  ) -> tuple[dict[str, float], list[dict[str, Any]]]:
        n, df = len(self.docs), self.engine.df
        if isinstance(p, fb.Rm3Params):
            top = first[: p.fb_docs]
            units = [(self.docs[i].terms, s) for i, s in top]
            info = [{"doc": self.docs[i].id, "score": round(s, 4)} for i, s in top]
            return fb.expand(terms, units, p.fb_terms, p.orig_weight, df, n,
                             p.max_df_ratio), info
        blocks = fb.block_units(terms, first, lambda i: self._source_blocks(i, p.source),
                                self.engine.idf, self.k1, self.b, p)
        info = [{"doc": self.docs[i].id, "seg": blk.seg, "score": round(s, 4),
                 "text": blk.text[:120]} for blk, s, i in blocks]
        return fb.expand(terms, [(blk.terms, s) for blk, s, _ in blocks], p.fb_terms,
                         p.orig_weight, df, n, p.max_df_ratio), info

    def _snippet(self, h: Hit, idx: int, terms: list[str], source: str | None) -> None:
        src = source or (self.sources[0] if self.sources else "windows")
        bl = self._source_blocks(idx, src)
        if not bl:
            return
        dl = np.asarray([b.length for b in bl], dtype=np.float64)
        avgdl = float(dl.mean()) if len(dl) else 0.0
        sc = np.zeros(len(bl))
        matched = np.zeros(len(bl), dtype=bool)
        for t in set(terms):
            tf = np.asarray([b.terms.get(t, 0) for b in bl], dtype=np.float64)
            if tf.any():
                sc += bm25_term_scores(tf, dl, avgdl, self.engine.idf(t), self.k1, self.b)
                matched |= tf > 0
        sc[~matched] = -np.inf  # a block with a query term beats any without
        j = int(np.argmax(sc))
        h.snippet = bl[j].text if len(bl[j].text) <= 300 else bl[j].text[:297] + "..."
        h.snippet_source = src if src in self.blocks(idx) else "windows"
        h.snippet_seg = bl[j].seg
