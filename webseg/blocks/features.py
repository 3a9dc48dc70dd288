"""Per-text-leaf features of the block-function model, vectorised.

The unit is the visible text leaf (:attr:`Page.text_leaves`): what the metrics score and what
``webseg clean`` prints. Each leaf is described by itself, by its *context levels* - the parent
element ``p1``, grandparent ``p2``, great-grandparent ``p3``, and the nearest three block-level
ancestors ``b0``, ``b1``, ``b2`` (``div``, ``p``, ``li``, ``td``, ... see
:data:`webseg.blocks.vocab.BLOCK_TAGS`) - and by the page. Subtree statistics come from one
prefix sum over the pre-order intervals ``[i, subtree_end[i])``, so a page costs O(n) numpy work
plus one pass over the text leaves.

Why these features: text and link density of the node, its parent and its block are
the classic boilerplate signals (Kohlschütter's boilerpipe, trafilatura); class/id/role tokens
and HTML5 elements are what developers write to mark navigation, footers, comments and the
article (:mod:`webseg.blocks.vocab`); repeated sibling structures mark menus and teaser lists;
the closeness to the title and to headings marks the article; geometry (position, width share,
font size relative to the page's body text) marks the main column on rendered pages.

Language independence: no stop-word lists, no spaces assumed. Words are the tokens of
:func:`webseg.blocks.align.words` (the gold alignment's): ``\\w+`` words, and every letter of a
script written without spaces (Chinese, Japanese kana, Thai, ...) a word of its own, so a
Chinese sentence is as many words as it has characters, not one (word counts, mean word length,
the short-word ratio). The "stop word" ratio uses the page's own most frequent short words
(tokens of at most 4 characters, the 30 commonest on the page): in running text of any language
those dominate (in Chinese, single characters such as 的 是 在), in menus they are rare.
Punctuation counts all Unicode non-word, non-space characters; sentence ends count ``. ! ? ؟ ।``
followed by a space or the end, and the full-width ``。 ！ ？`` (and the half-width ``｡``)
anywhere: Chinese and Japanese put no space after a sentence.

On a page without layout (:func:`webseg.parse.parse`) every geometric and style feature is NaN
(the trained trees send NaN down a learned branch); :data:`GEOMETRY` lists those columns.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

import numpy as np

from webseg import _native as native
from webseg.blocks.align import has_unspaced_word, words_many
from webseg.blocks.align import words as _words
from webseg.blocks.vocab import (
    BLOCK_TAGS,
    CATEGORY_NAMES,
    SEMANTIC_TAGS,
    class_id_role_mask,
    scan_attrs,
)
from webseg.page import Page
from webseg.templates.features import FEATURE_NAMES as PL_NAMES
from webseg.templates.features import _node_features, share_node_features

__all__ = ["FEATURE_NAMES", "GEOMETRY", "LEVELS", "CONTEXT_LEVELS", "LeafFeatures",
           "leaf_features"]

_WORD = re.compile(r"\w+")
_PUNCT = re.compile(r"[^\w\s]")
_SENT = re.compile(r"[.!?؟।](?:\s|$)|[。！？｡]")
_DIGIT = re.compile(r"\d")
_SPACE = re.compile(r"\s")
_SENT_END = ".!?؟।"  # a sentence end when a space or the end of the leaf follows
_SENT_MARK = "。！？｡"  # a sentence end anywhere
# character class bits of :func:`_char_classes`
_C_WORD, _C_SPACE, _C_DIGIT, _C_END, _C_MARK = 1, 2, 4, 8, 16

#: context levels of a leaf (node ids), in the order of the level features
LEVELS = ("p1", "p2", "p3", "b0", "b1", "b2")
#: levels whose leaf ranges stage 2 (:mod:`webseg.blocks.context`) averages scores over
CONTEXT_LEVELS = ("p1", "p2", "p3", "b0", "b1", "b2", "b3", "b4")

_LEAF = ("leaf_log_chars", "leaf_words", "leaf_mean_word_len", "leaf_punct_ratio",
         "leaf_sent_ends", "leaf_digit_ratio", "leaf_stop_ratio", "leaf_in_link",
         "leaf_upper_start", "leaf_title_share", "leaf_title_cover", "leaf_is_heading")
_LEVEL = ("log_chars", "link_density", "stop_ratio", "punct_ratio", "sent_per_word",
          "words_per_leaf", "log_leaves", "page_share", "log_children", "same_sig_share",
          "max_sig_share", "depth_gap")
_POS = ("pos_chars", "pos_leaf", "dist_prev_heading", "dist_next_heading", "after_h1",
        "dist_h1", "dist_title_leaf", "depth")
_PAGE = ("page_log_chars", "page_log_leaves", "page_link_share", "page_log_nodes",
         "page_stop_ratio", "has_layout")
_GEOM = ("x", "y", "w", "h", "cx", "font_rel", "font_weight", "b0_x", "b0_w", "b0_y", "b0_h",
         "b1_w", "b1_h", "y_px_log", "fold")
_PL_LEVELS = ("b0", "b1")

FEATURE_NAMES: tuple[str, ...] = (
    _LEAF
    + tuple(f"{lv}_{f}" for lv in LEVELS for f in _LEVEL)
    + tuple(f"cat_any_{c}" for c in CATEGORY_NAMES)
    + tuple(f"cat_near_{c}" for c in CATEGORY_NAMES)
    + tuple(f"{t}_any" for t in SEMANTIC_TAGS)
    + tuple(f"{t}_near" for t in SEMANTIC_TAGS)
    + _POS + _PAGE + tuple(f"g_{g}" for g in _GEOM)
    + tuple(f"pl_{lv}_{f}" for lv in _PL_LEVELS for f in PL_NAMES)
)
_COL = {n: k for k, n in enumerate(FEATURE_NAMES)}
#: the level features: one run of columns, level by level, each level's in ``_LEVEL`` order
_LEVEL_COLS = slice(_COL[f"{LEVELS[0]}_{_LEVEL[0]}"],
                    _COL[f"{LEVELS[0]}_{_LEVEL[0]}"] + len(LEVELS) * len(_LEVEL))
#: columns that need layout (NaN on parsed pages)
GEOMETRY: tuple[str, ...] = tuple(
    [f"g_{g}" for g in _GEOM]
    + [f"pl_{lv}_{f}" for lv in _PL_LEVELS for f in PL_NAMES[:7]])
GEOMETRY_COLS = np.array([_COL[g] for g in GEOMETRY], dtype=np.int64)
# a node's markup flags (categories, semantic tags, "is a link") share one int64 in _markup
assert len(CATEGORY_NAMES) + len(SEMANTIC_TAGS) + 1 <= 63


@dataclass
class LeafFeatures:
    """Features of one page: ``X[k]`` describes text leaf ``leaves[k]``.

    ``chars``/``words``: per leaf; ``ranges``: ``(n_leaves, len(CONTEXT_LEVELS), 2)`` half-open
    intervals of leaf indices covered by each context level's subtree (what stage 2 averages
    over); ``tokens``: the leaf's words (:func:`webseg.blocks.align.words`, lower case), for
    scoring and training.
    """

    leaves: np.ndarray
    X: np.ndarray
    chars: np.ndarray
    words: np.ndarray
    ranges: np.ndarray
    tokens: list[list[str]]


def _ancestor_or_self_bits(bits: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Per node, the OR of the bit masks ``bits`` over the node and its ancestors ("some
    ancestor-or-self has the flag", for every flag at once): one pass over the nodes in
    pre-order (a parent comes first), all the flags of a node in one integer."""
    walk = native.load("treewalk")
    if walk is not None and hasattr(walk, "or_down"):  # the same loop, compiled
        out = np.empty(len(bits), dtype=np.int64)
        walk.or_down(np.ascontiguousarray(bits, dtype=np.int64),
                     np.ascontiguousarray(parent, dtype=np.int64), out)
        return out
    b = bits.tolist()
    par = parent.tolist()
    for i in range(1, len(b)):
        b[i] |= b[par[i]]
    return np.asarray(b, dtype=np.int64)


def _unpack_bits(bits: np.ndarray, k: int) -> np.ndarray:
    """``(len(bits), k)`` bool: bit ``j`` of every entry in column ``j``."""
    return ((bits[:, None] >> np.arange(k, dtype=np.int64)[None, :]) & 1).astype(bool)


def _nearest_block(parent: np.ndarray, is_block: np.ndarray) -> np.ndarray:
    """Nearest block-level *strict* ancestor of every node (0 for the root's children)."""
    walk = native.load("treewalk")
    if walk is not None and hasattr(walk, "nearest"):  # the same loop, compiled
        out = np.empty(len(parent), dtype=np.int64)
        walk.nearest(np.ascontiguousarray(parent, dtype=np.int64),
                     np.ascontiguousarray(is_block, dtype=bool), out)
        return out
    par = parent.tolist()
    blk = is_block.tolist()
    nb = [0] * len(par)
    for i in range(1, len(par)):  # pre-order: the parent is done
        p = par[i]
        nb[i] = p if blk[p] else nb[p]
    return np.asarray(nb, dtype=np.int64)


@dataclass
class _LeafText:
    """Per-leaf text statistics (the ``leaf_*`` family and the sums the levels aggregate)."""

    texts: list[str]
    tokens: list[list[str]]
    chars: np.ndarray
    words: np.ndarray
    punct: np.ndarray
    sents: np.ndarray
    digits: np.ndarray
    upper: np.ndarray
    stops: np.ndarray
    title_words: set[str]
    tshare: np.ndarray
    tcover: np.ndarray


def _class_bits(ch: str) -> int:
    """The class bits of one character, by the regular expressions the counts stand for."""
    return ((_C_WORD if _WORD.match(ch) else 0) | (_C_SPACE if _SPACE.match(ch) else 0)
            | (_C_DIGIT if _DIGIT.match(ch) else 0) | (_C_END if ch in _SENT_END else 0)
            | (_C_MARK if ch in _SENT_MARK else 0))


@functools.lru_cache(maxsize=1)
def _bmp_classes() -> np.ndarray:
    """Class bits of every code point below U+10000 (built once, ~10 ms): ``\\w``, ``\\s``
    and ``\\d`` as ``re`` matches them (found by ``re`` itself over all of them, so they
    follow this Python's Unicode tables), and the sentence-end characters."""
    bmp = "".join(map(chr, range(0x10000)))
    out = np.zeros(0x10000, dtype=np.uint8)
    for pattern, bit in ((r"\w+", _C_WORD), (r"\s+", _C_SPACE), (r"\d+", _C_DIGIT)):
        for mt in re.finditer(pattern, bmp):
            out[mt.start():mt.end()] |= bit
    for chars, bit in ((_SENT_END, _C_END), (_SENT_MARK, _C_MARK)):
        for ch in chars:
            out[ord(ch)] |= bit
    return out


def _char_counts(texts: list[str], lens: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per text, the matches of ``_PUNCT``, ``_SENT`` and ``_DIGIT`` (``lens``: the texts'
    lengths), counted over the code points of all texts at once: one table look-up per
    character instead of three regular-expression passes per leaf. Each of those patterns
    matches single characters (``_SENT``: a sentence end with the space after it, which no
    other match needs), so counting characters of a class is counting matches."""
    m = len(texts)
    nat = native.load("wordsplit")
    if nat is not None:  # the same counts, one compiled pass (webseg/_native/wordsplit.c)
        out = np.zeros((3, m))
        nat.counts(texts, out)
        return out[0], out[1], out[2]
    cp = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype="<u4")
    table = _bmp_classes()
    if len(cp) and int(cp.max()) > 0xFFFF:  # emoji and rarer scripts: one by one
        big = cp > 0xFFFF
        cls = table[np.where(big, 0, cp)]
        code, inv = np.unique(cp[big], return_inverse=True)
        cls[big] = np.array([_class_bits(chr(c)) for c in code.tolist()], dtype=np.uint8)[inv]
    else:
        cls = table[cp]
    n = np.asarray(lens, dtype=np.intp)
    leaf = np.repeat(np.arange(m), n)
    # a space follows, or the leaf ends
    closed = np.ones(len(cp), dtype=bool)
    closed[:-1] = (cls[1:] & _C_SPACE) != 0
    closed[np.cumsum(n)[n > 0] - 1] = True
    punct = np.bincount(leaf, weights=(cls & (_C_WORD | _C_SPACE)) == 0, minlength=m)
    sents = np.bincount(leaf, weights=((cls & _C_END) != 0) & closed | ((cls & _C_MARK) != 0),
                        minlength=m)
    digits = np.bincount(leaf, weights=(cls & _C_DIGIT) != 0, minlength=m)
    return punct, sents, digits


#: a page's "stop words": its this many commonest tokens of at most _STOP_LEN characters
_N_STOPS = 30
_STOP_LEN = 4


def _leaf_text(page: Page, leaves: np.ndarray) -> _LeafText:
    """Counts per leaf (C-level maps over the leaves); the "stop words" are the page's own 30
    commonest short tokens (any language, see the module docstring)."""
    m = len(leaves)
    texts = page.leaf_texts  # ``leaves`` are the page's text leaves
    tokens = words_many(texts)

    def counts(values: Iterable[int]) -> np.ndarray:
        return np.fromiter(values, dtype=np.float64, count=m)

    chars = counts(map(len, texts))
    words = counts(map(len, tokens))
    punct, sents, digits = _char_counts(texts, chars)
    upper = counts(t[:1].isupper() for t in texts)
    nat = native.load("wordsplit")
    if nat is not None and hasattr(nat, "stops") and type(tokens) is list:
        stops = np.empty(m)  # the same counts, compiled (webseg/_native/wordsplit.c)
        nat.stops(tokens, _N_STOPS, _STOP_LEN, stops)
    else:
        # the short tokens in first-seen order (ties of most_common keep it)
        every = Counter(chain.from_iterable(tokens))
        short = Counter({w: c for w, c in every.items() if len(w) <= _STOP_LEN})
        stopset = {w for w, _ in short.most_common(_N_STOPS)}
        stops = counts(sum(map(stopset.__contains__, toks)) for toks in tokens)
    title_words = set(_words(page.title or ""))
    tshare = np.zeros(m)
    tcover = np.zeros(m)
    if title_words and nat is not None and hasattr(nat, "title_hits") \
            and type(tokens) is list:  # the same counts, compiled (wordsplit.c)
        hits, distinct = np.empty(m), np.empty(m)
        nat.title_hits(tokens, {w: k for k, w in enumerate(title_words)}, hits, distinct)
        # whole numbers divided as the loop below divides them: the same floats
        held = hits > 0
        tshare[held] = hits[held] / words[held]
        tcover[held] = distinct[held] / len(title_words)
    elif title_words:
        # most leaves share no word with the title: their shares stay 0.0, as the sums give
        in_title = title_words.__contains__
        disjoint = title_words.isdisjoint
        for k in [k for k, toks in enumerate(tokens) if not disjoint(toks)]:
            toks = tokens[k]
            tshare[k] = sum(map(in_title, toks)) / len(toks)
            tcover[k] = len(title_words.intersection(toks)) / len(title_words)
    return _LeafText(texts, tokens, chars, words, punct, sents, digits, upper, stops,
                     title_words, tshare, tcover)


@dataclass
class _Markup:
    """Node flags from tags and attributes (the ``cat_*`` and ``t_*`` families)."""

    is_link: np.ndarray
    in_link: np.ndarray
    is_block: np.ndarray
    #: per node, its flags (bit k: column k of the ``cat_*`` then the ``t_*`` family) on
    #: itself and on any ancestor-or-self (:func:`_unpack_bits` gives the columns)
    self_bits: np.ndarray
    any_bits: np.ndarray
    tag_inv: np.ndarray
    n_tags: int
    cls_code: np.ndarray
    n_classes: int


def _markup(page: Page) -> _Markup:
    """One pass over the attributes: links, class/id/role categories
    (:func:`webseg.blocks.vocab.attr_mask`), class codes for the sibling signatures (0 = no
    class); then the semantic and block tags of :mod:`webseg.blocks.vocab`, on the node itself
    and on any ancestor-or-self."""
    n = page.n
    tags = page.tag
    is_link = np.zeros(n, dtype=bool)
    masks = np.zeros(n, dtype=np.int64)
    cls_code = np.zeros(n, dtype=np.int64)
    classes: dict[str, int] = {"": 0}
    done = scan_attrs(page.attrs, tags, masks, cls_code, is_link, classes)  # compiled
    for i, a in enumerate(() if done else page.attrs):
        if a:
            get = a.get
            c = get("class")
            mk = class_id_role_mask(c, get("id"), get("role"))  # = attr_mask(a)
            if mk:
                masks[i] = mk
            if c:
                cls_code[i] = classes.setdefault(c, len(classes))
            if "href" in a and tags[i] == "a":
                is_link[i] = True
    nc = len(CATEGORY_NAMES)
    nt = len(SEMANTIC_TAGS)
    # tags as codes in first-seen order (only which nodes share a tag matters: the sibling
    # signatures group by it), and per distinct tag its semantic-tag bits and block flag
    codes = {t: k for k, t in enumerate(dict.fromkeys(tags))}
    tag_inv = np.fromiter(map(codes.__getitem__, tags), dtype=np.int64, count=n)
    tag_bits = np.array([sum(1 << (nc + k) for k, ts in enumerate(SEMANTIC_TAGS.values())
                             if t in ts) for t in codes], dtype=np.int64)
    tag_block = np.array([t in BLOCK_TAGS for t in codes], dtype=bool)
    is_block = tag_block[tag_inv]
    # all flags of a node in one integer: categories, semantic tags, and (the top bit) a link
    link_bit = nc + nt
    self_bits = masks | tag_bits[tag_inv] | (is_link.astype(np.int64) << link_bit)
    any_bits = _ancestor_or_self_bits(self_bits, page.parent)
    in_link = ((any_bits >> link_bit) & 1).astype(bool)
    return _Markup(is_link, in_link, is_block, self_bits, any_bits, tag_inv,
                   len(codes), cls_code, len(classes))


def _subtree_sums(n: int, leaves: np.ndarray, lt: _LeafText, in_link: np.ndarray,
                  end: np.ndarray) -> np.ndarray:
    """Per node, sums over its subtree of: chars, words, chars in links, stop words,
    punctuation, sentence ends, leaves (one prefix sum over the pre-order intervals)."""
    V = np.zeros((n, 7))
    V[leaves, 0] = lt.chars
    V[leaves, 1] = lt.words
    V[leaves, 2] = lt.chars * in_link[leaves]
    V[leaves, 3] = lt.stops
    V[leaves, 4] = lt.punct
    V[leaves, 5] = lt.sents
    V[leaves, 6] = 1.0
    cs = np.vstack([np.zeros((1, 7)), np.cumsum(V, axis=0)])
    return cs[end] - cs[:n]


def _siblings(page: Page, par: np.ndarray, mk: _Markup
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(children count, share of its siblings with the node's (tag, class) signature, largest
    such share among a node's children): repeated structures mark menus and teaser lists."""
    n = page.n
    el = np.flatnonzero(page.is_element)
    el_nonroot = el[el > 0]
    n_children = np.bincount(par[el_nonroot], minlength=n).astype(np.float64)
    # a code per distinct (tag, class) pair: the same groups as keying on the strings
    sig = mk.tag_inv[el_nonroot].astype(np.int64) * mk.n_classes + mk.cls_code[el_nonroot]
    n_sigs = mk.n_tags * mk.n_classes
    same = np.zeros(n)
    max_same = np.zeros(n)
    if len(el_nonroot):
        key = par[el_nonroot] * (n_sigs + 1) + sig
        _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
        c = cnt[inv].astype(np.float64)
        same[el_nonroot] = c / np.maximum(n_children[par[el_nonroot]], 1.0)
        np.maximum.at(max_same, par[el_nonroot], c)
    max_same = max_same / np.maximum(n_children, 1.0)
    return n_children, same, max_same


def _context_nodes(par: np.ndarray, leaves: np.ndarray, is_block: np.ndarray
                   ) -> dict[str, np.ndarray]:
    """Node id of every context level of every leaf (:data:`CONTEXT_LEVELS`)."""
    p1 = np.maximum(par[leaves], 0)
    p2 = np.maximum(par[p1], 0)
    p3 = np.maximum(par[p2], 0)
    nb = _nearest_block(par, is_block)
    b0 = nb[leaves]
    b1 = nb[b0]
    b2 = nb[b1]
    b3 = nb[b2]
    b4 = nb[b3]
    return {"p1": p1, "p2": p2, "p3": p3, "b0": b0, "b1": b1, "b2": b2, "b3": b3, "b4": b4}


def _fill_leaf(X: np.ndarray, lt: _LeafText, in_link_leaf: np.ndarray,
               is_heading: np.ndarray) -> None:
    col = _COL
    chars, words, punct = lt.chars, lt.words, lt.punct
    X[:, col["leaf_log_chars"]] = np.log1p(chars)
    X[:, col["leaf_words"]] = words
    X[:, col["leaf_mean_word_len"]] = np.where(words > 0, (chars - punct) / np.maximum(words, 1),
                                               0.0)
    X[:, col["leaf_punct_ratio"]] = punct / np.maximum(chars, 1)
    X[:, col["leaf_sent_ends"]] = lt.sents
    X[:, col["leaf_digit_ratio"]] = lt.digits / np.maximum(chars, 1)
    X[:, col["leaf_stop_ratio"]] = lt.stops / np.maximum(words, 1)
    X[:, col["leaf_in_link"]] = in_link_leaf
    X[:, col["leaf_upper_start"]] = lt.upper
    X[:, col["leaf_title_share"]] = lt.tshare
    X[:, col["leaf_title_cover"]] = lt.tcover
    X[:, col["leaf_is_heading"]] = is_heading


def _fill_levels(X: np.ndarray, S: np.ndarray, lv_nodes: dict[str, np.ndarray],
                 sib: tuple[np.ndarray, np.ndarray, np.ndarray], depth: np.ndarray,
                 leaf_depth: np.ndarray, total_chars: float) -> None:
    """Text, link and sibling statistics of each context level of :data:`LEVELS`: every
    statistic for all levels at once (a ``(leaves, levels)`` array), written into ``X`` as
    one block (the same values as a column at a time, with a sixth of the numpy calls)."""
    n_children, same, max_same = sib
    a = np.stack([lv_nodes[lv] for lv in LEVELS], axis=1)  # (m, levels)
    Sa = S[a]
    ch = Sa[:, :, 0]
    block = np.empty(a.shape + (len(_LEVEL),))  # statistics in the order of _LEVEL
    block[:, :, 0] = np.log1p(ch)
    block[:, :, 1] = Sa[:, :, 2] / np.maximum(ch, 1)
    block[:, :, 2] = Sa[:, :, 3] / np.maximum(Sa[:, :, 1], 1)
    block[:, :, 3] = Sa[:, :, 4] / np.maximum(ch, 1)
    block[:, :, 4] = Sa[:, :, 5] / np.maximum(Sa[:, :, 1], 1)
    block[:, :, 5] = Sa[:, :, 1] / np.maximum(Sa[:, :, 6], 1)
    block[:, :, 6] = np.log1p(Sa[:, :, 6])
    block[:, :, 7] = ch / total_chars
    block[:, :, 8] = np.log1p(n_children[a])
    block[:, :, 9] = same[a]
    block[:, :, 10] = max_same[a]
    block[:, :, 11] = leaf_depth[:, None] - depth[a]
    X[:, _LEVEL_COLS] = block.reshape(len(a), -1)


def _fill_markup(X: np.ndarray, mk: _Markup, leaves: np.ndarray,
                 lv_nodes: dict[str, np.ndarray]) -> None:
    """Class/id/role categories and semantic tags: on any ancestor-or-self of the leaf, and on
    its three nearest ancestors."""
    col = _COL
    nc = len(CATEGORY_NAMES)
    nt = len(SEMANTIC_TAGS)
    fs = mk.self_bits
    near = _unpack_bits(fs[lv_nodes["p1"]] | fs[lv_nodes["p2"]] | fs[lv_nodes["p3"]], nc + nt)
    any_ = _unpack_bits(mk.any_bits[leaves], nc + nt)
    c0 = col[f"cat_any_{CATEGORY_NAMES[0]}"]
    X[:, c0:c0 + nc] = any_[:, :nc]
    c0 = col[f"cat_near_{CATEGORY_NAMES[0]}"]
    X[:, c0:c0 + nc] = near[:, :nc]
    t0 = col[f"{next(iter(SEMANTIC_TAGS))}_any"]
    X[:, t0:t0 + nt] = any_[:, nc:]
    t0 = col[f"{next(iter(SEMANTIC_TAGS))}_near"]
    X[:, t0:t0 + nt] = near[:, nc:]


def _fill_position(X: np.ndarray, lt: _LeafText, is_h1: np.ndarray, is_heading: np.ndarray,
                   leaf_depth: np.ndarray, total_chars: float) -> None:
    """Where the leaf is in the page's text: share before it, distance to headings, to the
    first ``h1`` and to the leaf that best repeats the title (usually the headline)."""
    col = _COL
    m = len(lt.chars)
    start = np.concatenate([[0.0], np.cumsum(lt.chars)[:-1]])
    X[:, col["pos_chars"]] = start / total_chars
    X[:, col["pos_leaf"]] = np.arange(m) / max(m - 1, 1)
    big = 10.0  # log1p distance when there is no such heading
    hpos = np.where(is_heading, start, -np.inf)
    prev_h = np.maximum.accumulate(hpos)
    X[:, col["dist_prev_heading"]] = np.where(
        np.isfinite(prev_h), np.log1p(np.abs(start - np.where(np.isfinite(prev_h), prev_h, 0))),
        big)
    hpos2 = np.where(is_heading, start, np.inf)
    next_h = np.minimum.accumulate(hpos2[::-1])[::-1]
    X[:, col["dist_next_heading"]] = np.where(
        np.isfinite(next_h), np.log1p(np.abs(np.where(np.isfinite(next_h), next_h, 0) - start)),
        big)
    h1 = np.flatnonzero(is_h1)
    if len(h1):
        h1s = start[h1[0]]
        X[:, col["after_h1"]] = start >= h1s
        X[:, col["dist_h1"]] = np.sign(start - h1s) * np.log1p(np.abs(start - h1s))
    else:
        X[:, col["after_h1"]] = 0.5
        X[:, col["dist_h1"]] = big
    if lt.title_words and lt.tcover.max() > 0:
        tl = int(np.argmax(lt.tcover * (0.5 + 0.5 * lt.tshare)))
        d = start - start[tl]
        X[:, col["dist_title_leaf"]] = np.sign(d) * np.log1p(np.abs(d))
    else:
        X[:, col["dist_title_leaf"]] = big
    X[:, col["depth"]] = leaf_depth


def _fill_page(X: np.ndarray, page: Page, S: np.ndarray, m: int, total_chars: float) -> None:
    col = _COL
    X[:, col["page_log_chars"]] = math.log1p(total_chars)
    X[:, col["page_log_leaves"]] = math.log1p(m)
    X[:, col["page_link_share"]] = S[0, 2] / total_chars
    X[:, col["page_log_nodes"]] = math.log1p(page.n)
    X[:, col["page_stop_ratio"]] = S[0, 3] / max(S[0, 1], 1.0)
    X[:, col["has_layout"]] = float(page.has_layout)


def _fill_geometry(X: np.ndarray, page: Page, leaves: np.ndarray, chars: np.ndarray,
                   b0: np.ndarray, b1: np.ndarray) -> None:
    """Position, size and font of the leaf and its blocks on a rendered page (the columns
    stay NaN without layout); font size relative to the page's body text (the character-
    weighted median)."""
    if not page.has_layout:
        return
    col = _COL
    W = max(float(page.width) or float(page.box[0, 2]), 1.0)
    H = max(float(page.height) or float(page.box[0, 3]), 1.0)
    box = page.box.astype(np.float64)
    lb = box[leaves]
    X[:, col["g_x"]] = lb[:, 0] / W
    X[:, col["g_y"]] = lb[:, 1] / H
    X[:, col["g_w"]] = lb[:, 2] / W
    X[:, col["g_h"]] = np.log1p(lb[:, 3])
    X[:, col["g_cx"]] = (lb[:, 0] + lb[:, 2] / 2) / W
    fs = page.font_size.astype(np.float64)[leaves]
    if chars.sum() > 0:
        order = np.argsort(fs)
        cum = np.cumsum(chars[order])
        body_fs = fs[order][np.searchsorted(cum, cum[-1] / 2)]
    else:
        body_fs = 16.0
    X[:, col["g_font_rel"]] = fs / max(body_fs, 1.0)
    X[:, col["g_font_weight"]] = page.font_weight.astype(np.float64)[leaves] / 1000.0
    bb = box[b0]
    X[:, col["g_b0_x"]] = bb[:, 0] / W
    X[:, col["g_b0_w"]] = bb[:, 2] / W
    X[:, col["g_b0_y"]] = bb[:, 1] / H
    X[:, col["g_b0_h"]] = np.log1p(bb[:, 3])
    bb1 = box[b1]
    X[:, col["g_b1_w"]] = bb1[:, 2] / W
    X[:, col["g_b1_h"]] = np.log1p(bb1[:, 3])
    X[:, col["g_y_px_log"]] = np.log1p(np.maximum(lb[:, 1], 0))
    X[:, col["g_fold"]] = lb[:, 1] < 900


def _fill_pagelevel(X: np.ndarray, page: Page, lt: _LeafText, is_link: np.ndarray,
                    lv_nodes: dict[str, np.ndarray]) -> None:
    """PageLevel's node features (:mod:`webseg.templates.features`) of the leaf's blocks."""
    col = _COL
    pl = _node_features(page, lt.texts, lt.tokens, is_link)
    if not has_unspaced_word(" ".join(lt.texts)):  # the words PageLevel counts itself
        share_node_features(page, pl)
    for lv in _PL_LEVELS:
        k0 = col[f"pl_{lv}_{PL_NAMES[0]}"]
        X[:, k0:k0 + len(PL_NAMES)] = pl[lv_nodes[lv]]


def _leaf_ranges(leaves: np.ndarray, lv_nodes: dict[str, np.ndarray], end: np.ndarray
                 ) -> np.ndarray:
    """Half-open leaf-index interval of each context level's subtree (what stage 2 averages
    over)."""
    ranges = np.zeros((len(leaves), len(CONTEXT_LEVELS), 2), dtype=np.int64)
    for k, lv in enumerate(CONTEXT_LEVELS):
        a = lv_nodes[lv]
        ranges[:, k, 0] = np.searchsorted(leaves, a)
        ranges[:, k, 1] = np.searchsorted(leaves, end[a])
    return ranges


def leaf_features(page: Page) -> LeafFeatures:
    """Feature matrix ``(n_leaves, len(FEATURE_NAMES))`` float64 of the page's text leaves.

    One function per feature family (leaf text, context levels, markup, position, page,
    geometry, PageLevel), over shared per-node arrays computed once."""
    leaves = page.text_leaves.astype(np.int64)
    m = len(leaves)
    F = len(FEATURE_NAMES)
    if m == 0:
        return LeafFeatures(leaves, np.zeros((0, F)), np.zeros(0), np.zeros(0),
                            np.zeros((0, len(CONTEXT_LEVELS), 2), dtype=np.int64), [])
    X = np.full((m, F), np.nan)
    end = page.subtree_end.astype(np.int64)
    par = page.parent.astype(np.int64)

    lt = _leaf_text(page, leaves)
    mk = _markup(page)
    S = _subtree_sums(page.n, leaves, lt, mk.in_link, end)
    total_chars = max(S[0, 0], 1.0)
    sib = _siblings(page, par, mk)
    depth = page.depth.astype(np.float64)
    lv_nodes = _context_nodes(par, leaves, mk.is_block)
    leaf_depth = depth[leaves]
    nc = len(CATEGORY_NAMES)
    leaf_bits = mk.any_bits[leaves]
    is_heading = (leaf_bits >> (list(SEMANTIC_TAGS).index("t_heading") + nc)) & 1 == 1
    is_h1 = (leaf_bits >> (list(SEMANTIC_TAGS).index("t_h1") + nc)) & 1 == 1

    _fill_leaf(X, lt, mk.in_link[leaves], is_heading)
    _fill_levels(X, S, lv_nodes, sib, depth, leaf_depth, total_chars)
    _fill_markup(X, mk, leaves, lv_nodes)
    _fill_position(X, lt, is_h1, is_heading, leaf_depth, total_chars)
    _fill_page(X, page, S, m, total_chars)
    _fill_geometry(X, page, leaves, lt.chars, lv_nodes["b0"], lv_nodes["b1"])
    _fill_pagelevel(X, page, lt, mk.is_link, lv_nodes)
    return LeafFeatures(leaves, X, lt.chars, lt.words, _leaf_ranges(leaves, lv_nodes, end),
                        lt.tokens)
