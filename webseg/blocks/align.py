"""Gold main text -> per-leaf labels: which visible text leaves of a page are main content.

Moved here from ``eval.templates.textmetrics`` (which re-exports it) because training the block
model (:mod:`webseg.blocks.train`) needs the same labels and ``webseg`` never imports ``eval``.

The gold text has no positions, so it is aligned to the page's word sequence with
:class:`difflib.SequenceMatcher` (longest common blocks first, recursively on both sides;
``autojunk`` off so that frequent words are not ignored). Matching blocks shorter than
``min_block`` words are dropped (an isolated "the" or "news" in a menu must not count as
article text), and a leaf is content when more than half of its words are aligned. The share
of gold words that found a place on the page (``coverage``) is returned, so that pages whose
gold does not match the rendering can be seen.

Words (:func:`words`) are lower-cased ``\\w+`` tokens, except that every letter of a script
written without spaces between words (Chinese, Japanese kana, Thai, ...;
:func:`webseg.lang.has_unspaced_letter`) is a word of its own: otherwise a Chinese paragraph
is one "word", aligns only when the page has the identical run, and weighs as much as one
English word in training and scoring. A matching run made only of such single letters needs
twice ``min_block`` letters (two letters are about one Chinese word, so a run of two
characters is as weak evidence as one English word). Text without such letters gets exactly
the plain ``\\w+`` tokens.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass

import numpy as np

from webseg import _native as native
from webseg.page import Page

__all__ = ["Alignment", "align_gold", "has_unspaced_word", "is_unspaced_token", "page_words",
           "words", "words_many"]

_WORD = re.compile(r"\w+")
#: The characters :func:`webseg.lang.has_unspaced_letter` matches (its ``regex`` script
#: classes, as code-point ranges for the standard ``re`` module, whose C matcher runs the
#: tokeniser below at the speed of plain ``\\w+``). ``tests/test_blocks_words.py`` checks every
#: code point against ``has_unspaced_letter``, so a Unicode update of ``regex`` is noticed.
_UNSPACED_RANGES = (
    "\u0e01-\u0e3a\u0e40-\u0e5b\u0e81-\u0e82\u0e84\u0e86-\u0e8a\u0e8c-\u0ea3\u0ea5"
    "\u0ea7-\u0ebd\u0ec0-\u0ec4\u0ec6\u0ec8-\u0ece\u0ed0-\u0ed9\u0edc-\u0edf\u1000-\u109f"
    "\u1780-\u17dd\u17e0-\u17e9\u17f0-\u17f9\u19e0-\u19ff\u2e80-\u2e99\u2e9b-\u2ef3"
    "\u2f00-\u2fd5\u3005\u3007\u3021-\u3029\u3038-\u303b\u3041-\u3096\u309d-\u309f"
    "\u30a1-\u30fa\u30fd-\u30ff\u31f0-\u31ff\u32d0-\u32fe\u3300-\u3357\u3400-\u4dbf"
    "\u4e00-\u9fff\ua9e0-\ua9fe\uaa60-\uaa7f\uf900-\ufa6d\ufa70-\ufad9\uff66-\uff6f"
    "\uff71-\uff9d\U000116d0-\U000116e3\U00016fe2-\U00016fe3\U00016ff0-\U00016ff6"
    "\U0001aff0-\U0001aff3\U0001aff5-\U0001affb\U0001affd-\U0001affe\U0001b000-\U0001b128"
    "\U0001b132\U0001b150-\U0001b152\U0001b155\U0001b164-\U0001b168\U0001f200"
    "\U00020000-\U0002a6df\U0002a700-\U0002b81e\U0002b820-\U0002cead\U0002ceb0-\U0002ebe0"
    "\U0002ebf0-\U0002ee5d\U0002f800-\U0002fa1d\U00030000-\U0003134a\U00031350-\U00033479")
_UNSPACED_CHAR = re.compile(f"[{_UNSPACED_RANGES}]")
#: a word character of an unspaced script alone, or a run of the other word characters
_WORD_UNSPACED = re.compile(f"(?=\\w)[{_UNSPACED_RANGES}]|[^\\W{_UNSPACED_RANGES}]+")
_UNSPACED_WORD_CHAR = re.compile(f"(?=\\w)[{_UNSPACED_RANGES}]")
#: A cover of ``_UNSPACED_RANGES`` by a few spans (a test checks every code point): a search
#: for it scans a page's text many times faster than the look-ahead of
#: ``_UNSPACED_WORD_CHAR`` (``re`` has a fast loop for a pattern that starts with a short
#: character class), and it leaves out the punctuation of U+2000-U+2E7F that Latin, Cyrillic
#: or Arabic text holds, and Hangul
_UNSPACED_SPAN = re.compile("[\u0e01-\u0edf\u1000-\u109f\u1780-\u17f9\u19e0-\u19ff"
                            "\u2e80-\u9fff\ua9e0-\uaa7f\uf900-\ufad9\uff66-\uff9d"
                            "\U000116d0-\U0003ffff]")


def has_unspaced_word(text: str) -> bool:
    """Whether :func:`words` splits ``text`` differently from plain ``\\w+`` runs: it holds a
    word character of an unspaced script (looked for only where a character is in the spans
    those scripts occupy)."""
    if text.isascii():
        return False
    at_word = _UNSPACED_WORD_CHAR.match
    return any(at_word(text, m.start()) for m in _UNSPACED_SPAN.finditer(text))


def words(text: str) -> list[str]:
    """Lower-cased ``\\w+`` tokens of ``text``, every unspaced-script letter its own token
    (module docstring): ``"北京 is big"`` -> ``["北", "京", "is", "big"]``."""
    low = text.lower()
    if low.isascii():
        return _WORD.findall(low)
    return _WORD_UNSPACED.findall(low)


def _range_table(ranges: str) -> np.ndarray:
    """The code points of a regular-expression character class body made of single
    characters and ``a-b`` ranges (``_UNSPACED_RANGES``) as sorted uint32 ``(lo, hi)``
    pairs, what the compiled split searches."""
    pairs = []
    i = 0
    while i < len(ranges):
        if i + 2 < len(ranges) and ranges[i + 1] == "-":
            pairs.append((ord(ranges[i]), ord(ranges[i + 2])))
            i += 3
        else:
            pairs.append((ord(ranges[i]), ord(ranges[i])))
            i += 1
    return np.asarray(sorted(pairs), dtype=np.uint32).ravel()


_UNSPACED_TABLE = _range_table(_UNSPACED_RANGES)


def words_many(texts: list[str]) -> list[list[str]]:
    """``[words(t) for t in texts]``, by compiled code when webseg's C extensions are built
    (``webseg._native.wordsplit``: the same rule, one call for all the texts instead of a
    regular-expression call and a ``lower()`` per text)."""
    nat = native.load("wordsplit")
    if nat is None:
        return [words(t) for t in texts]
    return nat.words(texts, _UNSPACED_TABLE)


def is_unspaced_token(tok: str) -> bool:
    """Whether a token of :func:`words` is a single unspaced-script letter."""
    return len(tok) == 1 and _UNSPACED_CHAR.match(tok) is not None


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
            if blk.size == 0:
                continue
            if blk.size >= 2 * min_block or blk.size == len(g) or (
                    blk.size >= min_block
                    and not all(is_unspaced_token(t) for t in toks[blk.a:blk.a + blk.size])):
                aligned[blk.a:blk.a + blk.size] = True
    per_leaf = np.bincount(owner, minlength=n_leaves) if len(owner) else np.zeros(n_leaves)
    hit = (np.bincount(owner, weights=aligned.astype(float), minlength=n_leaves)
           if len(owner) else np.zeros(n_leaves))
    content = hit * 2 > per_leaf
    n_al = int(aligned.sum())
    return Alignment(content=content, coverage=(n_al / len(g)) if g else math.nan,
                     gold_words=len(g), page_words=len(toks),
                     content_words=int(per_leaf[content].sum()))
