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
"""

from __future__ import annotations

import numpy as np

from webseg.blocks.features import FEATURE_NAMES

__all__ = ["COMMENT_MARGIN", "comment_margin"]

#: How far above the page's threshold a leaf under comment markup must score to stay kept.
COMMENT_MARGIN = 0.2


def comment_margin(X: np.ndarray, scores: np.ndarray, keep: np.ndarray, threshold: float,
                   margin: float = COMMENT_MARGIN) -> np.ndarray:
    """The keep mask without the kept leaves under a ``comment``-category element
    (``cat_any_comment`` of ``X``, the leaves' :data:`webseg.blocks.features.FEATURE_NAMES`
    columns) whose score is below ``threshold + margin``. A new array."""
    keep = np.asarray(keep, dtype=bool)
    com = X[:, FEATURE_NAMES.index("cat_any_comment")] > 0
    return keep & ~(com & (np.asarray(scores) < threshold + margin))
