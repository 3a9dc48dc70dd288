import pytest

from tests.helpers import sample_page
from webseg.parse import parse
from webseg.segmentation import UNASSIGNED
from webseg.segmenters import Segmenter, available, get_segmenter


def test_registry_lists_and_builds():
    names = available()
    assert {"single", "dom"} <= set(names)
    seg = get_segmenter("dom", max_depth=3)
    assert isinstance(seg, Segmenter) and seg.max_depth == 3
    with pytest.raises(KeyError, match="unknown segmenter 'nope'"):
        get_segmenter("nope")


def test_single_covers_everything():
    p = sample_page()
    s = get_segmenter("single").segment(p)
    assert len(s) == 1 and s.leaf_labels().tolist() == [0, 0, 0, 0]


def test_dom_splits_body_children_and_assigns_every_leaf():
    p = sample_page()
    s = get_segmenter("dom").segment(p)
    top = s.at_level(1)
    assert [seg.nodes for seg in top] == [(5,), (10,), (12,)]
    assert s.leaf_labels(2).tolist()[:2] != s.leaf_labels(1).tolist()[:2]  # div#a splits
    assert UNASSIGNED not in s.leaf_labels().tolist()


HTML = b"""<html><body><div id=wrap><div id=inner>
<header><h1>Site</h1></header>
<div class=main><p>First paragraph of the article.</p><p>Second one.</p></div>
<footer>Footer <a href=/x>link</a></footer>
</div></div></body></html>"""


def test_dom_descends_through_wrappers_on_parsed_page():
    page = parse(HTML)
    s = get_segmenter("dom").segment(page)
    tops = [page.tag[seg.nodes[0]] for seg in s.at_level(1)]
    assert tops == ["header", "div", "footer"]
    assert UNASSIGNED not in s.leaf_labels().tolist()
    assert s.largest(level=1).text.startswith("First paragraph")


def test_inline_runs_are_grouped():
    page = parse(b"<html><body><div><p>block</p>loose <b>inline</b> text<p>b2</p></div>"
                 b"</body></html>")
    s = get_segmenter("dom").segment(page)
    texts = [seg.text for seg in s.at_level(1)]
    assert texts == ["block", "loose inline text", "b2"]
