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


def test_decoder_steps_apply_margins_and_threads_in_order():
    from webseg.blocks.features import LeafFeatures
    from webseg.blocks.steps import decoder_steps

    # 0-1 the article, 2 a widget line (nearby sidebar markup) at the edge, 3-6 a comment
    # thread: 3 and 5 "Posted by" lines scored high enough for the comment margin, 4 and 6
    # the replies, dropped
    n = 7
    X = _X(n, sidebar=[2]) + _X(n, kind="any", comment=[3, 4, 5, 6])
    R = np.zeros((n, 8, 2), dtype=np.int64)
    R[:, :, 0] = np.arange(n)[:, None]
    R[:, :, 1] = np.arange(n)[:, None] + 1
    R[3:7, 1] = (3, 7)
    chars = np.array([400, 300, 40, 30, 200, 30, 200], dtype=np.float64)
    lf = LeafFeatures(np.arange(n), X, chars, chars / 5, R,
                      [[f"w{i}{j}" for j in range(3)] for i in range(n)])
    s = np.array([0.9, 0.9, 0.45, 0.7, 0.1, 0.7, 0.1])
    keep = s >= 0.4
    out = decoder_steps(lf, s, keep, 0.4)
    assert out.tolist() == [True, True, False, False, False, False, False]
