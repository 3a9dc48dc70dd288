"""Tests of the block fusion segmenter (webseg.segmenters.blockfusion)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import sample_page, tree_page
from webseg.page import ELEMENT, TEXT, Page
from webseg.parse import parse
from webseg.segmentation import UNASSIGNED, Segmentation
from webseg.segmenters import Segmenter, get_segmenter
from webseg.segmenters.blockfusion import (
    DEFAULT_THETA_MAX,
    GAP_ENFORCING_TAGS,
    BlockFusion,
    atomic_blocks,
    density_ratio,
    text_density,
    wrap_stats,
)

FIXTURE = Path(__file__).parent / "fixtures" / "news.html"


def words(n: int, length: int = 5) -> str:
    return " ".join("abcdefghijklmnopqrstuvwxyz"[i % 26] * length for i in range(n))


def texts(seg: Segmentation) -> list[str]:
    return [s.text for s in seg.at_level(None)]  # the fused blocks (level 2 when grouped)


def assert_partition(seg: Segmentation) -> None:
    """Every text leaf is in exactly one segment, and each segment's roots hold exactly the
    leaves labelled with it (a contiguous run of leaves)."""
    page = seg.page
    labels = seg.leaf_labels()
    assert UNASSIGNED not in labels.tolist()
    leaves = page.text_leaves
    cover = np.zeros(len(leaves), dtype=int)
    for s in seg.at_level(None):
        own = np.zeros(len(leaves), dtype=bool)
        for r in s.nodes:
            lo, hi = np.searchsorted(leaves, [r, page.subtree_end[r]])
            assert hi > lo, "a root without text"
            own[lo:hi] = True
        cover += own
        idx = np.flatnonzero(own)
        assert (labels[idx] == s.id).all()
        assert idx[-1] - idx[0] + 1 == len(idx), "segments are runs of consecutive leaves"
        assert isinstance(s.attrs["density"], float) and s.attrs["density"] > 0
    assert (cover == 1).all()


# ------------------------------------------------------------------------- text density
def test_density_of_one_line_is_its_token_count():
    assert wrap_stats("word " * 5) == (5, 1, 5)
    assert text_density("word " * 5) == 5.0
    assert text_density("  one\n\t two  ") == 2.0


def test_density_of_200_chars_of_five_letter_words():
    text = words(34)  # 34 * 5 + 33 spaces = 203 characters
    assert len(text) == 203
    # 13 words fit on an 80-char line (13 * 5 + 12 = 77; 14 words need 83): 13 + 13 + 8
    assert wrap_stats(text) == (34, 3, 8)
    # the last line is left out: 26 tokens on 2 full lines
    assert text_density(text) == 13.0
    # 40 words: 13 + 13 + 13 + 1 -> 39 / 3
    assert wrap_stats(words(40)) == (40, 4, 1)
    assert text_density(words(40)) == 13.0


def test_density_wrap_boundaries():
    # exactly 80 characters fit on one line, 81 do not
    eight = words(8, 9)  # 8 * 9 + 7 = 79
    assert len(eight) == 79 and wrap_stats(eight) == (8, 1, 8)
    assert wrap_stats(words(9, 9))[1] == 2  # 89 chars
    assert wrap_stats("x" * 80)[1] == 1
    assert wrap_stats("x" * 40 + " " + "y" * 39)[1] == 1  # 80 chars
    assert wrap_stats("x" * 40 + " " + "y" * 40)[1] == 2  # 81 chars
    # a token longer than the line gets a line of its own
    assert wrap_stats("a " + "z" * 200 + " b") == (3, 3, 1)
    assert text_density("a " + "z" * 200 + " b") == 1.0
    # other widths
    assert wrap_stats("aaaaa bbbbb ccccc", 11) == (3, 2, 1)
    assert text_density("aaaaa bbbbb ccccc", 11) == 2.0


def test_density_of_empty_text_and_ratio():
    assert wrap_stats("") == (0, 0, 0) and text_density("   ") == 0.0
    assert density_ratio(10, 5) == 0.5 and density_ratio(5, 10) == 0.5
    assert density_ratio(3, 3) == 0.0 and density_ratio(0, 0) == 0.0


# ------------------------------------------------------------------------- atomic blocks
def test_inline_tags_do_not_split_a_block():
    page = parse(b"<body><p>Some <b>bold</b> and <a href=/x>a link</a>, <span>a span</span>, "
                 b"<i>it</i> <em>em</em> <strong>st</strong> <font>f</font> <img src=x.png> "
                 b"<code>c</code> <sub>2</sub> and<br>a line break.</p></body>")
    assert len(page.text_leaves) > 10
    assert atomic_blocks(page) == [(0, len(page.text_leaves))]
    for mode in ("plain", "smoothed", "rulebased"):
        seg = BlockFusion(theta_max=0.0, mode=mode).segment(page)
        assert len(seg) == 1 and seg[0].nodes == (page.body,)


def test_block_level_tags_and_br_runs_split_atomic_blocks():
    page = parse(b"<body><div>one<p>two</p>three</div><ul><li>four</li><li>five</li></ul>"
                 b"<table><tr><td>six</td><td>seven</td></tr></table>"
                 b"eight<br>nine<br><br>ten</body>")
    spans = atomic_blocks(page)
    leaf = [page.leaf_text(int(i)) for i in page.text_leaves]
    assert [" ".join(leaf[a:b]) for a, b in spans] == [
        "one", "two", "three", "four", "five", "six", "seven", "eight nine", "ten"]


def test_hidden_elements_do_not_split():
    page = parse(b"<span>before <div hidden>secret</div> after</span>")
    assert [page.leaf_text(int(i)) for i in page.text_leaves] == ["before", "after"]
    assert len(atomic_blocks(page)) == 1


# ------------------------------------------------------------------------- fusion
def test_two_blocks_of_similar_density_fuse():
    page = parse(f"<body><p>{words(60)}</p><p>{words(55, 6)}</p><p>Home</p></body>".encode())
    d = [text_density(words(60)), text_density(words(55, 6))]
    assert density_ratio(*d) <= 0.2
    for mode in ("plain", "rulebased"):
        seg = BlockFusion(theta_max=0.2, mode=mode).segment(page)
        assert len(seg) == 2, mode
        assert seg[0].text == words(60) + " " + words(55, 6) and seg[1].text == "Home"
        assert seg[0].nodes == tuple(page.find_xpath(f"/html/body/p[{k}]") for k in (1, 2))
        # the fused block's density is computed on its whole (re-wrapped) text
        assert seg[0].attrs["density"] == text_density(seg[0].text)
        assert_partition(seg)
    # below the ratio nothing fuses
    assert len(BlockFusion(theta_max=0.0, mode="plain").segment(page)) == 3


def test_fusion_iterates_until_nothing_changes():
    # densities 13, 13, 1: the first pass fuses the two long paragraphs, nothing else
    page = parse(f"<p>{words(40)}</p><p>{words(40)}</p><p>x</p>".encode())
    seg = BlockFusion(theta_max=0.1, mode="plain").segment(page)
    assert [round(s.attrs["density"], 3) for s in seg] == [13.0, 1.0]
    # theta 1 fuses everything in plain mode
    assert len(BlockFusion(theta_max=1.0, mode="plain").segment(page)) == 1


@pytest.mark.parametrize("sep", [b"<h2>A heading</h2>", b"<hr>", b"<ul><li>item</li></ul>",
                                 b"<table><tr><td>cell</td></tr></table>", b"<img src=x.png>"])
def test_rulebased_never_fuses_across_gap_enforcing_tags(sep):
    html = f"<body><p>{words(30)}</p>".encode() + sep + f"<p>{words(30)}</p></body>".encode()
    page = parse(html)
    rule = BlockFusion(theta_max=1.0, mode="rulebased").segment(page)
    assert rule[0].text == words(30) and rule[len(rule) - 1].text == words(30)
    assert len(rule) == (2 if sep in (b"<hr>", b"<img src=x.png>") else 3)
    assert_partition(rule)
    # plain mode only looks at densities: everything fuses at theta 1
    assert len(BlockFusion(theta_max=1.0, mode="plain").segment(page)) == 1


def test_heading_starts_a_new_block_but_p_and_div_do_not_stop_fusion():
    page = parse(b"<body><div>Intro text</div><p>More text</p><h3>Title</h3><p>Body text</p>"
                 b"<div>Other text</div></body>")
    seg = BlockFusion(theta_max=1.0).segment(page)
    assert texts(seg) == ["Intro text More text", "Title", "Body text Other text"]


def test_enforcing_tags_are_configurable():
    page = parse(f"<p>{words(30)}</p><img src=x.png><p>{words(30)}</p>".encode())
    assert len(BlockFusion(theta_max=1.0).segment(page)) == 2
    no_img = GAP_ENFORCING_TAGS - {"img"}
    assert len(BlockFusion(theta_max=1.0, enforcing_tags=no_img).segment(page)) == 1
    assert len(get_segmenter("blockfusion", theta_max=1.0,
                             enforcing_tags=sorted(no_img)).segment(page)) == 1


def test_smoothed_absorbs_a_sparse_block_between_similar_ones():
    page = parse(f"<p>{words(40)}</p><p>see also</p><p>{words(40)}</p><p>end</p>".encode())
    plain = BlockFusion(theta_max=0.1, mode="plain").segment(page)
    smooth = BlockFusion(theta_max=0.1, mode="smoothed").segment(page)
    assert len(plain) == 4
    assert texts(smooth) == [f"{words(40)} see also {words(40)}", "end"]
    assert_partition(smooth)


def test_roots_are_the_fewest_subtrees():
    page = parse(b"<body><div id=a><ul><li>one</li><li>two</li></ul></div>"
                 b"<p>x <b>bold words here</b></p><p>tail</p></body>")
    seg = BlockFusion(theta_max=1.0, mode="plain").segment(page)
    assert len(seg) == 1 and seg[0].nodes == (page.body,)
    seg = BlockFusion(theta_max=1.0, mode="rulebased").segment(page)
    # the ul is a gap-enforcing tag: [one two] | [x bold words here tail]; roots are the
    # largest subtrees holding only the block's text
    assert seg[0].nodes == (page.find_xpath("/html/body/div"),)
    assert seg[1].nodes == tuple(page.find_xpath(f"/html/body/p[{k}]") for k in (1, 2))
    seg = BlockFusion(theta_max=0.0, mode="plain").segment(page)
    # equal densities fuse even at theta 0
    assert texts(seg) == ["one two", "x bold words here", "tail"]
    assert [page.tag[s.nodes[0]] for s in seg] == ["div", "p", "p"]


# ------------------------------------------------------------------------- pages
def test_parsed_fixture_page():
    page = parse(FIXTURE.read_bytes())
    assert not page.has_layout
    for mode in ("plain", "smoothed", "rulebased"):
        seg = get_segmenter("blockfusion", mode=mode).segment(page)
        assert len(seg) >= 2 and seg.algorithm == "blockfusion"
        assert seg.params["mode"] == mode and seg.params["theta_max"] == DEFAULT_THETA_MAX[mode]
        assert_partition(seg)
        assert all(s.box == (0.0, 0.0, 0.0, 0.0) for s in seg)
        back = Segmentation.from_json(page, seg.to_json())
        assert [s.nodes for s in back] == [s.nodes for s in seg]


def test_hand_built_page_with_layout():
    page = sample_page()  # Page.from_columns with boxes, has_layout True
    assert page.has_layout
    seg = BlockFusion(theta_max=0.0, level1="none").segment(page)  # the fusion, not level 1
    assert texts(seg) == ["alpha beta", "gamma", "delta epsilon", "zeta"]
    assert [s.nodes for s in seg] == [(6,), (8,), (10,), (12,)]
    assert all(s.box[2] > 0 and s.box[3] > 0 for s in seg)
    assert_partition(seg)
    seg = BlockFusion(theta_max=1.0, level1="none").segment(page)
    assert len(seg) == 1 and seg[0].nodes == (4,) and seg[0].box[3] > 0
    assert_partition(seg)


@pytest.mark.browser
def test_rendered_fixture_page_agrees_with_parsed_page():
    from webseg.render import render

    rendered = render(FIXTURE)
    parsed = parse(FIXTURE.read_bytes())
    assert rendered.has_layout
    seg = BlockFusion().segment(rendered)
    assert_partition(seg)
    assert all(s.box[2] > 0 and s.box[3] > 0 for s in seg)
    # tag boundaries: the same segments' text with and without a browser
    assert texts(seg) == texts(BlockFusion().segment(parsed))
    assert_partition(BlockFusion(boundaries="display").segment(rendered))


def test_display_boundaries_use_computed_style_on_rendered_pages():
    # a span styled display:block splits; a div styled display:inline does not
    spec = [(-1, "html", ""), (0, "body", ""), (1, "span", ""), (2, "#text", "one two"),
            (1, "span", ""), (4, "#text", "three"), (1, "div", ""), (6, "#text", "four five")]
    display = ["block", "block", "block", "#text", "inline", "#text", "inline", "#text"]
    page = tree_page(spec, display=display)
    assert len(atomic_blocks(page, "tags")) == 2
    assert len(atomic_blocks(page, "display")) == 2
    assert [a for a, _ in atomic_blocks(page, "display")] == [0, 1]
    assert [a for a, _ in atomic_blocks(page, "tags")] == [0, 2]
    seg = BlockFusion(theta_max=0.0, boundaries="display").segment(page)
    assert texts(seg) == ["one two", "three four five"]


# ------------------------------------------------------------------------- robustness
def empty_page() -> Page:
    return Page.from_columns(parent=[], kind=[], tag=[], text=[], attrs=[])


@pytest.mark.parametrize("make", [
    empty_page,
    lambda: parse(b"<html><body></body></html>"),
    lambda: parse(b"<div><img src=a.png><hr><script>var x = 'no text';</script></div>"),
    lambda: parse(b"<p>   \n\t </p><style>p { color: red }</style>"),
])
def test_pages_without_text_give_an_empty_segmentation(make):
    page = make()
    for mode in ("plain", "smoothed", "rulebased"):
        seg = BlockFusion(mode=mode).segment(page)
        assert len(seg) == 0 and seg.leaf_labels().tolist() == []
        json.loads(seg.to_json())


def test_single_huge_text_node():
    text = " ".join(f"w{i % 97}" for i in range(50_000))
    page = parse(f"<p>{text}</p>".encode())
    seg = BlockFusion().segment(page)
    assert len(seg) == 1 and seg[0].text == text
    assert seg[0].attrs["density"] == text_density(text)
    assert_partition(seg)


def test_deep_nesting():
    depth = 20_000
    parent = [-1, *range(depth - 1)]
    tag = ["html"] + ["div" if i % 3 else "span" for i in range(1, depth)]
    parent += [depth - 1, depth // 2]
    tag += ["#text", "#text"]
    text = [""] * depth + ["deep text", "middle"]
    kind = [ELEMENT] * depth + [TEXT, TEXT]
    # pre-order requires the second text node (child of depth//2) after the deep chain
    page = Page.from_columns(parent=parent, kind=kind, tag=tag, text=text,
                             attrs=[None] * len(tag))
    for mode in ("plain", "smoothed", "rulebased"):
        seg = BlockFusion(mode=mode).segment(page)
        assert 1 <= len(seg) <= 2
        assert_partition(seg)


def test_invalid_parameters_are_reported():
    with pytest.raises(ValueError, match="mode must be one of"):
        BlockFusion(mode="fancy")
    with pytest.raises(ValueError, match="boundaries"):
        BlockFusion(boundaries="pixels")
    with pytest.raises(ValueError, match="wrap_width"):
        BlockFusion(wrap_width=0)
    with pytest.raises(ValueError, match="NaN"):
        BlockFusion(theta_max=float("nan"))
    with pytest.raises(ValueError, match="collection"):
        BlockFusion(enforcing_tags="h1")


def test_registered_and_layout_free():
    seg = get_segmenter("blockfusion")
    assert isinstance(seg, Segmenter) and seg.needs_layout is False
    assert seg.mode == "rulebased" and seg.theta_max == DEFAULT_THETA_MAX["rulebased"]


# ------------------------------------------------------------------------- property test
TAGS = ["div", "p", "span", "b", "a", "h2", "hr", "br", "ul", "li", "img", "td", "table", "i"]


@st.composite
def random_pages(draw):
    n = draw(st.integers(1, 40))
    parent, tag, text = [-1], ["body"], [""]
    for i in range(1, n):
        elems = [j for j in range(i) if tag[j] != "#text"]
        parent.append(draw(st.sampled_from(elems)))
        if draw(st.booleans()):
            tag.append("#text")
            text.append(draw(st.sampled_from(["", "  ", "a", "word two", words(30),
                                              "one two three four"])))
        else:
            tag.append(draw(st.sampled_from(TAGS)))
            text.append("")
    # parents were drawn among earlier nodes, but pre-order also needs each subtree to be
    # contiguous: re-order by a DFS over the drawn tree
    children: dict[int, list[int]] = {}
    for i in range(1, n):
        children.setdefault(parent[i], []).append(i)
    order, stack = [], [0]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(children.get(v, [])))
    new = {old: k for k, old in enumerate(order)}
    par = [-1 if parent[o] < 0 else new[parent[o]] for o in order]
    tg = [tag[o] for o in order]
    visible = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return Page.from_columns(parent=par, kind=[TEXT if t == "#text" else ELEMENT for t in tg],
                             tag=tg, text=[text[o] for o in order], attrs=[None] * n,
                             visible=[v or k == 0 for k, v in enumerate(visible)])


@settings(max_examples=150, deadline=None)
@given(random_pages(), st.sampled_from(["plain", "smoothed", "rulebased"]),
       st.sampled_from([0.0, 0.3, 0.65, 1.0]))
def test_every_leaf_in_exactly_one_segment(page, mode, theta):
    seg = BlockFusion(theta_max=theta, mode=mode).segment(page)
    if len(page.text_leaves) == 0:
        assert len(seg) == 0
        return
    assert_partition(seg)
    # fusion only merges atomic blocks, and the segments are in document order
    spans = atomic_blocks(page)
    starts = {a for a, _ in spans}
    labels = seg.leaf_labels()
    cut = [k for k in range(1, len(labels)) if labels[k] != labels[k - 1]]
    assert set(cut) <= starts and list(labels) == sorted(labels)
