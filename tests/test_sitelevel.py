"""SiteLevel(theta) on hand-built pages of one site."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import tree_page
from webseg.templates.sitelevel import sitelevel_labels, subtree_hashes


def site_page(story: str, nav: tuple[str, ...] = ("Home", "About"), ws: bool = False):
    """html > body > [nav > ul > li > a > text ..., article > h1 > text, p > text]."""
    spec = [(-1, "html", ""), (0, "body", ""), (1, "nav", ""), (2, "ul", "")]
    for item in nav:
        li = len(spec)
        spec += [(3, "li", ""), (li, "a", ""), (li + 1, "#text", item)]
        if ws:  # indentation between the items
            spec.append((3, "#text", "\n    "))
    art = len(spec)
    spec += [(1, "article", ""), (art, "h1", ""), (art + 1, "#text", f"Title {story}"),
             (art, "p", ""), (art + 3, "#text", f"The story of {story}, told at length.")]
    return tree_page(spec)


def ids(page, tag):
    return [i for i, t in enumerate(page.tag) if t == tag]


def test_shared_nav_is_template_and_article_is_not():
    pages = [site_page(s) for s in ("alpha", "beta", "gamma")]
    labels = sitelevel_labels(pages)
    for page, lab in zip(pages, labels, strict=True):
        nav = ids(page, "nav")[0]
        art = ids(page, "article")[0]
        assert lab[nav:int(page.subtree_end[nav])].all()  # nav and everything in it
        assert not lab[art:int(page.subtree_end[art])].any()
        assert not lab[ids(page, "body")[0]] and not lab[0]  # mostly article text


def test_theta_and_the_two_page_minimum():
    # nav A on pages 0-1, nav B on pages 2-3
    pages = [site_page("a"), site_page("b"), site_page("c", ("Shop",)),
             site_page("d", ("Shop",))]
    navs = [ids(p, "nav")[0] for p in pages]
    lab = sitelevel_labels(pages, theta=0.5)
    assert all(lab[k][navs[k]] for k in range(4))  # 2 of 4 pages >= 50 %
    lab = sitelevel_labels(pages, theta=0.6)
    assert not any(lab[k][navs[k]] for k in range(4))  # 2 of 4 < 60 %
    # a subtree on one page only is never a template, even with a tiny theta
    lab = sitelevel_labels(pages, theta=0.01)
    assert not any(lab[k][ids(pages[k], "article")[0]] for k in range(4))
    # and a single page has no templates at all
    assert not sitelevel_labels([pages[0]], theta=0.01)[0].any()


def test_a_hash_counts_once_per_page():
    # one page repeats the same "Shop" nav three times; 1 of 10 pages is below theta = 0.2
    spec = [(-1, "html", ""), (0, "body", "")]
    for _ in range(3):
        k = len(spec)
        spec += [(1, "aside", ""), (k, "#text", "Special offer")]
    pages = [tree_page(spec)] + [site_page(f"p{k}") for k in range(9)]
    lab = sitelevel_labels(pages, theta=0.2)
    assert not lab[0][ids(pages[0], "aside")].any()


def test_85_percent_rule_for_a_parent():
    # wrapper > [shared nav (large), unique small text]: > 85 % template -> wrapper is template
    def page(extra: str):
        spec = [(-1, "html", ""), (0, "body", ""), (1, "div", ""), (2, "nav", ""),
                (3, "#text", "Home About Contact Shop Blog Careers Press"),
                (2, "span", ""), (5, "#text", extra),
                (1, "main", ""), (7, "#text", f"Main content {extra} " * 20)]
        return tree_page(spec)

    small = [page(s) for s in ("a", "b", "c")]
    for lab in sitelevel_labels(small):
        assert lab[3] and lab[4]  # the shared nav
        assert not lab[5] and not lab[6]  # the unique span
        assert lab[2]  # wrapper: nav 2 + 42 chars vs span 2 + 1 char -> 44/48 > 0.85
        assert not lab[1]  # body is mostly the unique main text
    big = [page(s * 30) for s in ("a", "b", "c")]  # span text of 30 chars: 44/77 < 0.85
    for lab in sitelevel_labels(big):
        assert lab[3] and not lab[2]
    # the share threshold is a parameter
    for lab in sitelevel_labels(big, share=0.5):
        assert lab[2]


def test_whitespace_text_nodes_do_not_break_matching():
    pages = [site_page("a", ws=True), site_page("b"), site_page("c")]
    labels = sitelevel_labels(pages, theta=1.0)
    nav = ids(pages[0], "nav")[0]
    assert labels[0][nav:int(pages[0].subtree_end[nav])].all()  # incl. the blank text nodes
    assert subtree_hashes(pages[0])[nav] == subtree_hashes(pages[1])[ids(pages[1], "nav")[0]]


def test_hashes_depend_on_text_and_structure_and_are_deterministic():
    a, b = site_page("a"), site_page("a")
    assert np.array_equal(subtree_hashes(a), subtree_hashes(b))
    c = site_page("a", ("Home", "Contact"))
    assert subtree_hashes(a)[0] != subtree_hashes(c)[0]
    # same texts, different structure
    d = tree_page([(-1, "div", ""), (0, "p", ""), (1, "#text", "x"), (0, "p", "")])
    e = tree_page([(-1, "div", ""), (0, "p", ""), (1, "#text", "x"), (1, "p", "")])
    assert subtree_hashes(d)[0] != subtree_hashes(e)[0]


def test_bad_input():
    assert sitelevel_labels([]) == []
    with pytest.raises(ValueError, match="theta"):
        sitelevel_labels([site_page("a")], theta=0.0)
    with pytest.raises(TypeError, match=r"pages\[1\]"):
        sitelevel_labels([site_page("a"), "not a page"])


# ---------------------------------------------------------------- templateness features
def _feature_page(**kw):
    """body(1000x2000) > [nav(0,0,1000,100) > a(/) > "Home", a(http://other.org) > "Elsewhere",
    main(100,500,800,1000) > p > "The Story of Widgets and more words here"]."""
    from webseg.page import ELEMENT, TEXT, Page

    parent = [-1, 0, 1, 2, 1, 4, 0, 6, 7]
    tag = ["body", "nav", "a", "#text", "a", "#text", "main", "p", "#text"]
    text = ["", "", "", "Home", "", "Elsewhere", "", "",
            "The Story of Widgets and more words here"]
    attrs = [None, None, {"href": "/"}, None, {"href": "http://other.org/x"}, None, None, None,
             None]
    kind = [TEXT if t == "#text" else ELEMENT for t in tag]
    box = [(0, 0, 1000, 2000), (0, 0, 1000, 100), (0, 0, 100, 20), (0, 0, 100, 20),
           (200, 0, 100, 20), (200, 0, 100, 20), (100, 500, 800, 1000), (100, 500, 800, 1000),
           (100, 500, 800, 1000)]
    return Page.from_columns(parent=parent, kind=kind, tag=tag, text=text, attrs=attrs, box=box,
                             width=1000.0, height=2000.0, title="Widgets story | Site",
                             **kw)


def test_node_features_by_hand():
    from webseg.templates.features import FEATURE_NAMES, node_features

    page = _feature_page(url="https://www.example.com/a/b.html")
    f = node_features(page)
    assert f.shape == (page.n, len(FEATURE_NAMES))
    F = {name: f[:, k] for k, name in enumerate(FEATURE_NAMES)}
    nav, main = 1, 6
    # geometry
    assert F["margin_top"][nav] == 0 and F["margin_min"][nav] == 0
    assert F["margin_left"][main] == pytest.approx(0.1)
    assert F["margin_bottom"][main] == pytest.approx(0.25)
    assert F["center_distance"][main] == 0.0  # the main box is centred
    assert F["area"][main] == pytest.approx(0.4)
    assert F["center_distance"][nav] > 0.8
    # links: nav has 2 links over 2 words, all its text in anchors, one intra-site link
    assert F["links_per_word"][nav] == 1.0 and F["links_per_word"][main] == 0.0
    assert F["anchor_text_frac"][nav] == 1.0 and F["anchor_text_frac"][main] == 0.0
    assert F["anchor_size"][nav] == pytest.approx((4 + 9) / 2)
    assert F["intra_links_frac"][nav] == 0.5
    # body: 2 links / 10 words; 13 of 53 characters are link text
    assert F["links_per_word"][0] == pytest.approx(0.2)
    assert F["anchor_text_frac"][0] == pytest.approx(13 / 53)
    # title words {widgets, story, site}: main has two of them, nav none
    assert F["title_overlap"][main] == pytest.approx(2 / 3)
    assert F["title_overlap"][nav] == 0.0
    # visible characters vs the HTML-size proxy (nodes + characters)
    assert F["visible_frac"][main] == pytest.approx(40 / (3 + 40))
    assert F["depth"].tolist() == page.depth.tolist()


def test_node_features_without_url_or_layout():
    from webseg.templates.features import FEATURE_NAMES, node_features

    page = _feature_page()  # no URL: the absolute link is external, "/" still intra
    f = node_features(page)
    assert f[1, FEATURE_NAMES.index("intra_links_frac")] == 0.5
    page.has_layout = False
    f = node_features(page)
    assert np.isnan(f[:, :7]).all() and not np.isnan(f[:, 7:]).any()


def test_min_size_keeps_trivial_repeated_subtrees_out():
    def page(story):
        return tree_page([(-1, "html", ""), (0, "body", ""), (1, "article", ""),
                          (2, "#text", story), (2, "br", ""), (2, "#text", story + " more")])

    pages = [page(s) for s in ("one", "two", "three")]
    assert all(lab[4] for lab in sitelevel_labels(pages))  # <br> repeats on every page
    assert not any(lab[4] for lab in sitelevel_labels(pages, min_size=2))
    # a real template is still one, and its small descendants with it
    pages = [site_page(s) for s in ("alpha", "beta", "gamma")]
    for page, lab in zip(pages, sitelevel_labels(pages, min_size=8), strict=True):
        nav = ids(page, "nav")[0]
        assert lab[nav:int(page.subtree_end[nav])].all()
