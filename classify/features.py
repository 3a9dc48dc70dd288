"""In-segment-position TF-ISF features (Bing et al., SIGIR 2014, Section 8.1).

A page arrives as ``n_positions`` texts: for the paper's method the text at the five in-segment
positions (top, bottom, left, right, middle) of its two major segments, ten texts in all
(:func:`classify.views.position_texts`). Every term ``t`` then gives one feature per position
``p``::

    x[p, t] = tf(t, page at p) * isf_p(t),    isf_p(t) = ln((1 + N_p) / (1 + sf_p(t))) + 1

where ``N_p`` is the number of training pages whose position ``p`` holds any text and
``sf_p(t)`` the number of those in which ``t`` occurs at ``p`` ("the inverted segment frequency
of t calculated based on the same position across the corpus"). The smoothing is
scikit-learn's ``smooth_idf`` form, so an unseen term or an empty position never divides by
zero. Rows are L2-normalised (``norm="l2"``), the usual input of a linear SVM.

Before weighting, terms (after stop-word removal, :mod:`classify.text`) are ranked by the
*information gain* of their presence anywhere on the page for the class label (Yang & Pedersen
1997, the paper's [36]) and only the top ``select`` fraction (paper: 10 %) is kept; a term
keeps all its ``n_positions`` dimensions. With ``n_positions=1``, ``select=1.0`` the same
transformer is plain TF-IDF over all terms (the ``text`` baseline), and with ``idf=False,
norm=None`` it yields raw term counts (the Naive-Bayes experiment).

The transformer follows the scikit-learn estimator API (``fit(X, y)`` / ``transform(X)``,
hyper-parameters in ``__init__``) and serialises its fitted state to plain JSON types
(:meth:`PositionTfIsf.to_dict`), so a shipped model needs no pickle.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin

from classify.text import tokenize

__all__ = ["PositionTfIsf", "information_gain"]

PageTexts = Sequence[str | Mapping[str, int]]  # one text (or term counts) per position


def information_gain(presence: sp.spmatrix, y: np.ndarray) -> np.ndarray:
    """Information gain (bits) of each column's binary presence for the labels ``y``.

    ``IG(t) = H(C) - P(t) H(C | t) - P(~t) H(C | ~t)``, the definition of Yang & Pedersen
    (1997). ``presence``: (n_docs, n_terms), non-zero = the term occurs.
    """
    X = sp.csc_matrix(presence, dtype=np.float64)
    X.data[:] = 1.0
    y = np.asarray(y)
    n = X.shape[0]
    if n == 0:
        return np.zeros(X.shape[1])
    classes, yi = np.unique(y, return_inverse=True)
    Y = sp.csr_matrix((np.ones(n), (np.arange(n), yi)), shape=(n, len(classes)))
    with_t = np.asarray((X.T @ Y).todense())  # (terms, classes): docs of class c with t
    n_c = np.bincount(yi, minlength=len(classes)).astype(np.float64)
    df = with_t.sum(axis=1)
    without_t = n_c[None, :] - with_t

    def entropy(counts: np.ndarray, total: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(total[:, None] > 0, counts / total[:, None], 0.0)
            h = -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
        return h.sum(axis=1)

    pc = n_c / n
    h_c = float(-(pc[pc > 0] * np.log2(pc[pc > 0])).sum())
    p_t = df / n
    return h_c - p_t * entropy(with_t, df) - (1 - p_t) * entropy(without_t, n - df)


def _counts(X: Sequence[PageTexts], n_positions: int) -> list[list[Counter[str]]]:
    """Term counts per page and position; positions may come pre-counted (a Mapping)."""
    out = []
    for k, doc in enumerate(X):
        if isinstance(doc, (str, Mapping)):
            doc = [doc]
        if len(doc) != n_positions:
            raise ValueError(f"document {k} has {len(doc)} position texts, expected "
                             f"{n_positions}")
        out.append([t if isinstance(t, Counter) else Counter(t) if isinstance(t, Mapping)
                    else Counter(tokenize(t)) for t in doc])
    return out


class PositionTfIsf(TransformerMixin, BaseEstimator):
    """TF-ISF features over ``n_positions`` in-segment positions with IG term selection.

    Parameters
    ----------
    n_positions : texts per page (10 for the paper's two major segments x five positions;
        1 for a single text such as the whole page or the informative segment).
    select : fraction of terms kept by information gain (0 < select <= 1; paper: 0.1). With
        ``select < 1`` :meth:`fit` needs ``y``.
    min_df : a term must occur on at least this many training pages to be a candidate.
    idf : multiply by the inverted segment frequency (False: raw term frequency).
    norm : ``"l2"`` to normalise each row, or ``None``.

    Input ``X``: a sequence of pages, each a sequence of ``n_positions`` strings (a plain
    string is accepted when ``n_positions == 1``); a position may also be given as a mapping
    term -> count (already tokenised, e.g. to tokenise a corpus once for many folds).
    Output: a CSR matrix with ``n_positions * len(vocabulary_)`` columns, column
    ``p * len(vocabulary_) + j`` being term ``vocabulary_[j]`` at position ``p``.

    Examples
    --------
    >>> docs = [["reply post", "forum"], ["buy cart", "shop"], ["reply thread", "forum"]]
    >>> tf = PositionTfIsf(n_positions=2, select=1.0).fit(docs, ["f", "p", "f"])
    >>> tf.transform([["post reply", ""]]).shape
    (1, 14)
    """

    def __init__(self, n_positions: int = 10, select: float = 0.1, min_df: int = 1,
                 idf: bool = True, norm: str | None = "l2") -> None:
        self.n_positions = n_positions
        self.select = select
        self.min_df = min_df
        self.idf = idf
        self.norm = norm

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Sequence[PageTexts], y: Sequence[Any] | None = None) -> PositionTfIsf:
        if not 0.0 < self.select <= 1.0:
            raise ValueError(f"select must be in (0, 1], got {self.select}")
        if self.norm not in ("l2", None):
            raise ValueError(f"norm must be 'l2' or None, got {self.norm!r}")
        counts = _counts(X, self.n_positions)
        if not counts:
            raise ValueError("cannot fit on zero pages")
        vocab: dict[str, int] = {}
        for doc in counts:
            for c in doc:
                for t in c:
                    vocab.setdefault(t, len(vocab))
        terms = np.array(sorted(vocab), dtype=object)
        index = {t: j for j, t in enumerate(terms)}
        presence = self._matrix(counts, index, len(terms), binary_any=True)
        df = np.asarray((presence > 0).sum(axis=0)).ravel()
        cand = np.flatnonzero(df >= self.min_df)
        if self.select < 1.0:
            if y is None:
                raise ValueError("information-gain selection (select < 1) needs labels y")
            if len(y) != len(counts):
                raise ValueError(f"{len(counts)} pages but {len(y)} labels")
            ig = information_gain(presence[:, cand], np.asarray(y))
            keep = max(1, math.ceil(self.select * len(cand)))
            best = np.sort(np.lexsort((cand, -ig))[:keep])  # best gain; ties: alphabetical
            cand = cand[best]
            self.information_gain_ = ig[best]
        self.vocabulary_ = [str(t) for t in terms[cand]]
        self.n_candidate_terms_ = int((df >= self.min_df).sum())
        sel = {t: j for j, t in enumerate(self.vocabulary_)}
        k = len(self.vocabulary_)
        n_p = np.zeros(self.n_positions)
        sf = np.zeros((self.n_positions, k))
        for doc in counts:
            for p, c in enumerate(doc):
                if c:
                    n_p[p] += 1
                for t in c:
                    j = sel.get(t)
                    if j is not None:
                        sf[p, j] += 1
        self.isf_ = (np.log((1.0 + n_p[:, None]) / (1.0 + sf)) + 1.0 if self.idf
                     else np.ones_like(sf))
        self.position_pages_ = n_p.astype(int).tolist()
        return self

    # ------------------------------------------------------------------ transform
    def transform(self, X: Sequence[PageTexts]) -> sp.csr_matrix:
        self._check_fitted()
        counts = _counts(X, self.n_positions)
        index = {t: j for j, t in enumerate(self.vocabulary_)}
        M = self._matrix(counts, index, len(self.vocabulary_), binary_any=False)
        M = M.multiply(self.isf_.reshape(1, -1)).tocsr()
        if self.norm == "l2":
            nrm = np.sqrt(np.asarray(M.multiply(M).sum(axis=1)).ravel())
            nrm[nrm == 0] = 1.0
            M = sp.csr_matrix(sp.diags(1.0 / nrm) @ M)
        return M

    def _matrix(self, counts: list[list[Counter[str]]], index: dict[str, int], k: int,
                binary_any: bool) -> sp.csr_matrix:
        """Term-count matrix: (pages, k) summed over positions, or (pages, P * k)."""
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        for i, doc in enumerate(counts):
            for p, c in enumerate(doc):
                off = 0 if binary_any else p * k
                for t, v in c.items():
                    j = index.get(t)
                    if j is not None:
                        rows.append(i)
                        cols.append(off + j)
                        vals.append(float(v))
        width = k if binary_any else self.n_positions * k
        return sp.csr_matrix((vals, (rows, cols)), shape=(len(counts), width),
                             dtype=np.float64)

    def _check_fitted(self) -> None:
        if not hasattr(self, "vocabulary_"):
            raise ValueError("PositionTfIsf is not fitted yet; call fit first")

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        self._check_fitted()
        return np.array([f"p{p}:{t}" for p in range(self.n_positions)
                         for t in self.vocabulary_], dtype=object)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        """Fitted state as JSON types (ISF rounded to 6 decimals)."""
        self._check_fitted()
        return {"params": self.get_params(), "vocabulary": self.vocabulary_,
                "isf": np.round(self.isf_, 6).tolist(),
                "position_pages": self.position_pages_,
                "n_candidate_terms": self.n_candidate_terms_}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PositionTfIsf:
        self = cls(**d["params"])
        self.vocabulary_ = list(d["vocabulary"])
        self.isf_ = np.asarray(d["isf"], dtype=np.float64).reshape(self.n_positions,
                                                                   len(self.vocabulary_))
        self.position_pages_ = list(d.get("position_pages", []))
        self.n_candidate_terms_ = int(d.get("n_candidate_terms", len(self.vocabulary_)))
        return self
