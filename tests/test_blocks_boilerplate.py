"""Nearby boilerplate markup: kept leaves need a margin over the page's threshold."""

import numpy as np
import pytest

from webseg.blocks.boilerplate import BOILERPLATE_CATEGORIES, BOILERPLATE_MARGIN, boilerplate_margin
from webseg.blocks.features import FEATURE_NAMES


def _X(n: int, kind: str = "near", **cats: list[int]) -> np.ndarray:
    X = np.zeros((n, len(FEATURE_NAMES)), dtype=np.float32)
    for c, rows in cats.items():
        X[rows, FEATURE_NAMES.index(f"cat_{kind}_{c}")] = 1
    return X


def test_leaves_under_nearby_boilerplate_need_the_margin():
    X = _X(4, sidebar=[1], related=[2, 3])
    s = np.array([0.42, 0.42, 0.4 + BOILERPLATE_MARGIN, 0.95])
    keep = s >= 0.4
    out = boilerplate_margin(X, s, keep, 0.4)
    # the article leaf at the edge stays; the widget at the edge goes; sure leaves stay
    assert out.tolist() == [True, False, True, True]
    assert keep.tolist() == [True, True, True, True]


def test_far_markup_and_other_categories_do_not_count():
    # a "sidebar" token far up the tree (cat_any only), and nearby meta/title/media markup
    # (bylines, headlines, captions): no margin
    X = _X(1, kind="any", sidebar=[0]) + _X(1, meta=[0], title=[0], media=[0])
    assert boilerplate_margin(X, np.array([0.41]), np.array([True]), 0.4).tolist() == [True]


@pytest.mark.parametrize("cat", BOILERPLATE_CATEGORIES)
def test_every_boilerplate_category_counts(cat):
    X = _X(1, **{cat: [0]})
    assert boilerplate_margin(X, np.array([0.41]), np.array([True]), 0.4).tolist() == [False]


def test_dropped_leaves_stay_dropped_and_shapes_checked():
    X = _X(2, nav=[0])
    out = boilerplate_margin(X, np.array([0.1, 0.99]), np.array([False, True]), 0.4)
    assert out.tolist() == [False, True]
    assert boilerplate_margin(_X(0), np.zeros(0), np.zeros(0, dtype=bool), 0.4).tolist() == []
    with pytest.raises(ValueError):
        boilerplate_margin(_X(3), np.zeros(2), np.zeros(2, dtype=bool), 0.4)
