"""Embedded BM25 (Okapi BM25 with Lucene's IDF) from precomputed per-term weight postings.

Layout (chosen by ``bench/ir.py``, which measures it beside bm25s): documents are appended in
batches as compact doc-major rows (``int32`` term ids, ``float32`` term frequencies; no Python
object per document). The first query after a change builds a term-major CSC matrix of
*precomputed* BM25 weights ``idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))``
(scipy's C conversion plus one vectorised pass), so a query only sums, for each of its terms,
the contiguous slice of that term's postings into a dense score array: no per-query BM25
arithmetic, no per-term dict lookups per document. Adding documents never re-reads stored
documents: it appends rows and marks the weights stale (N, avgdl and IDF change with every
add, so the weights are recomputed from the compact rows, vectorised, at the next query).

Scoring is Okapi BM25 with Lucene's IDF, ``log(1 + (N - df + 0.5) / (df + 0.5))``: the
saturation and length normalisation of rank-bm25's ``BM25Okapi`` (a test checks the scores
against it with only the IDF swapped; weights are stored as float32, so equal to ~1e-6
relative). Why not rank-bm25's own IDF ``log((N - df + 0.5) / (df + 0.5))``: it is negative
for a term on more than half the documents, and its floor (``epsilon`` x the mean IDF) is
itself negative on a small index, so a page with more query terms could rank below one with
fewer and a common word returned only negative scores. Lucene's IDF is positive for every
term, so every matching term adds to a page's score (and the two backends now share the
formula, up to Lucene's one-byte length norms). Term frequencies may be fractional
(field-weighted documents): the same formula applies to the weighted counts.

Results are arrays (:meth:`EmbeddedBM25.top` returns row indices and scores), so a k=1000
query builds no per-hit objects; :class:`ir.index.SearchResult` creates hits lazily.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy.sparse is imported where it is used: building an index never needs
    # it (only the first query and a replace do), and importing it costs ~0.1 s of CPU
    import scipy.sparse as sp

__all__ = ["EmbeddedBM25", "bm25_term_scores", "lucene_idf", "top_candidates"]


def bm25_term_scores(tf: np.ndarray, dl: np.ndarray, avgdl: float, idf: float | np.ndarray,
                     k1: float, b: float) -> np.ndarray:
    """Okapi BM25 contribution of one term with frequencies ``tf`` in units of length ``dl``."""
    if avgdl <= 0:
        return np.zeros_like(tf, dtype=np.float64)
    return idf * (tf * (k1 + 1)) / (tf + k1 * (1 - b + b * dl / avgdl))


def lucene_idf(df: np.ndarray | float, n: int) -> np.ndarray:
    """Lucene's BM25 IDF per term, ``log(1 + (n - df + 0.5) / (df + 0.5))``: > 0 for every
    ``0 <= df <= n``, so a matching term never lowers a score."""
    df = np.asarray(df, dtype=np.float64)
    return np.log1p((n - df + 0.5) / (df + 0.5))


#: Postings per slice when (re)computing weights (bounds temporary memory).
_SLICE = 1 << 20


def top_candidates(s: np.ndarray, cand: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of rows ``cand`` (ascending) by score ``s``, ties by row; as arrays."""
    if len(cand) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    sc = s[cand]
    if len(sc) > k:
        part = np.argpartition(-sc, k - 1)[:k]
        kth = sc[part].min()
        # every tie of the k-th score competes, so row order breaks ties exactly
        keep = np.flatnonzero(sc >= kth)
        cand, sc = cand[keep], sc[keep]
    order = np.lexsort((cand, -sc))[:k]
    return cand[order].astype(np.int64), sc[order]


class EmbeddedBM25:
    """In-memory BM25 over documents given as term -> count mappings, appendable in batches.

    Rows are never moved: a row can be retired (:meth:`remove`, for a re-added id) and then
    counts for nothing (not in N, avgdl, df, nor results), exactly as if it had never been added.
    """

    def __init__(self, doc_freqs: Iterable[Mapping[str, float]] = (), k1: float = 1.5,
                 b: float = 0.75) -> None:
        self.k1, self.b = float(k1), float(b)
        self.vocab: dict[str, int] = {}
        self._terms: list[str] = []
        self._chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # indptr, ids, tf
        self._rows = 0
        self._live = np.zeros(0, dtype=bool)
        self._stale = True
        self._csr: sp.csr_matrix | None = None
        self.add(doc_freqs)

    # ------------------------------------------------------------------ building
    def _encode(self, doc_freqs: Iterable[Mapping[str, float]]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR parts (indptr, term ids, counts) of documents; new terms join the vocabulary."""
        vocab, terms = self.vocab, self._terms
        indptr = [0]
        ids: list[int] = []
        tfs: list[float] = []
        get = vocab.get
        for d in doc_freqs:
            if d and min(d.values()) > 0:  # the usual document: every count positive
                js = [get(t) for t in d]
                if None in js:  # new terms join in the document's order
                    for k, t in enumerate(d):
                        if js[k] is None:
                            js[k] = vocab[t] = len(terms)
                            terms.append(t)
                ids.extend(js)
                tfs.extend(d.values())
            else:
                for t, c in d.items():
                    if c <= 0:
                        continue
                    j = vocab.get(t)
                    if j is None:
                        j = vocab[t] = len(terms)
                        terms.append(t)
                    ids.append(j)
                    tfs.append(c)
            indptr.append(len(ids))
        return (np.asarray(indptr, dtype=np.int64), np.asarray(ids, dtype=np.int32),
                np.asarray(tfs, dtype=np.float32))

    def add(self, doc_freqs: Iterable[Mapping[str, float]]) -> range:
        """Append documents (term -> count); returns their row numbers."""
        chunk = self._encode(doc_freqs)
        n_new = len(chunk[0]) - 1
        if n_new:
            self._chunks.append(chunk)
            self._live = np.concatenate([self._live, np.ones(n_new, dtype=bool)])
            self._stale = True
        start = self._rows
        self._rows += n_new
        return range(start, self._rows)

    def replace(self, docs: Mapping[int, Mapping[str, float]]) -> None:
        """Give existing rows new term counts in place (row numbers and order unchanged):
        one vectorised rebuild of the rows matrix, whatever the number of rows replaced."""
        if not docs:
            return
        rows = sorted(docs)
        if rows[0] < 0 or rows[-1] >= self._rows:
            raise IndexError(f"row out of range 0..{self._rows - 1}")
        import scipy.sparse as sp

        indptr, ids, tfs = self._encode(docs[r] for r in rows)
        m = self._matrix()
        shape = (self._rows, len(self._terms))
        m.resize(shape)
        keep = np.ones(self._rows, dtype=np.float32)
        keep[rows] = 0
        new = sp.csr_matrix((tfs, ids, indptr), shape=(len(rows), shape[1]))
        place = sp.csr_matrix((np.ones(len(rows), dtype=np.float32),
                               (np.asarray(rows), np.arange(len(rows)))),
                              shape=(self._rows, len(rows)))
        out = (sp.diags(keep, format="csr") @ m + place @ new).tocsr()
        out.eliminate_zeros()
        out.sort_indices()
        self._csr = out.astype(np.float32)
        self._stale = True

    def remove(self, row: int) -> None:
        """Retire a row (its document was superseded)."""
        if self._live[row]:
            self._live[row] = False
            self._stale = True

    @property
    def rows(self) -> int:
        """Rows ever added (retired ones included); row numbers are stable."""
        return self._rows

    @property
    def n(self) -> int:
        """Live documents (the N of BM25)."""
        return int(self._live.sum())

    def _matrix(self) -> sp.csr_matrix:
        """All rows as one CSR matrix of term frequencies (chunks merged once, then kept)."""
        import scipy.sparse as sp

        shape = (self._rows, len(self._terms))
        if self._csr is not None and not self._chunks:
            if self._csr.shape != shape:
                self._csr.resize(shape)
            return self._csr
        parts = [] if self._csr is None else [self._csr]
        for indptr, ids, tfs in self._chunks:
            m = sp.csr_matrix((tfs, ids, indptr), shape=(len(indptr) - 1, shape[1]))
            parts.append(m)
        for m in parts:
            m.resize((m.shape[0], shape[1]))
        if not parts:
            parts = [sp.csr_matrix(shape, dtype=np.float32)]
        self._csr = parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr",
                                                                  dtype=np.float32)
        self._chunks = []
        return self._csr

    def _refresh(self) -> None:
        """Recompute statistics and the weight postings (lazily, after adds or removals)."""
        if not self._stale:
            return
        m = self._matrix()
        live = self._live
        n = int(live.sum())
        tf, ind, ptr = m.data, m.indices, m.indptr
        lens = np.diff(ptr)
        dl = np.zeros(m.shape[0])
        df = np.zeros(m.shape[1], dtype=np.int64)
        # statistics and weights in slices of ~1M postings: a few MB of temporaries at any
        # collection size (the resident arrays are the CSR rows and the CSC postings)
        step = _SLICE
        per_row = max(1, int(lens.mean())) if len(lens) else 1
        bounds = list(range(0, m.shape[0], max(1, step // per_row)))
        bounds.append(m.shape[0])
        for r0, r1 in zip(bounds[:-1], bounds[1:], strict=True):
            a, z = ptr[r0], ptr[r1]
            rows_of = np.repeat(np.arange(r0, r1, dtype=np.int32), lens[r0:r1])
            dl[r0:r1] = np.bincount(rows_of - r0, weights=tf[a:z], minlength=r1 - r0)
            df += np.bincount(ind[a:z][live[rows_of]], minlength=m.shape[1])
        dl[~live] = 0
        self.doc_len = dl
        self.avgdl = float(dl.sum() / n) if n else 0.0
        self._df = df
        seen = df > 0  # terms of retired rows only: unseen, idf 0 (they match nothing)
        idf = np.zeros(m.shape[1])
        if n:
            idf[seen] = lucene_idf(df[seen], n)
        self._idf = idf
        norm = (self.k1 * (1 - self.b + self.b * dl / self.avgdl) if self.avgdl
                else np.ones_like(dl)).astype(np.float32)
        norm[~live] = np.inf  # retired rows: weight 0 (kept in the postings, masked in top())
        idf32 = idf.astype(np.float32)
        w = np.empty(len(tf), dtype=np.float32)
        for r0, r1 in zip(bounds[:-1], bounds[1:], strict=True):
            a, z = ptr[r0], ptr[r1]
            rows_of = np.repeat(np.arange(r0, r1, dtype=np.int32), lens[r0:r1])
            t = tf[a:z]
            w[a:z] = idf32[ind[a:z]] * (t * np.float32(self.k1 + 1)) / (t + norm[rows_of])
        import scipy.sparse as sp

        wm = sp.csr_matrix((w, m.indices, m.indptr), shape=m.shape).tocsc()
        del w
        self._post_ptr, self._post_doc, self._post_w = wm.indptr, wm.indices, wm.data
        self._stale = False

    # ------------------------------------------------------------------ statistics
    def df(self, term: str) -> int:
        self._refresh()
        j = self.vocab.get(term)
        return 0 if j is None else int(self._df[j])

    def idf(self, term: str) -> float:
        """Lucene's IDF of ``term`` (always > 0); 0 for unseen terms (they match nothing)."""
        self._refresh()
        j = self.vocab.get(term)
        return 0.0 if j is None else float(self._idf[j])

    def doc_terms(self, row: int) -> dict[str, float]:
        """The term counts of one row (feedback document vectors)."""
        m = self._matrix()
        a, z = m.indptr[row], m.indptr[row + 1]
        terms = self._terms
        return {terms[j]: float(c) for j, c in zip(m.indices[a:z].tolist(),
                                                    m.data[a:z].tolist(), strict=True)}

    def nbytes(self) -> int:
        """Memory held by the arrays (rows + postings), for benchmarks."""
        tot = sum(a.nbytes for c in self._chunks for a in c) + self._live.nbytes
        if self._csr is not None:
            tot += self._csr.data.nbytes + self._csr.indices.nbytes + self._csr.indptr.nbytes
        if not self._stale:
            tot += self._post_ptr.nbytes + self._post_doc.nbytes + self._post_w.nbytes
        return tot

    # ------------------------------------------------------------------ scoring
    def _accumulate(self, weights: Mapping[str, float], matched: np.ndarray | None
                    ) -> np.ndarray:
        """Scores of all rows: the query terms' posting slices gathered, then one bincount
        (a handful of numpy calls per query whatever its length)."""
        self._refresh()
        ptr, doc, wts = self._post_ptr, self._post_doc, self._post_w
        idx, val = [], []
        for t, w in weights.items():
            j = self.vocab.get(t)
            if j is None or w == 0:
                continue
            a, z = ptr[j], ptr[j + 1]
            if a == z:
                continue
            idx.append(doc[a:z])
            val.append(wts[a:z] if w == 1 else wts[a:z] * np.float32(w))
        if not idx:
            return np.zeros(self._rows, dtype=np.float64)
        ix = idx[0] if len(idx) == 1 else np.concatenate(idx)
        vals = val[0] if len(val) == 1 else np.concatenate(val)
        if matched is not None:
            matched[ix] = True
        return np.bincount(ix, weights=vals, minlength=self._rows)

    def scores(self, weights: Mapping[str, float], matched: np.ndarray | None = None
               ) -> np.ndarray:
        """BM25 score of every row for a weighted bag of terms (float64 copy).

        ``matched``, if given, is a boolean array set where a document has a query term.
        """
        return self._accumulate(weights, matched)

    def top(self, weights: Mapping[str, float], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows and scores of the ``k`` best documents that contain a query term, by score
        then row order.

        Matching, not a positive score, decides (a query term may carry a zero or negative
        weight, e.g. from feedback). When every query weight is positive (nearly always; every
        IDF is), matching is the same as a positive score, and no match mask is built.
        """
        return top_candidates(*self.match(weights), k)

    def match(self, weights: Mapping[str, float]) -> tuple[np.ndarray, np.ndarray]:
        """Scores of every row and the (ascending) live rows that contain a query term."""
        self._refresh()
        if all(w > 0 for w in weights.values()):
            s = self._accumulate(weights, None)
            return s, np.flatnonzero(s > 0)  # retired rows have weight 0: never candidates
        matched = np.zeros(self._rows, dtype=bool)
        s = self._accumulate(weights, matched)
        return s, np.flatnonzero(matched & self._live)

    def top_list(self, weights: Mapping[str, float], k: int) -> list[tuple[int, float]]:
        """:meth:`top` as a list of (row, score) pairs."""
        rows, vals = self.top(weights, k)
        return list(zip(rows.tolist(), vals.tolist(), strict=True))
