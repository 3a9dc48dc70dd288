"""PageLevel segmenters (smooth / basic / merge) and main-content extraction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests import helpers
from tests.helpers import STORY, link_classifier
from webseg.page import ELEMENT, TEXT, NoLayoutError, Page
from webseg.segmenters.base import available, get_segmenter
from webseg.segmenters.pagelevel import PageLevelSegmenter, sections_to_roots
from webseg.templates.classifier import TemplateClassifier
from webseg.templates.clean import clean, clean_html

FIXTURE = Path(__file__).parent / "fixtures" / "news.html"
NAMES = ["pagelevel", "pagelevel-basic", "pagelevel-merge"]



def news_page() -> Page:
    return helpers.news_page("News", STORY * 3, STORY * 2)


def segmenter(name: str, **kw) -> PageLevelSegmenter:
    seg = get_segmenter(name, **kw)
    assert isinstance(seg, PageLevelSegmenter)
    return seg.set_model(link_classifier())


def assert_partition(page: Page, seg) -> None:
    """Every visible text leaf lies in exactly one segment's subtrees."""
    count = np.zeros(page.n, dtype=int)
    for s in seg.at_level(None):  # the segments (level 2 under the VIPS grouping)
        assert s.nodes and "templateness" in s.attrs
        assert 0.0 <= s.attrs["templateness"] <= 1.0
        for r in s.nodes:
            count[r:page.subtree_end[r]] += 1
    assert np.all(count[page.text_leaves] == 1)


def test_registered():
    names = available()
    for n in NAMES:
        assert n in names
        seg = get_segmenter(n)
        assert seg.name == n and seg.needs_layout


@pytest.mark.parametrize("name", NAMES)
def test_hand_built_page(name):
    page = news_page()
    seg = segmenter(name).segment(page)
    assert seg.algorithm == name
    assert_partition(page, seg)
    text = seg.non_template_text()
    assert "Bridge repairs begin" in text and "town council" in text
    for w in ("Home", "Sport", "Privacy", "Contact"):
        assert w not in text
    assert len(seg.leaf_labels()) == len(page.text_leaves)


def test_smooth_sections_are_flat_with_heads():
    page = news_page()
    seg = segmenter("pagelevel").segment(page)
    heads = {s.attrs["head"] for s in seg}
    assert 2 in heads and 16 in heads  # nav and footer start their own sections
    assert all(s.parent is None for s in seg)
    by_head = {s.attrs["head"]: s for s in seg}
    assert by_head[2].attrs["parent_head"] in heads
    assert by_head[2].attrs["templateness"] > 0.5
    # a huge penalty leaves one section: the whole page
    one = segmenter("pagelevel", c=1e6).segment(page)
    assert len(one) == 1 and one.segments[0].nodes == (0,)


def test_basic_is_finer_than_smooth():
    page = news_page()
    basic = segmenter("pagelevel-basic").segment(page)
    smooth = segmenter("pagelevel").segment(page)
    assert len(basic) >= len(smooth)


def test_merge_delta_extremes():
    page = news_page()
    one = segmenter("pagelevel-merge", delta=2.0).segment(page)
    assert len(one) == 1
    many = segmenter("pagelevel-merge", delta=0.0).segment(page)
    assert len(many) >= 3
    assert_partition(page, many)


def test_clean_and_clean_html(monkeypatch):
    page = news_page()
    monkeypatch.setattr(PageLevelSegmenter, "get_model", lambda self: link_classifier())
    text = clean(page)
    assert text.splitlines()[0] == "Bridge repairs begin"
    assert "Privacy" not in text and "stone bridge" in text
    assert clean(page, threshold=1.0).count("Home") == 1
    assert clean(page, threshold=0.0) == ""
    html = clean_html(page)
    assert "<h1>Bridge repairs begin</h1>" in html and "Privacy" not in html
    assert 'data-templateness="' in html
    with pytest.raises(ValueError, match="threshold"):
        clean(page, threshold=2)


def test_needs_layout_and_empty_pages():
    page = Page.from_columns(parent=[-1, 0], kind=[ELEMENT, TEXT], tag=["body", "#text"],
                             text=["", "hi"], attrs=[None, None], has_layout=False)
    for n in NAMES:
        with pytest.raises(NoLayoutError):
            segmenter(n).segment(page)
    bare = Page.from_columns(parent=[-1], kind=[ELEMENT], tag=["body"], text=[""],
                             attrs=[None], box=[(0, 0, 100, 100)], width=100.0, height=100.0)
    for n in NAMES:
        assert len(segmenter(n).segment(bare)) == 0


def test_sections_to_roots_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(30):
        n = int(rng.integers(1, 25))
        parent = [-1]
        for i in range(1, n):  # pre-order: the parent is on the path from node i-1 to the root
            path = [i - 1]
            while parent[path[-1]] >= 0:
                path.append(parent[path[-1]])
            parent.append(int(rng.choice(path)))
        page = Page.from_columns(parent=parent, kind=[ELEMENT] * n, tag=["div"] * n,
                                 text=[""] * n, attrs=[None] * n)
        owner = rng.integers(0, 3, size=n)
        groups = sections_to_roots(page, owner)
        seen = np.zeros(n, dtype=int)
        for g, roots in groups.items():
            for r in roots:
                sub = range(r, page.subtree_end[r])
                assert all(owner[v] == g for v in sub)  # pure
                assert r == 0 or not all(owner[v] == g for v in  # maximal
                                         range(parent[r], page.subtree_end[parent[r]]))
                seen[r:page.subtree_end[r]] += 1
        leaf = np.ones(n, dtype=bool)
        leaf[[p for p in parent if p >= 0]] = False
        assert np.all(seen[leaf] == 1) and np.all(seen <= 1)
        pure = [all(owner[v] == owner[u] for v in range(u, page.subtree_end[u]))
                for u in range(n)]
        assert np.array_equal(seen == 1, np.array(pure))


def test_shipped_model_on_rendered_fixture(renderer):
    page = renderer.render(FIXTURE)
    for n in NAMES:
        seg = get_segmenter(n).segment(page)
        assert_partition(page, seg)
    text = clean(page)  # the shipped SiteLevel-trained model + isotonic smoothing
    for kept in ("Ferry timetable changes this winter", "four crossings a day",
                 "Board chair Duncan Rae", "Season tickets bought before the change"):
        assert kept in text
    for dropped in ("Home Local Sport", "Lifeboat crew honoured", "Privacy"):
        assert dropped not in text


def test_supervised_model_ships_and_loads():
    path = Path(__file__).parents[1] / "webseg" / "models" / "pagelevel-gold.json"
    clf = TemplateClassifier.load(path)
    assert clf.meta["labels"] == "gold"
    seg = PageLevelSegmenter(model=str(path)).segment(news_page())
    assert_partition(news_page(), seg)
