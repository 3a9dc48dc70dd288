"""Word-level scoring of main-content extraction and of template detection.

Two measures, both over normalised words (``\\w+`` matches of the lower-cased text, Unicode
aware, so the same tokeniser for every method and every language):

* :func:`bow_prf` - the WCXB metric: bag-of-words (multiset) precision / recall / F1 of the
  extracted text against the gold main text. Word order and position are ignored.
* :func:`align_gold` - which visible text leaves of a rendered page are gold main content, for
  the template f-measure of Chakrabarti et al. (WWW 2007, section 6.1), where a word is
  "template" when it is not part of the main content. The gold text has no positions, so it is
  aligned to the page's word sequence with :class:`difflib.SequenceMatcher` (longest common
  blocks first, recursively on both sides; ``autojunk`` off so that frequent words are not
  ignored). Matching blocks shorter than ``min_block`` words are dropped (an isolated "the" or
  "news" in a menu must not count as article text), and a leaf is content when more than half
  of its words are aligned. The share of gold words that found a place on the page
  (``coverage``) is returned, so that pages whose gold does not match the rendering can be seen.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from webseg.blocks.align import Alignment, align_gold, page_words

__all__ = ["Alignment", "align_gold", "bow_prf", "page_words", "words"]

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-cased ``\\w+`` tokens of ``text``."""
    return _WORD.findall(text.lower())


def bow_prf(pred: str | Sequence[str], gold: str | Sequence[str]) -> tuple[float, float, float]:
    """Bag-of-words (P, R, F1) of ``pred`` against ``gold`` (strings or token lists).

    Empty cases, decided explicitly: empty gold and empty prediction is a perfect answer
    (1, 1, 1: WCXB's empty-gold pages say "the right output is nothing"); empty gold with a
    non-empty prediction scores (0, nan, 0) (every word claimed is wrong; recall of nothing is
    undefined); a non-empty gold with an empty prediction scores (nan, 0, 0): precision is
    undefined, and ``nan`` keeps it out of the mean precision while F1 counts the miss.
    """
    p_tok = words(pred) if isinstance(pred, str) else list(pred)
    g_tok = words(gold) if isinstance(gold, str) else list(gold)
    if not g_tok:
        return (1.0, 1.0, 1.0) if not p_tok else (0.0, math.nan, 0.0)
    if not p_tok:
        return math.nan, 0.0, 0.0
    common = sum((Counter(p_tok) & Counter(g_tok)).values())
    p, r = common / len(p_tok), common / len(g_tok)
    return p, r, (2 * p * r / (p + r) if common else 0.0)
