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
