"""``webseg dedup`` end to end: directories, WARC files, reports, bad input, exit codes."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
from click.testing import CliRunner

from webseg.cli import main

_WORDS = ("river stone cloud market garden winter harbor signal engine lamp paper table "
          "glass bridge forest candle mirror ladder pocket violin ")
WORDS = _WORDS.split()


def _story(rng: random.Random, n: int = 150) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def _page(site: str, title: str, story: str) -> str:
    nav = " ".join(f"<li><a href='/{i}'>{site} link {i}</a></li>" for i in range(12))
    return (f"<html><head><title>{title}</title></head><body><ul id=nav>{nav}</ul>"
            f"<div id=main><h1>{title}</h1><p>{story}</p></div>"
            f"<div id=foot>Copyright {site} all rights reserved, terms, privacy, cookies."
            f"</div></body></html>")


@pytest.fixture
def pages(tmp_path):
    rng = random.Random(4)
    s = [_story(rng) for _ in range(3)]
    d = tmp_path / "pages"
    (d / "a").mkdir(parents=True)
    (d / "b").mkdir()
    (d / "a" / "one.html").write_text(_page("alpha", "One <b>", s[0]))
    (d / "b" / "one.html").write_text(_page("beta", "One again", s[0]))
    (d / "a" / "two.html").write_text(_page("alpha", "Two", s[1]))
    (d / "b" / "three.html").write_text(_page("beta", "Three", s[2]))
    (d / "b" / "empty.html").write_text("<html><body>   </body></html>")
    return d


@pytest.fixture(autouse=True)
def _shared_browser(request, monkeypatch):
    """Browser tests reuse the session renderer instead of starting Chromium per command."""
    if "renderer" in request.fixturenames:
        import dedup.cli

        monkeypatch.setattr(dedup.cli, "RENDERER", request.getfixturevalue("renderer"))


def _run(args):
    return CliRunner().invoke(main, ["dedup", *args], catch_exceptions=False)


@pytest.mark.browser
def test_dedup_directory_report(renderer, pages, tmp_path):
    out = tmp_path / "out"
    r = _run([str(pages), "--strip", "none", "--report", str(out)])
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pages"] == 5 and summary["empty_text"] == 1
    clusters = json.loads((out / "clusters.json").read_text())
    assert len(clusters) == 1
    assert sorted(p["id"].split("pages/")[1] for p in clusters[0]["pages"]) == \
        ["a/one.html", "b/one.html"]
    html = (out / "report.html").read_text()
    assert "One &lt;b&gt;" in html and "<b>" not in html.split("<body>", 1)[1].split("<h1>")[0]


@pytest.mark.browser
def test_dedup_stdout_binary_input_and_sitelevel(renderer, pages):
    (pages / "b" / "bin.html").write_bytes(bytes(range(256)) * 8)
    r = CliRunner().invoke(main, ["dedup", str(pages), "--strip", "sitelevel",
                                  "--site-key", "dir"])
    assert r.exit_code == 1  # one input failed, the others were processed
    assert "bin.html" in r.stderr and "webseg: error:" in r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    assert len(lines) == 1 and len(lines[0]["pages"]) == 2


@pytest.mark.browser
def test_dedup_warc_input(renderer, tmp_path):
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    rng = random.Random(5)
    s = _story(rng)
    path = tmp_path / "crawl.warc.gz"
    with path.open("wb") as f:
        w = WARCWriter(f, gzip=True)
        for i, (site, story) in enumerate([("x", s), ("y", s), ("z", _story(rng))]):
            body = _page(site, f"page {i}", story).encode()
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                       protocol="HTTP/1.1")
            w.write_record(w.create_warc_record(f"http://{site}.example/p{i}", "response",
                                                payload=io.BytesIO(body),
                                                http_headers=headers))
    out = tmp_path / "out"
    r = _run([str(path), "--strip", "pagelevel", "--report", str(out)])
    assert r.exit_code == 0, r.output
    clusters = json.loads((out / "clusters.json").read_text())
    assert [sorted(p["url"] for p in c["pages"]) for c in clusters] == \
        [["http://x.example/p0", "http://y.example/p1"]]


def test_dedup_usage_errors(tmp_path):
    r = CliRunner().invoke(main, ["dedup", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "no such file" in r.output
    r = CliRunner().invoke(main, ["dedup", str(tmp_path), "--threshold", "9"])
    assert r.exit_code == 2 and "threshold" in r.output
    r = CliRunner().invoke(main, ["dedup", str(tmp_path), "--strip", "bogus"])
    assert r.exit_code == 2
    r = CliRunner().invoke(main, ["dedup", str(tmp_path), "--strip", "largest",
                                  "--segmenter", "nope"])
    assert r.exit_code == 2 and "unknown segmenter" in r.output
    r = CliRunner().invoke(main, ["dedup", str(tmp_path), "--lsh-redis", "nohostport"])
    assert r.exit_code == 2 and "HOST:PORT" in r.output


@pytest.mark.browser
def test_dedup_url_list_on_loopback(renderer, http_server, tmp_path):
    rng = random.Random(6)
    s = _story(rng)
    for i, (site, story) in enumerate([("p", s), ("q", s), ("r", _story(rng))]):
        http_server.files[f"/{i}.html"] = (_page(site, f"url page {i}", story).encode(),
                                           "text/html; charset=utf-8")
    urls = tmp_path / "list.urls"
    urls.write_text("".join(f"{http_server.url}/{i}.html\n" for i in range(3)))
    r = _run([str(urls), "--strip", "largest", "--segmenter", "dom", "--candidates", "all"])
    assert r.exit_code == 0, r.output
    (line,) = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    assert sorted(p["title"] for p in line["pages"]) == ["url page 0", "url page 1"]


def test_report_urls_of_local_files_are_the_page_results(pages, tmp_path):
    """A local file's url is what the page result gives: its canonical URL, else file://."""
    from webseg.clean.json_out import file_uri

    canon = pages / "a" / "one.html"
    canon.write_text(canon.read_text().replace(
        "<head>", '<head><link rel="canonical" href="https://alpha.example/one">'))
    out = tmp_path / "out"
    r = _run([str(pages), "--strip", "none", "--no-render", "--report", str(out)])
    assert r.exit_code == 0, r.output
    (cluster,) = json.loads((out / "clusters.json").read_text())
    urls = sorted(p["url"] for p in cluster["pages"])
    assert urls == [file_uri(pages / "b" / "one.html"), "https://alpha.example/one"]
    with (out / "clusters.csv").open(newline="") as f:
        assert sorted(row["url"] for row in csv.DictReader(f)) == urls
