"""Candidate generation at scale: datasketch MinHash + MinHashLSH over the shingle hashes.

Comparing every pair of bottom-k sketches is quadratic. :class:`DuplicateIndex` instead feeds
each document's shingle hashes into a datasketch :class:`~datasketch.MinHash` in one vectorised
step (:func:`minhash_values`, bulk hashing with numpy: no per-shingle Python hash call), puts it
in a :class:`~datasketch.MinHashLSH`, and verifies every candidate pair the LSH returns exactly
with the papers' bottom-k rule (:func:`dedup.shingle.is_duplicate`). Duplicate clusters are the
connected components of the verified pairs (:func:`clusters`).

Why ``lsh_threshold=0.3`` with 64 permutations (21 bands x 3 rows): the bottom-8 rule is itself
a noisy test of the shingle-set Jaccard similarity J; it accepts a pair with probability about
0.15 at J = 0.2, 0.45 at 0.3, 0.65 at 0.4, 0.84 at 0.5 and 0.96 at 0.6 (``bench/dedup.py``
simulates it). The 21x3 banding proposes a pair with probability 0.44 / 0.75 / 0.94 / 0.99 at
J = 0.3 / 0.4 / 0.5 / 0.6, i.e. it follows the rule's own curve, so the pairs the rule would
accept with confidence (J >= 0.5) are almost always candidates, while the quadratic mass of
unrelated pairs (J <= 0.1: < 2 %) is not. Borderline pairs (J 0.3-0.4) are found less often
than by an exhaustive comparison; ``candidates="all"`` (or ``--candidates all``) compares every
pair for collections small enough, and ``num_perm=32`` (12 bands x 2 rows, fewer buckets per
document) raises the candidate rate at J = 0.3 to 0.68 at the cost of more verifications.

Memory per document (dict storage, default ``num_perm=64``): the LSH keeps one bucket key per
band (``r`` 32-bit values as bytes) and the document key in each of ``b`` buckets plus a key
table; the index keeps the sketch (``k`` uint64). ``bench/dedup.py`` measures it: about 2.5 KB
per document at 100,000 documents (see ``eval/results/dedup/README.md``). For collections that
outgrow memory pass ``storage_config`` (datasketch's backends, e.g. ``{"type": "redis",
"redis": {"host": "localhost", "port": 6379}, "basename": b"crawl"}``): buckets then live in
Redis/Cassandra and the index can be reopened by another process with the same basename; the
sketches this class keeps for verification can be dropped (``keep_sketches=False``) and looked
up by the caller instead.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from dedup.shingle import ShingleParams, estimated_jaccard, is_duplicate, shared

if TYPE_CHECKING:
    from datasketch import MinHash

# datasketch is imported where its objects are made (MinHash, MinHashLSH), not here: importing
# it loads scipy.integrate (about 0.5 CPU s), which a process that only computes signatures
# (:func:`minhash_values`, the pipeline's sketch stage) does not need.

__all__ = ["DuplicateIndex", "Pair", "clusters", "minhash", "minhash_values"]

_FMIX32 = (np.uint32(16), np.uint32(0x85EBCA6B), np.uint32(13), np.uint32(0xC2B2AE35),
           np.uint32(16))
_PERMS: dict[tuple[int, int], np.ndarray] = {}


def _permutations(num_perm: int, seed: int) -> np.ndarray:
    """datasketch's own affine32 permutation parameters (shape (2, num_perm), uint32), drawn
    as ``datasketch.MinHash(num_perm, seed)`` draws them (datasketch 2's default scheme:
    odd multipliers ``a``, offsets ``b``, from ``RandomState(seed)``), without importing
    datasketch; ``tests/test_dedup.py`` checks they are the same arrays."""
    key = (num_perm, seed)
    if key not in _PERMS:
        gen = np.random.RandomState(seed)
        a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
        b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
        _PERMS[key] = np.array([a, b])
    return _PERMS[key]


def minhash_values(hashes: np.ndarray, num_perm: int = 64, seed: int = 1) -> np.ndarray:
    """MinHash signature (uint32, ``num_perm``) of a set of 64-bit shingle hashes, vectorised.

    Bit-identical to ``datasketch.MinHash(num_perm, seed, hashfunc=<low 32 bits>)`` fed the
    same values with ``update_batch`` (scheme ``affine32``: MurmurHash3 fmix32, then
    ``a * h + b mod 2^32``, minimum per permutation) - tested in ``tests/test_dedup.py``.
    An empty set gives the all-ones "empty" signature, as datasketch does.
    """
    a, b = _permutations(num_perm, seed)
    if len(hashes) == 0:
        return np.full(num_perm, 0xFFFFFFFF, dtype=np.uint32)
    hv = hashes.astype(np.uint32)  # the low 32 bits (astype truncates); repeats are harmless
    s1, m1, s2, m2, s3 = _FMIX32
    hv = hv ^ (hv >> s1)
    hv = hv * m1
    hv = hv ^ (hv >> s2)
    hv = hv * m2
    hv = hv ^ (hv >> s3)
    # chunk so the (shingles x num_perm) matrix stays small on long documents
    out = np.full(num_perm, 0xFFFFFFFF, dtype=np.uint32)
    step = max(1, 65536 // num_perm)
    for i in range(0, len(hv), step):
        np.minimum(out, (hv[i:i + step, None] * a + b).min(axis=0), out=out)
    return out


def minhash(hashes: np.ndarray, num_perm: int = 64, seed: int = 1) -> MinHash:
    """A datasketch :class:`MinHash` with :func:`minhash_values` as its hash values."""
    return _minhash_of(minhash_values(hashes, num_perm, seed), num_perm, seed)


def _minhash_of(values: np.ndarray, num_perm: int, seed: int) -> MinHash:
    from datasketch import MinHash

    return MinHash(num_perm=num_perm, seed=seed, hashvalues=values,
                   permutations=_permutations(num_perm, seed), scheme="affine32")


@dataclass(frozen=True)
class Pair:
    """A verified candidate pair (``a`` < ``b`` in insertion order)."""

    a: Hashable
    b: Hashable
    shared: int
    jaccard: float
    duplicate: bool


@dataclass
class DuplicateIndex:
    """Insert documents (key + shingle hashes), then ask for verified duplicate pairs.

    >>> from dedup.shingle import shingle_hashes
    >>> idx = DuplicateIndex()
    >>> story = "the quick brown fox jumps over the lazy dog " * 5
    >>> idx.add("a", shingle_hashes("site A menu " + story))
    >>> idx.add("b", shingle_hashes(story + " site B footer"))
    >>> idx.add("c", shingle_hashes("something else entirely, nothing in common with the others"))
    >>> [(p.a, p.b) for p in idx.pairs()]
    [('a', 'b')]
    """

    params: ShingleParams = field(default_factory=ShingleParams)
    num_perm: int = 64
    lsh_threshold: float = 0.3
    seed: int = 1
    storage_config: dict | None = None
    keep_sketches: bool = True

    def __post_init__(self) -> None:
        from datasketch import MinHashLSH

        self.lsh = MinHashLSH(threshold=self.lsh_threshold, num_perm=self.num_perm,
                              storage_config=self.storage_config)
        self.keys: list[Hashable] = []
        self.sketches: dict[Hashable, np.ndarray] = {}
        self.empty: list[Hashable] = []
        self.short: list[Hashable] = []
        self._pos: dict[Hashable, int] = {}

    def add(self, key: Hashable, hashes: np.ndarray) -> None:
        """Index one document.

        Documents with no shingle (``empty``) or fewer distinct shingles than the matching
        threshold (``short``) can never match (:func:`dedup.shingle.is_duplicate`): they are
        recorded but not indexed.
        """
        from dedup.shingle import sketch

        self._add(key, sketch(hashes, self.params.k),
                  lambda: minhash_values(hashes, self.num_perm, self.seed))

    def add_signature(self, key: Hashable, sketch: np.ndarray, signature: np.ndarray) -> None:
        """Index a document from a stored bottom-k ``sketch`` and MinHash ``signature``.

        For callers that computed both earlier (the pipeline keeps them per page, so duplicate
        detection never rehashes text). ``signature`` must come from :func:`minhash_values`
        with this index's ``num_perm`` and ``seed``; it is not read for documents that
        :meth:`add` would not index either (empty or short).
        """
        def values() -> np.ndarray:
            if len(signature) != self.num_perm:
                raise ValueError(f"signature has {len(signature)} values, index uses "
                                 f"num_perm={self.num_perm}")
            return np.asarray(signature, dtype=np.uint32)

        self._add(key, np.asarray(sketch, dtype=np.uint64), values)

    def _add(self, key: Hashable, sk: np.ndarray, signature: Callable[[], np.ndarray]) -> None:
        """The bookkeeping both ways of adding share; ``signature`` is called only when the
        document goes into the LSH."""
        if key in self._pos:
            raise ValueError(f"duplicate key {key!r}")
        self._pos[key] = len(self.keys)
        self.keys.append(key)
        if self.keep_sketches:
            self.sketches[key] = sk
        if len(sk) < self.params.threshold:
            (self.empty if len(sk) == 0 else self.short).append(key)
            return
        self.lsh.insert(key, _minhash_of(signature(), self.num_perm, self.seed),
                        check_duplication=False)

    def candidates(self) -> Iterable[tuple[Hashable, Hashable]]:
        """Candidate pairs from the LSH buckets, each once, ordered by insertion position."""
        pos = self._pos
        seen: set[tuple[int, int]] = set()
        for table in self.lsh.hashtables:
            for bucket in table.keys():  # noqa: SIM118 - storage API
                members = table.get(bucket)
                if len(members) < 2:
                    continue
                ms = sorted(members, key=pos.__getitem__)
                for i, x in enumerate(ms):
                    px = pos[x]
                    for y in ms[i + 1:]:
                        pair = (px, pos[y])
                        if pair not in seen:
                            seen.add(pair)
                            yield x, y

    def verify(self, a: Hashable, b: Hashable) -> Pair:
        sa, sb = self.sketches[a], self.sketches[b]
        return Pair(a, b, shared(sa, sb), estimated_jaccard(sa, sb, self.params.k),
                    is_duplicate(sa, sb, self.params))

    def pairs(self, include_rejected: bool = False) -> list[Pair]:
        """Verified pairs (duplicates only unless ``include_rejected``)."""
        out = []
        for a, b in self.candidates():
            p = self.verify(a, b)
            if p.duplicate or include_rejected:
                out.append(p)
        return out


def clusters(keys: Sequence[Hashable], pairs: Iterable[tuple[Hashable, Hashable]]
             ) -> list[list[Hashable]]:
    """Connected components (size >= 2) of the duplicate graph, members in ``keys`` order.

    Union-find with path halving; clusters are sorted by size (largest first), then by the
    position of their first member.
    """
    pos = {k: i for i, k in enumerate(keys)}
    parent = list(range(len(keys)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(pos[a]), find(pos[b])
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[Hashable]] = {}
    for i, k in enumerate(keys):
        groups.setdefault(find(i), []).append(k)
    comps = [g for g in groups.values() if len(g) >= 2]
    comps.sort(key=lambda g: (-len(g), pos[g[0]]))
    return comps
