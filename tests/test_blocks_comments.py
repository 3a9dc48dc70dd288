"""Comment markup: kept leaves need a margin over the page's threshold."""

import numpy as np

from webseg.blocks.comments import COMMENT_MARGIN, comment_margin
from webseg.blocks.features import FEATURE_NAMES
from webseg.blocks.repeats import drop_copies


def _X(n: int, **cats: list[int]) -> np.ndarray:
    X = np.zeros((n, len(FEATURE_NAMES)), dtype=np.float32)
    for c, rows in cats.items():
        X[rows, FEATURE_NAMES.index(f"cat_any_{c}")] = 1
    return X


def test_comment_leaves_need_the_margin():
    X = _X(4, comment=[1, 2, 3])
    s = np.array([0.45, 0.45, 0.4 + COMMENT_MARGIN, 0.9])
    keep = s >= 0.4
    out = comment_margin(X, s, keep, 0.4)
    # the article leaf at the edge stays; the comment at the edge goes; sure comments stay
    assert out.tolist() == [True, False, True, True]
    assert keep.tolist() == [True, True, True, True]


def test_dropped_leaves_stay_dropped():
    X = _X(2, comment=[0, 1])
    out = comment_margin(X, np.array([0.99, 0.1]), np.array([True, False]), 0.5)
    assert out.tolist() == [True, False]


PARA = "the whole paragraph of the article appears here a second time for printing"


def test_copies_only_under_print_or_hidden_markup():
    toks = [PARA.split(), PARA.split(), PARA.split(), PARA.split()]
    keep = np.ones(4, dtype=bool)
    # leaf 1 repeats under ordinary markup (kept), leaf 2 under print (share) markup, leaf 3
    # under hidden markup: both dropped
    out = drop_copies(toks, _X(4, share=[2], hidden=[3]), keep)
    assert out.tolist() == [True, True, False, False]


def test_first_copy_under_print_markup_stays():
    toks = [PARA.split(), PARA.split()]
    out = drop_copies(toks, _X(2, share=[0, 1]), np.ones(2, dtype=bool))
    assert out.tolist() == [True, False]
