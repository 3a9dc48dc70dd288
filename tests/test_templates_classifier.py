"""Templateness classifier: fitting, JSON round trip, the shipped model, training helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from webseg.templates.classifier import DEFAULT_EDGES, TemplateClassifier, default_model_path
from webseg.templates.features import FEATURE_NAMES
from webseg.templates.train import PageRecord, _balance_weights, select_sites


def synthetic(n: int = 400, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, len(FEATURE_NAMES)))
    area = 10 ** rng.uniform(3, 6, size=n)
    y = (X[:, 7] + 0.3 * rng.normal(size=n) > 0).astype(int)  # links_per_word decides
    return X, area, y


def test_fit_predicts_the_signal_in_every_bucket():
    X, area, y = synthetic()
    clf = TemplateClassifier().fit(X, area, y)
    assert len(clf.buckets) == len(DEFAULT_EDGES) + 1
    p = clf.predict_proba_features(X, area)
    assert p.shape == (len(y),) and np.all((p >= 0) & (p <= 1))
    assert np.mean((p >= 0.5) == y) > 0.9
    for b in clf.buckets:
        assert b.coef[7] > 0 and b.n_train > 0


def test_json_round_trip(tmp_path: Path):
    X, area, y = synthetic()
    clf = TemplateClassifier(C=0.5).fit(X, area, y)
    clf.meta = {"note": "test"}
    path = tmp_path / "m.json"
    clf.save(path)
    d = json.loads(path.read_text(encoding="utf-8"))  # plain JSON, no pickle
    assert d["edges"] == list(DEFAULT_EDGES) and len(d["buckets"]) == 4
    back = TemplateClassifier.load(path)
    assert back.C == 0.5 and back.meta == {"note": "test"}
    np.testing.assert_allclose(back.predict_proba_features(X, area),
                               clf.predict_proba_features(X, area))


def test_bad_model_files(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="train"):
        TemplateClassifier.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        TemplateClassifier.load(bad)
    d = TemplateClassifier.uniform().to_dict()
    d["feature_names"] = ["x"]
    bad.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(ValueError, match="retrain"):
        TemplateClassifier.load(bad)


def test_single_class_bucket_gets_its_prior():
    X, area, _ = synthetic(50)
    area[:] = 1e5
    clf = TemplateClassifier().fit(X, area, np.ones(50, int))
    assert np.all(clf.predict_proba_features(X, area) > 0.99)


def test_nan_features_are_neutral():
    clf = TemplateClassifier.uniform()
    X = np.full((3, len(FEATURE_NAMES)), np.nan)
    np.testing.assert_allclose(clf.predict_proba_features(X, np.array([1.0, 5e4, 1e7])), 0.5)


def test_shipped_model_loads():
    path = default_model_path()
    assert path.is_file()
    clf = TemplateClassifier.load()
    assert clf.feature_names == FEATURE_NAMES and len(clf.buckets) == len(clf.edges) + 1
    assert clf.meta.get("pages_used", 0) >= 2


def test_select_sites_split_and_caps():
    def rec(i, site, split):
        return PageRecord("d", f"{i:03d}", Path("x"), site, None, None, split)

    recs = ([rec(i, "a", "train") for i in range(5)] + [rec(10, "b", "train"),
            rec(11, "b", "test")] + [rec(20 + i, "c", None) for i in range(3)]
            + [rec(30, None, "train"), rec(31, None, "train")])
    sites = select_sites(recs, max_per_site=4)
    assert set(sites) == {"d/a", "d/c"}  # b has one train page; no-site pages are skipped
    assert len(sites["d/a"]) == 4
    capped = select_sites(recs, max_per_site=4, max_pages=5)
    assert sum(map(len, capped.values())) <= 5
    assert select_sites(recs, max_per_site=4) == sites  # deterministic


def test_balance_weights_equalise_classes_per_bucket():
    area = np.array([1e3, 1e3, 1e3, 1e5, 1e5])
    y = np.array([1, 0, 0, 1, 0])
    w = _balance_weights(area, y, DEFAULT_EDGES)
    assert w[0] == pytest.approx(w[1] + w[2])
    assert w[3] == pytest.approx(w[4])


def test_gold_labels():
    from tests.helpers import sample_page
    from webseg.templates.train import gold_labels

    page = sample_page()  # body > [div > (p "alpha beta", p "gamma"), div "delta epsilon", p]
    lab = gold_labels(page, "Alpha beta gamma, and zeta.")
    assert lab[6] == 0 and lab[9] == 0 and lab[5] == 0  # p, text, div all in gold
    assert lab[10] == 1 and lab[11] == 1  # "delta epsilon" is not
    assert lab[4] == 0  # body: 4 of 6 words in gold
    assert lab[3] == -1  # title text is not visible: no words
