"""Text the page repeats: a kept leaf whose words repeat an earlier kept leaf is dropped.

Pages carry second copies of their article that a reader never sees: a print layer (a
``div`` shown only by the print style sheet), a ``noscript`` or mobile copy, an article
repeated in a hidden teaser. Without the page's style sheets (parsed pages, or rendered ones
whose external CSS is not loaded offline) both copies look like content to the leaf model,
and the kept text says every sentence twice. A reader takes the same paragraph once, so the
decoder keeps the first copy of a long leaf and drops its repeats.

Where: only under an element whose class/id says it is not shown as such - the ``share``
category of :mod:`webseg.blocks.vocab` (which holds ``print``) or its ``hidden`` category
(:func:`drop_copies`). Elsewhere a repeat is often what the page says: product cards with the
same description, a forum post quoting another, "it currently reads / it should read", and
pages that show the article twice, whose gold (CleanEval, L3S-GN1) counts both copies. Measured
on out-of-fold scores: dropping every repeat lost up to 0.003 on three sets; dropping repeats
under such markup lost on none and gave ``daniel-dev`` Polish +0.024
(``eval/results/blocks/README.md``, tenth run).

Only leaves of at least ``min_tokens`` words (one word per letter in unspaced scripts, as
:func:`webseg.blocks.align.words` counts) are compared: short lines legitimately repeat
(a title in the headline and the breadcrumb, "Read more", a price), and dropping them would
change what the article says. The comparison is on the words, so a copy that differs only in
whitespace or case (``\\xa0`` against a space, a line break inside the paragraph) is a repeat.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from webseg.blocks.features import FEATURE_NAMES

__all__ = ["COPY_CATEGORIES", "MIN_REPEAT_TOKENS", "drop_copies", "drop_repeated"]

#: Leaves shorter than this (in words) are never treated as repeats.
MIN_REPEAT_TOKENS = 8
#: class/id categories (:data:`webseg.blocks.vocab.CATEGORIES`) that mark a copy not shown as
#: such: ``share`` holds ``print`` (a print layer), ``hidden`` a hidden or screen-reader copy
COPY_CATEGORIES = ("share", "hidden")


def drop_repeated(tokens: Sequence[Sequence[Hashable]], keep: np.ndarray,
                  min_tokens: int = MIN_REPEAT_TOKENS) -> np.ndarray:
    """The keep mask with every kept leaf dropped whose tokens (``tokens[i]``, in document
    order) equal those of an earlier kept leaf, for leaves of at least ``min_tokens`` tokens.
    A new array; ``keep`` is not changed."""
    out = np.asarray(keep, dtype=bool).copy()
    if len(tokens) != len(out):
        raise ValueError(f"{len(tokens)} token lists for {len(out)} leaves")
    seen: set[tuple[Hashable, ...]] = set()
    for i in np.flatnonzero(out):
        toks = tuple(tokens[i])
        if len(toks) < min_tokens:
            continue
        if toks in seen:
            out[i] = False
        else:
            seen.add(toks)
    return out


def drop_copies(tokens: Sequence[Sequence[Hashable]], X: np.ndarray, keep: np.ndarray,
                min_tokens: int = MIN_REPEAT_TOKENS) -> np.ndarray:
    """The keep mask without the kept repeats (:func:`drop_repeated`) that lie under an
    element of :data:`COPY_CATEGORIES`; ``X`` are the leaves' features
    (:data:`webseg.blocks.features.FEATURE_NAMES` columns, ``cat_any_*``)."""
    keep = np.asarray(keep, dtype=bool)
    inside = np.zeros(len(keep), dtype=bool)
    for c in COPY_CATEGORIES:
        inside |= X[:, FEATURE_NAMES.index(f"cat_any_{c}")] > 0
    if not (keep & inside).any():
        return keep.copy()
    return keep & (drop_repeated(tokens, keep, min_tokens) | ~inside)
