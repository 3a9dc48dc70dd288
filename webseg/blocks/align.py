"""Gold main text -> per-leaf labels: which visible text leaves of a page are main content.

Moved here from ``eval.templates.textmetrics`` (which re-exports it) because training the block
model (:mod:`webseg.blocks.train`) needs the same labels and ``webseg`` never imports ``eval``.

The gold text has no positions, so it is aligned to the page's word sequence with
:class:`difflib.SequenceMatcher` (longest common blocks first, recursively on both sides;
``autojunk`` off so that frequent words are not ignored). Matching blocks shorter than
``min_block`` words are dropped (an isolated "the" or "news" in a menu must not count as
article text), and a leaf is content when more than half of its words are aligned. The share
of gold words that found a place on the page (``coverage``) is returned, so that pages whose
gold does not match the rendering can be seen. Words are lower-cased ``\\w+`` tokens
(Unicode aware: one tokeniser for every language).
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass

import numpy as np

from webseg.page import Page

__all__ = ["Alignment", "align_gold", "page_words", "words"]

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-cased ``\\w+`` tokens of ``text``."""
    return _WORD.findall(text.lower())


def page_words(page: Page) -> tuple[list[str], np.ndarray]:
    """Words of the visible text leaves in document order, and the leaf index of each word."""
    toks: list[str] = []
    owner: list[int] = []
    for k, j in enumerate(page.text_leaves.tolist()):
        w = words(page.text[j])
        toks.extend(w)
        owner.extend([k] * len(w))
    return toks, np.asarray(owner, dtype=np.int64)


@dataclass(frozen=True)
class Alignment:
    """Result of :func:`align_gold`.

    ``content``: bool per ``page.text_leaves`` entry (gold main content); ``coverage``: share
    of gold words aligned to page words (nan when the gold has no words); ``gold_words`` and
    ``page_words``: token counts; ``content_words``: page words aligned to the gold.
    """

    content: np.ndarray
    coverage: float
    gold_words: int
    page_words: int
    content_words: int


def align_gold(page: Page, gold: str, min_block: int = 2) -> Alignment:
    """Gold main-content flag of every visible text leaf (see the module docstring)."""
    toks, owner = page_words(page)
    g = words(gold)
    n_leaves = len(page.text_leaves)
    aligned = np.zeros(len(toks), dtype=bool)
    if toks and g:
        # ints compare faster than strings inside SequenceMatcher
        vocab: dict[str, int] = {}
        a = [vocab.setdefault(t, len(vocab)) for t in toks]
        b = [vocab.setdefault(t, len(vocab)) for t in g]
        sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for blk in sm.get_matching_blocks():
            if blk.size >= min_block or blk.size == len(g):
                aligned[blk.a:blk.a + blk.size] = True
    per_leaf = np.bincount(owner, minlength=n_leaves) if len(owner) else np.zeros(n_leaves)
    hit = (np.bincount(owner, weights=aligned.astype(float), minlength=n_leaves)
           if len(owner) else np.zeros(n_leaves))
    content = hit * 2 > per_leaf
    n_al = int(aligned.sum())
    return Alignment(content=content, coverage=(n_al / len(g)) if g else math.nan,
                     gold_words=len(g), page_words=len(toks),
                     content_words=int(per_leaf[content].sum()))
