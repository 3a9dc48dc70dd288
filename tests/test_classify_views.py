"""Views of a page for classification: positions, informative segment, template-free text."""

from __future__ import annotations

import numpy as np
import pytest

from classify.text import tokenize
from classify.views import (
    POSITION_NAMES,
    full_text,
    informative_segment,
    informative_segment_text,
    kept_text,
    position_texts,
    template_node_text,
)
from tests.test_wps_graph import header_two_columns
from webseg.segmentation import Segment, Segmentation
from webseg.wps import build_graph


class FixedWPS:
    """A stand-in WPS segmenter with given boundary labels (the graph is the real one)."""

    def __init__(self, labels: list[bool]) -> None:
        self.y = np.array(labels, dtype=bool)

    def labels(self, page):
        g = build_graph(page)
        return g, np.arange(g.n, dtype=float), self.y


def test_positions_of_page_and_major_segment():
    page = header_two_columns()  # header / (left | right) / footer
    t = dict(zip(POSITION_NAMES, position_texts(page, FixedWPS([True, True, True])),
                 strict=True))
    assert t["page:top"] == "Header" and t["page:middle"] == "Left Right"
    assert t["page:bottom"] == "Footer" and t["page:left"] == t["page:right"] == ""
    # the major segment is the largest top-level segment (most text): the two columns
    assert t["major:left"] == "Left" and t["major:right"] == "Right"
    assert t["major:top"] == t["major:bottom"] == t["major:middle"] == ""


def test_unsplit_page_is_all_middle_and_has_no_major_segment():
    page = header_two_columns()
    t = position_texts(page, FixedWPS([False, False, False]))
    assert len(t) == 10
    assert t[4] == "Header Left Right Footer"
    assert all(x == "" for k, x in enumerate(t) if k != 4)


def test_page_positions_cover_the_page_text():
    page = header_two_columns()
    for labels in ([True, False, False], [True, True, False], [True, True, True]):
        t = position_texts(page, FixedWPS(labels))
        # WPS leaves out content drawn off the page ("Away" at x = -5000); the rest is there
        assert sorted(tokenize(" ".join(t[:5]))) == sorted(
            w for w in tokenize(full_text(page)) if w != "away")


def _seg(page, boxes_texts):
    segs = [Segment(k, (1 + k,), None, box, text) for k, (box, text) in enumerate(boxes_texts)]
    return Segmentation(page, segs, "test")


def test_informative_segment_is_largest_in_first_screen():
    page = header_two_columns()
    seg = _seg(page, [((0, 0, 100, 50), "nav nav"),
                      ((0, 400, 100, 900), "the main story " * 5),   # starts above 1,000 px
                      ((0, 1200, 100, 900), "a longer text below the fold " * 20)])
    assert informative_segment(seg).id == 1
    assert informative_segment_text(seg).startswith("the main story")
    assert informative_segment_text(seg, first_screen=300) == "nav nav"
    assert informative_segment(_seg(page, [((0, 1500, 10, 10), "late")])) is None
    assert informative_segment_text(_seg(page, [((0, 0, 10, 10), "   ")])) == ""


def test_kept_and_template_text():
    page = header_two_columns()
    assert full_text(page) == "Header Left Right Footer Away"
    keep = np.array([False, True, True, False, False])
    assert kept_text(page, keep) == "Left Right"
    template = np.zeros(page.n, dtype=bool)
    template[2:4] = True  # the header div and its text
    assert template_node_text(page, template) == "Left Right Footer Away"
    with pytest.raises(ValueError, match="text leaves"):
        kept_text(page, np.array([True]))


@pytest.mark.browser
def test_positions_with_the_shipped_wps_on_a_rendered_page(renderer):
    html = b"""<html><body style="margin:0">
    <div style="height:80px">Community forum header</div>
    <div style="display:flex"><div style="width:200px">Categories Threads Members</div>
    <div style="width:800px"><p>Reply to the thread about rendering.</p>
    <p>Posted by a member. Reply quote report.</p></div></div>
    <div style="height:60px">Footer terms privacy</div></body></html>"""
    page = renderer.render(html)
    t = position_texts(page)
    assert len(t) == 10 and all(isinstance(x, str) for x in t)
    assert sorted(tokenize(" ".join(t[:5]))) == sorted(tokenize(full_text(page)))
    assert set(tokenize(" ".join(t[5:]))) <= set(tokenize(full_text(page)))
