"""The Spark job in local[2] mode matches the single-machine pipeline on the same WARC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_inputs import write_warc
from webseg.pipeline import PipelineConfig, run_pipeline

pyspark = pytest.importorskip("pyspark", reason="pip install webseg[spark]")

PAGE = """<html><head><title>{title}</title></head><body>
<div id=nav><a href=/a>Home</a> <a href=/b>World</a> <a href=/c>Sport</a></div>
<div id=story><h1>{title}</h1><p>{body}</p></div>
<div id=foot>Copyright {site}</div></body></html>"""


def story(n: int) -> str:
    return " ".join(f"story{n}word{k}" for k in range(120))


def crawl(tmp_path: Path) -> Path:
    """Seven responses: stories 0 and 1 each appear on two sites (duplicates), one PNG."""
    recs = []
    for i, (site, n) in enumerate([("a.example", 0), ("b.example", 0), ("a.example", 1),
                                   ("c.example", 1), ("a.example", 2), ("b.example", 3)]):
        html = PAGE.format(title=f"Story {n}", body=story(n), site=site)
        recs.append((f"http://{site}/{i}", "text/html; charset=utf-8", html.encode()))
    recs.insert(3, ("http://a.example/logo.png", "image/png", b"\x89PNG\r\n"))
    path = tmp_path / "crawl.warc.gz"
    write_warc(path, recs)
    return path


def lines(paths: list[Path]) -> dict[str, dict]:
    out = {}
    for p in paths:
        for line in p.read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            d.pop("timings", None)
            out[d["id"]] = d
    return out


@pytest.mark.browser
@pytest.mark.spark
def test_spark_local_matches_single_machine(tmp_path: Path) -> None:
    from webseg.pipeline.spark import run_spark

    warc = crawl(tmp_path)
    config = PipelineConfig(stages=("segment", "clean", "sketch", "dedup", "index"))
    run_pipeline([str(warc.resolve())], tmp_path / "one", config, progress=False)
    res = run_spark([str(warc)], str(tmp_path / "spark"), config, master="local[2]",
                    partitions=3)
    single = lines([tmp_path / "one" / "pages.jsonl"])
    dist = lines(sorted((tmp_path / "spark" / "pages.jsonl").glob("part-*")))
    assert set(res.pop("seconds")) == {"pages", "collection"}
    assert res == {"records": 7, "ok": 6, "empty": 0, "skipped": 1, "errors": 0,
                   "duplicate_clusters": 2}
    assert set(single) == set(dist)
    for k, d in single.items():
        assert dist[k] == d, k
    clusters = {}
    for d in single.values():
        if d.get("duplicate_cluster"):
            clusters.setdefault(d["duplicate_cluster"], []).append(d["url"])
    assert sorted(sorted(c) for c in clusters.values()) == [
        ["http://a.example/0", "http://b.example/1"], ["http://a.example/2", "http://c.example/3"]]
    assert (tmp_path / "spark" / "pages.parquet").is_dir()

    # The index built from Spark's output (no rendering) equals the single machine's index.
    from click.testing import CliRunner

    from ir import Index
    from webseg.cli import main

    for folder in ("spark", "one"):
        r = CliRunner().invoke(main, ["index", str(tmp_path / folder), "-o",
                                      str(tmp_path / f"idx-{folder}")])
        assert r.exit_code == 0, r.output
    one = Index.open(tmp_path / "one" / "index")
    assert (tmp_path / "spark" / "lucene_docs").is_dir()
    for folder in ("spark", "one"):
        other = Index.open(tmp_path / f"idx-{folder}")
        assert [d.id for d in other.docs] == [d.id for d in one.docs]
        assert other.sources == one.sources == ["vips"]
        for q in ("story0word3", "story1word7 story2word9", "copyright", "sport world",
                  "story3word1 home"):
            for prf in ("none", "blocks"):
                a, b = one.search(q, k=10, prf=prf), other.search(q, k=10, prf=prf)
                assert [(h.id, round(h.score, 9), h.snippet) for h in a.hits] == \
                    [(h.id, round(h.score, 9), h.snippet) for h in b.hits], (folder, q, prf)
    # Spark's JsonCollection lines (built in SQL) are what the Python helper writes.
    from webseg.pipeline.spark import _lucene_line

    docs = [x for p in sorted((tmp_path / "spark" / "index_docs").glob("part-*"))
            for x in p.read_text(encoding="utf-8").splitlines()]
    luc = [json.loads(x) for p in sorted((tmp_path / "spark" / "lucene_docs").glob("part-*"))
           for x in p.read_text(encoding="utf-8").splitlines()]
    assert sorted(luc, key=lambda d: d["id"]) == sorted(
        (json.loads(_lucene_line(d)) for d in docs), key=lambda d: d["id"])
