"""Embedded BM25 (rank-bm25's BM25Okapi) with a postings list for weighted queries.

:class:`EmbeddedBM25` reuses rank-bm25's ``BM25Okapi`` for the collection statistics and the
IDF (``log((N - df + 0.5) / (df + 0.5))``, negative IDFs floored at ``epsilon`` times the mean
IDF), built straight from stored term counts rather than from token lists. Scoring adds what
rank-bm25 lacks: an inverted index, so a query touches only the documents that contain its
terms, and per-term query weights (expanded queries are weighted bags of terms). With unit
weights :meth:`EmbeddedBM25.scores` equals ``BM25Okapi.get_scores`` (a test checks it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from rank_bm25 import BM25Okapi

__all__ = ["EmbeddedBM25", "bm25_term_scores"]


def bm25_term_scores(tf: np.ndarray, dl: np.ndarray, avgdl: float, idf: float, k1: float,
                     b: float) -> np.ndarray:
    """Okapi BM25 contribution of one term with frequencies ``tf`` in units of length ``dl``."""
    if avgdl <= 0:
        return np.zeros_like(tf, dtype=np.float64)
    return idf * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * dl / avgdl))


class _CountsBM25(BM25Okapi):
    """BM25Okapi initialised from per-document term counts instead of token lists."""

    def __init__(self, doc_freqs: Sequence[Mapping[str, int]], k1: float, b: float,
                 epsilon: float) -> None:
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.corpus_size = len(doc_freqs)
        self.doc_freqs = list(doc_freqs)
        self.doc_len = [int(sum(d.values())) for d in self.doc_freqs]
        self.avgdl = (sum(self.doc_len) / self.corpus_size) if self.corpus_size else 0.0
        self.idf = {}
        self.tokenizer = None
        nd: dict[str, int] = {}
        for d in self.doc_freqs:
            for w in d:
                nd[w] = nd.get(w, 0) + 1
        self.nd = nd
        if nd:
            self._calc_idf(nd)
        else:
            self.average_idf = 0.0


class EmbeddedBM25:
    """In-memory BM25 over documents given as term-count dicts (``doc_freqs[i]`` for doc i)."""

    def __init__(self, doc_freqs: Sequence[Mapping[str, int]], k1: float = 1.5,
                 b: float = 0.75, epsilon: float = 0.25) -> None:
        self.okapi = _CountsBM25(doc_freqs, k1, b, epsilon)
        self.k1, self.b = k1, b
        self.n = self.okapi.corpus_size
        self.doc_len = np.asarray(self.okapi.doc_len, dtype=np.float64)
        self.avgdl = float(self.okapi.avgdl)
        post: dict[str, tuple[list[int], list[int]]] = {}
        for i, d in enumerate(self.okapi.doc_freqs):
            for w, c in d.items():
                p = post.get(w)
                if p is None:
                    post[w] = ([i], [c])
                else:
                    p[0].append(i)
                    p[1].append(c)
        self.postings = {w: (np.asarray(ix, dtype=np.int64), np.asarray(c, dtype=np.float64))
                         for w, (ix, c) in post.items()}

    def df(self, term: str) -> int:
        return self.okapi.nd.get(term, 0)

    def idf(self, term: str) -> float:
        """rank-bm25's IDF of ``term``; 0 for unseen terms (as ``get_scores`` treats them)."""
        return float(self.okapi.idf.get(term) or 0.0)

    def scores(self, weights: Mapping[str, float], matched: np.ndarray | None = None
               ) -> np.ndarray:
        """BM25 score of every document for a weighted bag of terms.

        ``matched``, if given, is a boolean array set where a document has a query term.
        """
        out = np.zeros(self.n, dtype=np.float64)
        for t, w in weights.items():
            p = self.postings.get(t)
            if p is None or w == 0:
                continue
            ix, tf = p
            out[ix] += w * bm25_term_scores(tf, self.doc_len[ix], self.avgdl, self.idf(t),
                                            self.k1, self.b)
            if matched is not None:
                matched[ix] = True
        return out

    def top(self, weights: Mapping[str, float], k: int) -> list[tuple[int, float]]:
        """The ``k`` best documents that contain a query term, by score then document order.

        Matching, not a positive score, decides: in a tiny collection rank-bm25's floored
        IDF can be negative, and such documents are still results (as in Lucene).
        """
        matched = np.zeros(self.n, dtype=bool)
        s = self.scores(weights, matched)
        cand = np.flatnonzero(matched)
        if len(cand) == 0:
            return []
        if len(cand) > k:
            part = np.argpartition(-s[cand], k - 1)[:k]
            cand = cand[part]
        order = np.lexsort((cand, -s[cand]))
        return [(int(cand[j]), float(s[cand[j]])) for j in order[:k]]
