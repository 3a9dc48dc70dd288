import csv
import json
from pathlib import Path

import numpy as np
import pytest

from eval.segmentation import gold_labels, main
from eval.splits import select, split_of
from tests.helpers import sample_page

FIXTURE = Path(__file__).parent / "fixtures" / "news.html"


def test_gold_labels_innermost_block_and_unassigned():
    p = sample_page()
    blocks = [{"xpath": "/html[1]/body[1]/div[1]", "level": 1},
              {"xpath": "/html[1]/body[1]/div[1]/p[2]", "level": 2},
              {"xpath": "/html[1]/body[1]/div[2]", "level": 1},
              {"xpath": "/html[1]/body[1]/table[1]", "level": 1}]
    l1, n1, missing = gold_labels(p, blocks, 1)
    assert l1.tolist() == [0, 0, 2, -1] and n1 == 2 and missing == ["/html[1]/body[1]/table[1]"]
    l2, n2, _ = gold_labels(p, blocks, 2)
    assert l2.tolist() == [0, 1, 2, -1] and n2 == 3


def test_splits_are_stable_and_partition():
    ids = [f"site{i}.example" for i in range(200)]
    assert split_of("www.ilse.nl") == split_of("www.ilse.nl")
    parts = [set(select(ids, s)) for s in ("train", "val", "test")]
    assert sum(map(len, parts)) == 200 and not (parts[0] & parts[2])
    assert set(select(ids, "dev")) == parts[0] | parts[1]
    assert 30 < len(parts[0]) < 70 and 70 < len(parts[2]) < 130


@pytest.mark.browser
def test_harness_end_to_end(tmp_path):
    data = tmp_path / "data"
    (data / "pages" / "news").mkdir(parents=True)
    (data / "gold").mkdir()
    (data / "pages" / "news" / "page.html").write_bytes(FIXTURE.read_bytes())
    blocks = [{"xpath": "/html[1]/body[1]/header[1]", "level": 1, "type": "Header"},
              {"xpath": "/html[1]/body[1]/nav[1]", "level": 1, "type": "Menu"},
              {"xpath": "/html[1]/body[1]/div[1]/main[1]", "level": 1, "type": "Content"},
              {"xpath": "/html[1]/body[1]/div[1]/aside[1]", "level": 1, "type": "Sidebar"},
              {"xpath": "/html[1]/body[1]/div[1]/aside[1]/ul[1]", "level": 2, "type": "LinkList"},
              {"xpath": "/html[1]/body[1]/footer[1]", "level": 1, "type": "Footer"}]
    (data / "gold" / "news.json").write_text(json.dumps({"id": "news", "blocks": blocks}))
    (data / "manifest.jsonl").write_text(json.dumps({
        "id": "news", "html": "pages/news/page.html", "gold": "gold/news.json",
        "render": {"javascript": False, "viewport_width": 1280}}) + "\n")
    out = tmp_path / "out"
    assert main(["--data", str(data), "--algos", "single,dom", "--out", str(out),
                 "--cache", str(tmp_path / "cache"), "--quiet"]) == 0
    rows = list(csv.DictReader((out / "per_page.csv").open()))
    assert {(r["segmenter"], r["level"]) for r in rows} == {
        ("single", "1"), ("single", "2"), ("dom", "1"), ("dom", "2")}
    by = {(r["segmenter"], r["level"]): r for r in rows}
    assert float(by["single", "1"]["ari"]) == 0.0
    # dom's level 1 is header, nav, the main+aside wrapper, footer: 4 blocks for 5 gold ones;
    # its level 2 splits the wrapper, so the level-2 gold is matched better
    assert by["dom", "1"]["n_pred"] == "4"
    assert 0.5 < float(by["dom", "1"]["ari"]) < float(by["dom", "2"]["ari"])
    assert by["dom", "1"]["gold_missing"] == "0"
    assert (out / "ari_cdf.png").stat().st_size > 1000
    assert "| 1 | dom |" in (out / "summary.md").read_text()
    # the rendered page is cached: a second run reuses it
    assert len(list((tmp_path / "cache").glob("*.page.json.gz"))) == 1
    assert main(["--data", str(data), "--algos", "dom", "--out", str(out),
                 "--cache", str(tmp_path / "cache"), "--quiet"]) == 0
    assert np.isfinite(float(by["dom", "2"]["nmi"]))
