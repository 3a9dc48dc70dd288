"""eval.prf.passages: the swept passage settings and the paired per-topic check."""

from __future__ import annotations

import pytest

from eval.prf.passages import paired, settings


def test_sweep_settings_start_without_passages_and_cover_the_grid():
    got = list(settings([1.0, 2.0], ["blocks"], ["keep", "mask"]))
    assert got[0] == ("fields only", {})
    assert len(got) == 1 + 4
    assert ("idf blocks, repeated keep, weight 2",
            {"weight": 2.0, "idf": "blocks", "norm": "none"}) in got
    assert dict(got)["idf blocks, repeated mask, weight 1"] == {
        "weight": 1.0, "idf": "blocks", "norm": "none", "repeat_pages": 2, "repeated": "mask"}
    both = dict(settings([1.0], ["blocks"], ["mask"], norms=("none", "max")))
    assert len(both) == 1 + 2
    assert both["norm max, idf blocks, repeated mask, weight 1"]["norm"] == "max"


def test_paired_counts_topics_and_scales_the_reference(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("system,qid,AP\nx,1,0.5\nx,2,0.2\nx,3,0.4\ny,1,0.4\ny,2,0.3\ny,3,0.1\n")
    out = paired(a, "x", "y")
    assert "over 3 topics" in out and "lower on 1, higher on 2" in out
    assert "difference +0.1000" in out
    b = tmp_path / "b.csv"
    b.write_text("system,qid,AP\nclean,1,1.0\nclean,2,0.4\nclean,3,0.8\n")
    assert "mean 0.3667 vs 0.3667" in paired(a, "x", "clean", b, 0.5)
    with pytest.raises(SystemExit):
        paired(a, "x", "missing")
