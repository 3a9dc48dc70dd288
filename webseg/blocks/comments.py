"""Comment threads: kept only when the model is sure of them.

Whether comments are main content is a convention the labelled sets disagree on: Dragnet,
L3S-GN1 and the multilingual news of ``daniel-dev`` leave an article's comments out,
CleanEval counts them in, and on WCXB's forum pages the posts themselves sit in comment-like
markup (``class="comment"``, ``reply``). The leaf model learns a compromise and keeps many
comment threads under short articles at the edge of the page's threshold (most of Dragnet's
falsely kept words are under a ``comment``-category element).

So a kept leaf under an element of the ``comment`` category (:mod:`webseg.blocks.vocab`:
``comment``, ``reply``, ``disqus``, ``respond``...) must score at least :data:`COMMENT_MARGIN`
above the page's decision threshold: a forum's posts, which the model is sure of, stay; the
uncertain tail of an article's thread goes. Measured on out-of-fold scores (the "tenth run" of
``eval/results/blocks/README.md``): Dragnet test +0.003, no set below -0.003 (dropping every
comment under a longer article won Dragnet +0.005 but lost WCXB's forum pages -0.005).

Then a thread is decided whole (:func:`comment_threads`): when the decision dropped most of a
comment thread's text, the few lines it kept of it go too - the "Comment #12 - Posted by:"
lines between dropped replies, or one long reply that reads like the article. Measured with
the nearby-boilerplate margin of :mod:`webseg.blocks.boilerplate`
(``eval/results/blocks/README.md``, "nearby boilerplate and comment threads").
"""

from __future__ import annotations

import numpy as np

from webseg.blocks.features import FEATURE_NAMES

__all__ = ["COMMENT_MARGIN", "THREAD_KEPT_SHARE", "comment_margin", "comment_threads"]

#: How far above the page's threshold a leaf under comment markup must score to stay kept.
COMMENT_MARGIN = 0.2
#: The share of a comment thread's characters the decision must keep for the thread's kept
#: leaves to stay (:func:`comment_threads`): a thread is kept or dropped by its majority.
THREAD_KEPT_SHARE = 0.5


def comment_margin(X: np.ndarray, scores: np.ndarray, keep: np.ndarray, threshold: float,
                   margin: float = COMMENT_MARGIN) -> np.ndarray:
    """The keep mask without the kept leaves under a ``comment``-category element
    (``cat_any_comment`` of ``X``, the leaves' :data:`webseg.blocks.features.FEATURE_NAMES`
    columns) whose score is below ``threshold + margin``. A new array."""
    keep = np.asarray(keep, dtype=bool)
    com = X[:, FEATURE_NAMES.index("cat_any_comment")] > 0
    return keep & ~(com & (np.asarray(scores) < threshold + margin))


def comment_threads(X: np.ndarray, ranges: np.ndarray, chars: np.ndarray,
                    keep: np.ndarray, share: float = THREAD_KEPT_SHARE) -> np.ndarray:
    """The keep mask without the kept leaves of comment threads the decision mostly dropped.

    A leaf's *thread* is the widest of its context subtrees (``ranges``: the half-open leaf
    intervals of :data:`webseg.blocks.features.CONTEXT_LEVELS`, as
    :class:`~webseg.blocks.features.LeafFeatures` has them) whose leaves all lie under comment
    markup (``cat_any_comment`` of ``X``). When the kept leaves hold less than ``share`` of the
    thread's characters (``chars``), its kept leaves are dropped too: a reader takes a thread
    whole, and what the leaf model kept of a thread it otherwise dropped are its most
    article-like lines (a "Comment #3 - Posted by" line, a long reply) at the edge of the
    threshold. A thread that holds every kept leaf of the page is left alone: that page is
    the thread (a forum, a guest book), not an article with its comments. A new array."""
    keep = np.asarray(keep, dtype=bool)
    X = np.asarray(X)
    if X.shape[0] != len(keep) or len(ranges) != len(keep) or len(chars) != len(keep):
        raise ValueError("X, ranges, chars and keep must have one row per leaf")
    out = keep.copy()
    if not len(keep):
        return out
    com = X[:, FEATURE_NAMES.index("cat_any_comment")] > 0
    cand = np.flatnonzero(keep & com)
    if not len(cand):
        return out
    n_com = np.concatenate([[0], np.cumsum(com)])
    ch = np.asarray(chars, dtype=np.float64)
    all_ch = np.concatenate([[0.0], np.cumsum(ch)])
    kept_ch = np.concatenate([[0.0], np.cumsum(ch * keep)])
    n_kept = np.concatenate([[0], np.cumsum(keep)])
    total_kept = int(n_kept[-1])
    rg = np.asarray(ranges, dtype=np.int64)
    for i in cand.tolist():
        lo, hi = i, i + 1
        for a, b in rg[i].tolist():
            if b - a > hi - lo and n_com[b] - n_com[a] == b - a:
                lo, hi = a, b
        if n_kept[hi] - n_kept[lo] == total_kept:
            continue  # nothing kept outside the thread: the page is the thread
        if kept_ch[hi] - kept_ch[lo] < share * max(all_ch[hi] - all_ch[lo], 1e-9):
            out[i] = False
    return out
