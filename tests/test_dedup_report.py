"""Dedup reports (JSON, CSV, HTML: readable and safe) and the strip strategies on built pages."""

from __future__ import annotations

import csv
import json
import random

import pytest

from dedup.detect import detect
from dedup.report import PageInfo, write_report
from dedup.strip import Item, Stripper, full_text
from webseg.page import ELEMENT, TEXT, Page

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _texts():
    rng = random.Random(2)
    body = " ".join(rng.choice(["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"])
                    for _ in range(150))
    return {"p1": EVIL + " " + body, "p2": body + " " + EVIL, "p3": "other words entirely",
            "p4": ""}


def test_report_files_and_escaping(tmp_path):
    texts = _texts()
    res = detect(texts.items())
    pages = {k: PageInfo(id=k, url="javascript:alert(1)" if k == "p1" else f"https://e.org/{k}",
                         title=EVIL, site="e.org", text=t) for k, t in texts.items()}
    summary = write_report(tmp_path, res, pages, failed={"bad.html": "render: " + EVIL},
                           run={"strip": "none"})
    assert summary["duplicate_pairs"] == 1 and summary["clusters"] == 1
    assert summary["failed"] == 1 and summary["empty_text"] == 1 and summary["inputs"] == 5
    for f in ("summary.json", "clusters.json", "clusters.csv", "pairs.json", "pairs.csv",
              "report.html"):
        assert (tmp_path / f).is_file()
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;script&gt;" in html
    assert 'href="javascript:' not in html  # only http(s) URLs become links
    assert 'href="https://e.org/p2"' in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "<mark>" in html  # side-by-side snippets of the shared passage
    rows = list(csv.DictReader((tmp_path / "pairs.csv").open(encoding="utf-8")))
    assert [(r["a"], r["b"], r["cluster"]) for r in rows] == [("p1", "p2", "0")]
    clusters = json.loads((tmp_path / "clusters.json").read_text(encoding="utf-8"))
    assert [p["id"] for p in clusters[0]["pages"]] == ["p1", "p2"]
    assert clusters[0]["pages"][0]["title"] == EVIL  # JSON keeps the data as it was


def test_report_without_duplicates(tmp_path):
    res = detect([("a", "one two three"), ("b", "")])
    s = write_report(tmp_path, res, {})
    assert s["clusters"] == 0 and s["pages"] == 2
    assert "Near-duplicate report" in (tmp_path / "report.html").read_text(encoding="utf-8")


def _page(nav: str, story: str) -> Page:
    return Page.from_columns(
        parent=[-1, 0, 1, 2, 0, 4], kind=[ELEMENT, ELEMENT, ELEMENT, TEXT, ELEMENT, TEXT],
        tag=["body", "nav", "a", "#text", "p", "#text"],
        text=["", "", "", nav, "", story], attrs=[None] * 6)


def test_sitelevel_strips_repeated_subtrees_per_site():
    pages = [_page("Home News Sports Weather", f"story number {i} " * 10) for i in range(3)]
    lone = _page("Lonely navigation bar", "single page site")
    items = [Item(p, site="a.org") for p in pages] + [Item(lone, site="b.org")]
    st = Stripper("sitelevel")
    texts = st.texts(items)
    for i in range(3):
        assert "Home" not in texts[i] and f"story number {i}" in texts[i]
    assert texts[3] == full_text(lone)  # one page of its site: nothing to compare, full text
    assert sum(st.notes.values()) == 1


def test_strip_strategy_validation():
    with pytest.raises(ValueError, match="unknown strip strategy"):
        Stripper("bogus")
    with pytest.raises(ValueError, match="use Stripper.texts"):
        Stripper("sitelevel").text(Item(_page("a", "b")))
    with pytest.raises(ValueError, match="needs a rendered page"):
        Stripper("none").text(Item(None, html="<p>x</p>"))


def test_extractor_strategy_on_html():
    pytest.importorskip("trafilatura")
    para = " ".join(f"word{i}" for i in range(80))
    html = (f"<html><body><nav><a href='/'>Home</a> <a href='/n'>News</a></nav><article>"
            f"<h1>Title</h1><p>{para}.</p><p>{para}.</p></article></body></html>")
    text = Stripper("extractor").text(Item(None, html=html))
    assert "word79" in text and "Home" not in text


def test_report_counts_unspaced_words_and_does_not_call_page_text_english(tmp_path):
    zh = "北京天文馆馆长朱进介绍月全食观测对天气要求相对来说并不苛刻和赏月差不多目前估计当晚是晴天"
    res = detect([("a", zh), ("b", zh)])
    pages = {k: PageInfo(id=k, title="十年一遇最美月全食", text=zh) for k in ("a", "b")}
    write_report(tmp_path, res, pages)
    clusters = json.loads((tmp_path / "clusters.json").read_text(encoding="utf-8"))
    assert [p["words"] for p in clusters[0]["pages"]] == [len(zh), len(zh)]  # not 1 "word"
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<td lang="" dir="auto">十年一遇最美月全食</td>' in html
    assert '<div class="snip" lang="" dir="auto"><span class="ctx"></span><mark>北京' in html
    assert "</mark> " not in html and " <mark>" not in html  # no space inside Chinese text


def test_snippet_pieces_of_spaced_text_keep_their_space(tmp_path):
    words = " ".join(f"w{i}" for i in range(40))
    res = detect([("a", "intro here " + words + " tail a"), ("b", "other start " + words)])
    pages = {"a": PageInfo(id="a", text="intro here " + words + " tail a"),
             "b": PageInfo(id="b", text="other start " + words)}
    write_report(tmp_path, res, pages)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert 'here</span> <mark>w0' in html and '</mark> <span class="ctx">tail' in html
