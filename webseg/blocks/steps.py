"""The decoder steps every decoder's leaf decision goes through, in order.

After the model's decision (:meth:`webseg.blocks.model.BlockModel.decode`) and before the
structure units (:mod:`webseg.blocks.units`), markup the leaf model weighs only softly gets a
last word, each step measured on out-of-fold leaf scores before it was adopted
(``eval/results/blocks/README.md``):

1. copies of kept text under print/hidden markup go (:func:`webseg.blocks.repeats.drop_copies`);
2. kept leaves under comment markup need a margin over the threshold
   (:func:`webseg.blocks.comments.comment_margin`);
3. kept leaves under nearby boilerplate markup need a margin over the threshold
   (:func:`webseg.blocks.boilerplate.boilerplate_margin`);
4. a comment thread the decision mostly dropped loses its kept lines too
   (:func:`webseg.blocks.comments.comment_threads`), judged on the mask of the steps before.

Steps only drop leaves; none takes a dropped leaf back.
"""

from __future__ import annotations

import numpy as np

from webseg.blocks.boilerplate import boilerplate_margin
from webseg.blocks.comments import comment_margin, comment_threads
from webseg.blocks.features import LeafFeatures
from webseg.blocks.repeats import drop_copies

__all__ = ["decoder_steps"]


def decoder_steps(lf: LeafFeatures, scores: np.ndarray, keep: np.ndarray,
                  threshold: float) -> np.ndarray:
    """The keep mask of ``lf``'s leaves after the four steps, given the leaves' stage-2
    ``scores`` and the page's decision ``threshold``. A new array."""
    keep = drop_copies(lf.tokens, lf.X, keep)
    keep = comment_margin(lf.X, scores, keep, threshold)
    keep = boilerplate_margin(lf.X, scores, keep, threshold)
    return comment_threads(lf.X, lf.ranges, lf.chars, keep)
