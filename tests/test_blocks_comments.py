"""Comment markup: kept leaves need a margin over the page's threshold."""

import numpy as np
import pytest

from webseg.blocks.comments import COMMENT_MARGIN, comment_margin, comment_threads
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


def _ranges(n: int, *spans: tuple[int, int]) -> np.ndarray:
    """Context ranges of ``n`` leaves: level 0 is the leaf itself, the next levels the given
    spans for the leaves inside them (else the leaf itself)."""
    R = np.zeros((n, 8, 2), dtype=np.int64)
    R[:, :, 0] = np.arange(n)[:, None]
    R[:, :, 1] = np.arange(n)[:, None] + 1
    for k, (a, b) in enumerate(spans, start=1):
        R[a:b, k] = (a, b)
    return R


def test_thread_mostly_dropped_loses_its_kept_lines():
    # leaves 0-1: the article; 2-5: one comment thread whose replies (3, 5) were dropped and
    # whose "Posted by" lines (2, 4) were kept; leaf 6: the footer
    X = _X(7, comment=[2, 3, 4, 5])
    R = _ranges(7, (0, 2), (2, 6), (0, 7))
    chars = np.array([400, 300, 30, 100, 30, 100, 20], dtype=np.float32)
    keep = np.array([1, 1, 1, 0, 1, 0, 0], dtype=bool)
    out = comment_threads(X, R, chars, keep)
    assert out.tolist() == [True, True, False, False, False, False, False]
    assert keep.tolist() == [True, True, True, False, True, False, False]  # not changed


def test_thread_mostly_kept_stays_whole_decision():
    X = _X(5, comment=[2, 3, 4])
    R = _ranges(5, (0, 2), (2, 5), (0, 5))
    chars = np.array([400, 300, 100, 100, 30], dtype=np.float32)
    keep = np.array([1, 1, 1, 1, 0], dtype=bool)
    assert comment_threads(X, R, chars, keep).tolist() == keep.tolist()


def test_page_that_is_the_thread_is_left_alone():
    # a forum: every kept leaf is inside the thread, so nothing is dropped however little
    # of it was kept
    X = _X(4, comment=[0, 1, 2, 3])
    R = _ranges(4, (0, 4))
    chars = np.array([100, 500, 100, 500], dtype=np.float32)
    keep = np.array([1, 0, 1, 0], dtype=bool)
    assert comment_threads(X, R, chars, keep).tolist() == keep.tolist()


def test_thread_is_bounded_by_comment_markup():
    # the widest range of leaf 2 holds non-comment leaves (0, 1): the thread is leaf 2's own
    # range (2, 4), which is mostly kept, so leaf 2 stays
    X = _X(4, comment=[2, 3])
    R = _ranges(4, (2, 4), (0, 4))
    chars = np.array([400, 300, 100, 20], dtype=np.float32)
    keep = np.array([1, 0, 1, 0], dtype=bool)
    assert comment_threads(X, R, chars, keep).tolist() == keep.tolist()


def test_threads_empty_page_and_bad_shapes():
    assert comment_threads(_X(0), np.zeros((0, 8, 2), dtype=np.int64), np.zeros(0),
                           np.zeros(0, dtype=bool)).tolist() == []
    with pytest.raises(ValueError):
        comment_threads(_X(2), _ranges(3), np.ones(2), np.ones(2, dtype=bool))
