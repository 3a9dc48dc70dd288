"""WPS-graph construction (Algorithm 1), labelling <-> Segmentation, gold boundary labels."""

from __future__ import annotations

import numpy as np
import pytest

from webseg.page import ELEMENT, TEXT, Page
from webseg.wps import HORIZONTAL, VERTICAL, build_graph, gold_boundary_labels
from webseg.wps.graph import raw_boundary_labels


def make_page(rows, width=1000.0, height=400.0) -> Page:
    """rows: (parent, tag, text, box, visible) in pre-order."""
    n = len(rows)
    return Page.from_columns(
        parent=[r[0] for r in rows], kind=[TEXT if r[1] == "#text" else ELEMENT for r in rows],
        tag=[r[1] for r in rows], text=[r[2] for r in rows], attrs=[None] * n,
        box=[r[3] for r in rows], visible=[r[4] if len(r) > 4 else True for r in rows],
        has_layout=True, width=width, height=height)


def header_two_columns() -> Page:
    """header / (left | right) / footer, plus hidden, zero-size and off-page noise."""
    return make_page([
        (-1, "html", "", (0, 0, 1000, 400)),          # 0
        (0, "body", "", (0, 0, 1000, 400)),           # 1
        (1, "div", "", (0, 0, 1000, 100)),            # 2 header
        (2, "#text", "Header", (10, 10, 200, 20)),    # 3
        (1, "div", "", (0, 120, 1000, 200)),          # 4 main
        (4, "div", "", (0, 120, 400, 200)),           # 5 left
        (5, "#text", "Left", (10, 130, 100, 20)),     # 6
        (4, "div", "", (500, 120, 500, 200)),         # 7 right
        (7, "#text", "Right", (510, 130, 100, 20)),   # 8
        (4, "img", "", (300, 200, 0, 0)),             # 9 zero-size image: ignored
        (1, "div", "", (0, 340, 1000, 50)),           # 10 footer
        (10, "#text", "Footer", (10, 350, 100, 20)),  # 11
        (1, "div", "", (0, 380, 1000, 10), False),    # 12 hidden
        (12, "#text", "Hidden", (0, 380, 100, 10), False),  # 13
        (1, "div", "", (-5000, 200, 100, 20)),        # 14 off-page
        (14, "#text", "Away", (-5000, 200, 100, 20)),  # 15
    ])


def test_header_over_two_columns():
    g = build_graph(header_two_columns())
    assert g.n == 3
    assert g.orientation.tolist() == [HORIZONTAL, HORIZONTAL, VERTICAL]
    assert g.position.tolist() == pytest.approx([80.0, 250.0, 310.0])
    assert g.gap.tolist() == pytest.approx([100.0, 200.0, 400.0])
    assert g.deps == [(), (), (0, 1)]
    assert g.edges.tolist() == [[0, 2], [1, 2]]
    assert g.depth.tolist() == [0, 0, 1]
    # sides: header | main, main | footer, left | right
    assert g.side_nodes(0) == ((2,), (5, 7))
    assert g.side_nodes(1) == ((5, 7), (10,))
    assert g.side_nodes(2) == ((5,), (7,))
    root = g.regions[0]
    assert root.items == (2, 4, 10)  # hidden and off-page subtrees are not items
    assert root.split == HORIZONTAL and root.boundaries == (0, 1)
    # regions are rectangles tiling their parent
    rects = [g.regions[c].rect for c in root.children]
    assert rects == [(0, 0, 1000, 80), (0, 80, 1000, 250), (0, 250, 1000, 400)]
    mid = g.regions[root.children[1]]
    assert [g.regions[c].rect for c in mid.children] == [(0, 80, 310, 250), (310, 80, 1000, 250)]
    assert [g.regions[c].forming for c in mid.children] == [(2,), (2,)]
    assert [g.regions[c].forming for c in root.children] == [(0,), (0, 1), (1,)]


def table_page(rows: int) -> Page:
    """body > table > tbody > tr* > (td > text, td > text); one row per 50 px."""
    spec = [(-1, "html", "", (0, 0, 800, 50 * rows)), (0, "body", "", (0, 0, 800, 50 * rows)),
            (1, "table", "", (0, 0, 800, 50 * rows)), (2, "tbody", "", (0, 0, 800, 50 * rows))]
    for r in range(rows):
        tr = len(spec)
        y = 50.0 * r
        spec.append((3, "tr", "", (0, y, 800, 40)))
        for c in range(2):
            td = len(spec)
            spec.append((tr, "td", "", (400 * c, y, 400, 40)))
            spec.append((td, "#text", f"r{r}c{c}", (400 * c + 5, y + 5, 100, 20)))
    return make_page(spec, width=800, height=50 * rows)


def test_single_subtree_chain_recurses_to_cells():
    g = build_graph(table_page(1))  # body > table > tbody > one tr: the tds are split
    assert g.n == 1 and g.orientation.tolist() == [VERTICAL]
    assert g.side_nodes(0) == ((5,), (7,))
    assert g.deps == [()]


def test_table_rows_then_cells():
    g = build_graph(table_page(3))
    assert g.orientation.tolist() == [HORIZONTAL] * 2 + [VERTICAL] * 3
    assert g.side_nodes(0) == ((5, 7), (10, 12))  # row | row, each opened into its cells
    # the cells of row k depend on the row boundaries around it: at most two
    assert g.deps == [(), (), (0,), (0, 1), (1,)]
    assert all(len(d) <= 2 for d in g.deps)


def test_labelling_to_segmentation_round_trip():
    page = header_two_columns()
    g = build_graph(page)
    seg = g.to_segmentation([True, True, True])
    top = seg.children(None)
    assert [s.nodes for s in top] == [(2,), (5, 7), (10,)]
    main = top[1]
    assert [s.nodes for s in seg.children(main.id)] == [(5,), (7,)]
    assert seg.depth == 2
    # the off-page text is a page text leaf but no segment covers it
    assert page.text_leaves.tolist() == [3, 6, 8, 11, 15]
    finest = seg.leaf_labels(None).tolist()
    assert len(set(finest[:4])) == 4 and finest[4] == -1
    assert seg.leaf_labels(1).tolist()[1] == seg.leaf_labels(1).tolist()[2]
    # fewer Y: header | rest, nothing else
    seg2 = g.to_segmentation([True, False, False])
    assert [s.nodes for s in seg2.segments] == [(2,), (5, 7, 10)]
    # no Y: the page is one segment
    assert len(g.to_segmentation([False] * 3)) == 1
    with pytest.raises(ValueError, match="violates WPS dependencies"):
        g.to_segmentation([False, True, True])
    assert not g.is_feasible([False, True, True])
    assert g.closure([False, True, True]).tolist() == [False, True, False]
    loose = g.to_segmentation([False, True, True], check=False)  # as its closure
    assert [s.nodes for s in loose.segments] == [(2, 5, 7), (10,)]


def test_gold_labels_round_trip():
    page = header_two_columns()
    g = build_graph(page)
    gold = np.array([0, 1, 2, 3, 4])  # every text leaf its own block
    y = gold_boundary_labels(g, gold)
    assert y.tolist() == [True, True, True]
    pred = g.to_segmentation(y).leaf_labels(None)
    assert len(set(pred[:4].tolist())) == 4
    gold = np.array([0, 1, 1, 2, 3])  # the two columns are one block
    assert gold_boundary_labels(g, gold).tolist() == [True, True, False]
    gold = np.array([-1, 5, 5, -1, 6])  # unassigned header and footer
    assert gold_boundary_labels(g, gold).tolist() == [True, True, False]
    with pytest.raises(ValueError, match="text leaves"):
        gold_boundary_labels(g, np.array([0, 1]))


def test_gold_projection_makes_labels_feasible():
    g = build_graph(table_page(2))
    # leaves r0c0 r0c1 r1c0 r1c1: the row boundary would cut block 1, cells split 0|1 and 1|2
    gold = np.array([0, 1, 1, 2])
    raw = raw_boundary_labels(g, gold)
    assert raw.tolist() == [False, True, True]
    assert not g.is_feasible(raw)
    assert gold_boundary_labels(g, gold, project="closure").tolist() == [False, False, False]
    # ILP: cutting block 1 costs n_weight, enabling two correct cuts gains 2
    assert gold_boundary_labels(g, gold, n_weight=1.5).tolist() == [True, True, True]
    assert gold_boundary_labels(g, gold, n_weight=3.0).tolist() == [False, False, False]
    for project in ("ilp", "closure"):
        assert g.is_feasible(gold_boundary_labels(g, gold, project=project))
    with pytest.raises(ValueError, match="project"):
        gold_boundary_labels(g, gold, project="bogus")


def test_empty_and_single_leaf_pages():
    page = make_page([(-1, "html", "", (0, 0, 100, 100)), (0, "body", "", (0, 0, 100, 100))])
    g = build_graph(page)
    assert g.n == 0 and g.edges.shape == (0, 2)
    assert len(g.to_segmentation([])) == 0
    page = make_page([(-1, "html", "", (0, 0, 100, 100)), (0, "body", "", (0, 0, 100, 100)),
                      (1, "#text", "x", (0, 0, 10, 10))])
    g = build_graph(page)
    assert g.n == 0 and len(g.to_segmentation([])) == 1


def test_no_layout_is_an_error():
    page = Page.from_columns(parent=[-1], kind=[ELEMENT], tag=["html"], text=[""],
                             attrs=[None], has_layout=False)
    with pytest.raises(ValueError, match="without a browser"):
        build_graph(page)
