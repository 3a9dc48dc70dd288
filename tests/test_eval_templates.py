"""The template / main-content evaluation harness (eval.templates): metrics, alignment, cache."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from eval.templates.harness import main, select_records
from eval.templates.run import (
    Method,
    PageInput,
    ResultCache,
    evaluate_page,
    pred_template_leaves,
)
from eval.templates.textmetrics import align_gold, bow_prf, words
from tests import helpers
from webseg.datasets import PageRecord, cache_path
from webseg.page import Page
from webseg.segmentation import Segment, Segmentation

STORY = ("The river rose overnight and the town council met at dawn to plan the repairs "
         "of the old stone bridge, which had stood for two hundred years.")


def news_page() -> Page:
    """nav (3 links) + h1 + 2 paragraphs + footer (2 links), with layout."""
    return helpers.news_page("News of the town", STORY, STORY.upper())


GOLD = "Bridge repairs begin\n" + STORY + "\n" + STORY


# ------------------------------------------------------------------ bag-of-words F1
def test_bow_prf_counts_multisets():
    p, r, f = bow_prf("a a b c", "a b b d")
    # common = min(2,1)[a] + min(1,2)[b] = 2; P = 2/4, R = 2/4
    assert (p, r, f) == (0.5, 0.5, 0.5)
    assert bow_prf("The Cat", "the cat!") == (1.0, 1.0, 1.0)
    assert bow_prf("x y", "a b")[2] == 0.0


def test_bow_prf_empty_conventions():
    assert bow_prf("", "") == (1.0, 1.0, 1.0)          # nothing to find, nothing found
    p, r, f = bow_prf("menu", "")
    assert p == 0.0 and math.isnan(r) and f == 0.0
    p, r, f = bow_prf("  ", "gold text")
    assert math.isnan(p) and r == 0.0 and f == 0.0


def test_words_unicode():
    assert words("Größe: 12,5 €; naïve CAFÉ") == ["größe", "12", "5", "naïve", "café"]


# ------------------------------------------------------------------ alignment
def test_align_gold_marks_article_leaves():
    page = news_page()
    al = align_gold(page, GOLD)
    texts = [page.text[j] for j in page.text_leaves]
    content = {t for t, c in zip(texts, al.content, strict=True) if c}
    assert content == {"Bridge repairs begin", STORY, STORY.upper()}
    assert al.coverage == 1.0
    assert al.gold_words == len(words(GOLD))


def test_align_gold_ignores_isolated_common_words():
    """'the' and 'of' of the gold also occur in the menu leaf 'News of the town': single-word
    matches are below min_block, so the menu stays template."""
    page = news_page()
    al = align_gold(page, "the story of the bridge " + STORY)
    menu = [k for k, j in enumerate(page.text_leaves) if page.text[j] == "News of the town"][0]
    assert not al.content[menu]
    # "news of" (2 words) is a block, the lone "town" is not: 2 of 4 words is no majority ...
    assert not align_gold(page, "news of town").content[menu]
    # ... but with min_block=1 "town" counts too: 3 of 4 words aligned
    assert align_gold(page, "news of town", min_block=1).content[menu]


def test_align_gold_empty_and_missing_gold():
    page = news_page()
    al = align_gold(page, "")
    assert not al.content.any() and math.isnan(al.coverage)
    al = align_gold(page, "completely unrelated words here")
    assert not al.content.any() and al.coverage == 0.0


# ------------------------------------------------------------------ method scoring
def _seg(page: Page, template_roots: set[int]) -> Segmentation:
    """One segment per child of body; templateness 1 for the given roots."""
    segs = [Segment(id=k, nodes=(r,), attrs={"templateness": 1.0 if r in template_roots
                                                else 0.0})
            for k, r in enumerate(page.children(1).tolist())]
    return Segmentation(page, segs, "fake")


def _record(tmp: Path, id_: str = "p1", **kw) -> PageRecord:
    return PageRecord(dataset="toy", id=id_, html=tmp / "x.html.gz", site=None, url=None,
                      gold=tmp / "g.txt", split=None, **kw)


def test_pred_template_leaves_and_perfect_page(tmp_path):
    page = news_page()
    seg = _seg(page, {2, 16})  # nav and footer
    pred = pred_template_leaves(seg)
    assert pred.tolist() == [True, True, True, False, False, False, True, True]
    inp = PageInput(_record(tmp_path), page, GOLD)
    row = evaluate_page(inp, Method("fake", "ours", "sig"), lambda m: _Fixed(seg))
    assert row["error"] == ""
    assert row["f1"] == pytest.approx(1.0)
    for k in ("text", "anchor_text", "links"):
        assert row[f"t_{k}_f"] == pytest.approx(1.0)
    # keeping everything: recall 1, precision below 1; template detection is not scored
    row = evaluate_page(inp, Method("keep-all", "all", "sig"), lambda m: None)
    assert row["r"] == 1.0 and row["p"] < 1.0 and "t_text_f" not in row


def test_wrong_segmentation_scores_low(tmp_path):
    page = news_page()
    seg = _seg(page, {9})  # the article is called template, the menus content
    inp = PageInput(_record(tmp_path), page, GOLD)
    row = evaluate_page(inp, Method("fake", "ours", "sig"), lambda m: _Fixed(seg))
    assert row["f1"] < 0.2
    assert row["t_text_f"] < 0.2 and row["t_links_f"] == 0.0


def test_failing_method_is_scored_as_empty_output(tmp_path):
    class Boom:
        def segment(self, page):
            raise RuntimeError("kaput")

    inp = PageInput(_record(tmp_path), news_page(), GOLD)
    row = evaluate_page(inp, Method("boom", "ours", "sig"), lambda m: Boom())
    assert "kaput" in row["error"] and row["f1"] == 0.0 and row["pred_words"] == 0


class _Fixed:
    def __init__(self, seg: Segmentation) -> None:
        self.seg = seg

    def segment(self, page: Page) -> Segmentation:
        return self.seg


# ------------------------------------------------------------------ records and cache
def test_select_records_counts_every_exclusion(tmp_path):
    def rec(i, gold=True, split=None, excl=False):
        return PageRecord("toy", str(i), tmp_path / "h", None, None,
                          tmp_path / "g" if gold else None, split, excl)

    recs = [rec(1, split="train"), rec(2, split="test"), rec(3, gold=False, split="test"),
            rec(4, split="test", excl=True), rec(5, split="test")]
    chosen, counts = select_records(recs, "test")
    assert [r.id for r in chosen] == ["2", "5"]
    assert counts == {"manifest": 5, "no_gold": 1, "other_split": 1, "gold_not_in_html": 1}
    # a set without the requested split is used whole
    chosen, counts = select_records([rec(1, split="dev"), rec(2, split="final")], "test")
    assert len(chosen) == 2 and counts["other_split"] == 0


def test_result_cache_round_trip_survives_a_cut_line(tmp_path):
    m = Method("m", "peer", "abc")
    c = ResultCache(tmp_path, "toy", m)
    c.add({"id": "1", "f1": 0.5, "p": math.nan})
    with c.path.open("a") as f:
        f.write('{"id": "2", "f1"')  # interrupted write
    again = ResultCache(tmp_path, "toy", m)
    assert set(again.rows) == {"1"} and math.isnan(again.rows["1"]["p"])
    assert not ResultCache(tmp_path, "toy", Method("m", "peer", "other")).rows


# ------------------------------------------------------------------ end to end
def _toy_dataset(root: Path, cache: Path) -> None:
    root.mkdir()
    (root / "html").mkdir()
    (root / "gold").mkdir()
    lines = []
    html = ("<html><body><nav><a href='/'>Home</a></nav><h1>Bridge repairs begin</h1><p>"
            + STORY + "</p></body></html>")
    for i, gold in enumerate([GOLD, "", None]):
        pid = f"p{i}"
        with gzip.open(root / "html" / f"{pid}.html.gz", "wb") as f:
            f.write(html.encode())
        rec = {"id": pid, "html": f"html/{pid}.html.gz", "url": "http://x.org/a",
               "site": "x.org", "source": "toy", "page_type": "article"}
        if gold is not None:
            (root / "gold" / f"{pid}.txt").write_text(gold, encoding="utf-8")
            rec["gold"] = f"gold/{pid}.txt"
        lines.append(json.dumps(rec))
        r = PageRecord("toy", pid, root / rec["html"], None, None, None, None)
        if i != 1:  # p1 is "not rendered"
            p = cache_path(cache, r)
            p.parent.mkdir(parents=True, exist_ok=True)
            news_page().save(p)
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_harness_end_to_end_and_rerun_uses_cache(tmp_path, capsys):
    data, render, results, out = (tmp_path / "toy", tmp_path / "render", tmp_path / "res",
                                  tmp_path / "out")
    _toy_dataset(data, render)
    argv = ["--data", str(data), "--out", str(out), "--cache-dir", str(results),
            "--render-cache", str(render), "--no-render", "--peers", "justext",
            "--sweep", "1", "--sweep-grid", "0,0.01"]
    assert main(argv) == 0
    summary = (out / "summary.md").read_text()
    assert "PageLevel Smooth" in summary and "justext" in summary
    datasets = (out / "datasets.csv").read_text().splitlines()
    # 3 in manifest, 1 gold null, none over the limit, p1 not rendered, p0 scored
    assert datasets[1].startswith("toy,3,1,0,0,0,1,0,1,0")
    for name in ("content_f1.csv", "template_f.csv", "sweep_c.csv", "per_page.csv.gz",
                 "content_f1.png", "sweep_c.png", "per_type.csv"):
        assert (out / name).is_file(), name
    files = sorted(results.rglob("*.jsonl"))
    sizes = [f.stat().st_size for f in files]
    argv.append("--no-plots")
    assert main(argv) == 0  # second run: everything from the cache
    assert [f.stat().st_size for f in sorted(results.rglob("*.jsonl"))] == sizes
    # a method added later and not run yet: --report-only scores no page rather than unequal
    # page sets
    assert main([*argv, "--peers", "justext,boilerpy3", "--report-only"]) == 0
    assert (out / "datasets.csv").read_text().splitlines()[1].startswith("toy,3,1,0,0,0,1,1,0")
    capsys.readouterr()


def test_harness_rejects_bad_arguments(tmp_path):
    with pytest.raises(SystemExit):
        main(["--data", str(tmp_path), "--out", str(tmp_path / "o")])  # no manifest
    with pytest.raises(SystemExit):
        main(["--data", str(tmp_path), "--out", str(tmp_path / "o"), "--peers", "nope"])


def test_pick_stoplist_prefers_the_page_language():
    pytest.importorskip("justext")
    from eval.templates.peers import pick_stoplist

    de = words("Der Hund und die Katze sind nicht in dem Haus, aber sie haben es gesehen")
    assert pick_stoplist(de) == "German"
    assert pick_stoplist(words("The dog and the cat were not in the house")) == "English"
    assert np.isscalar(pick_stoplist([]))
