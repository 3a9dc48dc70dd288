"""The stacked page-type model's text views score a page without scipy: the same bits as the
sparse matrix product they replace (any difference could flip a close page type)."""

from __future__ import annotations

import numpy as np
import pytest

from classify.model import load_model
from classify.stacked import _Vec


def _vec_views():
    model = load_model().model
    return [b for b in model.base if isinstance(b.rep, _Vec)]


@pytest.mark.parametrize("k", range(5))
def test_decision_equals_the_sparse_product_bit_for_bit(k: int) -> None:
    views = _vec_views()
    if k >= len(views):
        pytest.skip("the shipped model has fewer text views")
    view = views[k]
    rng = np.random.default_rng(k)
    words = [w for w in view.rep.vocab if " " not in w and ":" not in w][:400] or ["x"]
    docs = [" ".join(rng.choice(words, size=n)) for n in (0, 1, 3, 40, 900)]
    docs.append("nothing in the vocabulary zzqx")
    got = view.decision(docs)
    want = view.decision_X(view.rep.transform(docs))
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    for d in docs:  # one page at a time, as the pipeline asks
        assert view.decision([d]).tobytes() == view.decision_X(view.rep.transform([d])).tobytes()


def _rows_by_tuples(vec: _Vec, doc: str) -> tuple[np.ndarray, np.ndarray]:
    """The columns and TF-IDF values of a words+pairs view by the plain rule: Counter of the
    words, then of the (word, word) tuples, each looked up in the vocabulary."""
    from collections import Counter

    pair_index, tokenize = vec._pairs
    toks = tokenize(doc)
    uni, bi = Counter(toks), Counter(zip(toks, toks[1:], strict=False))
    js = np.array([vec._index.get(t, -1) for t in uni] + [pair_index.get(p, -1) for p in bi],
                  dtype=np.int64)
    tf = np.array(list(uni.values()) + list(bi.values()), dtype=np.float64)
    keep = js >= 0
    cols, tf = js[keep], tf[keep]
    if vec.params.get("sublinear_tf"):
        tf = 1.0 + np.log(tf)
    w = tf * vec._idf64[cols]
    norm = float(np.sqrt(w @ w))
    return cols, (w / norm if norm > 0 else w)


def test_long_documents_counted_by_ids_equal_the_tuple_rule() -> None:
    """Long documents take the integer-pair path (``_terms_by_ids``); its columns, order and
    values equal the tuple rule's bit for bit, unknown words and repeats included."""
    views = [v for v in _vec_views() if v.rep.params.get("ngram_range") in ((1, 2), [1, 2])]
    assert views, "the shipped model has word-pair views"
    for k, view in enumerate(views):
        vec = view.rep
        vec.rows([""])  # builds the analyzer state
        assert vec._pairs is not None
        rng = np.random.default_rng(k)
        pair_words = [w for p in list(vec._pairs[0])[:300] for w in p]
        words = [w for w in vec.vocab if " " not in w][:300] + pair_words + \
            ["zzqx", "unknownword"]
        for n in (64, 65, 300, 3000):
            doc = " ".join(rng.choice(words, size=n))
            got = vec.rows([doc])[0]
            want = _rows_by_tuples(vec, doc)
            assert got[0].tolist() == want[0].tolist()
            assert got[1].tobytes() == want[1].tobytes()


def _raw_by_the_general_walk(trees, X: np.ndarray) -> np.ndarray:
    """``_Trees.raw`` as it walks several rows: leaf tests and missing values every level."""
    k = len(trees.baseline)
    node = np.tile(trees._roots, (len(X), 1))
    rows = np.arange(len(X))[:, None]
    for _ in range(64):
        leaf = trees._leaf[node]
        if leaf.all():
            break
        x = X[rows, trees._f[node]]
        go_left = np.where(np.isnan(x), trees._m[node], x <= trees._t[node])
        node = np.where(leaf, node, np.where(go_left, trees._l[node], trees._r[node]))
    vals = trees._v[node]
    out = np.tile(trees.baseline, (len(X), 1))
    for c in range(k):
        out[:, c] += vals[:, trees._cls == c].sum(axis=1)
    return out if k > 1 else np.column_stack([np.zeros(len(X)), out[:, 0]])


def test_one_row_tree_walk_finds_the_same_leaves() -> None:
    """The stacker's trees score one page by a walk without leaf tests (``_Trees.raw``'s
    one-row path): the same logits, bit for bit, as the general walk, and a missing value
    still follows each node's missing-value side."""
    model = load_model().model
    trees = model.trees
    if trees is None:
        pytest.skip("the shipped model's stacker is not trees")
    rng = np.random.default_rng(0)
    width = int(trees._f.max()) + 1
    X = rng.normal(0.0, 2.0, size=(60, width))
    X[::7, 3] = 0.0  # values on thresholds' sides both ways
    X[1, :5] = np.nan
    for i in range(len(X)):
        row = X[i:i + 1]
        assert trees.raw(row).tobytes() == _raw_by_the_general_walk(trees, row).tobytes()
