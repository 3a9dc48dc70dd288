"""Level 1 of the flat segmenters: segments grouped under VIPS's level-1 blocks (levels.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests import helpers
from tests.helpers import STORY, link_classifier
from webseg.segmentation import UNASSIGNED, Segmentation
from webseg.segmenters.base import get_segmenter
from webseg.segmenters.blockfusion import BlockFusion
from webseg.segmenters.levels import group_under
from webseg.templates.clean import clean_html, kept_segments

PAGELEVEL = ["pagelevel", "pagelevel-basic", "pagelevel-merge"]



def make(name: str, **kw):
    seg = get_segmenter(name, **kw)
    return seg.set_model(link_classifier()) if name.startswith("pagelevel") else seg


def page():
    return helpers.news_page("News", STORY * 3, STORY * 2)


@pytest.fixture
def coarse_vips(monkeypatch):
    """VIPS level 1 as if it saw two regions: the nav bar, and the story with the footer (on
    this small page VIPS itself finds the three parts every flat segmenter finds, so nothing
    would be grouped; :func:`test_real_vips_groups_per_leaf_segments` runs the real one)."""
    import webseg.segmenters.levels as lv

    monkeypatch.setattr(lv, "coarse_level1",
                        lambda _page, _source: np.array([0, 0, 0, 1, 1, 1, 1, 1]))


def seg_key(s) -> tuple:
    return (s.id, s.nodes, s.text, tuple(s.box), s.attrs)


def assert_nested(seg: Segmentation, flat: Segmentation) -> None:
    """The flat segments are the finest level, unchanged; each has exactly one level-1
    segment (itself or its parent), and level 1 is a coarsening of level 2."""
    fine = seg.at_level(None)
    assert [seg_key(s) for s in fine] == [seg_key(s) for s in flat.segments]
    assert [seg_key(s) for s in seg.at_level(2)] == [seg_key(s) for s in flat.segments]
    assert seg.leaf_labels().tolist() == flat.leaf_labels().tolist()
    assert seg.leaf_labels(2).tolist() == flat.leaf_labels().tolist()
    assert seg.depth <= 2
    top = {s.id for s in seg.at_level(1)}
    for s in fine:
        owner = s.id if s.parent is None else s.parent
        assert owner in top and seg[owner].level == 1
    for p in seg.children(None):
        kids = seg.children(p.id)
        assert len(kids) != 1  # a group of one is the segment itself
        if kids:
            assert set(p.nodes) == {v for k in kids for v in k.nodes}
    l1, l2 = seg.leaf_labels(1), seg.leaf_labels(2)
    for lab in set(l2.tolist()):
        assert len(set(l1[l2 == lab].tolist())) == 1


# ---------------------------------------------------------------------- group_under
def test_group_under_groups_whole_segments_by_coarse_label():
    pg = page()
    flat = Segmentation.from_nodes(pg, [[3], [5], [7], [10], [12], [14], [17], [19]],
                                   templateness=[0.9] * 3 + [0.1] * 3 + [0.8, 0.8])
    coarse = np.array([0, 0, 0, 1, 1, 1, UNASSIGNED, 2])
    seg = group_under(flat, coarse, "test")
    assert_nested(seg, flat)
    assert [(s.id, s.parent) for s in seg] == [(0, 8), (1, 8), (2, 8), (3, 9), (4, 9), (5, 9),
                                               (6, None), (7, None), (8, None), (9, None)]
    assert seg[8].nodes == (3, 5, 7) and seg[8].attrs == {"level1": "test", "members": 3}
    assert seg.leaf_labels(1).tolist() == [8, 8, 8, 9, 9, 9, 6, 7]
    assert seg[9].text == flat[3].text + " " + flat[4].text + " " + flat[5].text


def test_group_under_votes_by_characters_not_leaves():
    pg = helpers.news_page("News", STORY * 2, "x")
    flat = Segmentation.from_nodes(pg, [[2], [9], [16]])
    # story leaves: title (20 chars) and "x" in block 0, the long paragraph in block 1
    coarse = np.array([0, 0, 0, 0, 1, 0, 1, 1])
    seg = group_under(flat, coarse, "test")
    assert seg[1].parent is not None and seg[1].parent == seg[2].parent  # story joins block 1
    assert seg[0].parent is None


def test_group_under_without_groups_returns_the_flat_segmentation():
    pg = page()
    flat = Segmentation.from_nodes(pg, [[2], [9], [16]])
    assert group_under(flat, np.arange(8), "test") is flat
    assert group_under(flat, np.full(8, UNASSIGNED), "test") is flat


def test_group_under_rejects_bad_input():
    pg = page()
    flat = Segmentation.from_nodes(pg, [[2], [9], [16]])
    with pytest.raises(ValueError, match="one coarse label per text leaf"):
        group_under(flat, np.zeros(3, dtype=int), "test")
    two = group_under(flat, np.array([0] * 6 + [1, 1]), "test")
    with pytest.raises(ValueError, match="flat"):
        group_under(two, np.zeros(8, dtype=int), "test")


# ---------------------------------------------------------------------- the segmenters
@pytest.mark.parametrize("name", [*PAGELEVEL, "blockfusion"])
def test_level2_is_the_flat_output_and_level1_nests(name, coarse_vips):
    pg = page()
    flat = make(name, level1="none").segment(pg)
    seg = make(name).segment(pg)  # default: "dom" for blockfusion (speed), else "vips"
    assert flat.depth == 1 and "level1" not in flat.params
    assert seg.params["level1"] == ("dom" if name == "blockfusion" else "vips")
    assert_nested(seg, flat)
    assert len(seg.at_level(1)) == 2 < len(flat)
    # the flat option is the old output, byte for byte
    assert flat.to_json() == make(name, level1="none").segment_flat(pg).to_json()


def test_real_vips_groups_per_leaf_segments():
    pg = page()
    flat = make("pagelevel-merge", level1="none", delta=0.0).segment(pg)
    seg = make("pagelevel-merge", delta=0.0).segment(pg)
    assert len(flat) == 8  # one segment per text leaf
    assert_nested(seg, flat)
    assert len(seg.at_level(1)) < len(flat)
    nav = seg[seg[0].parent]
    assert nav.text == "Home News Sport" and seg[1].parent == seg[2].parent == nav.id


@pytest.mark.parametrize("name", [*PAGELEVEL, "blockfusion"])
def test_unknown_level1_is_a_clear_error(name):
    with pytest.raises(ValueError, match="level1 must be one of"):
        get_segmenter(name, level1="bogus")


def test_real_dom_grouping_nests_blockfusion():
    pg = page()
    flat = BlockFusion(level1="none").segment(pg)
    seg = BlockFusion(level1="dom").segment(pg)
    assert_nested(seg, flat)
    assert seg.params["level1"] == "dom"
    want = get_segmenter("dom").segment(pg).leaf_labels(1)
    got = seg.leaf_labels(1)
    # every dom level-1 block that holds a whole fused block maps to one group
    assert len(set(got.tolist())) <= len(set(want.tolist())) + len(flat)


def test_blockfusion_without_layout_stays_flat():
    from webseg.parse import parse

    pg = parse(b"<h1>Title</h1><p>Some text here.</p><h2>Other</h2><p>More text.</p>")
    assert not pg.has_layout
    assert BlockFusion().segment(pg).to_json() == BlockFusion(level1="none").segment(pg).to_json()


# ---------------------------------------------------------------------- readers
@pytest.mark.parametrize("name", PAGELEVEL)
def test_main_text_readers_read_the_segments_not_the_groups(name, coarse_vips, monkeypatch):
    """kept_segments / clean_html / the templates harness read the finest segments: a level-1
    group (no templateness) must neither be kept as content nor duplicate its members."""
    import webseg.templates.clean as tc
    from eval.templates.run import pred_template_leaves

    pg = page()
    flat = make(name, level1="none").segment(pg)
    two = make(name, level1="vips").segment(pg)
    assert len(two) > len(flat)  # there are group segments to get wrong
    assert pred_template_leaves(two).tolist() == pred_template_leaves(flat).tolist()
    monkeypatch.setattr(tc, "get_segmenter", make)
    seg, keep = kept_segments(pg, 0.5, name)  # level1 "none" unless asked
    assert seg.depth == 1
    seg2, keep2 = kept_segments(pg, 0.5, name, level1="vips")
    assert seg2.depth == 2 and keep2.tolist() == keep.tolist()
    html = clean_html(pg, 0.5, name, level1="vips")
    assert html.count("webseg-segment") == sum(
        float(s.attrs["templateness"]) < 0.5 and bool(s.text) for s in flat)


def test_treecut_features_use_flat_blockfusion():
    from webseg.treecut import base_labels

    pg = page()
    want = BlockFusion(level1="none").segment(pg).leaf_labels(1)
    assert base_labels(pg)["blockfusion1"].tolist() == want.tolist()
