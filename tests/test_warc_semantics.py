"""WARC records read the way crawlers write them: statuses, revisits, record facts, names,
and the parsed pipeline / index running with no browser installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.warc_fixture import EXPECTED, write_crawl_warc
from webseg.inputs import InputRecord, OutputNames, iter_inputs, output_name

ROOT = Path(__file__).resolve().parent.parent
NO_BROWSER = {"WEBSEG_CHROMIUM": "/nonexistent/chromium", "WEBSEG_HEADLESS_SHELL": ""}


def webseg(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the CLI in a fresh process (so the environment really has no browser)."""
    e = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-c", "from webseg.cli import main; main()", *args],
                          capture_output=True, text=True, env=e, timeout=600, cwd=ROOT)


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_records_carry_status_reason_and_warc_facts(tmp_path: Path) -> None:
    warc = write_crawl_warc(tmp_path / "crawl.warc")
    counts: dict[str, int] = {}
    recs = list(iter_inputs([warc], counts))
    assert [r.url for r in recs] == [u for u, _, _ in EXPECTED]
    for r, (_, status, why) in zip(recs, EXPECTED, strict=True):
        got = "ok" if r.error is None else "skipped" if r.skipped else "error"
        assert got == status, (r.id, r.error)
        if why:
            assert why in (r.reason or "")
        assert r.warc is not None and r.warc.record_id and r.warc.date
    assert counts == {"warcinfo": 1, "request": 2, "response": 7, "revisit": 1, "metadata": 1}
    redirect = recs[1]
    assert redirect.warc.http_status == 301 and redirect.warc.location == EXPECTED[0][0]
    assert "-> http://example.org/news/alpha" in redirect.reason
    assert recs[2].warc.http_status == 404 and recs[2].source is None  # never rendered
    revisit = recs[4]
    assert revisit.warc.type == "revisit"
    assert revisit.warc.refers_to_record_id == recs[0].warc.record_id
    assert revisit.warc.refers_to_uri == EXPECTED[0][0] and revisit.warc.refers_to_date
    assert "http://example.org/news/cut" in (recs[-1].error or "")  # errors name the URL
    d = recs[0].warc.to_dict()
    assert {"record_id", "date", "target_uri", "http_status", "content_type"} <= set(d)


@pytest.mark.parametrize("status", [204, 206, 304, 302, 403, 503])
def test_other_non_page_statuses_are_skipped(tmp_path: Path, status: int) -> None:
    import io
    from http import HTTPStatus

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    p = tmp_path / "s.warc.gz"
    with p.open("wb") as f:
        w = WARCWriter(f, gzip=True)
        h = StatusAndHeaders(f"{status} {HTTPStatus(status).phrase}",
                             [("Content-Type", "text/html")], protocol="HTTP/1.1")
        w.write_record(w.create_warc_record("http://e.org/x", "response",
                                            payload=io.BytesIO(b"<p>partial</p>"),
                                            http_headers=h))
    (r,) = list(iter_inputs([p]))
    assert r.skipped and r.reason.startswith(f"http: {status}")


def test_output_names_come_from_urls_and_are_stable(tmp_path: Path) -> None:
    def rec(url: str | None, rid: str = "c.warc#1") -> InputRecord:
        return InputRecord(id=rid, url=url, source=b"", kind="warc")

    taken: dict[str, int] = {}
    a = output_name(rec("https://example.org/news/a b?x=1"), taken)
    assert a.startswith("example.org_news_a_b-") and len(a.rsplit("-", 1)[1]) == 8
    assert output_name(rec("https://example.org/news/a b?x=1"), taken) == a + "-2"
    assert output_name(rec("https://example.org/news/a b?x=2"), taken) != a
    assert output_name(rec(None, "dir/story.html"), {}) == "story"
    long = output_name(rec("http://e.org/" + "x" * 500), {})
    assert len(long) <= 120
    names = OutputNames(tmp_path / "out")
    p1 = names.path(rec("http://e.org/a"), ".md")
    p2 = names.path(rec("http://e.org/a", "c.warc#9"), ".md")
    names.close()
    assert (p1.name, p2.name) == ("e.org_a.md", "e.org_a-2.md")
    mapping = lines(tmp_path / "out" / "records.jsonl")
    assert [(m["file"], m["id"]) for m in mapping] == [("e.org_a.md", "c.warc#1"),
                                                        ("e.org_a-2.md", "c.warc#9")]


def check_pipeline_lines(rows: list[dict]) -> None:
    want = [(u, s) for u, s, _ in EXPECTED[:-1]] + [(EXPECTED[-1][0], "ok")]  # not cut here
    assert [(r["url"], r["status"]) for r in rows] == want
    for r, (_, _, why) in zip(rows, EXPECTED[:-1], strict=False):
        assert set(r["warc"]) >= {"record_id", "date", "target_uri", "http_status",
                                  "content_type"}
        if why:
            assert why in r["reason"]
        if r["status"] == "skipped":
            assert r["error"] is None
    revisit = rows[4]
    assert revisit["duplicate_of"] == rows[0]["id"]
    assert revisit["duplicate_cluster"] and revisit["duplicate_cluster"] == \
        rows[0]["duplicate_cluster"]


def test_parsed_pipeline_runs_without_a_browser(tmp_path: Path) -> None:
    """`webseg pipeline --no-render` with no Chromium: one line per page record, the right
    statuses, exit 0 on a healthy crawl, skipped records not indexed nor failed."""
    warc = write_crawl_warc(tmp_path / "crawl.warc", truncate=False)
    out = tmp_path / "out"
    r = webseg("pipeline", str(warc), "-o", str(out), "--no-render", "--no-progress",
               env=NO_BROWSER)
    assert r.returncode == 0, r.stderr
    rows = lines(out / "pages.jsonl")
    check_pipeline_lines(rows)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["warc_records"]["request"] == 2 and summary["warc_records"]["metadata"] == 1
    assert summary["skipped"] == 5 and not summary["errors"] and summary["rendered"] is False
    dedup = json.loads((out / "dedup" / "summary.json").read_text())
    assert dedup["failed"] == 0
    assert "example.org" in (out / "dedup" / "clusters.csv").read_text()  # the site column
    from ir import Index

    ix = Index.open(out / "index")
    assert len(ix) == 3 and "blockfusion" in ix.sources  # the 3 pages; no 404, no redirect
    hits = ix.search("alpha17", k=5).hits
    assert hits and {h.id for h in hits} == {r["id"] for r in rows if r["status"] == "ok"}
    assert not ix.search("found", k=5).hits  # the 404 page's words are not in the index


def test_truncated_record_is_an_error_line_naming_its_url(tmp_path: Path) -> None:
    warc = write_crawl_warc(tmp_path / "crawl.warc")
    out = tmp_path / "out"
    r = webseg("pipeline", str(warc), "-o", str(out), "--no-render", "--no-progress",
               "--stages", "segment,clean", env=NO_BROWSER)
    assert r.returncode == 1
    last = lines(out / "pages.jsonl")[-1]
    assert last["status"] == "error" and "http://example.org/news/cut" in last["reason"]


def test_index_no_render_runs_without_a_browser(tmp_path: Path) -> None:
    warc = write_crawl_warc(tmp_path / "crawl.warc", truncate=False)
    r = webseg("index", str(warc), "-o", str(tmp_path / "idx"), "--no-render", env=NO_BROWSER)
    assert r.returncode == 0, r.stderr
    assert "5 WARC records skipped" in r.stderr
    from ir import Index

    ix = Index.open(tmp_path / "idx")
    assert len(ix) == 3 and ix.sources[0] == "blockfusion"
    assert ix.passages and ix.passages["source"] == "blockfusion"
    bad = webseg("index", str(warc), "-o", str(tmp_path / "i2"), "--no-render",
                 "--segmenter", "vips", env=NO_BROWSER)
    assert bad.returncode == 2 and "need layout" in bad.stderr
    Index.create(tmp_path / "vips", sources=("vips",))
    app = webseg("index", str(warc), "-o", str(tmp_path / "vips"), "--append", "--no-render",
                 env=NO_BROWSER)
    assert app.returncode == 2 and "need layout" in app.stderr


@pytest.mark.browser
def test_rendered_pipeline_gives_the_same_statuses_and_ids(tmp_path: Path) -> None:
    from webseg.pipeline import PipelineConfig, run_pipeline

    warc = write_crawl_warc(tmp_path / "crawl.warc", truncate=False)
    stages = ("segment", "clean", "sketch", "dedup")
    run_pipeline([warc], tmp_path / "r", PipelineConfig(stages=stages), progress=False)
    run_pipeline([warc], tmp_path / "p", PipelineConfig.parsed(stages=stages), progress=False)
    rendered, parsed = lines(tmp_path / "r" / "pages.jsonl"), lines(tmp_path / "p" /
                                                                     "pages.jsonl")
    assert [(r["id"], r["status"], r["warc"]) for r in rendered] == \
        [(r["id"], r["status"], r["warc"]) for r in parsed], \
        [(r["id"], r.get("reason"), r.get("error")) for r in rendered if r["status"] == "error"]
    check_pipeline_lines(rendered)


@pytest.mark.spark
def test_spark_no_render_needs_no_browser_on_the_executors(tmp_path: Path) -> None:
    """`webseg spark --no-render` with no Chromium anywhere: the same lines (ids, statuses,
    WARC facts, main text) as the single-machine parsed pipeline."""
    pytest.importorskip("pyspark", reason="pip install webseg[spark]")
    warc = write_crawl_warc(tmp_path / "crawl.warc", truncate=False)
    stages = "segment,clean,sketch,dedup"
    r = webseg("spark", str(warc), "-o", str(tmp_path / "spark"), "--master", "local[2]",
               "--no-render", "--stages", stages, env=NO_BROWSER)
    assert r.returncode == 0, r.stderr[-3000:]
    one = webseg("pipeline", str(warc), "-o", str(tmp_path / "one"), "--no-render",
                 "--no-progress", "--stages", stages, env=NO_BROWSER)
    assert one.returncode == 0, one.stderr
    dist = {d["id"]: d for p in sorted((tmp_path / "spark" / "pages.jsonl").glob("part-*"))
            for d in lines(p)}
    single = lines(tmp_path / "one" / "pages.jsonl")
    assert len(dist) == len(single) == 8
    for s in single:
        d = dist[s["id"]]
        assert (d["status"], d["reason"], d["warc"], d.get("main_text")) == \
            (s["status"], s["reason"], s["warc"], s.get("main_text"))
        assert d["duplicate_cluster"] == s["duplicate_cluster"]
        assert d.get("duplicate_of", "absent") == s.get("duplicate_of", "absent")
    assert [k for k in dist[single[4]["id"]]][-2:] == ["duplicate_cluster", "duplicate_of"]
    assert dist[single[4]["id"]]["duplicate_of"] == single[0]["id"]


def test_index_stage_reuses_the_clean_stage_block_model_exactly() -> None:
    """The pipeline's index entry is the same whether the clean stage's block-model result is
    reused or recomputed (the reuse is only a saving)."""
    from tests.warc_fixture import ARTICLE
    from webseg.parse import parse
    from webseg.pipeline import PageProcessor, PipelineConfig

    page = parse(ARTICLE, url="http://example.org/news/alpha")
    proc = PageProcessor(PipelineConfig.parsed(stages=("segment", "clean", "index")))
    out, scratch = {"url": page.url}, {"html": None}
    proc._segment(page, out, scratch)
    proc._clean(page, out, scratch)
    from ir.pipeline import doc_from_page, result_block_fn, result_language

    assert result_block_fn(scratch["clean"]) is not None
    reused = proc._index_doc("a", page.url, page, scratch)
    remade = proc._index_doc("a", page.url, page, {**scratch, "clean": None})
    fresh = doc_from_page("a", page, proc.analyzer, [proc.config.segmenter], url=page.url,
                          segmentations={proc.config.segmenter: scratch["segmentation"]},
                          language=result_language(scratch["clean"])).to_dict()
    assert json.dumps(reused, sort_keys=True) == json.dumps(remade, sort_keys=True)
    assert json.dumps(reused, sort_keys=True) == json.dumps(fresh, sort_keys=True)
    assert reused.get("lang") == out["language"]["code"]  # the result's language, not another
    assert reused["fields"]["main"]  # the block model's main text, without layout


@pytest.mark.parametrize("html", [
    b"<p>x</p>" * 30,
    b"<table><td>a<td>b</table><script>s</script><style>p{}</style> <b> </b>",
    b"<template><p>in template</p></template><div hidden>h</div>" + b"<i>t</i>" * 20,
])
def test_node_count_before_rendering_matches_the_parsed_dom(html: bytes) -> None:
    """The pre-render count is the node count of the page the parser builds (elements and
    non-blank text outside script/style/template), so a refusal means what it says."""
    from webseg.parse import count_nodes, parse

    assert count_nodes(html.decode()) == parse(html).n


def cli(*args: str):
    from click.testing import CliRunner

    from webseg.cli import main

    return CliRunner().invoke(main, list(args))


def test_algos_say_which_segmenters_need_layout() -> None:
    r = cli("algos")
    assert r.exit_code == 0
    rows = {ln.split()[0]: ln for ln in r.output.splitlines()}
    assert "no layout" in rows["blockfusion"] and "no layout" in rows["dom"]
    assert "no layout" not in rows["vips"] and "layout" in rows["vips"]


def test_segment_and_dedup_without_a_browser(tmp_path: Path, monkeypatch) -> None:
    """`segment --no-render` takes layout-free segmenters only; `dedup --no-render` refuses
    layout-bound strips and notes skipped WARC records instead of failing them."""
    for k, v in NO_BROWSER.items():
        monkeypatch.setenv(k, v)
    warc = write_crawl_warc(tmp_path / "crawl.warc", truncate=False)
    out = tmp_path / "segs"
    r = cli("segment", str(warc), "--algo", "blockfusion", "--no-render", "-o", str(out))
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["example.org_news_alpha-2.seg.json", "example.org_news_alpha.seg.json",
                     "example.org_news_cut.seg.json", "records.jsonl"]
    assert "skipped: " in r.output and "(http://example.org/missing)" in r.output
    r = cli("segment", str(warc), "--algo", "vips", "--no-render", "-o", str(out))
    assert r.exit_code == 2 and "needs layout" in r.output
    r = cli("dedup", str(warc), "--no-render", "--report", str(tmp_path / "rep"))
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert summary["failed"] == 0 and summary["pages"] == 3 and summary["clusters"] == 1
    assert "skipped (not a page): http: 404" in r.output
    assert cli("dedup", str(warc), "--no-render", "--strip", "pagelevel").exit_code == 2


def test_classify_train_no_render_means_without_a_browser() -> None:
    """``--no-render`` means "parse without a browser" in every command; rendering the render
    cache's misses has its own flag."""
    r = cli("classify", "train", "--help")
    assert "--render-missing" in r.output
    help_no_render = r.output.split("--no-render ", 1)[1][:300]
    assert "without a browser" in " ".join(help_no_render.split())


def test_classify_predict_without_a_browser(tmp_path: Path, monkeypatch) -> None:
    for k, v in NO_BROWSER.items():
        monkeypatch.setenv(k, v)
    warc = write_crawl_warc(tmp_path / "crawl.warc", truncate=False)
    r = cli("classify", "predict", str(warc), "--no-render", "--json")
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.output.splitlines() if x.startswith("{")]
    assert len(rows) == 3 and all(x["page_type"]["type"] for x in rows)
    assert r.output.count("webseg: skipped: ") == 5


def test_parsed_pipeline_config_refuses_layout_bound_choices() -> None:
    from webseg.pipeline import PipelineConfig

    cfg = PipelineConfig.parsed()
    assert cfg.segmenter == "blockfusion" and cfg.to_dict()["render"] is False
    assert "render" not in PipelineConfig().to_dict()  # earlier runs resume unchanged
    with pytest.raises(ValueError, match="segmenter 'vips' needs layout"):
        PipelineConfig.parsed(segmenter="vips")
    with pytest.raises(ValueError, match="clean method 'pagelevel' needs layout"):
        PipelineConfig.parsed(clean_segmenter="pagelevel")
