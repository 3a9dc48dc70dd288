"""The targets verdicts of ``python -m eval.prf.content summarize``."""

from __future__ import annotations

import csv
import json

from eval.prf import content

CHOSEN = {"dev": ["dev-k1-s0"], "blocks": {"source": "vips"}, "k1": 1.5, "b": 0.4,
          "fields": {}, "passages": {}, "model": "max"}


def _write(root, name, ap, clean=0.5):
    rows = [{"system": k, "AP": v} for k, v in ap.items()]
    (root / name).mkdir(parents=True)
    (root / name / "summary.json").write_text(json.dumps({"rows": rows,
                                                          "clean_bm25_map": clean}))


def test_targets_met_row_says_yes_and_no_with_ratios(tmp_path, monkeypatch):
    monkeypatch.setattr(content, "RESULTS", tmp_path)
    _write(tmp_path, "web-k3-s0-max", {
        "bm25-page": 0.4, "bm25-trafilatura": 0.46,
        "bm25f+passages(vips) = default": 0.48,  # 0.95 x 0.5 = 0.475: met
        "rm3-page": 0.45, "blocks(vips) content, default index": 0.5})  # < 1.15 x 0.45
    row = content._targets_met("web-k3-s0", CHOSEN, "-max")
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:2] == ["web-k3-s0-max", "test"]
    assert cells[2] == "yes (1.011)" and cells[3] == "yes (1.043)"
    assert cells[4] == "yes (1.042)" and cells[5] == "**no** (0.966)"
    assert content._targets_met("dev-k1-s0", CHOSEN, "-max") is None  # no results yet


def test_lucene_row_compares_backends_per_topic(tmp_path, monkeypatch):
    monkeypatch.setattr(content, "RESULTS", tmp_path)
    d = tmp_path / "web-k1-s0-lucene"
    d.mkdir()
    systems = {"bm25-page (embedded)": [0.5, 0.3], "bm25-page (lucene)": [0.4, 0.3],
               "bm25f (fields, embedded)": [0.5, 0.5], "bm25f (fields, lucene)": [0.5, 0.5],
               "rm3-page (embedded)": [0.6, 0.2], "rm3-page (lucene, our RM3)": [0.6, 0.1],
               "anserini-rm3 page (lucene)": [0.6, 0.4],
               "blocks(vips) content, lucene fields index": [0.7, 0.3]}
    with (d / "per_topic.csv").open("w", newline="") as fh:  # names hold commas
        w = csv.writer(fh)
        w.writerow(["system", "qid", "AP", "P@10", "nDCG@10", "R@1000"])
        for s, aps in systems.items():
            w.writerows([s, q, ap, 0, 0, 0] for q, ap in zip(("1", "2"), aps, strict=True))
    (d / "summary.json").write_text("{}")
    _write(tmp_path, "web-k1-s0-max", {"blocks(vips) content, default index": 0.55})
    cells = [c.strip() for c in content._lucene_row("web-k1-s0", CHOSEN, "-max")
             .strip("|").split("|")]
    assert cells[1].startswith("0.3500 vs 0.4000 (-0.0500")
    assert cells[2].startswith("0.5000 vs 0.5000 (+0.0000, p 1.000")
    assert cells[3] == "-"  # tables written before the Lucene default row
    assert cells[5] == "0.3000"  # the largest per-topic gap between the two RM3 runs
    assert cells[6:] == ["0.5000", "-", "0.5500"]
    systems |= {"default: bm25f+passages (embedded)": [0.6, 0.4],
                "default: bm25f+passages (lucene)": [0.6, 0.2],
                "blocks(vips) content, lucene default index": [0.8, 0.4]}
    with (d / "per_topic.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["system", "qid", "AP", "P@10", "nDCG@10", "R@1000"])
        for s, aps in systems.items():
            w.writerows([s, q, ap, 0, 0, 0] for q, ap in zip(("1", "2"), aps, strict=True))
    cells = [c.strip() for c in content._lucene_row("web-k1-s0", CHOSEN, "-max")
             .strip("|").split("|")]
    assert cells[3].startswith("0.4000 vs 0.5000 (-0.1000")
    assert cells[6:] == ["0.5000", "0.6000", "0.5500"]
