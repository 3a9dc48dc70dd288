"""The compiled scan of a view's text (``webseg._native.termcount.scan``) gives the same TF-IDF
rows as the Python path of :meth:`classify.stacked._Vec.rows`: the same columns, values and
order, bit for bit, on every text view of the shipped model."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classify.model import load_model
from classify.stacked import _Vec
from webseg import _native as native

_VECS: list[_Vec] = []


def _vecs() -> list[_Vec]:
    if not _VECS:
        _VECS.extend(b.rep for b in load_model().model.base if isinstance(b.rep, _Vec))
    return _VECS


def _rows_both(vec: _Vec, doc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (cols, w), = vec.rows([doc])
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    try:
        (want_cols, want_w), = vec.rows([doc])
    finally:
        monkeypatch.delenv("WEBSEG_PURE_PYTHON")
    assert cols.tolist() == want_cols.tolist()
    assert w.tobytes() == want_w.tobytes()


def _need_native() -> None:
    if native.load("termcount") is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")


def _sample_docs(vec: _Vec, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    known = [t for t in vec.vocab if t.isascii()][:400]
    words = [w for t in known for w in t.split(" ")] + ["zzqx", "A", "b", "x" * 65, "9" * 64]
    seps = [" ", "  ", "\t", "\n", "\x1c", "\x1f", ", ", ". ", "-", "/", "_", "'", "\x0b"]
    docs = ["", " ", "a", "\x1c\x1d", known[0].upper() if known else "AB"]
    for n in (3, 30, 63, 64, 65, 400, 3000):
        toks = rng.choice(words, size=n)
        sep = rng.choice(seps, size=n)
        docs.append("".join(f"{t}{s}" for t, s in zip(toks, sep, strict=True)))
    docs += ["Le café d'Étienne coûte 3 €: très cher", "Москва — столица", "北京是中国的首都",
             "naïve résumé ﬁne Straße ½ ²", "t:div main nav t:a role:button in:text"]
    return docs


def test_scan_rows_equal_python_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    _need_native()
    vecs = _vecs()
    assert {v.params.get("tokens", v.params.get("token_pattern")) for v in vecs} >= \
        {"words", r"\S+"}, "the shipped model has word and markup views"
    for k, vec in enumerate(vecs):
        vec.rows([""])
        assert vec._scan_tables(native.load("termcount")) is not None
        for doc in _sample_docs(vec, k):
            _rows_both(vec, doc, monkeypatch)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abAB01 \t\n\x1c\x1f.,-_'é€Ω北")), max_size=80))
def test_scan_rows_equal_on_any_text(doc: str) -> None:
    _need_native()
    mp = pytest.MonkeyPatch()
    try:
        for vec in _vecs():
            _rows_both(vec, doc, mp)
    finally:
        mp.undo()


def test_scan_bad_input_raises() -> None:
    tc = native.load("termcount")
    if tc is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    keys = ["ab", "cd", "ünï"]
    vt = np.empty(4 * 8, dtype=np.int64)
    tc.ascii_vocab(keys, vt)
    cols = np.array([0, 1, 2], dtype=np.int64)
    t_codes, t_cols = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int64)
    tc.table(np.array([0 * 3 + 1], dtype=np.int64), np.array([7], dtype=np.int64), t_codes,
             t_cols)
    text = "AB cd x ab-cd ef ab"
    js, tf = np.empty(len(text) + 1, dtype=np.int64), np.empty(len(text) + 1)
    m = tc.scan(text, 0, True, keys, vt, cols, 3, t_codes, t_cols, js, tf)
    assert js[:m].tolist() == [0, 1, 7] and tf[:m].tolist() == [3.0, 2.0, 2.0]
    m = tc.scan(text, 1, False, keys, vt, cols, 3, t_codes, t_cols, js, tf)
    assert js[:m].tolist() == [0, 1] and tf[:m].tolist() == [2.0, 1.0]
    with pytest.raises(ValueError):  # not ASCII
        tc.scan("ünï", 0, False, keys, vt, cols, 3, t_codes, t_cols, js, tf)
    with pytest.raises(ValueError):  # output buffers shorter than the text + 1
        tc.scan(text, 0, False, keys, vt, cols, 3, t_codes, t_cols, js[:5], tf[:5])
    with pytest.raises(ValueError):  # an unknown mode
        tc.scan(text, 2, False, keys, vt, cols, 3, t_codes, t_cols, js, tf)
    with pytest.raises(ValueError):  # a word id past the column table
        tc.scan(text, 0, False, keys, vt, cols[:1], 3, t_codes, t_cols, js, tf)
    with pytest.raises(ValueError):  # a pair table whose size is no power of two
        tc.scan(text, 0, True, keys, vt, cols, 3, t_codes[:3], t_cols[:3], js, tf)
    with pytest.raises(ValueError):  # a vocabulary table too small for its keys
        tc.scan(text, 0, False, keys * 6, vt, cols, 3, t_codes, t_cols, js, tf)
    with pytest.raises(ValueError):  # the same word twice
        tc.ascii_vocab(["ab", "ab"], vt)
    with pytest.raises(TypeError):
        tc.ascii_vocab(["ab", 3], vt)
    with pytest.raises(TypeError):
        tc.scan(b"ab", 0, False, keys, vt, cols, 3, t_codes, t_cols, js, tf)


def test_decide_equals_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled sparse decision gives the numpy path's bits (float32-rounded values,
    products and sums in order), on rows with signed zeros, repeats and extreme values."""
    _need_native()
    from classify.stacked import _ViewModel

    rng = np.random.default_rng(3)
    coef = rng.normal(size=(5, 40)) * 10.0 ** rng.integers(-8, 8, size=(5, 40))
    coef[:, 3] = -0.0
    vm = _ViewModel("text", None, coef, rng.normal(size=5), 1.0)
    rows = [(np.zeros(0, np.int64), np.zeros(0))]
    for n in (1, 2, 7, 40, 300):
        cols = rng.integers(0, 40, size=n).astype(np.int64)
        rows.append((cols, rng.normal(size=n) * 10.0 ** rng.integers(-5, 5, size=n)))
    rows.append((np.array([3, 3], np.int64), np.array([-1.0, 1.0])))
    got = vm._sparse_decision(rows)
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    want = vm._sparse_decision(rows)
    assert got.tobytes() == want.tobytes()


def test_decide_bad_input_raises() -> None:
    tc = native.load("termcount")
    if tc is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    coef_t = np.ones((4, 2))
    out = np.empty(2)
    tc.decide(np.array([0, 3], np.int64), np.array([0.5, 2.0]), coef_t, 2, out)
    assert out.tolist() == [2.5, 2.5]
    with pytest.raises(ValueError):  # a column past the weights
        tc.decide(np.array([4], np.int64), np.array([1.0]), coef_t, 2, out)
    with pytest.raises(ValueError):  # a negative column
        tc.decide(np.array([-1], np.int64), np.array([1.0]), coef_t, 2, out)
    with pytest.raises(ValueError):  # values not as long as the columns
        tc.decide(np.array([0, 1], np.int64), np.array([1.0]), coef_t, 2, out)
    with pytest.raises(ValueError):  # an output of another width
        tc.decide(np.array([0], np.int64), np.array([1.0]), coef_t, 2, np.empty(3))
    with pytest.raises(ValueError):  # no class
        tc.decide(np.array([0], np.int64), np.array([1.0]), coef_t, 0, out)


def test_scan_long_words_with_a_shared_start() -> None:
    """Words longer than the table's 16 bytes kept in place, sharing their first 16 letters,
    are told apart by the rest; an unknown word of the same length is no match."""
    tc = native.load("termcount")
    if tc is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    keys = ["abcdefghijklmnopq", "abcdefghijklmnopr", "abcdefghijklmnop", "x" * 64]
    vt = np.empty(4 * 8, dtype=np.int64)
    tc.ascii_vocab(keys, vt)
    cols = np.array([10, 11, 12, 13], dtype=np.int64)
    none = np.full(1, -1, dtype=np.int64)
    text = ("ABCDEFGHIJKLMNOPR abcdefghijklmnops abcdefghijklmnop abcdefghijklmnopq "
            + "X" * 64 + " abcdefghijklmnopr")
    js, tf = np.empty(len(text) + 1, dtype=np.int64), np.empty(len(text) + 1)
    m = tc.scan(text, 0, False, keys, vt, cols, 4, none, none, js, tf)
    assert js[:m].tolist() == [11, 12, 10, 13] and tf[:m].tolist() == [2.0, 1.0, 1.0, 1.0]
    with pytest.raises(ValueError):  # a table of pairs, not of four int64 slots
        tc.ascii_vocab(keys, np.empty(2 * 8 + 2, dtype=np.int64))


def test_trees_summed_by_class_equal_the_per_class_loop() -> None:
    """The stacker's logits with each class's trees summed in one call equal those of the
    loop over classes (the same bits), on the shipped model and on random inputs."""
    import copy

    trees = load_model().model.trees
    if trees is None:
        pytest.skip("the shipped model's stacker is not boosted trees")
    assert trees._by_class() is not None
    loop = copy.copy(trees)
    loop.__dict__["_by_class_cache"] = None  # the per-class loop
    rng = np.random.default_rng(0)
    width = int(trees._f.max()) + 1
    for rows in (0, 1, 2, 7):
        X = rng.normal(size=(rows, width)) * 3
        assert trees.raw(X).tobytes() == loop.raw(X).tobytes()
