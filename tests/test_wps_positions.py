"""In-segment positions (Algorithm 3)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_wps_graph import header_two_columns, table_page
from webseg.wps import build_graph
from webseg.wps.positions import (
    POSITIONS,
    in_segment_positions,
    major_segments,
    position_nodes,
    position_text,
    top_level_segments,
)


def test_header_main_footer_then_columns():
    g = build_graph(header_two_columns())  # regions: 1 header, 2 main (4 left | 5 right), 3 footer
    y = np.array([True, True, True])
    pos = in_segment_positions(g, y)
    assert set(pos) == set(POSITIONS)
    assert pos == {"top": [1], "middle": [2], "bottom": [3], "left": [], "right": []}
    inner = in_segment_positions(g, y, 2)
    assert inner == {"left": [4], "right": [5], "middle": [], "top": [], "bottom": []}
    text = position_text(g, pos)
    assert text["top"] == "Header" and text["middle"] == "Left Right"
    assert text["bottom"] == "Footer" and text["left"] == ""
    assert position_nodes(g, inner) == {"left": [5], "right": [7], "middle": [], "top": [],
                                        "bottom": []}


def test_one_and_zero_boundaries():
    g = build_graph(header_two_columns())
    pos = in_segment_positions(g, [True, False, False])
    assert pos["top"] == [1] and pos["bottom"] == [2, 3] and pos["middle"] == []
    pos = in_segment_positions(g, [False, False, False])
    assert pos["middle"] == [0] and not pos["top"] and not pos["bottom"]
    # a run of regions joined by N boundaries is all middle; a one-region run is the region
    assert in_segment_positions(g, [True, False, True], [2, 3])["middle"] == [2, 3]
    assert in_segment_positions(g, [True, True, True], [2])["left"] == [4]


def test_more_than_two_boundaries_keep_the_two_strongest():
    g = build_graph(table_page(5))  # 4 horizontal boundaries (0-3) between 5 rows (1-5)
    y = np.zeros(g.n, dtype=bool)
    y[:4] = True
    scores = np.zeros(g.n)
    scores[:4] = [0.5, 3.0, 0.1, 2.0]
    pos = in_segment_positions(g, y, 0, scores)
    assert pos["top"] == [1, 2] and pos["middle"] == [3, 4] and pos["bottom"] == [5]
    scores[:4] = [5.0, 0.0, 0.0, 4.0]
    pos = in_segment_positions(g, y, 0, scores)
    assert pos["top"] == [1] and pos["middle"] == [2, 3, 4] and pos["bottom"] == [5]
    # without scores: equal gaps, so the first two in reading order
    pos = in_segment_positions(g, y, 0)
    assert pos["top"] == [1] and pos["middle"] == [2] and pos["bottom"] == [3, 4, 5]
    # every sub-region is in exactly one position
    allr = sorted(r for p in POSITIONS for r in pos[p])
    assert allr == [1, 2, 3, 4, 5]


def test_major_segments():
    g = build_graph(header_two_columns())
    assert top_level_segments(g, [True, True, True]) == [[1], [2], [3]]
    assert major_segments(g, [True, True, True]) == [0, 2]  # "LeftRight" is the most text
    assert major_segments(g, [False, False, False]) == [0]
    assert major_segments(g, [True, False, False]) == [0, [2, 3]]


def test_bad_input():
    g = build_graph(header_two_columns())
    with pytest.raises(ValueError, match="labels has 2"):
        in_segment_positions(g, [True, True])
    with pytest.raises(ValueError, match="scores has 1"):
        in_segment_positions(g, [True, True, True], 0, [1.0])
