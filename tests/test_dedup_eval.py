"""The dedup harness: pairs-file parsing, gold-to-DOM alignment, the benchmark builder, Table 2."""

from __future__ import annotations

import csv
import gzip
import json
import random

import pytest
from lxml import html as lhtml

from eval.dedup.__main__ import main as eval_main
from eval.dedup.build import align_region, build
from eval.dedup.harness import read_pairs

_WORDS = ("apple river stone cloud market garden winter harbor signal engine lamp paper "
          "table glass bridge forest candle mirror ladder pocket violin tiger ocean copper ")
WORDS = _WORDS.split()


def _story(rng: random.Random, n: int = 120) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _site_page(site: str, story: str) -> str:
    nav = " ".join(f"<a href='/{i}'>{site} section {i}</a>" for i in range(15))
    return (f"<html><head><meta charset='iso-8859-1'><title>{site}</title></head><body>"
            f"<div id=nav>{nav}</div><div id=wrap><div id=content><p>{story}</p>"
            f"<p>{story[:200]}</p></div><div id=side>Related: {site} popular items list "
            f"here</div></div><div id=foot>(c) {site} terms privacy contact</div>"
            f"<script>document.write('x')</script></body></html>")


def test_align_region_finds_the_content_element():
    rng = random.Random(0)
    story = _story(rng)
    root = lhtml.document_fromstring(_site_page("example", story))
    el, f1, p, r, outside = align_region(root, story + "\n" + story[:200])
    assert el.get("id") == "content" and f1 > 0.95 and outside >= 30
    assert align_region(root, "") is None


def _dataset(tmp_path, n_sites=4, per_site=3, singles=8):
    """Sites with several pages (hosts) and single-page sites (their gold is the content)."""
    rng = random.Random(1)
    d = tmp_path / "ds"
    (d / "html").mkdir(parents=True)
    (d / "gold").mkdir()
    lines = []
    for s in range(n_sites + singles):
        for k in range(per_site if s < n_sites else 1):
            pid = f"s{s}-p{k}"
            story = _story(rng)
            with gzip.open(d / "html" / f"{pid}.html.gz", "wb") as f:
                f.write(_site_page(f"site{s}", story).encode("latin-1"))
            (d / "gold" / f"{pid}.txt").write_text(story + "\n" + story[:200], encoding="utf-8")
            lines.append({"id": pid, "html": f"html/{pid}.html.gz", "gold": f"gold/{pid}.txt",
                          "url": f"http://site{s}.example/{k}", "site": f"site{s}.example",
                          "source": "toy"})
    (d / "manifest.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return d


def test_build_is_reproducible_and_well_formed(tmp_path):
    d = _dataset(tmp_path)
    s1 = build([d], tmp_path / "b1", n_dup=5, n_nondup=5, seed=3, log=lambda *_: None)
    build([d], tmp_path / "b2", n_dup=5, n_nondup=5, seed=3, log=lambda *_: None)
    assert s1["duplicate_pairs"] == 5 and s1["not_duplicate_pairs"] >= 1
    p1 = (tmp_path / "b1" / "pairs.jsonl").read_text()
    assert p1 == (tmp_path / "b2" / "pairs.jsonl").read_text()
    pairs = read_pairs(tmp_path / "b1" / "pairs.jsonl")
    for pr in pairs:
        assert pr.extra["semi_synthetic"] is True
        assert pr.a.path.is_file() and pr.b.path.is_file()
        if pr.label == "duplicate":
            assert pr.a.site != pr.b.site
        else:
            assert pr.a.site == pr.b.site
    # an injected page: the content element holds the new text, scripts and old charset gone
    raw = gzip.decompress(pairs[0].a.path.read_bytes()).decode("utf-8")
    assert "<script" not in raw and "iso-8859-1" not in raw and 'charset="utf-8"' in raw
    root = lhtml.document_fromstring(raw)
    assert root.get_element_by_id("nav") is not None
    assert len(root.get_element_by_id("content").findall("p")) == 2


def test_read_pairs_validation(tmp_path):
    f = tmp_path / "p.jsonl"
    good = {"pair_id": "x", "a": {"html": "a.html"}, "b": {"html": "b.html.gz"},
            "label": "unsure", "note": "extra fields are fine"}
    f.write_text(json.dumps(good) + "\n\n")
    (pr,) = read_pairs(f)
    assert pr.label == "unsure" and pr.a.path == (tmp_path / "a.html").resolve()
    for bad, msg in [({**good, "label": "dup"}, "label"), ({**good, "a": "a.html"}, "'a'"),
                     ({**good, "b": {"html": "b.pdf"}}, ".html")]:
        f.write_text(json.dumps(bad) + "\n")
        with pytest.raises(ValueError, match=msg):
            read_pairs(f)
    f.write_text("{not json\n")
    with pytest.raises(ValueError, match=":1: not JSON"):
        read_pairs(f)
    f.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n")
    with pytest.raises(ValueError, match="repeated"):
        read_pairs(f)


@pytest.mark.browser
def test_harness_table_on_built_pairs(renderer, tmp_path):
    d = _dataset(tmp_path)
    out = tmp_path / "res"
    rc = eval_main(["--build-from", str(d), "--bench", str(tmp_path / "bench"), "--out",
                    str(out), "--strategies", "none,sitelevel", "--n-dup", "3", "--n-nondup",
                    "3", "--cache", str(tmp_path / "cache")])
    assert rc == 0
    rows = {r["strategy"]: r for r in csv.DictReader((out / "table.csv").open())}
    assert set(rows) == {"none", "sitelevel"}
    # identical story in two templates: sitelevel strips the templates and finds them all
    assert rows["sitelevel"]["duplicates_detected"] == "3"
    assert (out / "pr_threshold.png").stat().st_size > 0
    pr = list(csv.DictReader((out / "pr_threshold.csv").open()))
    assert len(pr) == 2 * 8
    assert "semi-synthetic" in (out / "table.md").read_text()
    coll = {r["strategy"]: r for r in csv.DictReader((out / "collection.csv").open())}
    assert coll["sitelevel"]["same_content_pairs"] == "3"  # every page pair judged
    run = json.loads((out / "run.json").read_text())
    assert run["counts"]["semi_synthetic_pairs"] == run["counts"]["pairs"]


def test_natural_pairs_labelled_by_gold_text(tmp_path):
    from eval.dedup.natural import natural_pairs

    d = _dataset(tmp_path, n_sites=2, per_site=3, singles=2)
    # make the single-page sites carry the same story as page s0-p0 (a wire story at two sites)
    story = (d / "gold" / "s0-p0.txt").read_text(encoding="utf-8")
    (d / "gold" / "s2-p0.txt").write_text(story, encoding="utf-8")
    out = tmp_path / "nat" / "pairs.jsonl"
    stats = natural_pairs([d], out, n_nondup=3, seed=0)
    assert stats["duplicate"] >= 1 and stats["not_duplicate"] == 3
    pairs = read_pairs(out)
    dup = [p for p in pairs if p.label == "duplicate"]
    assert {(p.a.id, p.b.id) for p in dup} >= {("toy/s0-p0", "toy/s2-p0")}
    for p in pairs:
        assert p.a.path.is_file() and p.a.dataset == "toy" and p.a.record_id
        assert p.extra["semi_synthetic"] is False
        if p.label == "not-duplicate":
            assert p.a.site == p.b.site and p.extra["gold_jaccard"] < 0.05


def test_harness_without_a_browser(tmp_path, monkeypatch):
    """``--no-render``: pages parsed, not rendered (no browser is started); strategies that
    need layout are left out, ``largest`` uses blockfusion."""
    import webseg.render

    def no_browser(*a, **k):
        raise AssertionError("a browser was started")

    monkeypatch.setattr(webseg.render, "Renderer", no_browser)
    d = _dataset(tmp_path)
    out = tmp_path / "res"
    rc = eval_main(["--build-from", str(d), "--bench", str(tmp_path / "bench"), "--out",
                    str(out), "--strategies", "none,largest,sitelevel", "--n-dup", "3",
                    "--n-nondup", "3", "--no-render", "--text-cache", str(tmp_path / "tc")])
    assert rc == 0
    rows = {r["strategy"]: r for r in csv.DictReader((out / "table.csv").open())}
    assert set(rows) == {"none", "largest"}
    run = json.loads((out / "run.json").read_text())
    assert run["render"] is False and run["segmenter"] == "blockfusion"
    assert run["counts"]["pages_render_failed"] == 0
    # parsed texts are cached apart from rendered ones
    assert (tmp_path / "tc" / "none-parsed").is_dir()
    assert not (tmp_path / "tc" / "none").exists()
