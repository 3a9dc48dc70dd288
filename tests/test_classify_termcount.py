"""The compiled term counts of the text views (``webseg._native.termcount``) equal the numpy
ones of :meth:`classify.stacked._Vec._terms_by_ids`: the same columns, counts and order."""

from __future__ import annotations

import numpy as np
import pytest

from classify.model import load_model
from classify.stacked import _Vec
from webseg import _native as native


def _pair_vecs() -> list[_Vec]:
    vecs = [b.rep for b in load_model().model.base if isinstance(b.rep, _Vec)
            and tuple(b.rep.params.get("ngram_range", (1, 1))) == (1, 2)]
    for v in vecs:
        v.rows([""])  # the analyzer state
    return vecs


def test_same_terms_as_numpy(monkeypatch) -> None:
    if native.load("termcount") is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    vecs = _pair_vecs()
    assert vecs, "the shipped model has word-pair views"
    for k, vec in enumerate(vecs):
        rng = np.random.default_rng(k)
        pair_words = [w for p in list(vec._pairs[0])[:200] for w in p]
        words = [w for w in vec.vocab if " " not in w][:200] + pair_words + ["zzqx", "ünknown"]
        docs = [[], ["zzqx"], [pair_words[0]], pair_words[:2] * 40]
        docs += [list(rng.choice(words, size=n)) for n in (64, 65, 300, 3000)]
        fast = [vec._terms_by_ids(d) for d in docs]
        monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
        for d, (js, tf) in zip(docs, fast, strict=True):
            want_js, want_tf = vec._terms_by_ids(d)
            assert js.tolist() == want_js.tolist()
            assert tf.tobytes() == want_tf.astype(np.float64).tobytes()
        monkeypatch.delenv("WEBSEG_PURE_PYTHON")


def _vocab(tc, keys: list[str]) -> np.ndarray:
    tab = np.empty(2 * 8, dtype=np.int64)
    tc.vocab(keys, tab)
    return tab


def test_bad_input_raises() -> None:
    tc = native.load("termcount")
    if tc is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    cols = np.array([0, 1], dtype=np.int64)
    t_codes, t_cols = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int64)
    tc.table(np.array([1, 1], dtype=np.int64), np.array([0, 5], dtype=np.int64), t_codes,
             t_cols)  # a code twice keeps its first column, as the binary search finds it
    keys = ["a", "b"]
    vt = _vocab(tc, keys)
    js, tf = np.empty(6, dtype=np.int64), np.empty(6)
    assert tc.terms(["a", "b"], keys, vt, cols, 2, t_codes, t_cols, js, tf) == 3
    assert js[:3].tolist() == [0, 1, 0] and tf[:3].tolist() == [1.0, 1.0, 1.0]
    assert tc.terms(["b", "zz", "b"], keys, vt, cols, 2, t_codes, t_cols, js, tf) == 2
    assert js[:2].tolist() == [1, -1] and tf[:2].tolist() == [2.0, 1.0]
    with pytest.raises(ValueError):  # a word id past the column table
        tc.terms(["b"], keys, vt, cols[:1], 2, t_codes, t_cols, js, tf)
    with pytest.raises(ValueError):  # output buffers too short
        tc.terms(["a", "b", "c", "d"], keys, vt, cols, 2, t_codes, t_cols, js, tf)
    with pytest.raises(ValueError):  # a table without its columns
        tc.terms(["a"], keys, vt, cols, 2, t_codes, t_cols[:2], js, tf)
    with pytest.raises(ValueError):  # a table whose size is no power of two
        tc.terms(["a"], keys, vt, cols, 2, t_codes[:3], t_cols[:3], js, tf)
    with pytest.raises(ValueError):  # a vocabulary table too small for its keys
        tc.terms(["a"], keys * 5, vt, cols, 2, t_codes, t_cols, js, tf)
    with pytest.raises(ValueError):  # a table with no room left
        tc.table(np.arange(4, dtype=np.int64), np.arange(4, dtype=np.int64), t_codes, t_cols)
    with pytest.raises(ValueError):  # a negative code
        tc.table(np.array([-3], dtype=np.int64), cols[:1], t_codes, t_cols)
    with pytest.raises(ValueError):  # the same word twice
        _vocab(tc, ["a", "a"])
    with pytest.raises(TypeError):
        _vocab(tc, ["a", 3])
