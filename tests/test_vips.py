"""Tests of the VIPS segmenter: each extraction rule, separator detection and weights on small
hand-built layouts whose answer is known, construction, robustness, and one rendered page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg.page import ELEMENT, TEXT, NoLayoutError, Page
from webseg.segmentation import UNASSIGNED
from webseg.segmenters import get_segmenter
from webseg.segmenters.vips import (
    Separator,
    VipsSegmenter,
    VisualBlock,
    separators_paper,
    separators_sweep,
)

FIXTURES = Path(__file__).parent / "fixtures"

INLINE = {"a", "span", "b", "i", "em", "strong", "br", "img", "font", "small", "label"}
DISPLAY = {"td": "table-cell", "th": "table-cell", "tr": "table-row",
           "tbody": "table-row-group", "table": "table", "li": "list-item"}


# ------------------------------------------------------------------ synthetic pages
def E(tag, box, *children, bg=None, fs=None, fw=None, display=None, visible=True):  # noqa: N802
    """An element: tag, box (x, y, w, h), children; style inherits from the parent."""
    return {"tag": tag, "box": box, "children": children, "bg": bg, "fs": fs, "fw": fw,
            "display": display, "visible": visible}


def T(text, box):  # noqa: N802
    """A text node with its box (its style is its parent's)."""
    return {"tag": "#text", "box": box, "text": text}


def build(*body_children, width=1000, height=None, body_box=None) -> Page:
    """html > body > children, in pre-order, as Page.from_columns wants it."""
    cols: dict[str, list] = {k: [] for k in ("parent", "kind", "tag", "text", "box", "bg",
                                             "font_size", "font_weight", "display", "visible")}

    def add(node, parent, bg, fs, fw, vis):
        i = len(cols["parent"])
        text = node["tag"] == "#text"
        if not text:
            bg = node["bg"] if node["bg"] is not None else bg
            fs = node["fs"] if node["fs"] is not None else fs
            fw = node["fw"] if node["fw"] is not None else fw
            vis = vis and node["visible"]
        cols["parent"].append(parent)
        cols["kind"].append(TEXT if text else ELEMENT)
        cols["tag"].append(node["tag"])
        cols["text"].append(node.get("text", ""))
        cols["box"].append(node["box"])
        cols["bg"].append(bg)
        cols["font_size"].append(fs)
        cols["font_weight"].append(fw)
        disp = "inline" if text else (node["display"] or DISPLAY.get(
            node["tag"], "inline" if node["tag"] in INLINE else "block"))
        cols["display"].append(disp)
        cols["visible"].append(vis)
        if not text:
            for c in node["children"]:
                add(c, i, bg, fs, fw, vis)

    bottom = max([c["box"][1] + c["box"][3] for c in body_children] + [0])
    height = height if height is not None else bottom + 20
    root = E("html", (0, 0, width, height),
             E("body", body_box or (0, 0, width, height), *body_children),
             bg=(255, 255, 255), fs=16, fw=400)
    add(root, -1, (255, 255, 255), 16, 400, True)
    n = len(cols["parent"])
    return Page.from_columns(
        parent=cols["parent"], kind=cols["kind"], tag=cols["tag"], text=cols["text"],
        attrs=[None] * n, box=cols["box"], bg=cols["bg"], font_size=cols["font_size"],
        font_weight=cols["font_weight"], display=cols["display"], visible=cols["visible"],
        has_layout=True, width=float(width), height=float(height))


def para(text, x, y, w=400, h=20, **kw):
    """<p> with one text node filling it."""
    return E("p", (x, y, w, h), T(text, (x, y, w, h)), **kw)


def tags(page: Page, blocks: list[VisualBlock]) -> list[str]:
    return ["+".join(page.tag[v] for v in b.nodes) for b in blocks]


def texts(page: Page, blocks: list[VisualBlock]) -> list[str]:
    return [" ".join(page.node_text(v) for v in b.nodes) for b in blocks]


VIPS = VipsSegmenter()


# ------------------------------------------------------------------ registry
def test_registered_with_layout_flag():
    seg = get_segmenter("vips", pdoc=0.7, max_depth=3)
    assert isinstance(seg, VipsSegmenter)
    assert seg.name == "vips" and seg.needs_layout is True
    assert seg.pdoc == 0.7 and seg.max_depth == 3
    assert seg.params()["pdoc"] == 0.7


def test_needs_layout():
    page = build(para("x", 0, 0))
    page.has_layout = False
    with pytest.raises(NoLayoutError):
        VIPS.segment(page)


# ------------------------------------------------------------------ separator detection
def test_two_columns_give_one_vertical_separator():
    boxes = [(0, 0, 300, 500), (400, 0, 1000, 480)]
    v = VIPS.separators(boxes, axis=0)
    assert len(v) == 1
    s0, s1 = v[0]
    assert 300 <= s0 < s1 <= 400
    assert VIPS.separators(boxes, axis=1) == []


def test_three_stacked_rows_give_two_horizontal_separators():
    boxes = [(0, 0, 800, 100), (0, 130, 800, 300), (0, 340, 800, 400)]
    h = VIPS.separators(boxes, axis=1)
    assert len(h) == 2
    assert 100 <= h[0][0] < h[0][1] <= 130 and 300 <= h[1][0] < h[1][1] <= 340
    assert VIPS.separators(boxes, axis=0) == []


def test_separator_algorithm_split_update_remove():
    """The paper's Fig. 5 steps: contained -> split, crossing -> update, covering -> remove."""
    seg = VipsSegmenter(overlap_tolerance=0)
    # three blocks split the pool; the fourth crosses the end of the second separator
    boxes = [(0, 0, 10, 10), (0, 20, 10, 30), (0, 60, 10, 70), (0, 35, 10, 65)]
    assert seg.separators(boxes, axis=1) == [(10, 20), (30, 35)]
    # a block covering a separator removes it
    assert seg.separators(boxes + [(0, 8, 10, 22)], axis=1) == [(30, 35)]
    assert seg.separators([(0, 0, 10, 10)], axis=1) == []  # separators at the border go
    # with the default tolerance, touching blocks leave a zero-width separator
    assert VIPS.separators([(0, 0, 10, 10), (0, 10, 10, 20)], axis=1) == [(10, 10)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from([0, 0, 1, 2, 3, 5, 8, 13])),
                min_size=1, max_size=12), st.integers(0, 3), st.integers(0, 3))
def test_sweep_equals_the_papers_algorithm(starts, pad_lo, pad_hi):
    spans = [(float(a), float(a + d)) for a, d in starts]
    lo = min(a for a, _ in spans) - pad_lo
    hi = max(b for _, b in spans) + pad_hi
    assert separators_sweep(spans, lo, hi) == separators_paper(spans, lo, hi)


def test_large_pools_use_the_sweep_with_the_same_result(monkeypatch):
    rng = np.random.default_rng(7)
    boxes = [(0.0, float(y), 500.0, float(y + h)) for y, h in
             zip(rng.integers(0, 5000, 200), rng.integers(0, 60, 200), strict=True)]
    fast = VIPS.separators(boxes, axis=1)
    assert len(fast) > 10
    monkeypatch.setattr("webseg.segmenters.vips.SWEEP_ABOVE", 10**9)
    assert VIPS.separators(boxes, axis=1) == fast


def test_small_overlaps_are_tolerated():
    # columns overlapping by 2 px still have a separator between them
    assert len(VIPS.separators([(0, 0, 502, 100), (500, 0, 800, 100)], axis=0)) == 1


def _weights(page: Page, root: int | None = None) -> list[Separator]:
    return VIPS.detect(page, VIPS.extract(page, root))


def test_hr_in_separator_raises_weight():
    plain = build(para("one", 0, 0), para("two", 0, 30))
    ruled = build(para("one", 0, 0), E("hr", (0, 14 + 10, 400, 2)), para("two", 0, 30))
    (w_plain,) = [s.weight for s in _weights(plain)]
    (w_ruled,) = [s.weight for s in _weights(ruled)]
    assert w_ruled > w_plain


def test_bigger_gap_raises_weight():
    near = build(para("one", 0, 0), para("two", 0, 22))
    far = build(para("one", 0, 0), para("two", 0, 80))
    assert _weights(far)[0].weight > _weights(near)[0].weight


def test_font_and_background_differences_raise_weight():
    base = build(para("one", 0, 0), para("two", 0, 26))
    heading = build(para("one", 0, 0), para("Two", 0, 26, h=30, fs=28, fw=700))
    coloured = build(para("one", 0, 0), para("two", 0, 26, bg=(30, 60, 90)))
    w0 = _weights(base)[0].weight
    assert _weights(heading)[0].weight > w0
    assert _weights(coloured)[0].weight > w0


def test_similar_neighbours_lower_weight():
    # same gap; the same kind of block on both sides vs. an image next to text
    similar = build(para("one", 0, 0), para("two", 0, 28))
    mixed = build(para("one", 0, 0), E("img", (0, 28, 400, 20)))
    assert _weights(similar)[0].weight < _weights(mixed)[0].weight


# ------------------------------------------------------------------ extraction rules
def test_rule1_invisible_and_empty_nodes_are_dropped():
    page = build(
        para("seen", 0, 0),
        E("div", (0, 30, 400, 40)),                                   # empty
        E("div", (0, 80, 400, 20), T("hidden", (0, 80, 400, 20)), visible=False),
        E("div", (-9999, 0, 200, 20), T("skip to content", (-9999, 0, 200, 20))),
        E("img", (0, 110, 0, 0)),                                     # zero size
        E("img", (0, 120, 1, 1)),                                     # tracking pixel
        para("also seen", 0, 130))
    pool = VIPS.extract(page)
    assert texts(page, pool) == ["seen", "also seen"]


def test_rule2_single_child_chains_are_traced():
    page = build(E("div", (0, 0, 800, 200),
                   E("div", (0, 0, 800, 200),
                     E("div", (0, 0, 800, 200),
                       para("first", 0, 0, w=800, h=90), para("second", 0, 110, w=800, h=90)))))
    pool = VIPS.extract(page)
    assert tags(page, pool) == ["p", "p"]
    assert [b.rule for b in pool] == ["text", "text"]


def node_of(page: Page, tag: str, k: int = 0) -> int:
    return [i for i, t in enumerate(page.tag) if t == tag][k]


def test_rule4_text_children_make_one_coherent_block():
    same = build(E("div", (0, 0, 900, 300),
                   E("div", (0, 0, 900, 20), T("plain ", (0, 0, 50, 20)),
                     E("a", (50, 0, 50, 20), T("link", (50, 0, 50, 20))),
                     T(" tail", (100, 0, 50, 20))),
                   para("other", 0, 200, w=900)))
    pool = VIPS.extract(same, root=node_of(same, "div"))
    assert texts(same, pool)[0] == "plain link tail" and tags(same, pool)[0] == "div"
    assert pool[0].rule == "text" and pool[0].doc == 1.0 and pool[0].atomic
    mixed = build(E("div", (0, 0, 900, 300),
                    E("div", (0, 0, 900, 20), T("plain ", (0, 0, 50, 20)),
                      E("b", (50, 0, 50, 20), T("bold", (50, 0, 50, 20)), fw=700)),
                    para("other", 0, 200, w=900)))
    assert VIPS.extract(mixed, root=node_of(mixed, "div"))[0].doc == 0.9


def test_br_run_splits_a_text_block():
    def page(brs):
        kids = [T("first topic", (0, 0, 300, 20))]
        kids += [E("br", (300, 0, 0, 20)) for _ in range(brs)]
        kids += [T("second topic", (0, 60, 300, 20))]
        return build(E("div", (0, 0, 900, 80), *kids), para("footer", 0, 300, w=900))

    three = page(3)  # "more than two successive <BR>"
    assert texts(three, VIPS.extract(three))[:2] == ["first topic", "second topic"]
    assert texts(two := page(2), VipsSegmenter(br_run=2).extract(two))[:2] == [
        "first topic", "second topic"]
    for brs in (1, 2):
        assert texts(page(brs), VIPS.extract(page(brs)))[0] == "first topic second topic"


def test_rule5_line_break_child_divides_a_paragraph():
    page = build(E("p", (0, 0, 900, 300),
                   T("intro", (0, 0, 100, 20)),
                   E("div", (0, 100, 900, 200), T("boxed", (0, 100, 100, 20)))),
                 para("other", 0, 400, w=900))
    assert texts(page, VIPS.extract(page))[:2] == ["intro", "boxed"]
    inline = build(E("p", (0, 0, 900, 300),
                     T("intro", (0, 0, 100, 20)),
                     E("span", (0, 100, 900, 20), T("inline", (0, 100, 100, 20)))),
                   para("other", 0, 400, w=900))
    assert texts(inline, VIPS.extract(inline))[0] == "intro inline"


def test_rule6_hr_child_divides():
    def page(hr):
        kids = [para("a", 0, 0, w=300), para("b", 0, 40, w=300)]
        if hr:
            kids.insert(1, E("hr", (0, 30, 300, 2)))
        return build(E("div", (0, 0, 300, 60), *kids), para("rest", 0, 900, w=900, h=300))

    assert tags(page(False), VIPS.extract(page(False)))[0] == "div"  # kept (rule 9)
    with_hr = page(True)
    assert tags(with_hr, VIPS.extract(with_hr))[:2] == ["p", "p"]


def test_rule7_child_with_other_background_is_kept_whole():
    page = build(E("div", (0, 0, 1000, 600),
                   E("div", (0, 0, 1000, 100), para("Site", 0, 0), para("tagline", 0, 50),
                     bg=(20, 40, 80)),
                   para("body text", 0, 200, w=1000, h=400)))
    pool = VIPS.extract(page)
    assert pool[0].rule == "bg" and texts(page, pool)[0] == "Site tagline"
    assert 0.4 <= pool[0].doc <= 0.8


# rule 9 would keep these small cells whole before rules 7 and 10 are reached: lower it
TABLES = VipsSegmenter(small_child=0.1, special_factor=1.0)


def cell_table(first_bg=None, first_single=False):
    def cell(i):
        x = i * 300
        kids = [para(f"c{i}", x, 0, 300, 190), para(f"d{i}", x, 210, 300, 190)]
        if i == 0 and first_single:
            kids = [E("div", (x, 0, 300, 400), *kids)]
        return E("td", (x, 0, 300, 400), *kids, bg=first_bg if i == 0 else None)

    return build(E("table", (0, 0, 900, 400), E("tbody", (0, 0, 900, 400), E(
        "tr", (0, 0, 900, 400), cell(0), cell(1), cell(2)))),
        para("rest", 0, 500, w=900, h=500))


def test_rule7_table_row_splits_on_background():
    page = cell_table(first_bg=(200, 200, 200))
    pool = TABLES.extract(page, root=node_of(page, "tr"))
    assert tags(page, pool) == ["td", "td", "td"]
    # the first cell is kept (other background); the next ones follow it (rule 10)
    assert [b.rule for b in pool] == ["bg", "sibling", "sibling"]


def test_rule10_cells_follow_the_previous_sibling():
    kept = cell_table()
    pool = TABLES.extract(kept, root=node_of(kept, "tr"))
    assert tags(kept, pool) == ["td", "td", "td"]
    assert [b.rule for b in pool] == ["keep", "sibling", "sibling"]
    # the first cell is traced into its only child (divided): the others are divided too
    traced = cell_table(first_single=True)
    pool = TABLES.extract(traced, root=node_of(traced, "tr"))
    assert tags(traced, pool) == ["p"] * 6


def test_table_kept_with_size_based_doc():
    def table(h):
        rows = [E("tr", (0, i * h / 2, 900, h / 2),
                  E("td", (0, i * h / 2, 900, h / 2), T(f"r{i}", (0, i * h / 2, 50, 20))))
                for i in range(2)]
        return build(E("table", (0, 0, 900, h), E("tbody", (0, 0, 900, h), *rows)),
                     para("rest", 0, h + 100, w=900, h=2000))

    small, big = table(40), table(1000)
    (ts,) = [b for b in VIPS.extract(small) if small.tag[b.nodes[0]] == "tbody"]
    (tb,) = [b for b in VIPS.extract(big) if big.tag[b.nodes[0]] == "tbody"]
    assert ts.doc > tb.doc
    assert 0.3 <= tb.doc <= 0.6 < ts.doc <= 0.8


def test_size_rule_divides_mostly_empty_nodes():
    def page(h):
        return build(E("div", (0, 0, 300, h), para("a", 0, 0, 280, 20),
                       para("b", 0, h - 20, 280, 20)),
                     para("rest", 0, 1000, w=1000, h=1000))

    assert tags(page(60), VIPS.extract(page(60)))[0] == "div"    # compact: kept (rule 9)
    assert tags(page(400), VIPS.extract(page(400)))[:2] == ["p", "p"]  # 3x its children


def test_rule8_small_node_with_text_is_kept():
    page = build(E("div", (0, 0, 200, 60), T("caption", (0, 0, 100, 20)),
                   E("div", (0, 30, 200, 30), T("more", (0, 30, 100, 20)))),
                 para("rest", 0, 100, w=1000, h=1000))
    first = VIPS.extract(page)[0]
    assert page.tag[first.nodes[0]] == "div" and first.rule == "small" and first.doc == 0.7


def test_rule9_list_of_small_items_is_kept():
    items = [E("li", (0, i * 20, 300, 20), E("a", (0, i * 20, 100, 20),
                                             T(f"item {i}", (0, i * 20, 100, 20))))
             for i in range(8)]
    page = build(E("ul", (0, 0, 300, 160), *items), para("rest", 0, 200, w=1000, h=1000))
    first = VIPS.extract(page)[0]
    assert page.tag[first.nodes[0]] == "ul" and first.rule == "small-children"


# ------------------------------------------------------------------ construction
def two_column_page():
    return build(
        E("div", (0, 0, 1000, 80), para("Header title", 20, 20, fs=28, fw=700),
          bg=(30, 30, 90)),
        E("div", (0, 100, 650, 600), *[para(f"article text {i} " * 5, 0, 100 + 120 * i,
                                            w=650, h=100) for i in range(5)]),
        E("div", (700, 100, 300, 300), *[E("li", (700, 100 + 30 * i, 300, 25),
                                           T(f"link {i}", (700, 100 + 30 * i, 100, 20)))
                                         for i in range(5)], bg=(230, 230, 230)),
        E("div", (0, 740, 1000, 40), para("footer", 0, 750, w=1000), bg=(60, 60, 60)))


def test_columns_and_rows_are_separate_top_level_segments():
    page = two_column_page()
    seg = VIPS.segment(page)
    top = seg.at_level(1)
    assert len(top) == 4
    lab = seg.leaf_labels(1)
    leaves = page.text_leaves.tolist()

    def label(word):
        return {lab[k] for k, i in enumerate(leaves) if word in page.text[i]}

    header, article, sidebar, footer = (label(w) for w in ("Header", "article", "link",
                                                             "footer"))
    assert all(len(x) == 1 for x in (header, article, sidebar, footer))
    assert len(header | article | sidebar | footer) == 4
    assert UNASSIGNED not in lab.tolist()


def test_different_backgrounds_split():
    def page(bg):  # two touching bands, texts 10 px apart
        return build(E("div", (0, 0, 800, 30), para("top text", 0, 5, w=800), bg=bg),
                     E("div", (0, 30, 800, 30), para("bottom text", 0, 35, w=800)))

    plain, coloured = page(None), page((200, 0, 0))
    assert _weights(coloured)[0].weight > _weights(plain)[0].weight
    lab = VIPS.segment(coloured).leaf_labels(1)
    assert lab[0] != lab[1]


def test_doc_never_decreases_downwards_and_levels_are_bounded():
    page = two_column_page()
    for pdoc in (0.3, 0.6, 0.9):
        for depth in (1, 2, 5):
            seg = VipsSegmenter(pdoc=pdoc, max_depth=depth).segment(page)
            assert seg.depth <= depth
            for s in seg:
                assert 0.0 <= s.attrs["doc"] <= 1.0 and "rule" in s.attrs
                if s.parent is not None:
                    assert s.attrs["doc"] >= seg[s.parent].attrs["doc"]


def test_higher_pdoc_gives_finer_structure():
    page = two_column_page()
    counts = [len(VipsSegmenter(pdoc=p).segment(page).at_level(None)) for p in (0.2, 0.6, 0.95)]
    assert counts == sorted(counts) and counts[-1] > counts[0]


def test_lowest_weight_separators_merge_first():
    # two sections of three paragraphs: paragraphs are 6 px apart (weak separators), sections
    # 60 px (strong): paragraphs merge into sections, sections stay apart at level 1
    kids = []
    y = 0
    for sec in range(2):
        for i in range(3):
            kids.append(para(f"para {sec}.{i} " * 6, 0, y, w=800, h=40))
            y += 46
        y += 54
    page = build(E("div", (0, 0, 800, y), *kids))
    seps = _weights(page, node_of(page, "div"))
    assert len(seps) == 5 and all(s.axis == 1 for s in seps)
    (strong,) = [s.weight for s in seps if s.end - s.start > 50]
    assert all(s.weight < strong for s in seps if s.end - s.start < 50)
    seg = VipsSegmenter(pdoc=0.9).segment(page)
    lab = seg.leaf_labels(1)
    assert len(set(lab[:3].tolist())) == 1 and len(set(lab[3:].tolist())) == 1
    assert lab[0] != lab[3]
    assert len(set(seg.leaf_labels(None).tolist())) == 6


def test_overlapping_blocks_form_one_object():
    page = build(E("div", (0, 0, 1000, 300),
                   E("img", (0, 0, 600, 300)),
                   E("div", (20, 20, 300, 40), T("caption on the image", (20, 20, 300, 20)))),
                 para("below", 0, 400, w=1000))
    seg = VIPS.segment(page)
    lab = seg.leaf_labels(1)
    assert lab[0] != lab[1]  # caption (on the image) vs. paragraph below


# ------------------------------------------------------------------ robustness
def test_empty_pages():
    bare = Page.from_columns(parent=[-1], kind=[ELEMENT], tag=["html"], text=[""],
                             attrs=[None], box=[(0, 0, 0, 0)], has_layout=True)
    assert len(VIPS.segment(bare)) == 0
    no_text = build(E("div", (0, 0, 100, 100)), E("div", (0, 100, 100, 100)))
    assert len(VIPS.segment(no_text)) == 0
    images_only = build(E("img", (0, 0, 100, 100)))
    s = VIPS.segment(images_only)
    assert len(s) == 1 and s.leaf_labels().size == 0


def test_one_paragraph_is_one_segment():
    page = build(para("only this", 0, 0))
    seg = VIPS.segment(page)
    assert len(seg) == 1 and seg.leaf_labels().tolist() == [0]


def test_odd_geometry_does_not_crash():
    page = build(
        para("normal", 0, 0),
        E("div", (-9999, -9999, 100, 100), T("far away", (-9999, -9999, 100, 20))),
        E("div", (0, 50, 0, 0), T("in a zero-size box", (0, 50, 200, 20))),
        E("div", (-50, 100, 300, 40), T("partly off-screen", (-50, 100, 300, 20))),
        E("div", (5000, 5000, 100, 100), T("beyond the page", (5000, 5000, 100, 20))),
        E("div", (0, 200, 500, 50), T("a", (0, 200, 20, 20)), E("br", (20, 200, 0, 0)),
          E("br", (20, 200, 0, 0)), T("b", (0, 230, 20, 20))),
        width=800, height=400)
    seg = VIPS.segment(page)
    lab = dict(zip([page.leaf_text(i) for i in page.text_leaves], seg.leaf_labels().tolist(),
                   strict=True))
    for seen in ("normal", "in a zero-size box", "partly off-screen", "a", "b"):
        assert lab[seen] != UNASSIGNED
    assert lab["far away"] == UNASSIGNED and lab["beyond the page"] == UNASSIGNED


def test_deep_and_large_pages():
    # a 600-level nest of divs around a paragraph, and 3000 paragraphs in 300 sections
    node = para("deep", 0, 0)
    for _ in range(600):
        node = E("div", (0, 0, 400, 20), node)
    deep = build(node, para("shallow", 0, 100))
    assert UNASSIGNED not in VIPS.segment(deep).leaf_labels().tolist()
    sections = [E("div", (0, s * 400, 800, 380),
                  *[para(f"s{s} p{i}", 0, s * 400 + 38 * i, w=800, h=30) for i in range(10)])
                for s in range(300)]
    big = build(*sections)
    seg = VIPS.segment(big)
    assert big.n > 6000 and UNASSIGNED not in seg.leaf_labels().tolist()
    assert len(seg.at_level(1)) >= 2


def test_segments_are_json_serialisable():
    seg = VIPS.segment(two_column_page())
    assert '"doc"' in seg.to_json()
    assert np.isfinite([v for s in seg for v in s.box]).all()


# ------------------------------------------------------------------ rendered page
@pytest.mark.browser
def test_news_fixture_end_to_end():
    from webseg.render import Renderer

    with Renderer() as r:
        page = r.render(FIXTURES / "news.html")
    seg = get_segmenter("vips").segment(page)
    leaves = page.text_leaves.tolist()

    def labels(level, needle):
        lab = seg.leaf_labels(level)
        hits = {int(lab[k]) for k, i in enumerate(leaves) if needle in page.leaf_text(i)}
        assert hits, needle
        return hits

    header, footer = labels(1, "News from the quay"), labels(1, "Privacy")
    assert len(header) == 1 and len(footer) == 1 and header != footer
    nav = labels(1, "Weather") & labels(1, "Sport")
    assert nav and not nav & (header | footer)
    article = labels(None, "island ferry")
    sidebar = labels(None, "Lifeboat crew")
    assert not article & sidebar
    assert not labels(1, "island ferry") & labels(1, "Lifeboat crew")
    assert UNASSIGNED not in seg.leaf_labels(None).tolist()
