"""Page-type classification: tokens, information gain, TF-ISF features, SVM, model files."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from classify.features import PositionTfIsf, information_gain
from classify.model import PageTypeModel, make_pipeline
from classify.svm import OvRLinearSVM
from classify.text import tokenize, words


# --------------------------------------------------------------------------- text
def test_tokenize_drops_stop_words_digits_and_long_runs():
    assert tokenize("The Reply to this POST, 2 days ago!") == ["reply", "post", "days", "ago"]
    assert tokenize("2020abc " + "x" * 31 + " naïve café") == ["naïve", "café"]
    assert tokenize("") == [] and tokenize("   \n") == []


def test_tokenize_every_script():
    # a Chinese clause longer than 30 characters was one dropped "word": now bigrams
    zh = "北京是中国的首都" * 5
    toks = tokenize(zh)
    assert len(toks) == len(zh) - 1 and toks[0] == "北京"
    # stop words of the text's language and of Cyrillic / Greek, not English only
    assert tokenize("Москва — столица России и это всё.") == ["москва", "столица", "россии"]
    assert "της" not in tokenize("Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και το κέντρο.")
    pl = tokenize("Nie wiem, czy się uda, ale w Polsce dzisiaj jest bardzo zimno i pada śnieg.")
    assert "polsce" in pl and "śnieg" in pl and "się" not in pl and "jest" not in pl


def test_words_are_unicode_words_and_cjk_bigrams():
    assert words("Москва — столица России. 北京是首都 Hello a I 2025") == [
        "москва", "столица", "россии", "北京", "京是", "是首", "首都", "hello", "2025"]
    assert words("中") == ["中"] and words("") == [] and words(" \n") == []
    assert words("한국어 텍스트") == ["한국", "국어", "텍스", "스트"]


# --------------------------------------------------------------------------- information gain
def _entropy(counts: list[int]) -> float:
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts if c) if n else 0.0


def _ig_brute(col: list[bool], y: list[str]) -> float:
    classes = sorted(set(y))
    n = len(y)
    h = _entropy([y.count(c) for c in classes])
    for side in (True, False):
        ys = [c for c, t in zip(y, col, strict=True) if t == side]
        h -= len(ys) / n * _entropy([ys.count(c) for c in classes])
    return h


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.booleans(), min_size=4, max_size=4),
                          st.sampled_from("abc")), min_size=1, max_size=12))
def test_information_gain_equals_definition(rows):
    X = np.array([r[0] for r in rows], dtype=float)
    y = [r[1] for r in rows]
    got = information_gain(sp.csr_matrix(X), np.array(y))
    want = [_ig_brute([bool(v) for v in X[:, j]], y) for j in range(X.shape[1])]
    assert np.allclose(got, want, atol=1e-12)


def test_information_gain_perfect_and_useless_terms():
    X = sp.csr_matrix(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]))
    ig = information_gain(X, np.array(["a", "a", "b", "b"]))
    assert ig[0] == pytest.approx(1.0) and ig[1] == pytest.approx(0.0)


# --------------------------------------------------------------------------- features
DOCS = [["reply post", "forum"], ["buy cart price", "shop"], ["reply thread post", "forum"],
        ["cart checkout", "shop"]]
Y = ["forum", "product", "forum", "product"]


def test_tf_isf_values_by_hand():
    tf = PositionTfIsf(n_positions=2, select=1.0, norm=None).fit(DOCS, Y)
    voc = tf.vocabulary_
    assert voc == sorted(voc) and "forum" in voc
    X = tf.transform([["reply reply", "forum"]]).toarray()[0]
    k = len(voc)
    # "reply": tf 2 at position 0, in 2 of the 4 pages with text at position 0
    assert X[voc.index("reply")] == pytest.approx(2 * (math.log(5 / 3) + 1))
    assert X[k + voc.index("forum")] == pytest.approx(math.log(5 / 3) + 1)
    # the same term at the other position is another dimension
    assert X[k + voc.index("reply")] == 0.0
    assert np.count_nonzero(X) == 2


def test_positions_are_separate_dimensions_and_rows_normalised():
    tf = PositionTfIsf(n_positions=2, select=1.0).fit(DOCS, Y)
    a = tf.transform([["forum", ""]])
    b = tf.transform([["", "forum"]])
    assert a.nnz == b.nnz == 1 and a.indices[0] != b.indices[0]
    assert np.linalg.norm(tf.transform(DOCS).toarray(), axis=1) == pytest.approx(1.0)
    assert tf.transform([["unseen words", ""]]).nnz == 0


def test_information_gain_selection_keeps_top_fraction():
    docs = [["alpha common", "xx"], ["alpha common", "yy"], ["beta common", "xx"],
            ["beta common", "yy"]]
    y = ["a", "a", "b", "b"]
    tf = PositionTfIsf(n_positions=2, select=0.5).fit(docs, y)
    # 5 candidate terms; "alpha" and "beta" separate the classes perfectly, "common", "xx",
    # "yy" carry nothing: ceil(2.5) = 3 kept, the third the alphabetically first zero-gain term
    assert tf.n_candidate_terms_ == 5
    assert tf.vocabulary_ == ["alpha", "beta", "common"]
    assert tf.information_gain_.tolist() == pytest.approx([1.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="needs labels"):
        PositionTfIsf(n_positions=2, select=0.5).fit(docs)


def test_feature_input_checks():
    with pytest.raises(ValueError, match="position texts"):
        PositionTfIsf(n_positions=2, select=1.0).fit([["only one"]], ["a"])
    with pytest.raises(ValueError, match="select"):
        PositionTfIsf(select=0.0).fit(DOCS, Y)
    with pytest.raises(ValueError, match="not fitted"):
        PositionTfIsf().transform(DOCS)
    # a single string is one position; pre-counted positions give the same matrix
    tf = PositionTfIsf(n_positions=1, select=1.0).fit(["a bb cc", "bb dd"], ["x", "y"])
    from collections import Counter
    assert (tf.transform(["bb cc"]) != tf.transform([[Counter({"bb": 1, "cc": 1})]])).nnz == 0


def test_estimators_are_sklearn_clonable():
    pipe = make_pipeline(n_positions=2, select=1.0, platt_folds=0)
    assert clone(pipe).get_params()["features__n_positions"] == 2
    assert clone(pipe).get_params()["svm__C"] == 1.0


# --------------------------------------------------------------------------- SVM
def _blobs(n_per: int = 30, k: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    centers = np.eye(k, 6) * 3
    X = np.vstack([rng.normal(centers[c], 1.0, size=(n_per, 6)) for c in range(k)])
    y = np.repeat([f"c{c}" for c in range(k)], n_per)
    return X, y


def test_svm_one_vs_rest_learns_and_gives_probabilities():
    X, y = _blobs()
    m = OvRLinearSVM(platt_folds=3).fit(X, y)
    assert np.mean(m.predict(X) == y) > 0.9
    p = m.predict_proba(X)
    assert p.shape == (len(y), 3) and np.allclose(p.sum(axis=1), 1.0)
    # probabilities agree with the decision: confident pages get a high probability
    assert np.mean(p.max(axis=1)[m.predict(X) == y]) > 0.6
    assert m.coef_.shape == (3, 6)


def test_svm_two_classes_has_a_vector_per_class():
    X, y = _blobs(k=2)
    m = OvRLinearSVM().fit(X, y)
    assert m.coef_.shape == (2, 6)
    assert np.array_equal(m.predict(X), m.classes_[np.argmax(m.decision_function(X), 1)])
    with pytest.raises(ValueError, match="two classes"):
        OvRLinearSVM().fit(X[:5], y[:5])


def test_svm_round_trip_is_exact_enough():
    X, y = _blobs()
    m = OvRLinearSVM().fit(X, y)
    m2 = OvRLinearSVM.from_dict(m.to_dict())
    assert np.array_equal(m.predict(X), m2.predict(X))
    assert np.allclose(m.predict_proba(X), m2.predict_proba(X), atol=1e-4)


# --------------------------------------------------------------------------- model files
def _texts(rng: np.random.Generator, kind: str) -> list[str]:
    words = {"forum": ["reply", "post", "thread", "member"],
             "product": ["cart", "price", "buy", "shipping"],
             "article": ["published", "author", "story", "read"]}[kind]
    common = ["home", "about", "contact", "news", "login"]
    out = [""] * 10
    out[0] = " ".join(rng.choice(common, 3))
    out[4] = " ".join(rng.choice(words, 6).tolist() + rng.choice(common, 4).tolist())
    out[9] = " ".join(rng.choice(words, 3))
    return out


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_model_save_load_same_predictions(tmp_path, suffix):
    rng = np.random.default_rng(1)
    kinds = ["forum", "product", "article"] * 12
    texts = [_texts(rng, k) for k in kinds]
    m = PageTypeModel.fit_texts(texts, kinds, select=0.5)
    assert m.classes == ["article", "forum", "product"]
    pred = m.predict_texts(texts)
    assert np.mean([p == k for (p, _), k in zip(pred, kinds, strict=True)]) > 0.9
    assert all(0.0 < prob <= 1.0 for _, prob in pred)
    path = tmp_path / f"m{suffix}"
    m.info = {"note": "test"}
    m.save(path)
    m2 = PageTypeModel.load(path)
    pred2 = m2.predict_texts(texts)
    assert [p for p, _ in pred] == [p for p, _ in pred2]
    assert np.allclose([q for _, q in pred], [q for _, q in pred2], atol=1e-3)
    assert m2.info == {"note": "test"} and m2.segmenter == "wps-margin"
    assert m.predict_texts([]) == []


def test_model_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="train one"):
        PageTypeModel.load(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x00\xffnot json")
    with pytest.raises(ValueError, match="not a JSON"):
        PageTypeModel.load(bad)
    bad.write_text('{"schema": "other"}')
    with pytest.raises(ValueError, match="not a page-type model"):
        PageTypeModel.load(bad)
    bad.write_text('[1, 2]')
    with pytest.raises(ValueError, match="not a page-type model"):
        PageTypeModel.load(bad)
    bad.write_text('{"schema": "webseg.classify.pagetype", "version": 1, "features": {}}')
    with pytest.raises(ValueError, match="malformed"):
        PageTypeModel.load(bad)


def test_shipped_model_loads_and_predicts_a_known_type():
    m = PageTypeModel.load()
    assert len(m.classes) >= 2
    feats = m.pipeline.named_steps["features"]
    assert feats.n_positions == 10
    text = [""] * 10
    (typ, prob), = m.predict_texts([text])
    assert typ in m.classes and 0.0 <= prob <= 1.0
    # all-blank pages and pages full of unseen words are handled, not errors
    (typ2, _), = m.predict_texts([["zzqx " * 50] * 10])
    assert typ2 in m.classes


def test_selected_terms_are_ranked_by_information_gain():
    rng = np.random.default_rng(3)
    kinds = ["forum", "product"] * 15
    texts = [_texts(rng, k) for k in kinds]
    tf = PositionTfIsf(select=0.3).fit(texts, kinds)
    # the class words beat the shared navigation words
    assert set(tf.vocabulary_) <= {"reply", "post", "thread", "member", "cart", "price", "buy",
                                   "shipping"}
    assert len(set(itertools.chain(tf.vocabulary_))) == len(tf.vocabulary_)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab Cé e\u0301 12_-—’©™…\u00a0\u3000北京Мо", max_size=60))
def test_words_fast_path_gives_the_analysis_tokens(text):
    from classify.text import _analyzer, _unspaced

    ref = [t for t in _analyzer().tokens(text) if len(t) > 1 or _unspaced(t)] if text else []
    assert words(text) == ref
