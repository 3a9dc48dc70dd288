"""The PRF harness: web-collection builder, measures and significance (no browser)."""

from __future__ import annotations

import gzip
import json

import pytest

from eval.prf.build_web_collection import _parse, build, find_main_region
from eval.prf.collection import load_collection
from eval.prf.measures import evaluate, paired_tests

TEMPLATE = b"""<html><head><title>Site</title><script>var x = 1;</script></head><body>
<div id="nav"><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About us</a>
<a href="/contact">Contact</a> Subscribe to our weekly newsletter for more stories</div>
<div id="main"><h1>Old headline here</h1><p>The original article talked about elections
and parliament votes across the country for several days.</p></div>
<div id="side">Popular stories this week: weather, sports, traffic, celebrity gossip,
recipes and much more from our partners and sponsors in the region</div>
<div id="foot">Copyright 2012 Example Media Group. All rights reserved. Privacy policy and
terms of service apply to every page on this site.</div></body></html>"""
GOLD = ("Old headline here\nThe original article talked about elections and parliament votes "
        "across the country for several days.")


def test_find_main_region_picks_gold_element():
    root = _parse(TEMPLATE)
    el, f1, outside = find_main_region(root, GOLD)
    assert el.get("id") == "main" and f1 > 0.9 and outside > 40
    assert not root.xpath("//script")


@pytest.fixture
def tiny(tmp_path):
    tpl = tmp_path / "tpl"
    (tpl / "html").mkdir(parents=True)
    (tpl / "gold").mkdir()
    with (tpl / "manifest.jsonl").open("w") as f:
        for i in range(3):
            (tpl / "html" / f"{i}.html.gz").write_bytes(gzip.compress(TEMPLATE))
            (tpl / "gold" / f"{i}.txt").write_text(GOLD, encoding="utf-8")
            f.write(json.dumps({"id": str(i), "html": f"html/{i}.html.gz",
                                "gold": f"gold/{i}.txt", "split": "test",
                                "source": "tpl"}) + "\n")
    coll = tmp_path / "coll"
    coll.mkdir()
    docs = [{"id": str(i), "title": f"T{i}", "text": f"document {i} about topic{i % 2}"}
            for i in range(5)]
    (coll / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (coll / "topics.jsonl").write_text(json.dumps({"qid": "1", "query": "topic0"}) + "\n")
    (coll / "qrels.txt").write_text("1 0 0 1\n1 0 2 2\n1 0 3 -1\n")
    return tpl, coll


def test_build_web_collection(tmp_path, tiny):
    tpl, coll = tiny
    out = tmp_path / "web"
    info = build(str(coll), [str(tpl)], str(out), docs_per_page=2, seed=3, log=lambda m: None)
    assert info["pages"] == 3 and info["templates"] == 3
    pages = [json.loads(line) for line in (out / "pages.jsonl").open()]
    assert sorted(d for p in pages for d in p["docs"]) == [str(i) for i in range(5)]
    html = (out / pages[0]["html"]).read_text(encoding="utf-8")
    assert "Subscribe to our weekly newsletter" in html and "Copyright 2012" in html  # kept
    assert "elections and parliament" not in html  # gold region replaced
    assert html.count('class="doc"') == len(pages[0]["docs"])
    wc = load_collection(out, docs_file="pages.jsonl")
    page_of = {d: p["id"] for p in pages for d in p["docs"]}
    # max grade per page: doc 2 (grade 2) and doc 0 (grade 1) may share a page
    expect: dict[str, int] = {}
    for d, g in (("0", 1), ("2", 2), ("3", -1)):
        expect[page_of[d]] = max(expect.get(page_of[d], g), g)
    assert wc.qrels["1"] == expect
    again = build(str(coll), [str(tpl)], str(tmp_path / "web2"), docs_per_page=2, seed=3,
                  log=lambda m: None)
    assert again == {**info, "template_sets": [str(tpl)]}
    assert (tmp_path / "web2" / "qrels.txt").read_text() == (out / "qrels.txt").read_text()


def test_evaluate_matches_hand_computation():
    qrels = {"1": {"a": 1, "b": 1, "c": 0}, "2": {"x": 2}}
    run = {"1": {"a": 3.0, "c": 2.0, "b": 1.0}}  # topic 2 has no results: scores 0
    m = evaluate(run, qrels, ["1", "2"])
    assert m["AP"]["1"] == pytest.approx((1 + 2 / 3) / 2)
    assert m["AP"]["2"] == 0.0 and m["P@10"]["1"] == pytest.approx(0.2)
    assert m["R@1000"]["1"] == 1.0


def test_paired_tests():
    a = {str(i): 0.5 + 0.01 * i for i in range(30)}
    b = {str(i): 0.3 + 0.01 * i + (0.001 if i % 2 else 0) for i in range(30)}
    t_p, r_p = paired_tests(a, b)
    assert t_p < 0.001 and r_p < 0.001
    assert paired_tests(a, a) == (1.0, 1.0)
    noisy = {k: v + (0.05 if int(k) % 2 else -0.05) for k, v in a.items()}
    assert paired_tests(noisy, a)[1] > 0.5
