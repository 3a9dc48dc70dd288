import json

import numpy as np
import pytest

from tests.helpers import sample_page
from webseg.segmentation import UNASSIGNED, Segment, Segmentation


def hier(page):
    return Segmentation(page, [
        Segment(0, (5,)), Segment(1, (6,), parent=0), Segment(2, (8,), parent=0),
        Segment(3, (10, 12), attrs={"templateness": 0.9}),
    ], algorithm="test")


def test_levels_and_leaf_labels():
    p = sample_page()
    s = hier(p)
    assert [x.level for x in s] == [1, 2, 2, 1]
    assert s.depth == 2
    assert s.leaf_labels(1).tolist() == [0, 0, 3, 3]
    assert s.leaf_labels(2).tolist() == [1, 2, 3, 3]
    assert s.leaf_labels().tolist() == [1, 2, 3, 3]
    assert [x.id for x in s.at_level(1)] == [0, 3]
    assert [x.id for x in s.at_level(2)] == [1, 2, 3]
    assert [x.id for x in s.children(0)] == [1, 2]


def test_uncovered_leaves_are_unassigned():
    p = sample_page()
    s = Segmentation.from_nodes(p, [[5]])
    assert s.leaf_labels().tolist() == [0, 0, UNASSIGNED, UNASSIGNED]


def test_nearest_root_wins_within_a_level():
    p = sample_page()
    s = Segmentation(p, [Segment(0, (4,)), Segment(1, (5,))])  # overlapping flat segments
    assert s.leaf_labels().tolist() == [1, 1, 0, 0]


def test_from_nodes_fills_text_and_box():
    p = sample_page()
    s = Segmentation.from_nodes(p, [[5], [10, 12]])
    assert s[0].text == "alpha beta gamma"
    assert s[1].text == "delta epsilon zeta"
    x, y, w, h = s[1].box
    assert (x, y, w, h) == (0.0, 100.0, 100.0, 40.0)  # union of nodes 10..13 (y = 10 * id)


def test_largest_and_non_template_text():
    p = sample_page()
    s = hier(p)
    assert s.largest(level=1).id == 3  # "delta epsilon zeta" (18) > "alpha beta gamma" (16)
    assert s.non_template_text() == "alpha beta\n\ngamma"
    assert s.non_template_text(threshold=0.95).endswith("delta epsilon zeta")


def test_json_round_trip_and_page_check():
    p = sample_page()
    s = hier(p)
    d = json.loads(s.to_json())
    assert d["page"]["xpaths"]["5"] == "/html[1]/body[1]/div[1]"
    t = Segmentation.from_json(p, s.to_json())
    assert t.leaf_labels(2).tolist() == s.leaf_labels(2).tolist()
    assert t[3].attrs == {"templateness": 0.9}
    d["page"]["nodes"] = 3
    with pytest.raises(ValueError, match="nodes"):
        Segmentation.from_dict(p, d)


def test_validation():
    p = sample_page()
    with pytest.raises(ValueError, match="unique"):
        Segmentation(p, [Segment(0, (5,)), Segment(0, (6,))])
    with pytest.raises(ValueError, match="unknown parent"):
        Segmentation(p, [Segment(0, (5,), parent=7)])
    with pytest.raises(ValueError, match="outside the page"):
        Segmentation(p, [Segment(0, (99,))])
    with pytest.raises(ValueError, match="cycle"):
        Segmentation(p, [Segment(0, (5,), parent=1), Segment(1, (6,), parent=0)])


def test_numpy_attrs_serialise():
    p = sample_page()
    s = Segmentation(p, [Segment(0, (5,), attrs={"doc": np.float32(0.5)})])
    assert json.loads(s.to_json())["segments"][0]["attrs"]["doc"] == 0.5
