"""WPS structural SVM training (Algorithm 2): QP solver, separation oracles, end to end."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from tests.test_wps_graph import header_two_columns, table_page
from webseg.wps import build_graph, gold_boundary_labels
from webseg.wps.features import BOUNDARY_FEATURES, boundary_features
from webseg.wps.train import (
    DEFAULT_FEATURES,
    Example,
    PageRecord,
    WPSModel,
    cutting_plane,
    dual_objective,
    hamming,
    info_loss,
    informative_boundaries,
    make_examples,
    margin_most_violated,
    psi,
    slack_most_violated,
    solve_dual,
)


def _feasible(graph):
    for bits in itertools.product((False, True), repeat=graph.n):
        y = np.array(bits, dtype=bool)
        if graph.is_feasible(y):
            yield y


def _table_records(rows_list):
    """Tables whose rows are the gold blocks (cells of a row belong together)."""
    recs = []
    for rows in rows_list:
        p = table_page(rows)
        gold = np.repeat(np.arange(rows), 2)
        recs.append(PageRecord(f"t{rows}", p, [], gold))
    return recs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_solve_dual_matches_slsqp(seed):
    rng = np.random.default_rng(seed)
    m, d = 9, 4
    A = rng.normal(size=(m, d))
    b = rng.uniform(0.5, 3.0, size=m)
    groups = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    cap = 0.7
    K = A @ A.T
    alpha = solve_dual(K, b, groups, cap, tol=1e-10)
    assert np.all(alpha >= 0)
    for g in range(3):
        assert alpha[groups == g].sum() <= cap + 1e-9
    cons = [{"type": "ineq", "fun": (lambda a, g=g: cap - a[groups == g].sum())}
            for g in range(3)]
    ref = minimize(lambda a: -dual_objective(K, b, a), np.zeros(m),
                   jac=lambda a: -(b - K @ a), bounds=[(0, None)] * m, constraints=cons,
                   method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})
    assert dual_objective(K, b, alpha) == pytest.approx(-ref.fun, rel=1e-6, abs=1e-8)
    # warm start from a feasible point reaches the same optimum
    again = solve_dual(K, b, groups, cap, alpha=np.full(m, 0.05), tol=1e-10)
    assert dual_objective(K, b, again) == pytest.approx(-ref.fun, rel=1e-6, abs=1e-8)


def test_margin_oracle_is_the_brute_force_argmax():
    recs = [PageRecord("h", header_two_columns(), [], np.array([0, 1, 1, 2, 3]))]
    exs, _, _ = make_examples(recs)
    ex = exs[0]
    rng = np.random.default_rng(0)
    for _ in range(5):
        w = rng.normal(size=ex.X.shape[1])
        c, loss, h = margin_most_violated(ex, w)
        assert ex.graph.is_feasible(c) and loss == hamming(ex.y, c)
        best = max(hamming(ex.y, z) - float(w @ (psi(ex.X, ex.y) - psi(ex.X, z)))
                   for z in _feasible(ex.graph))
        assert h == pytest.approx(best)


def test_cutting_plane_learns_table_rows_and_converges():
    recs = _table_records([2, 3, 4])
    exs, mean, scale = make_examples(recs)
    w, rep = cutting_plane(exs, C=10.0, eps=0.01)
    assert rep.converged and rep.constraints > 0
    assert rep.primal >= rep.dual - 1e-6  # weak duality of the working-set QP
    from webseg.wps import infer

    for ex in exs:  # separable data: the training labellings are reproduced
        assert infer(ex.graph, ex.X @ w).labels.tolist() == ex.y.tolist()
    # a new, larger table is segmented into its rows
    model = WPSModel(w, mean, scale, features=list(DEFAULT_FEATURES))
    g = build_graph(table_page(6))
    y = infer(g, model.scores(boundary_features(g))).labels
    assert y.tolist() == gold_boundary_labels(g, np.repeat(np.arange(6), 2)).tolist()
    # deterministic
    w2, _ = cutting_plane(exs, C=10.0, eps=0.01)
    assert np.array_equal(w, w2)


def test_cutting_plane_rejects_bad_input():
    with pytest.raises(ValueError, match="loss"):
        cutting_plane([], 1.0, loss="hinge")
    empty = Example("e", build_graph(table_page(1)), np.zeros((1, len(BOUNDARY_FEATURES))),
                    np.zeros(1, bool))
    empty.graph.orientation = empty.graph.orientation[:0]
    with pytest.raises(ValueError, match="no training page"):
        cutting_plane([empty], 1.0)


def test_model_round_trip(tmp_path):
    d = len(BOUNDARY_FEATURES)
    m = WPSModel(np.arange(d, dtype=float), np.zeros(d), np.ones(d), "margin", {"C": 1.0})
    m.save(tmp_path / "m.json")
    m2 = WPSModel.load(tmp_path / "m.json")
    assert np.array_equal(m2.weights, m.weights) and m2.info["C"] == 1.0
    bad = m.to_dict()
    bad["features"] = bad["features"][:-1] + ["no_such_feature"]
    (tmp_path / "bad.json").write_text(__import__("json").dumps(bad))
    with pytest.raises(ValueError, match="features differ"):
        WPSModel.load(tmp_path / "bad.json")
    bad["features"] = bad["features"][:-1]  # one name short of the weights
    (tmp_path / "bad.json").write_text(__import__("json").dumps(bad))
    with pytest.raises(ValueError, match="weights"):
        WPSModel.load(tmp_path / "bad.json")
    with pytest.raises(FileNotFoundError, match="train it"):
        WPSModel.load(tmp_path / "missing.json")


def test_shipped_margin_model_loads():
    m = WPSModel.load()
    assert m.loss == "margin" and len(m.weights) == len(m.features)
    assert set(m.features) <= set(BOUNDARY_FEATURES)
    assert m.info["gold_level"] == 2 and "C" in m.info and m.info["command"]


def test_local_feature_model_scores_full_feature_matrices():
    """A model trained on the local features only scores what boundary_features computes,
    ignoring the context columns."""
    from webseg.wps.features import LOCAL_FEATURES
    from webseg.wps.train import fit

    recs = _table_records([2, 3, 4])
    m_all = fit("margin", recs, C=10.0, features=BOUNDARY_FEATURES)
    m_loc = fit("margin", recs, C=10.0)  # the default: local features, as shipped
    assert m_loc.features == LOCAL_FEATURES
    assert len(m_loc.weights) == len(LOCAL_FEATURES) < len(m_all.weights)
    assert m_loc.info["C"] == 10.0 and m_loc.info["report"]["converged"]
    X = boundary_features(build_graph(table_page(5)))
    assert m_loc.scores(X) == pytest.approx(m_loc.scores(X[:, :len(LOCAL_FEATURES)]))
    with pytest.raises(ValueError, match="subset"):
        fit("margin", recs, C=1.0, features=["vertical", "bias"])


# ---------------------------------------------------------------------- slack re-scaling
def test_informative_boundaries_right_column():
    page = header_two_columns()  # leaves: header 3, left 6, right 8, footer 11, away 15
    g = build_graph(page)
    y = gold_boundary_labels(g, np.array([0, 1, 2, 3, 4]))
    assert y.tolist() == [True, True, True]
    # informative = the right column (node 7): the vertical boundary delimits it; the
    # horizontal ones it depends on have an informative dependent, so they are not proper
    assert informative_boundaries(g, y, 7).tolist() == [2]
    # informative = the whole main area (node 4): the two horizontal lines around it are
    # proper (nothing outside depends on them), the vertical split inside it is Y: not informative
    assert informative_boundaries(g, y, 4).tolist() == [0, 1]
    y2 = np.array([True, True, False])
    assert informative_boundaries(g, y2, 4).tolist() == [0, 1, 2]
    assert informative_boundaries(g, y, None).tolist() == []


def test_info_loss():
    y = np.array([True, False, True, False])
    assert info_loss(y, y, np.array([], dtype=np.int64)) == 1.0
    assert info_loss(y, ~y, np.array([], dtype=np.int64)) == 1.0
    assert info_loss(y, y, np.array([0, 1])) == 1.0
    assert info_loss(y, np.array([False, False, True, False]), np.array([0, 1])) == \
        pytest.approx(np.exp(0.5))


def test_slack_oracle_never_returns_gold_and_is_near_brute_force():
    page = header_two_columns()
    recs = [PageRecord("h", page, [], np.array([0, 1, 1, 2, 3]))]
    exs, _, _ = make_examples(recs, "slack")
    ex = exs[0]
    ex.info = informative_boundaries(ex.graph, ex.y, 4)
    rng = np.random.default_rng(1)
    base = psi(ex.X, ex.y)
    n_pos = 0
    for scale in (0.01, 0.05, 0.2, 1.0) * 3:
        w = scale * rng.normal(size=ex.X.shape[1])
        c, loss, h = slack_most_violated(ex, w)
        assert c is not None and not np.array_equal(c, ex.y)
        assert loss == info_loss(ex.y, c, ex.info)
        best = max((1 - float(w @ (base - psi(ex.X, z)))) * info_loss(ex.y, z, ex.info)
                   for z in _feasible(ex.graph) if not np.array_equal(z, ex.y))
        assert h <= best + 1e-9
        c2, _, h2 = slack_most_violated(ex, w, exact_max=0)  # loss-level sweep only
        assert c2 is not None and not np.array_equal(c2, ex.y) and h2 <= h + 1e-9
        if best > 0:  # only violated constraints matter; there the search is exact here
            n_pos += 1
            assert h == pytest.approx(best)
    assert n_pos >= 3


def test_slack_cutting_plane_runs():
    recs = _table_records([2, 3])
    exs, _, _ = make_examples(recs, "slack")
    w, rep = cutting_plane(exs, C=10.0, loss="slack")
    assert rep.converged and np.all(np.isfinite(w))


def test_informative_block_and_success():
    from webseg.wps.train import informative_block, informative_segmented

    page = header_two_columns()
    blocks = [{"xpath": "/html[1]/body[1]/div[1]", "level": 1, "type": "Header"},
              {"xpath": "/html[1]/body[1]/div[2]/div[2]", "level": 2, "type": "Article"},
              {"xpath": "/html[1]/body[1]/div[9]", "level": 1, "type": "Content"}]
    assert informative_block(page, blocks) == 7  # the only resolvable main-content block
    blocks.append({"xpath": "/html[1]/body[1]/div[2]", "level": 1, "type": "Content"})
    assert informative_block(page, blocks) == 4  # more text wins
    assert informative_block(page, blocks[:1]) is None
    # leaves: header 3, left 6, right 8, footer 11, away 15; node 4 holds leaves 1-2
    assert informative_segmented(page, np.array([0, 1, 1, 2, 3]), 4) is True
    assert informative_segmented(page, np.array([0, 1, 2, 3, 4]), 4) is False  # split
    assert informative_segmented(page, np.array([0, 1, 1, 1, 3]), 4) is False  # merged
    assert informative_segmented(page, np.array([0, 1, 1, 2, 3]), None) is None


def test_train_chooses_c_on_validation_pages():
    from webseg.wps.train import train

    recs = _table_records([2, 3, 4])
    val = _table_records([5])
    model = train("margin", recs, val, level=2, Cs=(0.001, 10.0), eps=0.01, verbose=False)
    assert model.info["C"] in (0.001, 10.0)
    assert set(model.info["validation"]) == {"0.001", "10.0"}
    assert model.info["val_ari"] == max(v["ari"] for v in model.info["validation"].values())
    assert model.info["train_pages"] == ["t2", "t3", "t4"] and model.info["gold_level"] == 2
