"""Learned per-page threshold (webseg.blocks.pagedecision, decoder ``stack-page``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from webseg.blocks import train
from webseg.blocks.features import FEATURE_NAMES, leaf_features
from webseg.blocks.gbt import TreeEnsemble, export_hgb, read_model_json
from webseg.blocks.model import DEFAULT_MODEL, BlockModel, decide
from webseg.blocks.pagedecision import (
    PAGE_CANDIDATES,
    PAGE_FEATURE_NAMES,
    PAGE_GATE_PARTS,
    PageDecision,
    page_features,
    pick,
)
from webseg.blocks.train import THRESHOLDS, PageTable, choose_page_decision, fold_of, gate_parts
from webseg.parse import parse

GRID = np.asarray(THRESHOLDS, dtype=np.float64)
HTML = ("<html><head><title>T</title></head><body><nav><a href='/'>Home</a> <a href='/a'>A</a>"
        "</nav><article><h1>Title</h1><p>" + "A sentence of the article body. " * 20
        + "</p><ul><li>one item</li><li>two items</li></ul></article>"
        "<footer>Copyright footer text</footer></body></html>")


def constant_decision(value: float = 0.0, margin: float = 0.0) -> dict:
    """A per-page decision whose model predicts the same gain for every threshold."""
    ens = {"kind": "regression", "baseline": value, "n_features": len(PAGE_FEATURE_NAMES),
           "trees": []}
    return {"feature_names": list(PAGE_FEATURE_NAMES), "thresholds": list(GRID),
            "ensemble": ens, "margin": margin}


def test_page_features_shape_and_properties():
    rng = np.random.default_rng(0)
    m = 40
    s = rng.random(m)
    chars = rng.integers(0, 200, m).astype(float)
    X = rng.random((m, len(FEATURE_NAMES)))
    F = page_features(s, chars, X, GRID)
    assert F.shape == (len(GRID), len(PAGE_FEATURE_NAMES)) and np.isfinite(F).all()
    col = {n: k for k, n in enumerate(PAGE_FEATURE_NAMES)}
    np.testing.assert_allclose(F[:, col["thr"]], GRID)
    # the kept share falls as the threshold rises; page aggregates equal on every row
    assert np.all(np.diff(F[:, col["kept_thr"]]) <= 0)
    assert np.all(F[:, : col["thr"]] == F[0, : col["thr"]])
    assert F[0, col["s_max"]] == pytest.approx(s.max())
    empty = page_features(np.zeros(0), np.zeros(0), np.zeros((0, len(FEATURE_NAMES))), GRID)
    assert empty.shape == F.shape and np.all(empty[:, col["none_kept_thr"]] == 1)


def test_pick_ties_and_margin():
    g = np.zeros(len(GRID))
    assert pick(GRID, g, 0.35) == 0.35  # constant model: the global threshold
    g[0] = 0.005
    assert pick(GRID, g, 0.35) == 0.25
    assert pick(GRID, g, 0.35, margin=0.01) == 0.35  # gain within the margin: global
    g[0] = 0.02
    assert pick(GRID, g, 0.35, margin=0.01) == 0.25


def test_constant_model_reproduces_global_decision():
    rng = np.random.default_rng(1)
    pd = PageDecision(json.loads(json.dumps(constant_decision(0.3))))
    for _ in range(20):
        m = int(rng.integers(0, 30))
        s = rng.random(m)
        thr = float(rng.choice(GRID))
        got = pd.threshold(s, rng.random(m) * 50, rng.random((m, len(FEATURE_NAMES))), thr)
        assert got == thr
        np.testing.assert_array_equal(decide(s, got, True), decide(s, thr, True))
    # and in the model: stack-page == stack
    d = read_model_json(DEFAULT_MODEL)
    lf = leaf_features(parse(HTML))
    m = BlockModel({**d, "page_decision": constant_decision(),
                    "page_decision_forced": constant_decision(0.1)})
    for dec in ("stack-page", "stack-page-forced"):
        s, keep = m.decode(lf, dec)
        np.testing.assert_array_equal(keep, m.decode(lf, "stack")[1])
        np.testing.assert_array_equal(keep, decide(s, m.threshold, m.fallback))


def test_old_model_files_load_and_fall_back_to_global():
    d = read_model_json(DEFAULT_MODEL)
    old = BlockModel({k: v for k, v in d.items()
                      if k not in ("page_decision", "page_decision_forced")})
    assert old.page_decision is None and old.page_decision_forced is None
    lf = leaf_features(parse(HTML))
    for dec in ("stack-page", "stack-page-forced"):
        s, keep = old.decode(lf, dec)
        np.testing.assert_array_equal(keep, decide(s, old.threshold, old.fallback))
    assert old.page_threshold(s, lf) == old.page_threshold(s, lf, True) == old.threshold
    # a model whose page part has other features refuses to load, with a clear error
    bad = constant_decision()
    bad["feature_names"] = bad["feature_names"][:-1]
    with pytest.raises(ValueError, match="other page features"):
        BlockModel({**d, "page_decision": bad})


def test_model_uses_its_page_decision():
    """A page model that prefers the lowest threshold on every page moves the decision."""
    d = read_model_json(DEFAULT_MODEL)
    low = constant_decision()
    # one single-leaf tree per threshold column would be needed for a real preference; a
    # split on ``thr`` (<= 0.27 -> +1) is enough: only 0.25 gains
    col = PAGE_FEATURE_NAMES.index("thr")
    low["ensemble"]["trees"] = [{"feature": [col, 0, 0], "threshold": [0.27, 0.0, 0.0],
                                 "left": [1, 0, 0], "right": [2, 0, 0],
                                 "missing_left": [1, 0, 0], "leaf": [0, 1, 1],
                                 "value": [0.0, 1.0, 0.0]}]
    m = BlockModel({**d, "page_decision": low, "page_decision_forced": None})
    lf = leaf_features(parse(HTML))
    s = m.raw_scores(lf, "stack-page")
    assert m.page_threshold(s, lf) == 0.25
    np.testing.assert_array_equal(m.decode(lf, "stack-page")[1], decide(s, 0.25, m.fallback))
    # the forced decoder of that model has no page part: global threshold
    assert m.page_threshold(s, lf, True) == m.threshold


def test_regression_ensemble_json_round_trip_equals_sklearn():
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = np.random.default_rng(2)
    X = rng.normal(size=(500, len(PAGE_FEATURE_NAMES)))
    y = np.sin(X[:, 0]) + 0.3 * X[:, -5] + rng.normal(scale=0.1, size=500)
    reg = HistGradientBoostingRegressor(max_iter=20, max_leaf_nodes=8, random_state=0).fit(X, y)
    ens = export_hgb(reg)
    ens["kind"] = "regression"
    te = TreeEnsemble(json.loads(json.dumps(ens)))
    Xt = rng.normal(size=(50, len(PAGE_FEATURE_NAMES)))
    np.testing.assert_allclose(te.raw(Xt), reg.predict(Xt), atol=1e-10)
    with pytest.raises(ValueError, match="no probabilities"):
        te.predict_proba(Xt)


def _two_kinds_table(n: int = 160) -> tuple[PageTable, np.ndarray]:
    """``n`` one-site pages of four one-word leaves (two content, two boilerplate): on
    "listing" pages (``t_li_any`` = 1) content scores 0.3 and boilerplate 0.1, on "article"
    pages content 0.7 and boilerplate 0.45 - no single threshold suits both."""
    li = FEATURE_NAMES.index("t_li_any")
    Xs, s2 = [], []
    for p in range(n):
        X = np.zeros((4, len(FEATURE_NAMES)), np.float32)
        if p % 2:
            X[:, li] = 1
            s2.append([0.3, 0.3, 0.1, 0.1])
        else:
            s2.append([0.7, 0.7, 0.45, 0.45])
        Xs.append(X)
    t = PageTable(X=np.vstack(Xs), y=np.tile(np.array([1, 1, 0, 0], np.int8), n),
                  words=np.ones(4 * n), chars=np.full(4 * n, 5.0),
                  ranges=np.zeros((4 * n, 8, 2), np.int32), off=np.arange(0, 4 * n + 1, 4),
                  meta=[{"id": str(p), "site": f"s{p}", "dataset": "d"} for p in range(n)],
                  tok_ids=[np.arange(4, dtype=np.int32)] * n, tok_off=[np.arange(5)] * n,
                  gold_counts=[np.array([1, 1, 0, 0], np.int32)] * n,
                  gold_unmatched=np.zeros(n, np.int64))
    return t, np.concatenate(s2)


def test_choose_page_decision_learns_a_threshold_per_kind_of_page():
    t, s2 = _two_kinds_table()
    pages = np.arange(t.n_pages)
    chosen, forced = choose_page_decision(t, pages, s2, 0.5, False, log=lambda _: None)
    assert chosen is not None and chosen["candidate"] != "global"
    assert chosen["crossfit_parts"] == PAGE_GATE_PARTS
    assert chosen["crossfit"][chosen["candidate"]]["by_set"] > chosen["crossfit"]["global"][
        "by_set"]
    pd = PageDecision(json.loads(json.dumps(chosen)))
    for p in pages:
        a, b = t.off[p], t.off[p + 1]
        thr = pd.threshold(s2[a:b], t.chars[a:b], t.X[a:b], 0.5)
        np.testing.assert_array_equal(decide(s2[a:b], thr), t.y[a:b] == 1)
    assert forced["candidate"] == "hgb8"
    # pages where one threshold suits all: no page model is worth it (global wins ties)
    same = s2.copy()
    same[:] = np.tile([0.7, 0.7, 0.1, 0.1], t.n_pages)
    chosen, _ = choose_page_decision(t, pages, same, 0.5, False, log=lambda _: None)
    assert chosen is None


def test_gate_parts_are_site_grouped_and_independent_of_the_stage2_halves():
    t, _ = _two_kinds_table(200)
    for p, m in enumerate(t.meta):
        m["site"] = f"site{p % 37}"
    pages = np.arange(t.n_pages)
    parts = gate_parts(t, pages)
    assert set(parts) == set(range(PAGE_GATE_PARTS))
    for site in {m["site"] for m in t.meta}:
        assert len({parts[p] for p in pages if t.meta[p]["site"] == site}) == 1
    halves = np.array([fold_of(m["site"], 2, "stage2-half") for m in t.meta])
    assert not all(len(set(parts[halves == h])) == 1 for h in (0, 1))
    # 0: the older gate, the two stage-2 halves
    np.testing.assert_array_equal(gate_parts(t, pages, 0), halves)


def test_gate_decides_every_page_by_a_model_not_trained_on_its_site(monkeypatch):
    """Spy on the cross-fit: every page is decided once per page-model candidate, each time by
    a model fitted on the pages of the other parts only (no page of its site), and those
    models together saw (K-1)/K of the pages each."""
    t, s2 = _two_kinds_table(120)
    for p, m in enumerate(t.meta):
        m["site"] = f"site{p % 23}"
    made: dict[int, int] = {}
    decided: list[tuple[int, frozenset[int]]] = []
    real_features, real_fit = train.page_features, train.fit_page_decision

    def spy_features(*args):
        f = real_features(*args)
        made[id(f)] = len(made)
        return f

    def spy_fit(feats, *args):
        d = real_fit(feats, *args)
        d["trained_on"] = [made[id(f)] for f in feats]
        return d

    class SpyDecision(PageDecision):
        def __init__(self, d):
            super().__init__(d)
            trained, ens = frozenset(d["trained_on"]), self.ensemble

            class Ens:
                def raw(self, x):
                    decided.append((made[id(x)], trained))
                    return ens.raw(x)

            self.ensemble = Ens()

    monkeypatch.setattr(train, "page_features", spy_features)
    monkeypatch.setattr(train, "fit_page_decision", spy_fit)
    monkeypatch.setattr(train, "PageDecision", SpyDecision)
    pages = np.arange(t.n_pages)
    choose_page_decision(t, pages, s2, 0.5, False, log=lambda _: None)
    n_models = sum(p is not None for _, p, _ in PAGE_CANDIDATES)
    assert sorted(j for j, _ in decided) == sorted(list(pages) * n_models)
    site = [m["site"] for m in t.meta]
    parts = gate_parts(t, pages)
    for j, trained in decided:
        assert j not in trained and site[j] not in {site[i] for i in trained}
        # trained on every page of the other parts
        assert trained == frozenset(np.flatnonzero(parts != parts[j]).tolist())
    assert len({tr for _, tr in decided}) == PAGE_GATE_PARTS
