"""Segmentation-quality metrics: the measures of the papers webseg reproduces.

A *labelling* is an integer array with one entry per atom (normally one per visible text leaf,
``page.text_leaves`` order, as returned by :meth:`webseg.segmentation.Segmentation.leaf_labels`):
atoms with the same label are in the same segment. Every clustering metric here is computed from
the (weighted) **contingency table** ``N[t, p]`` = total weight of the atoms whose true label is
``t`` and predicted label is ``p``, built once with :class:`scipy.sparse.coo_matrix`. All the
formulas below are sums over the non-zero cells, row sums and column sums of that table, so they
are vectorised and never loop over atoms (the table has at most ``n`` non-zero cells).

Metrics and where they come from:

* :func:`adjusted_rand_index` and :func:`normalized_mutual_info` - AdjRAND and NMI of
  Chakrabarti, Kumar & Punera, "A graph-theoretic approach to webpage segmentation", WWW 2008
  (also reported by Kreuzer et al. and Kiesel et al.). They equal scikit-learn's
  ``adjusted_rand_score`` and ``normalized_mutual_info_score(average_method="geometric")``.
* :func:`bcubed` - BCubed precision/recall/F (Bagga & Baldwin 1998; Amigo et al., "A comparison
  of extrinsic clustering evaluation metrics based on formal constraints", Inf. Retr. 2009), as
  used by Bing et al. SIGIR 2014 and, weighted by characters, by Kiesel et al. CIKM 2020.
* :func:`extended_bcubed` - Amigo et al.'s extended BCubed for *overlapping* clusterings (an atom
  may belong to several segments, e.g. to every level of a segment hierarchy), the measure of
  Kiesel et al., "Web Page Segmentation Revisited: Evaluation Framework and Dataset", CIKM 2020.
* :func:`template_prf` / :func:`template_scores` - precision/recall/F1 of the *template* class of
  Chakrabarti, Kumar & Punera, "Page-level template detection via isotonic smoothing", WWW 2007
  (section 6.1: a word is template when it is not part of the page's main content), over words,
  anchor-text words and links.

Unassigned atoms
----------------
The label :data:`~webseg.segmentation.UNASSIGNED` (``-1``) means "in no segment". How such atoms
are clustered matters for every metric, so every metric function takes
``unassigned="background"`` or ``"singleton"`` and applies it to *both* labellings through
:func:`resolve_unassigned`:

* ``"background"`` (the default everywhere): all unassigned atoms form one cluster. This is the
  view of the papers above, where the rest of the page outside every annotated block behaves as
  one more block; it also makes the scores identical to scikit-learn's, which treat ``-1`` as an
  ordinary label.
* ``"singleton"``: each unassigned atom is a cluster of its own, so leaving atoms out is neither
  rewarded nor punished as one big block (useful when a segmenter covers only part of a page).

Degenerate inputs: with 0 atoms every score is ``nan`` (and :class:`PRF` is all ``nan``) rather
than an exception, so per-page scores can be averaged with ``np.nanmean``. One atom gives ARI and
NMI 1.0, following scikit-learn.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from webseg.segmentation import UNASSIGNED

if TYPE_CHECKING:
    from webseg.page import Page
    from webseg.segmentation import Segmentation

__all__ = [
    "PRF",
    "UNASSIGNED_MODES",
    "adjusted_rand_index",
    "bcubed",
    "contingency",
    "extended_bcubed",
    "normalized_mutual_info",
    "resolve_unassigned",
    "segmentation_scores",
    "template_prf",
    "template_scores",
]

#: Accepted values of the ``unassigned`` argument.
UNASSIGNED_MODES = ("background", "singleton")

_NAN = float("nan")
_WORD = re.compile(r"\w+")
#: Entries of one dense (rows x n) block in :func:`extended_bcubed` (bounds its memory).
_BLOCK_ENTRIES = 1 << 22


@dataclass(frozen=True)
class PRF:
    """Precision, recall and their harmonic mean F1."""

    precision: float
    recall: float
    f1: float

    @classmethod
    def of(cls, precision: float, recall: float) -> PRF:
        """Build from P and R; F1 = 2PR / (P + R), 0 when P + R = 0, nan when either is nan."""
        return cls(float(precision), float(recall), _f1(precision, recall))

    @classmethod
    def nan(cls) -> PRF:
        return cls(_NAN, _NAN, _NAN)

    def as_dict(self, prefix: str = "") -> dict[str, float]:
        return {f"{prefix}p": self.precision, f"{prefix}r": self.recall, f"{prefix}f": self.f1}


def _f1(p: float, r: float) -> float:
    if math.isnan(p) or math.isnan(r):
        return _NAN
    return 0.0 if p + r == 0 else float(2.0 * p * r / (p + r))


# ---------------------------------------------------------------------------------- input checks
def _labels(labels: Any, name: str = "labels") -> np.ndarray:
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iub":
        raise TypeError(f"{name} must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _weights(weights: Any, n: int) -> np.ndarray | None:
    if weights is None:
        return None
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"weights must have shape ({n},), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    return w


def _check_mode(mode: str) -> None:
    if mode not in UNASSIGNED_MODES:
        raise ValueError(f"unassigned must be one of {UNASSIGNED_MODES}, got {mode!r}")


def resolve_unassigned(labels: Any, mode: str = "background") -> np.ndarray:
    """Give :data:`UNASSIGNED` (-1) atoms real cluster labels (returns a new int64 array).

    ``mode="background"``: every -1 atom gets the label ``max(labels) + 1``, so the unassigned
    atoms form one cluster (the page background outside all blocks behaves as one block).
    ``mode="singleton"``: the -1 atoms get ``max + 1, max + 2, ...``, one cluster each.
    Other labels are unchanged, so a labelling without -1 is returned as is (as a copy).
    """
    _check_mode(mode)
    lab = _labels(labels).copy()
    miss = lab == UNASSIGNED
    if not miss.any():
        return lab
    top = int(lab.max()) + 1  # > every label, also when all are -1 (then 0)
    if mode == "background":
        lab[miss] = top
    else:
        lab[miss] = top + np.arange(int(miss.sum()), dtype=np.int64)
    return lab


def _pair(labels_true: Any, labels_pred: Any, unassigned: str) -> tuple[np.ndarray, np.ndarray]:
    t = resolve_unassigned(_labels(labels_true, "labels_true"), unassigned)
    p = resolve_unassigned(_labels(labels_pred, "labels_pred"), unassigned)
    if t.shape != p.shape:
        raise ValueError(f"labels_true has {t.size} atoms but labels_pred has {p.size}")
    return t, p


# ---------------------------------------------------------------------------------- contingency
def contingency(labels_true: Any, labels_pred: Any, weights: Any = None,
                unassigned: str = "background") -> sp.csr_matrix:
    """Weighted contingency table of two labellings.

    ``N[t, p]`` is the number (``weights=None``, int64) or total weight (float64) of the atoms
    with the ``t``-th true label and the ``p``-th predicted label, rows and columns in increasing
    label order (after :func:`resolve_unassigned`). Built as a ``coo_matrix`` whose duplicate
    entries are summed, so it costs O(n log n) and stores at most ``n`` cells.
    """
    t, p = _pair(labels_true, labels_pred, unassigned)
    w = _weights(weights, t.size)
    _, ti = np.unique(t, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    ti, pi = ti.reshape(-1), pi.reshape(-1)
    shape = (int(ti.max()) + 1 if ti.size else 0, int(pi.max()) + 1 if pi.size else 0)
    data = np.ones(t.size, dtype=np.int64) if w is None else w
    table = sp.coo_matrix((data, (ti, pi)), shape=shape)
    table.sum_duplicates()
    return table.tocsr()


def _margins(table: sp.spmatrix) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(table.sum(axis=1)).ravel(), np.asarray(table.sum(axis=0)).ravel()


# ---------------------------------------------------------------------------------- ARI / NMI
def adjusted_rand_index(labels_true: Any, labels_pred: Any,
                        unassigned: str = "background") -> float:
    """Adjusted Rand index of Hubert & Arabie (1985), as in Chakrabarti et al. WWW 2008.

    The Rand index counts the pairs of atoms on which the two labellings agree (same cluster in
    both or different clusters in both). Its expected value under random labellings with the
    same cluster sizes is far from 0, so it is adjusted for chance::

        index    = sum_tp C(n_tp, 2)          (pairs together in both)
        a, b     = sum_t C(n_t, 2), sum_p C(n_p, 2)   (pairs together in truth / prediction)
        expected = a * b / C(n, 2)
        ARI      = (index - expected) / ((a + b) / 2 - expected)

    1 is a perfect match, about 0 a random one, negative worse than chance. The sums come from
    the contingency table (int64); the final combination is evaluated in exact integer
    arithmetic (``2 index C(n,2) - 2ab`` over ``(a + b) C(n,2) - 2ab``) and rounded once, so it
    neither overflows nor loses precision and equals ``sklearn.metrics.adjusted_rand_score``.
    When the two labellings are the same partition the ratio can be 0/0 (all atoms in one
    cluster, or all singletons): the score is then 1.0, as in scikit-learn. 0 atoms: ``nan``.
    """
    t, p = _pair(labels_true, labels_pred, unassigned)
    n = t.size
    if n == 0:
        return _NAN
    table = contingency(t, p)
    rows, cols = _margins(table)
    # sum_tp n_tp^2 etc. are exact in int64 for any realistic n (< 3e9 atoms)
    sq = int((table.data.astype(np.int64) ** 2).sum())
    sq_t = int((rows.astype(np.int64) ** 2).sum())
    sq_p = int((cols.astype(np.int64) ** 2).sum())
    if sq == sq_t == sq_p:  # identical partitions
        return 1.0
    index, a, b = (sq - n) // 2, (sq_t - n) // 2, (sq_p - n) // 2
    n2 = n * (n - 1) // 2
    return float((2 * index * n2 - 2 * a * b) / ((a + b) * n2 - 2 * a * b))


def _entropy(margin: np.ndarray) -> float:
    m = margin[margin > 0].astype(np.float64)
    total = m.sum()
    return float(-np.sum((m / total) * (np.log(m) - math.log(total))))


def normalized_mutual_info(labels_true: Any, labels_pred: Any,
                           unassigned: str = "background") -> float:
    """Normalised mutual information with geometric-mean normalisation (Strehl & Ghosh 2002).

    ``NMI = I(T; P) / sqrt(H(T) H(P))`` with natural logarithms, where, with ``n_tp`` the
    contingency table, ``n_t`` / ``n_p`` its margins and ``n`` the number of atoms::

        I(T; P) = sum_tp (n_tp / n) log(n n_tp / (n_t n_p))
        H(T)    = -sum_t (n_t / n) log(n_t / n)

    This is the NMI of Chakrabarti et al. WWW 2008 and equals
    ``sklearn.metrics.normalized_mutual_info_score(average_method="geometric")``, including its
    conventions for degenerate cases: 1.0 when both labellings are a single cluster (no split is
    a perfect match; this covers one atom), 0.0 when only one of them is (then I = 0 while the
    other entropy is positive), ``nan`` for 0 atoms.
    """
    t, p = _pair(labels_true, labels_pred, unassigned)
    if t.size == 0:
        return _NAN
    table = contingency(t, p).tocoo()
    rows, cols = _margins(table)
    if rows.size == 1 and cols.size == 1:
        return 1.0
    if rows.size == 1 or cols.size == 1:
        return 0.0
    nz = table.data.astype(np.float64)
    n = float(nz.sum())
    log_outer = (np.log(rows[table.row].astype(np.float64))
                 + np.log(cols[table.col].astype(np.float64)))
    mi = float(np.sum((nz / n) * (np.log(nz) - log_outer + math.log(n))))
    mi = max(mi, 0.0)
    if mi == 0.0:
        return 0.0
    return float(mi / math.sqrt(_entropy(rows) * _entropy(cols)))


# ---------------------------------------------------------------------------------- BCubed
def bcubed(labels_true: Any, labels_pred: Any, weights: Any = None,
           unassigned: str = "background") -> PRF:
    """BCubed precision, recall and F (Bagga & Baldwin 1998; Amigo et al. 2009).

    For atom ``i`` with predicted cluster ``C(i)`` and true cluster ``L(i)`` and item weights
    ``w`` (``weights=None``: all 1, the "over text nodes" variant; character counts give the
    "over characters" variant of Kiesel et al. 2020)::

        precision_i = w(C(i) & L(i)) / w(C(i))     recall_i = w(C(i) & L(i)) / w(L(i))
        P = sum_i w_i precision_i / sum_i w_i      R likewise,   F = 2PR / (P + R)

    (``i`` itself counts in both numerator and denominator). Of the metric families Amigo et al.
    compare, BCubed is the only one satisfying all four of their formal constraints
    (homogeneity, completeness, rag bag, size vs. quantity), which is why the recent
    segmentation literature prefers it.

    Vectorised: all atoms of one contingency cell ``(t, p)`` share ``precision_i = N[t,p] /
    N[., p]``, and their weights add up to ``N[t, p]``, so with ``W = sum_i w_i``::

        P = sum_tp N[t,p]^2 / N[., p] / W          R = sum_tp N[t,p]^2 / N[t, .] / W

    Atoms of weight 0 do not count. A perfect clustering scores 1/1/1, putting everything in
    one cluster gives R = 1 and all singletons P = 1. 0 atoms (or total weight 0): all ``nan``.
    """
    t, p = _pair(labels_true, labels_pred, unassigned)
    w = _weights(weights, t.size)
    table = contingency(t, p, np.ones(t.size) if w is None else w).tocoo()
    total = float(table.data.sum())
    if t.size == 0 or total <= 0:
        return PRF.nan()
    rows, cols = _margins(table)
    sq = table.data ** 2
    den_p, den_r = cols[table.col], rows[table.row]
    prec = np.divide(sq, den_p, out=np.zeros_like(sq), where=den_p > 0).sum() / total
    rec = np.divide(sq, den_r, out=np.zeros_like(sq), where=den_r > 0).sum() / total
    return PRF.of(prec, rec)


class _Private:
    """Key of an atom's private cluster in :func:`extended_bcubed` (never equals a label)."""

    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i

    def __hash__(self) -> int:
        return hash(("webseg.metrics._Private", self.i))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Private) and other.i == self.i


def _members(s: Any, i: int, unassigned: str) -> frozenset:
    """Cluster keys of atom ``i``: -1 per ``unassigned``, an empty set -> a private cluster."""
    members = set(s)
    if UNASSIGNED in members and unassigned == "singleton":
        members.discard(UNASSIGNED)
        members.add(_Private(i))
    if not members:
        members.add(_Private(i))
    return frozenset(members)


def _membership(sets: Sequence[frozenset]) -> sp.csr_matrix:
    """Rows x clusters 0/1 matrix of an overlapping clustering."""
    vocab: dict[Any, int] = {}
    rows = [r for r, s in enumerate(sets) for _ in s]
    cols = [vocab.setdefault(lab, len(vocab)) for s in sets for lab in s]
    data = np.ones(len(rows), dtype=np.float64)
    return sp.csr_matrix((data, (rows, cols)), shape=(len(sets), len(vocab)))


def extended_bcubed(true_sets: Sequence[Any], pred_sets: Sequence[Any], weights: Any = None,
                    unassigned: str = "background") -> PRF:
    """Extended BCubed of Amigo et al. (2009) for overlapping clusterings (Kiesel et al. 2020).

    Each atom ``i`` has a *set* of true clusters ``L(i)`` and predicted clusters ``C(i)`` (e.g.
    the segments of every level of a hierarchy that contain it). For two atoms the multiplicity
    precision and recall compare how many clusters they share::

        MP(i, j) = min(|C(i) & C(j)|, |L(i) & L(j)|) / |C(i) & C(j)|   (for j with C(i) & C(j))
        MR(i, j) = min(|C(i) & C(j)|, |L(i) & L(j)|) / |L(i) & L(j)|   (for j with L(i) & L(j))

        precision_i = weighted mean of MP(i, j) over the j sharing a predicted cluster with i
        P = sum_i w_i precision_i / sum_i w_i, recall symmetric, F = 2PR / (P + R)

    (inner means weighted by ``w_j``, ``j = i`` included). With exactly one cluster per atom
    this is :func:`bcubed`. Conventions: an atom with an *empty* set (true or predicted) is in a
    private singleton cluster of its own; the label -1 inside a set follows ``unassigned`` like
    everywhere else ("background": one shared cluster; "singleton": a private cluster per atom).

    Computation: atoms with the same pair ``(L(i), C(i))`` have the same scores, so they are
    merged first into one row carrying their total weight (a hierarchy over thousands of leaves
    usually has far fewer distinct pairs). For the ``U`` remaining rows, ``|C(i) & C(j)|`` is
    ``M M^T`` of the sparse rows x clusters membership matrix ``M``, evaluated in dense row
    blocks of about 4M cells, so time is O(U^2) and memory bounded: fine for pages of a few
    thousand atoms.
    """
    _check_mode(unassigned)
    n = len(true_sets)
    if len(pred_sets) != n:
        raise ValueError(f"true_sets has {n} atoms but pred_sets has {len(pred_sets)}")
    w = np.ones(n) if weights is None else _weights(weights, n)
    assert w is not None
    total = float(w.sum())
    if n == 0 or total <= 0:
        return PRF.nan()
    signature: dict[tuple[frozenset, frozenset], int] = {}
    sig_of = np.fromiter(
        (signature.setdefault((_members(ts, i, unassigned), _members(ps, i, unassigned)),
                              len(signature))
         for i, (ts, ps) in enumerate(zip(true_sets, pred_sets, strict=True))),
        dtype=np.int64, count=n)
    sig_w = np.bincount(sig_of, weights=w, minlength=len(signature))
    m_true = _membership([k[0] for k in signature])
    m_pred = _membership([k[1] for k in signature])
    t_true, t_pred = m_true.T.tocsc(), m_pred.T.tocsc()
    u = len(signature)
    prec = np.zeros(u)
    rec = np.zeros(u)
    step = max(1, _BLOCK_ENTRIES // u)
    for lo in range(0, u, step):
        hi = min(u, lo + step)
        shared_c = (m_pred[lo:hi] @ t_pred).toarray()  # |C(i) & C(j)|
        shared_l = (m_true[lo:hi] @ t_true).toarray()  # |L(i) & L(j)|
        both = np.minimum(shared_c, shared_l)
        for out, shared in ((prec, shared_c), (rec, shared_l)):
            # both <= shared, so both / max(shared, 1) is MP (MR) and 0 where nothing is shared
            num = (both / np.maximum(shared, 1.0)) @ sig_w
            den = (shared > 0) @ sig_w
            out[lo:hi] = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return PRF.of(float(sig_w @ prec) / total, float(sig_w @ rec) / total)


# ---------------------------------------------------------------------------------- templates
def template_prf(gold_template: Any, pred_template: Any, weights: Any = None) -> PRF:
    """Precision / recall / F1 of the template class (Chakrabarti et al. WWW 2007, section 6.1).

    ``gold_template`` and ``pred_template`` are boolean arrays over atoms (words, leaves,
    links); ``weights`` (default 1 each) lets one row stand for several words. With ``TP`` the
    weight of atoms that are template in both::

        P = TP / w(pred template)      R = TP / w(gold template)      F1 = 2PR / (P + R)

    Conventions: when neither labelling has template weight, P = R = F1 = 1 (nothing to find
    and nothing claimed: perfect); when only one of them is empty, P = R = F1 = 0 (the defined
    one of P and R is 0 anyway, the undefined one is set to 0 as well). 0 atoms: all ``nan``.
    There is no ``unassigned`` argument: callers decide which atoms are template (see
    :func:`template_scores`, where unassigned leaves count as template).
    """
    g = np.asarray(gold_template, dtype=bool).reshape(-1)
    p = np.asarray(pred_template, dtype=bool).reshape(-1)
    if g.shape != p.shape:
        raise ValueError(f"gold_template has {g.size} atoms but pred_template has {p.size}")
    if g.size == 0:
        return PRF.nan()
    w = np.ones(g.size) if weights is None else _weights(weights, g.size)
    assert w is not None
    w_gold, w_pred, tp = float(w[g].sum()), float(w[p].sum()), float(w[g & p].sum())
    if w_gold == 0 and w_pred == 0:
        return PRF(1.0, 1.0, 1.0)
    if w_gold == 0 or w_pred == 0:
        return PRF(0.0, 0.0, 0.0)
    return PRF.of(tp / w_pred, tp / w_gold)


def _segment_template(seg: Segmentation, labels: np.ndarray, threshold: float) -> np.ndarray:
    """Predicted template flag per label: templateness >= threshold, unassigned -> template.

    Segments without a ``templateness`` attribute count as content, as in
    :meth:`Segmentation.non_template_text`.
    """
    out = np.ones(labels.size, dtype=bool)
    ids = np.unique(labels[labels != UNASSIGNED])
    flag = {int(s): float(seg[int(s)].attrs.get("templateness", 0.0)) >= threshold for s in ids}
    assigned = labels != UNASSIGNED
    if assigned.any():
        out[assigned] = np.fromiter((flag[int(v)] for v in labels[assigned]), dtype=bool,
                                    count=int(assigned.sum()))
    return out


def template_scores(page: Page, seg: Segmentation, gold_content_mask: Any,
                    threshold: float = 0.5) -> dict[str, PRF]:
    """Template-detection scores of one page, as in Chakrabarti et al. WWW 2007, section 6.1.

    ``gold_content_mask``: bool per ``page.text_leaves`` entry, True for main-content leaves;
    every other leaf is gold template. Predicted template leaves are those whose finest-level
    segment (``seg.node_labels()[page.text_leaves]``) has ``attrs["templateness"] >= threshold``,
    plus the leaves in no segment (unassigned = template); segments without a templateness are
    content. Returns:

    ``"text"``         :func:`template_prf` over the words of all leaves (words are ``\\w+``
                       matches of the normalised leaf text; a word inherits its leaf's flags, so
                       this is the leaf-level score weighted by word counts);
    ``"anchor_text"``  the same restricted to leaves inside an ``<a>`` element;
    ``"links"``        over ``<a>`` elements with an ``href`` attribute, one per link: gold
                       template unless the link's content words strictly outnumber its template
                       words (ties, e.g. links whose text has no words, are template); predicted
                       template by the segment of the ``<a>`` node itself. Links without visible
                       text leaves are skipped.
    """
    leaves = page.text_leaves
    gold_content = np.asarray(gold_content_mask, dtype=bool).reshape(-1)
    if gold_content.size != leaves.size:
        raise ValueError(f"gold_content_mask has {gold_content.size} entries but the page has "
                         f"{leaves.size} text leaves")
    gold_leaf = ~gold_content
    node_labels = seg.node_labels()
    pred_leaf = _segment_template(seg, node_labels[leaves], threshold)
    words = np.fromiter((len(_WORD.findall(page.leaf_text(int(i)))) for i in leaves),
                        dtype=np.float64, count=leaves.size)

    # nodes inside some <a> subtree: +1 at each <a>, -1 one past its subtree, prefix sum
    anchors = np.array([i for i, t in enumerate(page.tag) if t == "a"], dtype=np.int64)
    cover = np.zeros(page.n + 1, dtype=np.int64)
    np.add.at(cover, anchors, 1)
    np.add.at(cover, page.subtree_end[anchors].astype(np.int64), -1)
    in_anchor = np.cumsum(cover)[:-1][leaves] > 0 if leaves.size else np.zeros(0, bool)

    links = np.array([i for i in anchors if "href" in page.attrs[int(i)]], dtype=np.int64)
    lo = np.searchsorted(leaves, links)
    hi = np.searchsorted(leaves, page.subtree_end[links])
    keep = hi > lo
    links, lo, hi = links[keep], lo[keep], hi[keep]
    # template / content words per link from prefix sums over leaves
    tmpl_cum = np.concatenate([[0.0], np.cumsum(words * gold_leaf)])
    cont_cum = np.concatenate([[0.0], np.cumsum(words * gold_content)])
    link_gold = (cont_cum[hi] - cont_cum[lo]) <= (tmpl_cum[hi] - tmpl_cum[lo])
    link_pred = _segment_template(seg, node_labels[links], threshold)

    return {
        "text": template_prf(gold_leaf, pred_leaf, words),
        "anchor_text": template_prf(gold_leaf[in_anchor], pred_leaf[in_anchor],
                                    words[in_anchor]),
        "links": template_prf(link_gold, link_pred),
    }


# ---------------------------------------------------------------------------------- summary
def segmentation_scores(labels_true: Any, labels_pred: Any, char_weights: Any = None,
                        unassigned: str = "background") -> dict[str, float]:
    """All flat-segmentation scores of one page in one dict.

    Keys: ``ari``, ``nmi``, ``bcubed_p/_r/_f`` (over text nodes, every atom weighs 1),
    ``bcubed_char_p/_r/_f`` (weighted by ``char_weights``, e.g. ``page.text_length[leaves]``;
    only when ``char_weights`` is given), ``n_atoms``, and ``n_true`` / ``n_pred``: the number of
    clusters each labelling has after :func:`resolve_unassigned` (what the metrics see).
    """
    t, p = _pair(labels_true, labels_pred, unassigned)
    out: dict[str, float] = {
        "ari": adjusted_rand_index(t, p),
        "nmi": normalized_mutual_info(t, p),
    }
    out.update(bcubed(t, p).as_dict("bcubed_"))
    if char_weights is not None:
        out.update(bcubed(t, p, char_weights).as_dict("bcubed_char_"))
    out["n_atoms"] = int(t.size)
    out["n_true"] = int(np.unique(t).size)
    out["n_pred"] = int(np.unique(p).size)
    return out
