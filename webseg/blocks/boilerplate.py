"""Leaves whose own markup says boilerplate: kept only when the model is sure of them.

Developers mark navigation, footers, sidebars, comment threads, share bars, "related" and
"latest" lists, advertisements and newsletter boxes with class, id and ARIA-role tokens
(:data:`webseg.blocks.vocab.CATEGORIES`). The leaf model weighs those tokens with everything
else, and the learned per-page threshold (``stack-page``) lowers the decision on pages whose
content scores low - short posts, galleries, pages of small blocks - which is where a sidebar
widget or a "more from this author" box at the edge of the threshold gets kept with the post.

So a kept leaf whose *nearest* markup - its parent, grandparent or great-grandparent element
(the ``cat_near_*`` features of :mod:`webseg.blocks.features`) - carries one of the
:data:`BOILERPLATE_CATEGORIES` must score at least :data:`BOILERPLATE_MARGIN` above the page's
decision threshold. The nearest markup only: ``col``, ``left``, ``main-column`` or a body class
far up the tree say little about a paragraph, while a ``div class="widget"`` or ``ul
class="related"`` right around the text says what the text is. A leaf the model is sure of
stays (a site that puts its article inside ``class="sidebar-layout"``), and nothing dropped is
taken back.

Measured on out-of-fold leaf scores, with the comment-thread step of
:mod:`webseg.blocks.comments` (``eval/results/blocks/README.md``, "nearby boilerplate and
comment threads"). A margin on *any* ancestor's markup (``cat_any_*``) at the same 0.1 won
more on Dragnet but lost 0.002 on CleanPortalEval and on Russian news pages, whose article
wrappers carry such tokens.
"""

from __future__ import annotations

import numpy as np

from webseg.blocks.features import FEATURE_NAMES

__all__ = ["BOILERPLATE_CATEGORIES", "BOILERPLATE_MARGIN", "boilerplate_margin"]

#: the class/id categories (:data:`webseg.blocks.vocab.CATEGORIES`) that mark boilerplate
BOILERPLATE_CATEGORIES = ("nav", "footer", "sidebar", "comment", "share", "related", "ad",
                          "cookie")
#: how far above the page's threshold a leaf under nearby boilerplate markup must score
BOILERPLATE_MARGIN = 0.1

_NEAR = np.array([FEATURE_NAMES.index(f"cat_near_{c}") for c in BOILERPLATE_CATEGORIES])


def boilerplate_margin(X: np.ndarray, scores: np.ndarray, keep: np.ndarray, threshold: float,
                       margin: float = BOILERPLATE_MARGIN) -> np.ndarray:
    """The keep mask without the kept leaves whose three nearest ancestors carry a
    :data:`BOILERPLATE_CATEGORIES` class/id/role (``cat_near_*`` columns of ``X``, the leaves'
    :data:`webseg.blocks.features.FEATURE_NAMES` features) and whose score is below
    ``threshold + margin``. A new array."""
    keep = np.asarray(keep, dtype=bool)
    X = np.asarray(X)
    if X.shape[0] != len(keep):
        raise ValueError(f"{X.shape[0]} feature rows for {len(keep)} leaves")
    near = (X[:, _NEAR] > 0).any(axis=1) if len(keep) else np.zeros(0, dtype=bool)
    return keep & ~(near & (np.asarray(scores) < threshold + margin))
