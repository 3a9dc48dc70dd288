"""Tokenisation and stop words shared by every classification feature.

The paper's "basic preprocessing such as stop word removal" is not specified further; we use a
plain, deterministic tokeniser so that training, evaluation and the CLI see exactly the same
terms: lower-cased runs of letters and digits that start with a letter, 2-30 characters long,
minus scikit-learn's English stop-word list (318 words). Digits-only tokens (prices, dates,
counts) are dropped: they are mostly page-specific noise, not functional terms.
"""

from __future__ import annotations

import re
from collections import Counter

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = ["STOP_WORDS", "term_counts", "tokenize"]

STOP_WORDS: frozenset[str] = frozenset(ENGLISH_STOP_WORDS)

_TOKEN = re.compile(r"(?<![^\W_])[^\W\d_][^\W_]{1,29}(?![^\W_])")


def tokenize(text: str) -> list[str]:
    """Terms of ``text`` in order: lower-cased word tokens without stop words.

    >>> tokenize("Reply to this POST - posted 2 days ago in the Forum")
    ['reply', 'post', 'posted', 'days', 'ago', 'forum']
    """
    if not text:
        return []
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOP_WORDS]


def term_counts(text: str) -> Counter[str]:
    """Term frequencies of ``text`` (:func:`tokenize`)."""
    return Counter(tokenize(text))
