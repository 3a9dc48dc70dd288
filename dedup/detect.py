"""Near-duplicate detection over a collection of (key, text) documents.

:func:`detect` sketches every text (:mod:`dedup.shingle`), generates candidate pairs either
with MinHash LSH (``candidates="lsh"``, the default, :class:`dedup.lsh.DuplicateIndex`) or by
comparing all pairs (``candidates="all"``, exact, quadratic: for a few thousand pages or to
check the LSH), verifies them with the papers' bottom-k rule and groups duplicates into
clusters (connected components). :func:`shared_snippet` finds the shared passage of a pair for
the report.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from dedup.lsh import DuplicateIndex, Pair, clusters
from dedup.shingle import (
    PAPER,
    ShingleParams,
    estimated_jaccard,
    is_duplicate,
    shared,
    shingle_hashes,
    words,
)

__all__ = ["DedupResult", "detect", "index_result", "shared_snippet"]


@dataclass
class DedupResult:
    """Sketches, verified duplicate pairs, clusters and empty documents of one run."""

    keys: list[Hashable]
    sketches: dict[Hashable, np.ndarray]
    pairs: list[Pair]
    clusters: list[list[Hashable]]
    empty: list[Hashable]
    candidates: int
    short: list[Hashable] = field(default_factory=list)
    params: ShingleParams = field(default_factory=ShingleParams)


def detect(docs: Iterable[tuple[Hashable, str]], params: ShingleParams = PAPER,
           candidates: str = "lsh", num_perm: int = 64, lsh_threshold: float = 0.3,
           storage_config: dict | None = None) -> DedupResult:
    """Duplicate pairs and clusters of ``docs`` (``(key, text)``, keys unique).

    >>> story = "Four score and seven years ago our fathers brought forth on this continent"
    >>> r = detect([("a", "Menu Home " + story), ("b", story + " Copyright"), ("c", "")])
    >>> r.clusters, r.empty
    ([['a', 'b']], ['c'])
    """
    if candidates not in ("lsh", "all"):
        raise ValueError(f"candidates must be 'lsh' or 'all', got {candidates!r}")
    idx = DuplicateIndex(params=params, num_perm=num_perm, lsh_threshold=lsh_threshold,
                         storage_config=storage_config)
    for key, text in docs:
        idx.add(key, shingle_hashes(text, params.window))
    return index_result(idx, candidates)


def index_result(idx: DuplicateIndex, candidates: str = "lsh") -> DedupResult:
    """Verified pairs and clusters of the documents already in ``idx``.

    ``candidates``: ``lsh`` (the index's buckets) or ``all`` (every pair that could match).
    """
    params = idx.params
    if candidates == "lsh":
        cands = list(idx.candidates())
    else:
        live = [k for k in idx.keys if len(idx.sketches[k]) >= params.threshold]
        cands = list(combinations(live, 2))
    pairs = [p for p in (idx.verify(a, b) for a, b in cands) if p.duplicate]
    return DedupResult(keys=idx.keys, sketches=idx.sketches, pairs=pairs,
                       clusters=clusters(idx.keys, ((p.a, p.b) for p in pairs)),
                       empty=idx.empty, candidates=len(cands), params=params,
                       short=idx.short)


def compare(text_a: str, text_b: str, params: ShingleParams = PAPER
            ) -> tuple[bool, int, float]:
    """(duplicate, shared sketch hashes, estimated Jaccard) of two texts."""
    from dedup.shingle import sketch

    a = sketch(shingle_hashes(text_a, params.window), params.k)
    b = sketch(shingle_hashes(text_b, params.window), params.k)
    return is_duplicate(a, b, params), shared(a, b), estimated_jaccard(a, b, params.k)


def _tokens(text: str) -> tuple[list[str], list[str], list[int]]:
    """Original pieces that carry a word, their normalised words, and the whitespace token
    each piece comes from. A token is one piece, except in unspaced scripts (Chinese,
    Japanese, Thai), where :func:`dedup.shingle.words` makes every letter a word: there each
    letter is a piece, so pieces and shingle positions stay aligned."""
    orig, norm, tok_of = [], [], []
    for k, tok in enumerate(text.split()):
        w = words(tok)
        if len(w) == 1:
            orig.append(tok)
            norm.append(w[0])
            tok_of.append(k)
        else:
            for x in w:
                orig.append(x)
                norm.append(x)
                tok_of.append(k)
    return orig, norm, tok_of


def _join(pieces: list[str], toks: list[int]) -> str:
    """Pieces joined back: a space between whitespace tokens, none inside one."""
    out = []
    for j, p in enumerate(pieces):
        if j and toks[j] != toks[j - 1]:
            out.append(" ")
        out.append(p)
    return "".join(out)


def shared_snippet(text_a: str, text_b: str, window: int = 6, max_words: int = 60,
                   context: int = 8) -> tuple[tuple[str, str, str], tuple[str, str, str]] | None:
    """The longest run of shingles of ``a`` that also occur in ``b``, located in both texts.

    Returns ``((before, shared, after), (before, shared, after))`` in the original wording of
    each text (``context`` words around, the shared part cut to ``max_words``), or ``None``
    when the texts share no shingle.
    """
    oa, na, ta = _tokens(text_a)
    ob, nb, tb = _tokens(text_b)
    ha, hb = shingle_hashes(na, window), shingle_hashes(nb, window)
    if len(ha) == 0 or len(hb) == 0:
        return None
    common = np.isin(ha, hb)
    if not common.any():
        return None
    # longest run of True in common
    padded = np.concatenate([[False], common, [False]]).astype(np.int8)
    d = np.diff(padded)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    r = int(np.argmax(ends - starts))
    i, run = int(starts[r]), int(ends[r] - starts[r])
    j = int(np.flatnonzero(hb == ha[i])[0])
    n = min(run + window - 1, max_words, len(oa) - i, len(ob) - j)
    n = max(n, 1)

    def cut(toks: list[str], of: list[int], s: int) -> tuple[str, str, str]:
        a, e = max(0, s - context), s + n
        return (_join(toks[a:s], of[a:s]), _join(toks[s:e], of[s:e]),
                _join(toks[e:e + context], of[e:e + context]))

    return cut(oa, ta, i), cut(ob, tb, j)


def verify_pairs(pairs: Sequence[tuple[str, str]], params: ShingleParams = PAPER
                 ) -> list[tuple[bool, int, float]]:
    """:func:`compare` for many text pairs."""
    return [compare(a, b, params) for a, b in pairs]
