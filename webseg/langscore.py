"""The language detector's scores, exactly py3langid's, for one text or many texts at once.

py3langid scores a text in three steps: a walk of a finite automaton over the text's UTF-8
bytes that counts byte n-gram features (a Python loop, one step per byte), a naive Bayes dot
product of the features' log counts with a float16 table, and a softmax. On short texts (the
abstracts of a text collection) the walk and the dot product cost about 40 microseconds
each, more than the rest of indexing a document. Three things make them cheaper here
without changing a single bit of the scores (``tests/test_lang_batch.py`` and
``tests/test_native_langwalk.py`` compare them with py3langid's own ``_decide``):

* **One text walks in C** (``webseg/_native/langwalk.c``, when built): the same steps over
  the same tables; with the window ``D`` below known, in eight interleaved chains whose table
  reads overlap (each chain starts ``D - 1`` bytes early, so it is in the whole walk's state
  when its part begins). The tables are read straight from the model cache, so no py3langid
  identifier is built unless its Python walk runs (``WEBSEG_PURE_PYTHON=1``, or no C).

* **Many texts walk at once.** The automaton is an Aho-Corasick automaton over the model's
  n-grams (checked, not assumed: :func:`window_of` proves it from the transition table once
  per model and records the result in the model cache), so the state after a byte depends
  only on the last ``D`` bytes, ``D`` the longest n-gram. Every byte's state is then ``D``
  vectorised table look-ups over all the texts' bytes together, instead of one Python step
  per byte. A model that is not such an automaton takes the sequential walk.
* **The table is read as float32.** numpy multiplies a float32 vector by float16 rows by
  converting the rows to float32 first; a float32 copy of the table (written once into the
  model cache, memory-mapped) gives the same products without converting rows per text.

The features of each text are summed in the order the sequential walk meets them (first
occurrence), as py3langid does, so even the float32 rounding is the same.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["encode", "scores", "scores_many", "window_of"]

#: Texts walked together per vectorised pass (bounds the temporary arrays: ~1.5 KB a text).
_BATCH_BYTES = 4_000_000


@dataclass
class _Model:
    nm: np.ndarray  # transition table (uint32), row-compressed
    rowbase: np.ndarray  # state -> offset of its row in ``nm`` (int64)
    out: np.ndarray  # state -> feature emitted, -1 for none (int64)
    table: np.ndarray  # feature x class log-probabilities (float32 when cached)
    classes: list[str]  # the class labels (py3langid's ``nb_classes``)
    pc: np.ndarray  # the class priors (``nb_pc``, float32)
    alias_pairs: list[tuple[int, int]]  # (first, repeated) columns of a repeated label

    @property
    def ident(self) -> Any:
        """The py3langid LanguageIdentifier (norm_probs=True), for its own Python walk:
        loaded on first use, because its tables as Python lists and an array copy cost
        about 50 ms of every process, which the compiled walk does not need."""
        from webseg.lang import _identifier

        return _identifier()


def encode(text: str) -> bytes:
    """The bytes py3langid scores for ``text`` (lower case if all upper, NFC, UTF-8)."""
    from py3langid.langid import LanguageIdentifier

    return LanguageIdentifier._encode(text)


def _cache_file(name: str) -> Path | None:
    from webseg.lang import model_cache_dir

    folder = model_cache_dir()
    if folder is None or not (folder / "complete").exists():
        return None
    return folder / name


def _atomic_write(path: Path, write: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _float32_table(ptc: np.ndarray) -> np.ndarray:
    """The float32 table from the cache (written the first time), else the model's own."""
    path = _cache_file("ptc32.npy")
    if path is None:
        return ptc
    try:
        if not path.exists():
            if not os.access(path.parent, os.W_OK):
                return ptc

            def save(tmp: str) -> None:
                with open(tmp, "wb") as f:  # a file object: np.save would add ".npy"
                    np.save(f, np.asarray(ptc, dtype=np.float32), allow_pickle=False)

            _atomic_write(path, save)
        got = np.load(path, mmap_mode="r", allow_pickle=False)
        if got.shape != ptc.shape or got.dtype != np.float32:
            return ptc
        return got.view(np.ndarray)
    except (OSError, ValueError):
        return ptc


def _proven_window(nm: np.ndarray, rowbase: np.ndarray) -> tuple[int | None, int]:
    """:func:`window_of`, read from the model cache (computed and written there the first
    time). Without a writable cache it is not computed (every process would pay for it):
    (None, 0), the sequential walk."""
    path = _cache_file("dfa-window.json")
    if path is None:
        return None, 0
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
        return got["window"], int(got["pad"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if not os.access(path.parent, os.W_OK):
        return None, 0
    window, pad = window_of(nm, rowbase)
    with contextlib.suppress(OSError):
        _atomic_write(path, lambda tmp: Path(tmp).write_text(
            json.dumps({"window": window, "pad": pad}), encoding="utf-8"))
    return window, pad


def window_of(nm: np.ndarray, rowbase: np.ndarray) -> tuple[int | None, int]:
    """(D, pad): proof that the automaton ``nm`` (rows at ``rowbase``) is an Aho-Corasick
    automaton over a prefix-closed set of strings no longer than D bytes, so that its state
    after any input is the one for the longest suffix of the input in that set, a function
    of the last D bytes; ``pad`` is a byte the start state keeps on. (None, 0) when it is not.

    Every state gets a label, the bytes of a shortest path to it from the start state
    (breadth first). The table is then checked cell by cell against the Aho-Corasick
    recurrence: from state ``s`` on byte ``a`` the automaton must go to the state labelled
    ``label(s) + a`` when there is one, else to where the state of the longest proper suffix
    of ``label(s)`` in the set goes on ``a`` (the start state, for the start state). About a
    second, once per model."""
    n = len(rowbase)
    cols = np.arange(256, dtype=np.int64)
    depth = np.full(n, -1, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    depth[0] = 0
    labels: list[bytes] = [b""] * n
    frontier = np.asarray([0], dtype=np.int64)
    while len(frontier):
        rows = nm[rowbase[frontier][:, None] + cols].astype(np.int64)
        new = depth[rows] < 0
        src, byte = np.nonzero(new)
        tgt = rows[src, byte]
        tgt, first = np.unique(tgt, return_index=True)  # first (state, byte) in row order
        parent[tgt] = frontier[src[first]]
        last[tgt] = byte[first]
        depth[tgt] = depth[frontier[0]] + 1
        for t, p, b in zip(tgt.tolist(), parent[tgt].tolist(), last[tgt].tolist(),
                           strict=True):
            labels[t] = labels[p] + bytes((b,))
        frontier = tgt
    if (depth < 0).any():
        return None, 0
    node = {lab: s for s, lab in enumerate(labels)}
    if len(node) != n:
        return None, 0
    fail = np.zeros(n, dtype=np.int64)
    for s in range(1, n):
        lab = labels[s]
        for i in range(1, len(lab)):
            f = node.get(lab[i:])
            if f is not None:
                fail[s] = f
                break
    for lo in range(0, n, 8192):
        st = np.arange(lo, min(n, lo + 8192), dtype=np.int64)
        rows = nm[rowbase[st][:, None] + cols].astype(np.int64)
        child = (parent[rows] == st[:, None]) & (last[rows] == cols[None, :])
        if lo == 0:  # the start state: to a child or back to itself
            ok0 = child[0] | (rows[0] == 0)
            if not ok0.all():
                return None, 0
            st, rows, child = st[1:], rows[1:], child[1:]
        deeper = depth[rows] == depth[st][:, None] + 1
        if (deeper & ~child).any():
            return None, 0
        via_fail = nm[rowbase[fail[st]][:, None] + cols].astype(np.int64)
        if ((rows != via_fail) & ~child).any():
            return None, 0
    stay = np.flatnonzero(nm[rowbase[0] + cols] == 0)
    if not len(stay):
        return None, 0
    return int(depth.max()), int(stay[-1])


def alias_pairs(classes: Sequence[str]) -> list[tuple[int, int]]:
    """(first, repeated) column pairs of the labels that appear more than once, as
    py3langid's ``LanguageIdentifier._set_alias_pairs`` lists them."""
    first: dict[str, int] = {}
    pairs = []
    for i, c in enumerate(classes):
        if c in first:
            pairs.append((first[c], i))
        else:
            first[c] = i
    return pairs


@lru_cache(maxsize=1)
def _model() -> _Model:
    """The detector's tables as numpy arrays. From the model cache
    (:func:`webseg.lang.model_cache_dir`) they are the cached arrays themselves, memory-mapped,
    the transitions' row offsets and the outputs widened to int64 (the values py3langid's
    ``LanguageIdentifier`` holds as Python lists): no identifier is built. Without a cache
    they come from the identifier."""
    from webseg.lang import _cached_arrays, _identifier

    arrays = _cached_arrays()
    if arrays is not None:
        classes = arrays["classes"].tolist()
        return _Model(nm=arrays["nextmove"].view(np.ndarray),
                      rowbase=arrays["nextmove_row"].astype(np.int64) << 8,
                      out=arrays["out_feat"].astype(np.int64),
                      table=_float32_table(arrays["ptc"].view(np.ndarray)),
                      classes=classes, pc=np.array(arrays["pc"]),
                      alias_pairs=alias_pairs(classes))
    ident = _identifier()
    nm = np.asarray(ident.tk_nextmove)
    if nm.dtype == object or nm.ndim != 1:  # not a typed array: the sequential walk only
        nm = np.asarray(list(ident.tk_nextmove), dtype=np.int64)
    rowbase = np.asarray(ident._rowbase, dtype=np.int64)
    return _Model(nm=nm, rowbase=rowbase, out=np.asarray(ident.tk_output, dtype=np.int64),
                  table=_float32_table(ident.nb_ptc), classes=list(ident.nb_classes),
                  pc=ident.nb_pc, alias_pairs=list(ident._alias_pairs))


def _native_walk(m: _Model) -> Any:
    """The compiled walk (``langwalk.counts``) when it is built and the model's tables have
    the types it reads (uint32 transitions, int64 row offsets and outputs), else None."""
    from webseg import _native as native

    nat = native.load("langwalk")
    if nat is None or m.nm.dtype != np.uint32 or not m.nm.flags.c_contiguous:
        return None
    return nat.counts


@lru_cache(maxsize=1)
def _known_window() -> int:
    """The automaton's window (:func:`window_of`) when the model cache has it already, else 0
    (the compiled walk then makes one chain): one text is never kept waiting for the proof."""
    path = _cache_file("dfa-window.json")
    if path is None:
        return 0
    try:
        got = json.loads(path.read_text(encoding="utf-8"))["window"]
    except (OSError, ValueError, KeyError, TypeError):
        return 0
    return got if isinstance(got, int) and got > 0 else 0


@lru_cache(maxsize=1)
def _window() -> tuple[int | None, int]:
    """(D, pad) of the model's automaton (:func:`window_of`), asked only when many texts
    are scored at once, so identifying one page never waits for the proof."""
    m = _model()
    return _proven_window(m.nm, m.rowbase)


def _finish(m: _Model, idx: np.ndarray | None, counts: np.ndarray | None,
            nbytes: int) -> np.ndarray:
    """py3langid's ``_decide`` from the features (idx, float32 counts, first-occurrence
    order): log counts times the table plus the priors, temperature ``sqrt(bytes)``,
    softmax, aliased labels folded. The same numpy operations in the same order."""
    if idx is not None and len(idx):
        s = np.log1p(counts) @ m.table[idx] + m.pc
    else:
        s = np.full(len(m.classes), 0.0, dtype=np.float32)
    s *= 1.0 / math.sqrt(nbytes or 1)
    np.exp(s - s.max(), out=s)
    s /= s.sum()
    for i, j in m.alias_pairs:
        s[i] += s[j]
        s[j] = 0.0
    return s


def scores(data: bytes) -> np.ndarray:
    """Per-class probabilities of one encoded text (:func:`encode`), as py3langid's
    ``_decide``. The automaton's walk is compiled (``webseg/_native/langwalk.c``: the same
    features and counts, in the same order) when webseg's C extensions are built."""
    m = _model()
    walk = _native_walk(m)
    if walk is not None:
        got = walk(m.nm, m.rowbase, m.out, data, _known_window())
        if got is None:
            return _finish(m, None, None, len(data))
        return _finish(m, np.frombuffer(got[0], dtype=np.intp),
                       np.frombuffer(got[1], dtype=np.float32), len(data))
    from py3langid.langid import visit_counts

    ident = m.ident
    visits = visit_counts(ident.tk_nextmove, ident._rowbase, ident.tk_output, data)
    if not visits:
        return _finish(m, None, None, len(data))
    idx = np.fromiter(visits.keys(), dtype=np.intp, count=len(visits))
    counts = np.fromiter(visits.values(), dtype=np.float32, count=len(visits))
    return _finish(m, idx, counts, len(data))


def scores_many(data: Sequence[bytes]) -> np.ndarray:
    """:func:`scores` of every encoded text, one row each: the automaton walked over all of
    them at once (module doc) and the softmax done on all rows together (element-wise
    operations, and sums over a row, which give every element and row what one text alone
    gets); the same numbers, bit for bit."""
    m = _model()
    ncls = len(m.classes)
    window, pad = _window() if len(data) > 1 else (None, 0)
    if window is None or not len(data):
        return (np.stack([scores(d) for d in data]) if len(data)
                else np.zeros((0, ncls), dtype=np.float32))
    parts: list[np.ndarray] = []
    start = 0
    while start < len(data):
        end, size = start, 0
        while end < len(data) and (end == start or size + len(data[end]) <= _BATCH_BYTES):
            size += len(data[end])
            end += 1
        parts.append(_scores_batch(m, data[start:end], window, pad))
        start = end
    return np.concatenate(parts)


def _scores_batch(m: _Model, data: Sequence[bytes], window: int, pad_byte: int
                  ) -> np.ndarray:
    w = int(window)
    pad = bytes((pad_byte,)) * (w - 1)
    buf = np.frombuffer(b"".join(pad + d for d in data), dtype=np.uint8)
    lens = np.fromiter((len(d) for d in data), dtype=np.int64, count=len(data))
    # each text's bytes sit after its pad: position of every real byte in ``buf``
    first = np.cumsum(lens + (w - 1)) - lens
    doc = np.repeat(np.arange(len(data), dtype=np.int64), lens)
    pos = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    at = first[doc] + pos
    # read the w bytes ending at each position, in order, from the start state
    state = np.take(m.nm, buf[at - (w - 1)] + m.rowbase[0])
    idx = np.empty(len(at), dtype=np.int64)
    for k in range(w - 2, -1, -1):
        np.take(m.rowbase, state, out=idx)
        idx += buf[at - k]
        state = np.take(m.nm, idx)
    feat = m.out[state]
    keep = feat >= 0
    feat, doc = feat[keep], doc[keep]
    # per text: its features in order of first occurrence, with their counts (a Counter's)
    nf = int(m.out.max()) + 1
    key = doc * nf + feat
    order = np.argsort(key, kind="stable")
    sk = key[order]
    starts = (np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]]) if len(sk)
              else np.zeros(0, dtype=np.int64))
    ukey = sk[starts]
    firstpos = order[starts]
    cnt = np.diff(np.r_[starts, len(sk)])
    by_first = np.argsort(firstpos, kind="stable")
    ukey, cnt = ukey[by_first], cnt[by_first]
    udoc = ukey // nf
    ufeat = (ukey % nf).astype(np.intp)
    bounds = np.searchsorted(udoc, np.arange(len(data) + 1))
    logc = np.log1p(cnt.astype(np.float32))
    s = np.zeros((len(data), len(m.classes)), dtype=np.float32)
    has = np.zeros(len(data), dtype=bool)
    for i in range(len(data)):
        a, b = bounds[i], bounds[i + 1]
        if b > a:
            s[i] = logc[a:b] @ m.table[ufeat[a:b]]
            has[i] = True
    s[has] += m.pc  # a text without features scores 0 everywhere (py3langid)
    inv = np.asarray([1.0 / math.sqrt(len(d) or 1) for d in data], dtype=np.float32)
    s *= inv[:, None]
    np.exp(s - s.max(axis=1, keepdims=True), out=s)
    s /= s.sum(axis=1, keepdims=True)
    for i, j in m.alias_pairs:
        s[:, i] += s[:, j]
        s[:, j] = 0.0
    return s


def _sequential_counts(data: bytes) -> Counter[int] | None:
    """The sequential walk's feature counts (py3langid's ``visit_counts``), for tests."""
    from py3langid.langid import visit_counts

    ident = _model().ident
    return visit_counts(ident.tk_nextmove, ident._rowbase, ident.tk_output, data)
