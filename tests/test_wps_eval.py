"""Helpers of the WPS cross-validation harness (eval/wps.py): folds, informative segment."""

from __future__ import annotations

import numpy as np

from eval.wps import informative_scores, make_folds, rule_informative
from tests.test_wps_graph import header_two_columns
from webseg.wps import build_graph


def test_folds_are_deterministic_balanced_and_keep_duplicates_together():
    ids = [f"site{i}.example" for i in range(11)]
    html = {i: i.encode() for i in ids}
    html["site3.example"] = html["site7.example"] = b"same bytes"
    f = make_folds(ids, html, 4)
    assert f == make_folds(list(reversed(ids)), html, 4)  # input order does not matter
    assert set(f) == set(ids) and set(f.values()) == {0, 1, 2, 3}
    assert f["site3.example"] == f["site7.example"]
    sizes = np.bincount(list(f.values()))
    assert sizes.max() - sizes.min() <= 2  # 10 groups dealt round robin, one of size 2


def _seg(page, labels_of_nodes):
    from webseg.segmentation import Segment, Segmentation

    segs = [Segment(k, tuple(nodes), None) for k, nodes in enumerate(labels_of_nodes)]
    return Segmentation(page, segs, "test")


def test_informative_exact_and_rule():
    page = header_two_columns()  # leaves: header 3, left 6, right 8, footer 11 (+ off-page 15)
    # gold informative block: the main band (node 4: leaves Left and Right)
    good = _seg(page, [(2,), (4,), (10,)])
    sc = informative_scores(page, good, 4)
    assert sc["exact"] == 1 and sc["rule_l1"] == 1 and sc["jaccard_l1"] == 1.0
    split = _seg(page, [(2,), (5,), (7,), (10,)])
    sc = informative_scores(page, split, 4)
    assert sc["exact"] == 0  # split in two
    # the rule's pick is the header (its leaf box, 200 x 20 px, is the largest): no overlap
    assert sc["rule_l2"] == 0 and sc["jaccard_l2"] == 0.0
    merged = _seg(page, [(2, 4, 10)])
    sc = informative_scores(page, merged, 4)
    assert sc["exact"] == 0 and sc["jaccard_l1"] < 0.5


def test_rule_picks_the_largest_box_in_the_first_screen():
    page = header_two_columns()
    labels = np.array([0, 1, 1, 2, -1])  # header, main (two leaves), footer, off-page
    assert rule_informative(page, labels) == 1
    page.box[6, 1] = page.box[8, 1] = 1500  # main moves below the first screen
    assert rule_informative(page, labels) in (0, 2)
    assert build_graph(page).n >= 1
