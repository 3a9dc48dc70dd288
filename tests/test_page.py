import numpy as np
import pytest

from tests.helpers import sample_page, tree_page
from webseg.page import NoLayoutError, Page


def test_structure_queries():
    p = sample_page()
    assert p.n == 14
    assert p.children(4).tolist() == [5, 10, 12]
    assert p.children(5).tolist() == [6, 8]
    assert p.depth.tolist()[:8] == [0, 1, 2, 3, 1, 2, 3, 4]
    assert p.subtree_end[5] == 10
    assert list(p.descendants(10)) == [10, 11]
    assert p.is_ancestor(4, 9) and not p.is_ancestor(5, 11)
    assert list(p.ancestors(7)) == [6, 5, 4, 0]
    assert p.body == 4


def test_text_leaves_exclude_head_and_normalise_whitespace():
    p = sample_page()
    assert p.text_leaves.tolist() == [7, 9, 11, 13]
    assert p.leaf_text(7) == "alpha beta"
    assert p.node_text(5) == "alpha beta gamma"
    assert p.text_length[4] == len("alpha beta") + len("gamma") + len("delta epsilon") + 4
    assert p.text_leaf_mask.sum() == 4


def test_xpaths_count_same_tag_siblings():
    p = sample_page()
    assert p.xpaths[0] == "/html[1]"
    assert p.xpaths[6] == "/html[1]/body[1]/div[1]/p[1]"
    assert p.xpaths[8] == "/html[1]/body[1]/div[1]/p[2]"
    assert p.xpaths[10] == "/html[1]/body[1]/div[2]"
    assert p.xpaths[12] == "/html[1]/body[1]/p[1]"
    assert p.xpaths[11] == "/html[1]/body[1]/div[2]/text()[1]"
    assert p.find_xpath("/html[1]/body[1]/div[1]/p[2]") == 8
    assert p.find_xpath("/HTML/BODY/DIV[2]") == 10
    assert p.find_xpath("/html[1]/body[1]/div[9]") is None


def test_json_round_trip(tmp_path):
    p = sample_page(url="http://x.test/", title="T")
    q = Page.from_json(p.to_json())
    for col in ("parent", "kind", "box", "bg", "color", "font_size", "font_weight", "italic",
                "font_family", "display", "position", "visible"):
        np.testing.assert_array_equal(getattr(p, col), getattr(q, col), err_msg=col)
    assert q.tag == p.tag and q.text == p.text and q.url == "http://x.test/"
    f = tmp_path / "p.page.json.gz"
    p.save(f)
    assert Page.load(f).xpaths == p.xpaths


def test_versioned_schema_is_checked():
    d = sample_page().to_dict()
    d["version"] = 999
    with pytest.raises(ValueError, match="version"):
        Page.from_dict(d)
    with pytest.raises(ValueError, match="not a webseg page"):
        Page.from_dict({"schema": "other"})


def test_invalid_trees_are_rejected():
    with pytest.raises(ValueError, match="pre-order"):
        tree_page([(-1, "html", ""), (0, "body", ""), (-1, "div", "")])
    with pytest.raises(ValueError, match="pre-order"):
        tree_page([(-1, "html", ""), (2, "body", ""), (0, "div", "")])


def test_require_layout():
    p = sample_page(has_layout=False)
    with pytest.raises(NoLayoutError, match="no geometry"):
        p.require_layout()
    sample_page().require_layout()


def test_node_view():
    p = sample_page()
    node = p.node(8)
    assert node.tag == "p" and node.parent == 5 and node.children == [9]
    assert node.text == "gamma" and node.xpath.endswith("p[2]")
    assert not node.is_text and p.node(9).is_text


def test_whitespace_record_round_trip_and_version_one_pages():
    p = sample_page()
    p.ws_before = {8: " ", 11: "\n  "}
    q = Page.from_json(p.to_json())
    assert q.ws_before == {8: " ", 11: "\n  "}
    d = p.to_dict()
    d["version"] = 1  # pages cached before the whitespace record: still read, record unknown
    del d["ws_before"]
    old = Page.from_dict(d)
    assert old.ws_before is None and old.xpaths == p.xpaths
