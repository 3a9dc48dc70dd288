"""summary_rows gives the pipeline's segmentation summary as it was written before (each
box rounded, each text split), whatever the boxes and however the words were counted."""

import numpy as np

from tests.helpers import sample_page
from webseg.parse import parse
from webseg.segmentation import Segment, remember_words, summary_rows, words_of
from webseg.segmenters.blockfusion import BlockFusion


def reference(segments):
    return [{"id": s.id, "box": [round(float(v), 1) for v in s.box],
             "words": len(s.text.split())} for s in segments]


def test_blockfusion_pages_with_and_without_layout():
    html = ("<html><body><h1>Title  here</h1><p>One\u3000two\xa0three four</p><ul><li>a</li>"
            "<li>b c</li></ul><p>" + "word " * 60 + "</p></body></html>").encode()
    for page in (parse(html), sample_page()):
        for level1 in ("none", "dom"):
            seg = BlockFusion(level1=level1).segment(page)
            segs = seg.at_level(1)
            assert summary_rows(segs) == reference(segs)
            assert [type(v) for r in summary_rows(segs) for v in r["box"]] == \
                [type(v) for r in reference(segs) for v in r["box"]]


def test_shared_odd_and_numpy_boxes():
    zero, neg = (0.0, 0.0, 0.0, 0.0), (-0.0, 0.04, -0.06, 1e300)
    segs = [Segment(0, (1,), box=zero, text="a b"), Segment(1, (2,), box=zero, text=""),
            Segment(2, (3,), box=neg, text=" x\ty "),
            Segment(3, (4,), box=tuple(np.float32([1.25, 2.35, 3.45, 4.55])), text="z"),
            Segment(4, (5,), box=neg, text="\u2003")]
    got = summary_rows(segs)
    assert got == reference(segs)
    assert str(got) == str(reference(segs))  # -0.0 stays -0.0
    got[0]["box"].append(9.0)  # every row has its own list
    assert got[1]["box"] == [0.0, 0.0, 0.0, 0.0]


def test_a_remembered_count_holds_only_for_its_text():
    s = Segment(0, (1,), text="one two three")
    remember_words(s, 3)
    assert words_of(s) == 3
    s.text = "four five"
    assert words_of(s) == 2
    assert "_words" not in s.to_dict()
