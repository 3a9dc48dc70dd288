"""Anserini itself as the reference on the clean collections (issue 16, deliverable 3).

The Lucene backend of :mod:`ir.lucene` indexes *our* analysed terms (pre-tokenised), so that the
two backends differ only in the BM25 implementation. The issue also asks for Anserini "with its
regression defaults" as a reference row: Anserini's own analysis (``DefaultEnglishAnalyzer``:
Lucene's standard tokenizer, English stop words, Porter stemming) on the raw title + text,
BM25 k1 0.9, b 0.4, and its RM3 with 10 feedback documents, 10 terms, original weight 0.5.
:class:`AnseriniText` is that system behind the small ``search`` interface of
:func:`eval.prf.run.run_system`, so its rows sit in the same tables, with the same measures
and significance tests, as the embedded backend's.

English-only on purpose: it reproduces Anserini's regression setting for the English test
collections; it is a reference row, not part of the library.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["ANSERINI_BM25", "ANSERINI_RM3", "AnseriniText", "build_anserini_index"]

#: Anserini's regression defaults (``-bm25``, ``-rm3``).
ANSERINI_BM25 = {"k1": 0.9, "b": 0.4}
ANSERINI_RM3 = {"fb_docs": 10, "fb_terms": 10, "orig_weight": 0.5}


@dataclass
class _Result:
    ids: list[str]
    scores: np.ndarray


def build_anserini_index(docs: Iterable[dict[str, Any]], path: Path) -> Path:
    """A Lucene index of ``title + text`` of ``docs`` with Anserini's default analyzer and
    stored document vectors (RM3 needs them); ``path`` is overwritten."""
    import shutil

    from ir.lucene import _java

    j = _java()
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    ix = j["LuceneIndexer"](args=["-index", str(path), "-storeDocvectors", "-storePositions"],
                            threads=1)
    try:
        for d in docs:
            text = " ".join(str(d.get(k) or "") for k in ("title", "text")).strip()
            ix.add_doc_raw(json.dumps({"id": str(d["id"]), "contents": text}))
    finally:
        ix.close()
    return path


class AnseriniText:
    """Anserini's searcher on an index of :func:`build_anserini_index` (its own analyzer).

    ``search(query, k, prf=...)``: ``prf="none"`` is BM25 with ``k1``/``b``;
    ``prf="anserini-rm3"`` adds Anserini's RM3 with ``fb_docs``/``fb_terms``/``orig_weight``
    (defaults: :data:`ANSERINI_RM3`). Other feedback methods need our stored documents and
    are refused.
    """

    def __init__(self, path: Path, k1: float = ANSERINI_BM25["k1"],
                 b: float = ANSERINI_BM25["b"]) -> None:
        from ir.lucene import _java

        self.searcher = _java()["LuceneSearcher"](str(path))
        self.searcher.set_bm25(float(k1), float(b))

    def search(self, query: str, k: int = 1000, prf: str = "none", snippets: bool = False,
               **params: Any) -> _Result:
        s = self.searcher
        if prf == "anserini-rm3":
            p = {**ANSERINI_RM3, **params}
            s.set_rm3(fb_terms=int(p["fb_terms"]), fb_docs=int(p["fb_docs"]),
                      original_query_weight=float(p["orig_weight"]))
        elif prf != "none":
            raise ValueError(f"AnseriniText: prf must be none or anserini-rm3, not {prf!r}")
        try:
            hits = s.search(query, k=k)
        finally:
            if s.is_using_rm3():
                s.unset_rm3()
        return _Result([h.docid for h in hits], np.array([h.score for h in hits], float))
