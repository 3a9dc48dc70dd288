"""Shingling and bottom-k sketches, exactly as in the papers' duplicate-detection experiments.

Chakrabarti, Kumar & Punera (WWW 2007, section 6.2; WWW 2008, section 5.2): "the text of the
webpage is made lowercase and only alphanumeric characters are retained. Shingles are computed
over moving windows of 6 consecutive words each, and the 8 minimum hashes are stored for each
webpage. A pair of pages is tagged as a duplicate if there are at least 4 matching hashes out of
the 8 for each webpage."

Normalisation (:func:`words`)
    NFKC (full-width letters, ligatures and decomposed accents become ordinary characters),
    lowercase, then delete every character that is neither alphanumeric (Unicode
    ``str.isalnum``) nor whitespace, then split on whitespace. Punctuation is *deleted*, not
    turned into a space, as the papers say ("don't" -> "dont", "U.S." -> "us").
    Scripts written without spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer,
    Myanmar) have no whitespace words: there every character is a word, so a 6-word shingle is
    a 6-character n-gram. Without that a whole Chinese sentence is one "word", and two
    different articles that share a few stock sentences look alike while one re-crawled
    article with one changed character in a paragraph shares nothing.

Shingle hash (:func:`shingle_hashes`)
    Every word gets a deterministic 64-bit hash, a polynomial over its UTF-8 bytes mod 2^64 with
    the splitmix64 finaliser, computed for all words of a text at once from prefix sums
    (:func:`_word_hashes`, no Python loop per word). A window's hash is the polynomial
    ``sum_j w[i+j] * P^(5-j)`` mod 2^64, finalised the same way, for all windows at once.
    Hashes are stable across processes and machines (no salted ``hash()``), so sketches can be
    stored and compared later.

Short texts
    A text with at least one word but fewer than ``window`` words has exactly one shingle (all
    its words). An empty text (no alphanumeric word) has no shingle and an empty sketch.

Sketch and matching (:func:`sketch`, :func:`shared`, :func:`is_duplicate`)
    The sketch is the sorted array of the ``k`` smallest *distinct* shingle hashes (fewer when
    the text has fewer distinct shingles: then the sketch *is* the full shingle set). Two
    sketches match when they share at least ``threshold`` hashes - exactly the papers' rule,
    with its consequence for little text: a text with fewer than ``threshold`` distinct
    shingles (with the defaults: fewer than 9 words) can never match, not even an identical
    copy. Such pages are *too short to judge*; :class:`dedup.lsh.DuplicateIndex` lists them
    (``short``, and ``empty`` for no word at all) and the reports count them. We keep the
    papers' behaviour on purpose: after template stripping a page often keeps only a date or a
    byline, and calling two pages duplicates because both kept "Tuesday January 15" is wrong.
    Identical pages with enough text share all their sketch hashes and always match.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from webseg.lang import has_unspaced_letter

__all__ = ["PAPER", "ShingleParams", "estimated_jaccard", "is_duplicate", "shared",
           "shingle_hashes",
           "sketch", "text_sketch", "word_hash", "words"]

_MASK = (1 << 64) - 1
_P = np.uint64(0x100000001B3)  # FNV-64 prime: odd, so the polynomial keeps all bits in play
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@dataclass(frozen=True)
class ShingleParams:
    """The papers' parameters: 6-word windows, 8-hash sketches, duplicates share >= 4."""

    window: int = 6
    k: int = 8
    threshold: int = 4

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window}")
        if self.k < 1:
            raise ValueError(f"k must be >= 1, got {self.k}")
        if not 1 <= self.threshold <= self.k:
            raise ValueError(f"threshold must be in 1..k={self.k}, got {self.threshold}")


#: The papers' setting (6-word shingles, 8 hashes, >= 4 shared).
PAPER = ShingleParams()


def words(text: str) -> list[str]:
    """Lowercased words with every non-alphanumeric character deleted (see module doc)."""
    return _clean_bytes(text).decode("utf-8", "surrogatepass").split()


_ASCII_DELETE = bytes(c for c in range(128) if not (chr(c).isalnum() or chr(c).isspace()))
_ASCII_TABLE = bytes.maketrans(bytes(c for c in range(128) if chr(c).isspace()),
                               b" " * sum(chr(c).isspace() for c in range(128)))
_ASCII = frozenset(chr(c) for c in range(128))
#: Runs of ASCII characters: what is left without them is a text's non-ASCII characters (a
#: set of those, made this way, costs a fifth of ``set(text) - _ASCII`` on a long page).
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")
_KEEP, _DELETE, _SPACE, _ALONE = 0, 1, 2, 3
_CLASS: dict[str, int] = {}
def _char_class(ch: str) -> int:
    c = _CLASS.get(ch)
    if c is None:
        if ch.isspace():
            c = _SPACE
        elif ch.isalnum():
            c = _ALONE if has_unspaced_letter(ch) else _KEEP
        else:
            c = _DELETE
        _CLASS[ch] = c
    return c


def _clean_bytes(text: str) -> bytes:
    """The words of :func:`words` as UTF-8, separated by runs of spaces.

    Lowercase; ASCII punctuation is deleted and ASCII whitespace becomes a space with one
    ``bytes.translate``; the few distinct non-ASCII characters of the text are classified
    (``str.isalnum`` / ``str.isspace`` / unspaced script, cached) and the non-alphanumeric
    ones replaced in the UTF-8 bytes, a letter of an unspaced script by itself between spaces
    (UTF-8 is self-synchronising, so a replacement never straddles characters).
    """
    if text.isascii():
        return text.lower().encode("ascii").translate(_ASCII_TABLE, _ASCII_DELETE)
    t = unicodedata.normalize("NFKC", text).lower()
    b = t.encode("utf-8", "surrogatepass").translate(_ASCII_TABLE, _ASCII_DELETE)
    for ch in set(_ASCII_RUNS.sub("", t)):  # each replacement is of its own character's
        # bytes only (UTF-8 is self-synchronising): the order they are made in is no matter
        c = _char_class(ch)
        if c != _KEEP:
            enc = ch.encode("utf-8", "surrogatepass")
            new = b"" if c == _DELETE else (b" " + enc + b" " if c == _ALONE else b" ")
            b = b.replace(enc, new)
    return b


_POW: list[np.ndarray] = [np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64)]
_Q = np.uint64(pow(int(_P), -1, 1 << 64))  # inverse of P modulo 2^64 (P is odd)


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """P^i and Q^i = P^-i modulo 2^64 for i < n (cached, grown by doubling)."""
    if len(_POW[0]) < n:
        m = max(n, 2 * len(_POW[0]), 1 << 16)
        with np.errstate(over="ignore"):
            p = np.full(m, _P, dtype=np.uint64)
            p[0] = 1
            q = np.full(m, _Q, dtype=np.uint64)
            q[0] = 1
            _POW[0], _POW[1] = np.cumprod(p), np.cumprod(q)
    return _POW[0], _POW[1]


def _word_hashes(buf: bytes) -> np.ndarray:
    """64-bit hash of every space-separated word of ``buf``, vectorised.

    ``h(w) = mix(sum_j w_j * P^(len-1-j) mod 2^64)`` over the word's bytes. With prefix sums
    ``G[i] = sum_{j<i} b_j Q^j`` (Q = P^-1) a word ``[s, e)`` is ``P^(e-1) (G[e] - G[s])``, so
    all words hash in a few array operations and equal words hash alike wherever they are.
    """
    b = np.frombuffer(buf, dtype=np.uint8)
    n = len(b)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    word = b != 32
    edges = np.diff(word.astype(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    if len(starts) == 0:
        return np.zeros(0, dtype=np.uint64)
    ppow, qpow = _powers(n + 1)
    with np.errstate(over="ignore"):
        g = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(b.astype(np.uint64) * qpow[:n], out=g[1:])
        h = ppow[ends - 1] * (g[ends] - g[starts])
        return _finalise(h ^ (ends - starts).astype(np.uint64))


def word_hash(w: str) -> int:
    """The hash :func:`shingle_hashes` gives the (already normalised) word ``w``."""
    return int(_word_hashes(w.encode("utf-8", "surrogatepass"))[0])


def _finalise(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (a bijection on 64-bit integers with good avalanche)."""
    with np.errstate(over="ignore"):
        z = z ^ (z >> np.uint64(30))
        z = z * _M1
        z = z ^ (z >> np.uint64(27))
        z = z * _M2
        return z ^ (z >> np.uint64(31))


def shingle_hashes(text_or_words: str | list[str], window: int = 6) -> np.ndarray:
    """64-bit hashes (uint64) of every ``window``-word shingle, in text order (with repeats).

    ``text_or_words`` is raw text (normalised here) or a list of words already normalised.
    """
    if isinstance(text_or_words, str):
        wh = _word_hashes(_clean_bytes(text_or_words))
    else:
        wh = _word_hashes(" ".join(text_or_words).encode("utf-8", "surrogatepass"))
    if len(wh) == 0:
        return np.zeros(0, dtype=np.uint64)
    m = len(wh) - window + 1
    with np.errstate(over="ignore"):
        if m <= 0:  # shorter than one window: one shingle of all the words
            h = np.zeros(1, dtype=np.uint64)
            for v in wh:
                h = h * _P + v
            return _finalise(h ^ np.uint64(len(wh)))  # length-tagged
        h = wh[:m].copy()
        for j in range(1, window):
            h = h * _P + wh[j:j + m]
        return _finalise(h)


def sketch(hashes: np.ndarray, k: int = 8) -> np.ndarray:
    """The ``k`` smallest distinct values of ``hashes``, sorted (uint64)."""
    if len(hashes) > 8 * k:  # cut to a superset of the k smallest distinct values cheaply
        part = np.partition(hashes, 8 * k - 1)[: 8 * k]
        u = np.unique(part)
        if len(u) >= k:
            return u[:k]
    return np.unique(hashes)[:k]


def text_sketch(text: str, params: ShingleParams = PAPER) -> np.ndarray:
    """Bottom-k sketch of a text: :func:`words` -> :func:`shingle_hashes` -> :func:`sketch`."""
    return sketch(shingle_hashes(text, params.window), params.k)


def shared(a: np.ndarray, b: np.ndarray) -> int:
    """Number of hashes two sketches have in common."""
    if len(a) == 0 or len(b) == 0:
        return 0
    return int(np.intersect1d(a, b, assume_unique=True).size)


def is_duplicate(a: np.ndarray, b: np.ndarray, params: ShingleParams = PAPER) -> bool:
    """The papers' rule: at least ``threshold`` of the ``k`` hashes shared (module doc for
    short and empty texts, which never match)."""
    if len(a) < params.threshold or len(b) < params.threshold:
        return False
    return shared(a, b) >= params.threshold


def estimated_jaccard(a: np.ndarray, b: np.ndarray, k: int = 8) -> float:
    """Bottom-k estimate of the Jaccard similarity of the two shingle sets.

    The ``k`` smallest hashes of the union are a uniform sample of the union; the estimate is
    the fraction of them found in both sketches (Broder 1997). Exact when both sketches are
    complete (shorter than ``k``). 0.0 when either text is empty.
    """
    if len(a) == 0 or len(b) == 0:
        return 0.0
    union = np.union1d(a, b)[:k]
    both = np.isin(union, a, assume_unique=True) & np.isin(union, b, assume_unique=True)
    return float(both.sum()) / len(union)
