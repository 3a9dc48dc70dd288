"""The ``wps-margin`` / ``wps-slack`` segmenters: shipped model, hand-built and rendered pages."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.test_wps_graph import header_two_columns
from webseg.segmentation import UNASSIGNED
from webseg.segmenters import Segmenter, available, get_segmenter
from webseg.segmenters.wps import WPSSegmenter, two_level
from webseg.wps import build_graph
from webseg.wps.features import BOUNDARY_FEATURES
from webseg.wps.train import MODELS_DIR, WPSModel

FIXTURES = Path(__file__).parent / "fixtures"


def constant_model(bias: float) -> WPSModel:
    """Every boundary scores ``bias``: all Y (bias > 0) or all N (bias < 0)."""
    d = len(BOUNDARY_FEATURES)
    w = np.zeros(d)
    w[BOUNDARY_FEATURES.index("bias")] = bias
    return WPSModel(w, np.zeros(d), np.ones(d), "margin", {"C": 1.0})


def test_registered_and_protocol():
    assert {"wps-margin", "wps-slack"} <= set(available())
    seg = get_segmenter("wps-margin")
    assert isinstance(seg, Segmenter) and seg.needs_layout and seg.name == "wps-margin"
    slack = get_segmenter("wps-slack")
    assert slack.name == "wps-slack" and slack.loss == "slack"
    with pytest.raises(ValueError, match="hierarchy"):
        WPSSegmenter(hierarchy="flat")


def test_shipped_model_loads():
    model = get_segmenter("wps-margin").get_model()
    assert model.loss == "margin" and len(model.weights) == len(model.features)
    d = json.loads((MODELS_DIR / "wps-margin.json").read_text())
    assert d["info"]["gold_level"] == 2 and d["info"]["C"] in [float(c) for c in
                                                               d["info"]["Cs"]]


def test_segments_a_hand_built_page_with_the_shipped_model():
    page = header_two_columns()
    seg = get_segmenter("wps-margin").segment(page)
    assert seg.algorithm == "wps-margin" and seg.depth <= 2
    assert seg.params["boundaries"] == 3
    assert UNASSIGNED not in seg.leaf_labels(None)[:4].tolist()  # "Away" is off the page
    assert all("rect" in s.attrs and "wps_level" in s.attrs for s in seg)
    json.loads(seg.to_json())


def test_all_y_and_all_n_models():
    page = header_two_columns()  # header / (left | right) / footer
    seg = WPSSegmenter().set_model(constant_model(1.0)).segment(page)
    assert [len(s.nodes) for s in seg.at_level(1)] == [1, 2, 1]
    lab = seg.leaf_labels(2)[:4]
    assert len(set(lab.tolist())) == 4  # level 2 = finest: left and right split
    assert len(set(seg.leaf_labels(1)[:4].tolist())) == 3
    assert seg.params["boundaries_y"] == 3
    one = WPSSegmenter().set_model(constant_model(-1.0)).segment(page)
    assert len(one) == 1 and one.params["boundaries_y"] == 0
    tree = WPSSegmenter(hierarchy="tree").set_model(constant_model(1.0)).segment(page)
    assert tree.depth == 2 and len(tree) == 5


def test_two_level_collapses_deep_trees():
    from tests.test_wps_graph import make_page

    # body > [a, b > [c, d > [e, f]]]: three nested splits (H, V, H)
    page = make_page([
        (-1, "html", "", (0, 0, 1000, 400)),      # 0
        (0, "body", "", (0, 0, 1000, 400)),       # 1
        (1, "div", "", (0, 0, 1000, 50)),         # 2 a
        (2, "#text", "A", (0, 0, 100, 20)),       # 3
        (1, "div", "", (0, 100, 1000, 300)),      # 4 b
        (4, "div", "", (0, 100, 400, 300)),       # 5 c
        (5, "#text", "C", (0, 100, 100, 20)),     # 6
        (4, "div", "", (500, 100, 500, 300)),     # 7 d
        (7, "div", "", (500, 100, 500, 50)),      # 8 e
        (8, "#text", "E", (500, 100, 100, 20)),   # 9
        (7, "div", "", (500, 300, 500, 50)),      # 10 f
        (10, "#text", "F", (500, 300, 100, 20)),  # 11
    ])
    g = build_graph(page)
    full = g.to_segmentation(np.ones(g.n, dtype=bool))
    assert full.depth == 3
    two = two_level(full)
    assert two.depth == 2
    assert np.array_equal(two.leaf_labels(2) >= 0, full.leaf_labels(None) >= 0)
    # same partition at the finest level, and level 1 unchanged
    assert len(set(two.leaf_labels(2).tolist())) == 4
    assert len(set(two.leaf_labels(1).tolist())) == 2


@pytest.mark.browser
def test_news_fixture_end_to_end(renderer):
    page = renderer.render(FIXTURES / "news.html")
    seg = get_segmenter("wps-margin").segment(page)
    assert len(seg) >= 2 and seg.depth <= 2
    lab = seg.leaf_labels(None)
    assert UNASSIGNED not in lab.tolist()
    leaves = page.text_leaves.tolist()

    def hits(needle):
        return {int(lab[k]) for k, i in enumerate(leaves) if needle in page.leaf_text(i)}

    assert hits("News from the quay") != hits("Privacy")  # header and footer apart


def test_fit_save_load(tmp_path):
    from tests.test_wps_graph import table_page

    pages = [table_page(r) for r in (2, 3, 4)]
    golds = [np.repeat(np.arange(r), 2) for r in (2, 3, 4)]
    seg = WPSSegmenter().fit(pages, golds, C=10.0, eps=0.01)
    out = seg.segment(table_page(5))
    assert len(out.at_level(None)) == 5  # one segment per row
    seg.save(tmp_path / "m.json")
    again = WPSSegmenter.load(tmp_path / "m.json").segment(table_page(5))
    assert again.leaf_labels(None).tolist() == out.leaf_labels(None).tolist()
    with pytest.raises(ValueError, match="margin"):
        WPSSegmenter(loss="slack").fit(pages, golds)


def test_shipped_slack_model_loads():
    model = get_segmenter("wps-slack").get_model()
    assert model.loss == "slack" and model.info["informative_types"] == ["Article", "Content"]
