"""Text the page repeats: a kept leaf whose words repeat an earlier kept leaf is dropped.

Pages carry second copies of their article that a reader never sees: a print layer (a
``div`` shown only by the print style sheet), a ``noscript`` or mobile copy, an article
repeated in a hidden teaser. Without the page's style sheets (parsed pages, or rendered ones
whose external CSS is not loaded offline) both copies look like content to the leaf model,
and the kept text says every sentence twice. A reader takes the same paragraph once, so the
decoder keeps the first copy of a long leaf and drops its repeats.

Only leaves of at least ``min_tokens`` words (one word per letter in unspaced scripts, as
:func:`webseg.blocks.align.words` counts) are compared: short lines legitimately repeat
(a title in the headline and the breadcrumb, "Read more", a price), and dropping them would
change what the article says. The comparison is on the words, so a copy that differs only in
whitespace or case (``\\xa0`` against a space, a line break inside the paragraph) is a repeat.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

__all__ = ["MIN_REPEAT_TOKENS", "drop_repeated"]

#: Leaves shorter than this (in words) are never treated as repeats.
MIN_REPEAT_TOKENS = 8


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
