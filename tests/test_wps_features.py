"""Local WPS boundary features (Section 4.1) and the label coupling of Eqs. 3-14."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_wps_graph import header_two_columns, table_page
from webseg.wps import build_graph, infer
from webseg.wps.features import (
    BOUNDARY_FEATURES,
    REGION_FEATURES,
    boundary_features,
    joint_feature,
    region_features,
    scores,
)


def col(X: np.ndarray, name: str) -> np.ndarray:
    return X[:, BOUNDARY_FEATURES.index(name)]


def test_boundary_features_on_header_two_columns():
    page = header_two_columns()
    page.bg[7:9] = (255, 0, 0)  # right column red
    g = build_graph(page)
    X = boundary_features(g)
    assert X.shape == (3, len(BOUNDARY_FEATURES)) and np.all(np.isfinite(X))
    assert col(X, "bias").tolist() == [1, 1, 1]
    assert col(X, "vertical").tolist() == [0, 0, 1]
    assert col(X, "gap") == pytest.approx([100 / 400, 200 / 400, 400 / 1000])
    assert col(X, "text_jaccard").tolist() == [0, 0, 0]
    assert col(X, "same_item_tags").tolist() == [0, 0, 1]  # div | div for the columns
    assert col(X, "bg_distance")[2] == pytest.approx(np.sqrt(2 / 3))
    assert col(X, "bg_distance")[0] > 0 and col(X, "bg_distance")[1] > 0  # main is half red
    # region features of the header band: one text leaf of 6 chars
    rf = region_features(g)
    header = g.regions[0].children[0]
    assert rf[header, REGION_FEATURES.index("log_chars")] == pytest.approx(np.log1p(6))
    assert rf[header, REGION_FEATURES.index("rect_w")] == pytest.approx(1.0)
    assert rf[0, REGION_FEATURES.index("log_chars")] == pytest.approx(
        np.log1p(len("HeaderLeftRightFooter")))  # root: off-page and hidden text not counted


def test_repeated_rows_look_alike():
    g = build_graph(table_page(3))
    X = boundary_features(g)
    rows = g.orientation == 0
    assert np.all(col(X, "tag_similarity")[rows] == 1.0)
    assert np.all(col(X, "same_item_tags")[rows] == 1.0)


def test_scores_and_joint_feature_agree_with_the_ilp_objective():
    g = build_graph(header_two_columns())
    X = boundary_features(g)
    rng = np.random.default_rng(0)
    w = rng.normal(size=2 * X.shape[1])
    f = scores(X, w)
    assert f == pytest.approx(X @ (w[:X.shape[1]] - w[X.shape[1]:]))
    res = infer(g, f)
    none = np.zeros(g.n, dtype=bool)
    # F(G, C) - F(G, all N) = sum of f over the Y boundaries (Eqs. 12-16)
    gain = joint_feature(X, res.labels) @ w - joint_feature(X, none) @ w
    assert gain == pytest.approx(res.objective)
    with pytest.raises(ValueError, match="weights"):
        scores(X, w[:5])


def test_empty_graph_features():
    from webseg.page import ELEMENT, Page

    page = Page.from_columns(parent=[-1, 0], kind=[ELEMENT] * 2, tag=["html", "body"],
                             text=["", ""], attrs=[None] * 2, box=[(0, 0, 10, 10)] * 2,
                             has_layout=True, width=10, height=10)
    g = build_graph(page)
    assert boundary_features(g).shape == (0, len(BOUNDARY_FEATURES))


# ---------------------------------------------------------------------- context features
def test_context_features_of_repeated_rows():
    """Four identical table rows: every row boundary sits inside a run of one structure."""
    g = build_graph(table_page(4))
    X = boundary_features(g)
    assert np.all(np.isfinite(X))
    rows = np.flatnonzero(g.orientation == 0)  # 3 boundaries between 4 rows
    assert col(X, "o_ctx_freq")[rows] == pytest.approx([1.0] * 3)
    assert col(X, "ctx_same_structure")[rows].tolist() == [1.0] * 3
    assert col(X, "o_ctx_interval_mean")[rows] == pytest.approx([0.25] * 3)  # every 1 of 4
    assert col(X, "o_ctx_interval_std")[rows] == pytest.approx([0.0] * 3)
    assert col(X, "ctx_pair_freq")[rows] == pytest.approx([1.0] * 3)
    assert col(X, "o_ctx_sim_mean")[rows] == pytest.approx([1.0] * 3)


def test_context_features_of_distinct_bands():
    """header / (left | right) / footer: the main band's structure occurs once."""
    g = build_graph(header_two_columns())
    X = boundary_features(g)
    # boundary 0: header (div > text) | main (div > div, div): different structures
    assert col(X, "ctx_same_structure")[0] == 0.0
    assert col(X, "b_ctx_freq")[0] == pytest.approx(1 / 3)  # main occurs once among 3
    assert col(X, "b_ctx_interval_mean")[0] == 1.0  # no repeat: interval 1, std 0
    # header and footer are both div > text: one structure, occurring at positions 0 and 2
    assert col(X, "o_ctx_freq")[0] == pytest.approx(2 / 3)
    assert col(X, "o_ctx_interval_mean")[0] == pytest.approx(2 / 3)
    assert col(X, "ctx_d_freq")[0] == pytest.approx(1 / 3)
    assert col(X, "ctx_pair_freq")[0] == pytest.approx(1 / 2)  # (header-like, main-like)


def test_structure_similarity_is_weighted_jaccard():
    from webseg.wps.features import structure_similarity

    c = np.array([[2, 1, 0], [1, 1, 0], [0, 0, 0], [0, 0, 3]])
    s = structure_similarity(c)
    assert s[0, 1] == pytest.approx(2 / 3) and s[1, 0] == pytest.approx(2 / 3)
    assert s[0, 3] == 0.0 and s[2, 2] == 1.0 and np.allclose(np.diag(s), 1.0)


def test_local_features_are_a_prefix():
    from webseg.wps.features import CONTEXT_FEATURES, LOCAL_FEATURES, context_features

    assert BOUNDARY_FEATURES == LOCAL_FEATURES + CONTEXT_FEATURES
    g = build_graph(table_page(3))
    X = boundary_features(g)
    assert np.allclose(X[:, len(LOCAL_FEATURES):], context_features(g))


def test_context_can_be_skipped():
    from webseg.wps.features import LOCAL_FEATURES

    g = build_graph(table_page(4))
    full, local = boundary_features(g), boundary_features(g, context=False)
    k = len(LOCAL_FEATURES)
    assert np.array_equal(full[:, :k], local[:, :k]) and not local[:, k:].any()
    assert full[:, k:].any()
