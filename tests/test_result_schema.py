"""The page result: metadata, URLs, empty-page reasons and the one schema everywhere.

Pages are parsed (no browser); the block model is the shipped one, so the results are real.
"""

from __future__ import annotations

import gzip
import json
import types
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_inputs import write_warc
from webseg.clean import extract
from webseg.clean.json_out import (
    FIELDS,
    SCHEMA,
    blank,
    page_type_object,
    upgrade_line,
    warc_fields,
)
from webseg.clean.metadata import base_url, canonical_url, extract_metadata, normalize_date
from webseg.clean.reasons import empty_reason
from webseg.cli import main
from webseg.inputs import InputRecord
from webseg.parse import parse

BODY = ("<article><h1>{h}</h1><p>The harbour ferry timetable changes this winter, with fewer "
        "sailings on weekday mornings and a new late boat on Fridays for the island "
        "residents.</p><p>Tickets bought before the change stay valid until the end of the "
        "season, the operator said on Tuesday, and season passes are refunded pro rata "
        "for anyone who asks. See the <a href=\"team/john\">team page</a> for contacts.</p>"
        "</article>")

JSON_LD = """<!DOCTYPE html><html lang="en-GB"><head><title>Ferry news | Harbour Times</title>
<meta property="og:title" content="OG headline">
<meta name="author" content="Meta Author">
<meta property="article:published_time" content="2024-03-09T08:00:00Z">
<script type="application/ld+json">
{"@context": "https://schema.org", "@graph": [
 {"@type": "WebSite", "name": "Harbour Times"},
 {"@type": "NewsArticle", "headline": "Ferry timetable changes",
  "author": [{"@type": "Person", "name": "Ann Lee"}, {"@type": "Person", "name": "Bo Chen"}],
  "datePublished": "2024-03-05T10:00:00+01:00", "dateModified": "2024-03-06",
  "description": "Fewer morning sailings.", "image": {"@type": "ImageObject",
  "url": "/img/ferry.jpg"}, "keywords": ["ferries", "harbour"],
  "publisher": {"@type": "Organization", "name": "Harbour Times Ltd"}}]}
</script></head><body>""" + BODY.format(h="Ferry timetable changes") + "</body></html>"

OPEN_GRAPH = """<html><head><title>Plain title</title>
<meta property="og:title" content="OG &amp; headline">
<meta property="og:site_name" content="Example Site">
<meta property="og:description" content="OG description">
<meta property="og:image" content="https://cdn.example.org/a.png">
<meta property="og:url" content="https://example.org/news/ferry">
<meta property="article:published_time" content="2023-11-02T09:30:00+00:00">
<meta property="article:modified_time" content="2023-11-03T09:30:00+00:00">
<meta property="article:tag" content="boats"><meta property="article:tag" content="travel">
<meta name="author" content="By Jane Doe and John Roe">
</head><body>""" + BODY.format(h="OG headline") + "</body></html>"

META_ONLY = """<html><head><meta http-equiv="content-language" content="de">
<title>Fähre</title><meta name="description" content="Kurz">
<meta name="keywords" content="Fähre, Hafen"><meta name="dc.date.issued" content="2022-07-14">
<meta name="dc.creator" content="Müller, Anna"></head><body>""" + BODY.format(h="Fähre") + \
    "</body></html>"

MICRODATA = """<html><head><title>Micro</title></head><body>
<div itemscope itemtype="https://schema.org/BlogPosting">
<h1 itemprop="headline">Microdata headline</h1>
<span itemprop="author" itemscope itemtype="https://schema.org/Person">
<span itemprop="name">Zoë Quinn</span></span>
<time itemprop="datePublished" datetime="2021-05-06">6 May</time>
<meta itemprop="dateModified" content="2021-05-08">
</div>""" + BODY.format(h="x") + "</body></html>"

BYLINE = """<html><head><title>Byline page</title></head><body>
<div class="post-meta"><div class="author-wrap"><span>By</span>
<a class="author-link" href="/u/k">Kim Park</a></div></div>""" + BODY.format(h="x") + \
    "</body></html>"


# --------------------------------------------------------------------------- metadata
def test_json_ld_article_wins_and_fills_every_field() -> None:
    md = extract_metadata(JSON_LD, url="https://harbour.example/news/1")
    assert md.title == "Ferry timetable changes"
    assert md.authors == ["Ann Lee", "Bo Chen"]
    assert md.date_published == "2024-03-05T10:00:00+01:00"
    assert md.date_modified == "2024-03-06"
    assert md.description == "Fewer morning sailings."
    assert md.image == "https://harbour.example/img/ferry.jpg"  # resolved against the URL
    assert md.tags == ["ferries", "harbour"] and md.site_name == "Harbour Times Ltd"
    assert md.lang_hints == ["en-GB"]
    assert md.sources["authors"] == "json-ld" and md.sources["title"] == "json-ld"


def test_open_graph_fields() -> None:
    md = extract_metadata(OPEN_GRAPH)
    assert md.title == "OG & headline" and md.site_name == "Example Site"
    assert md.description == "OG description" and md.image == "https://cdn.example.org/a.png"
    assert md.canonical_url == "https://example.org/news/ferry"
    assert md.date_published == "2023-11-02T09:30:00+00:00"
    assert md.date_modified == "2023-11-03T09:30:00+00:00"
    assert md.tags == ["boats", "travel"]
    assert md.authors == ["Jane Doe", "John Roe"]  # "By" dropped, the list split
    assert md.sources["title"] == "opengraph"


def test_meta_tags_dublin_core_and_content_language() -> None:
    md = extract_metadata(META_ONLY)
    assert md.title == "Fähre" and md.description == "Kurz"
    assert md.tags == ["Fähre", "Hafen"] and md.date_published == "2022-07-14"
    assert md.lang_hints == ["de"]
    assert md.authors == ["Müller, Anna"]  # one name, surname first
    assert extract_metadata('<meta name="author" content="Ann Lee, Ph.D.">').authors == [
        "Ann Lee"]


def test_microdata() -> None:
    md = extract_metadata(MICRODATA)
    assert md.title == "Microdata headline"  # structured data before <title>
    assert md.authors == ["Zoë Quinn"] and md.sources["authors"] == "microdata"
    assert md.date_published == "2021-05-06" and md.date_modified == "2021-05-08"


def test_byline_when_nothing_structured() -> None:
    md = extract_metadata(BYLINE, dates=False)
    assert md.authors == ["Kim Park"] and md.sources["authors"] == "page"


def test_byline_separators_and_brackets_are_not_the_name() -> None:
    html = '<p class="hn-byline"> (UKPA)\n&ndash;\n<span class="hn-date">6 hours ago</span></p>'
    assert extract_metadata(html, dates=False).authors == ["UKPA"]
    html = '<p class="byline">By Jo Lee \u2014</p>'
    assert extract_metadata(html, dates=False).authors == ["Jo Lee"]


def test_an_organisation_author_is_a_last_resort() -> None:
    html = ('<script type="application/ld+json">{"@type": "Article", "author": {"@type": '
            '"Organization", "name": "Big Media"}}</script>') + BYLINE
    assert extract_metadata(html, dates=False).authors == ["Kim Park"]
    html = ('<script type="application/ld+json">{"@type": "Article", "author": {"@type": '
            '"Organization", "name": "Big Media"}}</script><p>text</p>')
    assert extract_metadata(html, dates=False).authors == ["Big Media"]


def test_login_names_give_way_to_a_byline() -> None:
    html = '<meta name="author" content="kpark99">' + BYLINE
    assert extract_metadata(html, dates=False).authors == ["Kim Park"]


def test_date_from_the_url_and_normalisation() -> None:
    md = extract_metadata("<title>t</title><p>x</p>", url="https://x.example/2020/01/31/story",
                          dates=False)
    assert md.date_published == "2020-01-31" and md.sources["date_published"] == "url"
    assert normalize_date("September 4, 2025") == "2025-09-04"
    assert normalize_date("2025-09-04T10:00:00Z") == "2025-09-04T10:00:00+00:00"
    assert normalize_date("not a date") is None and normalize_date("1712") is None
    assert normalize_date("March 2024") is None  # no day: not a date


def test_broken_json_ld_and_no_source_are_not_errors() -> None:
    md = extract_metadata('<script type="application/ld+json">{"@type": "Article",</script>'
                          "<title>T</title>", dates=False)
    assert md.title == "T" and md.authors == []
    empty = extract_metadata(None)
    assert empty.to_dict() == {"title": None, "authors": [], "date_published": None,
                               "date_modified": None, "site_name": None, "description": None,
                               "canonical_url": None, "image": None, "tags": []}


def test_metadata_from_the_page_alone() -> None:
    page = parse(OPEN_GRAPH)
    md = extract_metadata(None, page=page)
    # the Page keeps <meta content>, so Open Graph wins over <title> as from the HTML
    assert md.title == "OG & headline" and md.site_name == "Example Site"


# --------------------------------------------------------------------------- URLs
def test_base_url_and_canonical() -> None:
    assert base_url("https://a.example/x/y.html", "/root/") == "https://a.example/root/"
    assert base_url("https://a.example/x/y.html", "https://b.example/") == "https://b.example/"
    assert base_url("https://a.example/x/y.html", None) == "https://a.example/x/y.html"
    assert canonical_url('<link rel="canonical" href="https://c.example/p">') == \
        "https://c.example/p"
    assert canonical_url('<link rel="canonical" href="/relative">') is None
    assert canonical_url('<meta property="og:url" content="https://o.example/q">') == \
        "https://o.example/q"


def run(*args: str, input: bytes | None = None):  # noqa: A002 - click's name
    return CliRunner().invoke(main, ["clean", *args], input=input)


def test_local_gz_is_named_as_itself_and_base_href_resolves_links(tmp_path: Path) -> None:
    html = ("<html><head><title>T</title><base href=\"https://example.org/blog/\"></head>"
            "<body>" + BODY.format(h="Harbour news") + "</body></html>")
    p = tmp_path / "x.html.gz"
    p.write_bytes(gzip.compress(html.encode()))
    r = run(str(p), "--no-render", "-f", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["url"] == p.resolve().as_uri() and d["url"].endswith("x.html.gz")
    assert d["source"] == d["id"] == str(p)
    r = run(str(p), "--no-render", "-f", "markdown", "--links")
    assert "(https://example.org/blog/team/john)" in r.stdout


def test_canonical_and_user_url(tmp_path: Path) -> None:
    p = tmp_path / "c.html"
    p.write_text("<html><head><title>T</title><link rel=canonical "
                 "href=\"https://site.example/a/story\"></head><body>"
                 + BODY.format(h="Harbour news") + "</body></html>")
    d = json.loads(run(str(p), "--no-render", "-f", "json").stdout)
    assert d["url"] == "https://site.example/a/story"
    r = run(str(p), "--no-render", "-f", "markdown", "--links")
    assert "(https://site.example/a/team/john)" in r.stdout
    r = run(str(p), "--no-render", "-f", "json", "--url", "https://given.example/p/q.html")
    assert json.loads(r.stdout)["url"] == "https://given.example/p/q.html"
    r = run(str(p), "--no-render", "-f", "markdown", "--links", "--url",
            "https://given.example/p/q.html")
    assert "(https://given.example/p/team/john)" in r.stdout
    assert run(str(p), str(p), "--url", "https://x.example/", "-f", "json").exit_code == 2
    assert run(str(p), "--url", "ftp://x.example/").exit_code == 2


# --------------------------------------------------------------------------- empty pages
DEEP = "<html><body>" + "<div>" * 2000 + "deep text here" + "</div>" * 2000 + "</body></html>"


@pytest.mark.parametrize(("html", "reason"), [
    ("<html><body></body></html>", "no text"),
    ("<html><body><img src=a.png></body></html>", "no text"),
    ("<html><head><script src=app.js></script></head><body><div id=root></div></body></html>",
     "script-only shell"),
    ("<html><body><div id=app>Loading...</div><script>x()</script></body></html>",
     "script-only shell"),
    (DEEP, "too deep"),
    ("<html><body><p>Just a few words.</p></body></html>", "tiny page"),
    ("<html><body><nav>" + " ".join(f"<a href=/{i}>Link {i}</a>" for i in range(30))
     + "</nav></body></html>", "nothing kept"),
])
def test_empty_reasons(html: str, reason: str) -> None:
    assert empty_reason(parse(html)) == reason


def test_empty_page_says_why_on_stderr_and_in_json(tmp_path: Path) -> None:
    p = tmp_path / "shell.html"
    p.write_text("<html><head><script src=app.js></script></head><body><div id=root></div>"
                 "</body></html>")
    r = run(str(p), "--no-render", "-f", "json")
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert d["status"] == "empty" and d["reason"] == "script-only shell" and d["text"] == ""
    assert "no main content: script-only shell" in r.stderr
    r = run(str(p), "--no-render")
    assert r.stdout == "" and "script-only shell" in r.stderr


# --------------------------------------------------------------------------- one schema
def _types(d: dict) -> dict[str, str]:
    return {k: type(v).__name__ for k, v in d.items()}


def test_one_schema_everywhere(tmp_path: Path) -> None:
    """clean -f json, to_dict() and the pipeline's line: same names, same order, same types."""
    from webseg.pipeline.process import PageProcessor, PipelineConfig
    from webseg.pipeline.run import INTERNAL_FIELDS

    p = tmp_path / "a.html"
    p.write_text(OPEN_GRAPH)
    cli = json.loads(run(str(p), "--no-render", "-f", "json").stdout)
    page = parse(OPEN_GRAPH, url="https://example.org/news/ferry")
    lib = extract(page, html=OPEN_GRAPH).to_dict()
    rec = InputRecord(id=str(p), url=None, source=p, kind="file")
    line = PageProcessor(PipelineConfig(stages=("clean",))).process(
        rec.id, None, parse(OPEN_GRAPH), html=OPEN_GRAPH, record=rec)
    assert tuple(cli) == tuple(lib) == FIELDS == tuple(line)[:len(FIELDS)]
    extra = tuple(k for k in tuple(line)[len(FIELDS):] if k not in INTERNAL_FIELDS)
    assert extra == ("timings",)  # internal fields never reach pages.jsonl
    core = {k: line[k] for k in FIELDS}
    assert core["roles"] is None and cli["roles"]  # the pipeline skips the role model
    assert _types(cli) == {**_types(core), "roles": "list"}
    assert lib["id"] is None and lib["source"] is None  # a page, not an input record
    assert _types(cli) == {**_types(lib), "id": "str", "source": "str"}
    assert cli["text"] == lib["text"] == core["text"] and cli["text"]
    assert cli["url"] == core["url"] == "https://example.org/news/ferry"  # canonical (og:url)
    for d in (cli, lib, core):
        assert d["schema"] == SCHEMA and d["status"] == "ok"
        assert d["authors"] == ["Jane Doe", "John Roe"] and d["title"] == "OG & headline"
    # an error line has the same fields, empty
    err = blank("x", source="x", status="error", reason="read: gone",
                error={"stage": "read", "message": "gone"})
    assert tuple(err) == FIELDS


def test_language_is_hinted_by_the_page() -> None:
    pytest.importorskip("py3langid")
    lang = extract(parse(JSON_LD), html=JSON_LD).to_dict()["language"]
    assert lang["code"] == "en" and lang["source"] in ("hint+text", "text")
    german = META_ONLY.replace(BODY.format(h="Fähre"), "<p>Die Fähre fährt im Winter seltener, "
                               "und am Freitag gibt es ein spätes Boot für die Inselbewohner."
                               " Fahrkarten bleiben gültig.</p>" * 3)
    lang = extract(parse(german), html=german).to_dict()["language"]
    assert lang["code"] == "de"


def test_spark_columns_are_the_schema() -> None:
    pytest.importorskip("pyspark")
    from pyspark.sql.types import _make_type_verifier

    from webseg.pipeline.process import PageProcessor, PipelineConfig
    from webseg.pipeline.spark import _row, _schema

    schema = _schema()
    assert tuple(schema.names[:len(FIELDS)]) == FIELDS
    line = PageProcessor(PipelineConfig(stages=("clean",))).process(
        "a", "https://example.org/a", parse(JSON_LD), html=JSON_LD)
    line["page_type"] = page_type_object({"article": 0.75, "forum": 0.25})
    line["language"] = {"code": "en", "confidence": 1, "source": "text"}
    row = _row(line)
    _make_type_verifier(schema)(row)  # raises when a value does not fit its column's type
    assert row[schema.names.index("text")] == line["text"]


def test_warc_fields_have_their_place() -> None:
    rec = InputRecord(id="c.warc.gz#0", url="http://a.example/", source=b"x", kind="warc")
    w = warc_fields(rec)
    assert w == {"record_id": None, "date": None, "target_uri": "http://a.example/",
                 "http_status": None, "content_type": None}
    flat = types.SimpleNamespace(kind="warc", url="http://a.example/",
                                 warc_record_id="<urn:uuid:1>", warc_date="2024-01-01T00:00:00Z",
                                 http_status="200", content_type="text/html")
    assert warc_fields(flat) == {"record_id": "<urn:uuid:1>", "date": "2024-01-01T00:00:00Z",
                                 "target_uri": "http://a.example/", "http_status": 200,
                                 "content_type": "text/html"}
    nested = types.SimpleNamespace(kind="warc", url="u", warc={"record_id": "r", "date": "d",
                                                               "target_uri": "t",
                                                               "http_status": 404,
                                                               "content_type": "c"})
    assert warc_fields(nested)["http_status"] == 404 and warc_fields(nested)["target_uri"] == "t"
    assert warc_fields(InputRecord(id="f", url=None, source=b"", kind="file")) is None


def test_warc_json_lines_carry_record_and_source(tmp_path: Path) -> None:
    warc = tmp_path / "c.warc.gz"
    write_warc(warc, [("http://a.example/1", "text/html", JSON_LD.encode()),
                      ("http://a.example/i.png", "image/png", b"\x89PNG\r\n")])
    r = run(str(warc), "--no-render", "-f", "json")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["status"] for x in lines] == ["ok", "skipped"]
    assert all(x["source"] == str(warc) and x["id"].startswith(str(warc) + "#") for x in lines)
    assert lines[0]["url"] == "http://a.example/1" and lines[0]["authors"] == ["Ann Lee",
                                                                              "Bo Chen"]
    assert "1 ok, 1 skipped" in r.stderr


# --------------------------------------------------------------------------- old journals
def test_old_journal_lines_are_upgraded(tmp_path: Path) -> None:
    from webseg.pipeline.process import PipelineConfig
    from webseg.pipeline.run import finalize

    cfg = PipelineConfig(stages=("clean",))
    work = tmp_path / "work"
    work.mkdir()
    old = [{"id": "a.html", "url": None, "status": "ok", "error": None, "title": "A",
            "main_text": "old text", "timings": {"clean": 0.1}},
           {"id": "w.warc#5", "url": "http://x/", "status": "error",
            "error": {"stage": "render", "message": "timeout"}}]
    (work / "pages.jsonl").write_text("".join(json.dumps(x) + "\n" for x in old))
    s = finalize(["a.html", "w.warc#5"], tmp_path, cfg)
    out = [json.loads(x) for x in (tmp_path / "pages.jsonl").read_text().splitlines()]
    assert tuple(out[0])[:len(FIELDS)] == FIELDS and "main_text" not in out[0]
    assert out[0]["text"] == "old text" and out[0]["authors"] == [] and out[0]["timings"]
    assert out[1]["source"] == "w.warc" and out[1]["reason"] == "render: timeout"
    assert s.ok == 1 and s.errors == {"render": 1}
    line = {"schema": SCHEMA, "id": "z"}
    assert upgrade_line(line) == {"schema": SCHEMA, "id": "z"}  # current lines unchanged


def test_page_url_rules(tmp_path: Path) -> None:
    """A rendered local x.html.gz (served to Chromium as x.html) is named as itself."""
    from webseg.clean.run import page_url

    p = tmp_path / "x.html.gz"
    p.write_bytes(gzip.compress(b"<p>x</p>"))
    page = parse("<p>x</p>", url=(tmp_path / "x.html").resolve().as_uri())
    rec = InputRecord(id=str(p), url=None, source=p, kind="file")
    assert page_url(rec, page, "<p>x</p>") == p.resolve().as_uri()
    assert page_url(rec, page, OPEN_GRAPH) == "https://example.org/news/ferry"
    assert page_url(rec, page, OPEN_GRAPH, "https://u.example/") == "https://u.example/"
    warc = InputRecord(id="c.warc#0", url="http://t.example/", source=b"", kind="warc")
    assert page_url(warc, page, OPEN_GRAPH) == "http://t.example/"
    saved = InputRecord(id="a.page.json", url=None, source=tmp_path / "a.page.json",
                        kind="file")
    assert page_url(saved, parse("<p>x</p>", url="https://r.example/"), None) == \
        "https://r.example/"


def test_xpaths_of_equals_the_pages_list() -> None:
    from webseg.clean.json_out import xpaths_of

    page = parse(JSON_LD + "<div><p>a<b>b</b>c</p><p>d</p>text<p>e</p></div>")
    nodes = list(range(page.n))
    fresh = parse(JSON_LD + "<div><p>a<b>b</b>c</p><p>d</p>text<p>e</p></div>")
    assert xpaths_of(fresh, nodes[:20]) == page.xpaths[:20]
    for i in nodes:
        assert xpaths_of(parse(JSON_LD + "<div><p>a<b>b</b>c</p><p>d</p>text<p>e</p></div>"),
                         [i]) == [page.xpaths[i]]


def test_xpaths_of_without_the_pages_steps() -> None:
    """Built from the steps of the needed nodes' siblings alone, or from the Page's steps
    when they are at hand: the Page's own XPaths either way, on many same-name siblings,
    text nodes among them and several levels, for any node set in any order."""
    from webseg.clean.json_out import xpaths_of

    html = ("<div><p>a<b>b</b>c<b>d</b></p><p>d</p>text<p>e<i>f</i>g</p><ul>"
            + "".join(f"<li>{k}<span>x</span>y</li>" for k in range(12))
            + "</ul></div><div><p>h</p></div>")
    page = parse(html)
    nodes = list(range(page.n))
    for order in (nodes, nodes[::-1], nodes[::3], [nodes[-1], nodes[1]]):
        fresh = parse(html)
        assert xpaths_of(fresh, order) == [page.xpaths[i] for i in order]
        assert "xpath_steps" not in fresh.__dict__  # the sparse way was taken
        stepped = parse(html)
        _ = stepped.xpath_steps
        assert xpaths_of(stepped, order) == [page.xpaths[i] for i in order]


_PIECES = ["<meta ", 'name="author" ', 'content="', '"', "'", ">", "<", "</script>",
           '<script type="application/ld+json">', '{"@type": ["Article", 3], "author": ',
           '[{"name": {"x": 1}}, null, "A B"]', ', "datePublished": [', "2024-13-45", "]}",
           '<time datetime="', "itemprop=author ", "itemscope ", 'class="byline">',
           "By ", "Jane", "&amp;", "&#", "\u00ad", "\x00", "<base href=", "//x", "\n"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=8), max_size=40))
def test_metadata_never_raises_on_odd_markup(parts: list[str]) -> None:
    md = extract_metadata("".join(parts), url="https://x.example/2024/02/30/a", dates=False)
    d = md.to_dict()
    assert all(isinstance(v, str) for v in d["authors"] + d["tags"])
    for k in ("date_published", "date_modified"):
        assert d[k] is None or normalize_date(d[k]) is not None


def test_pipeline_counts_empty_pages_by_reason(tmp_path: Path) -> None:
    from webseg.pipeline.journal import Journal
    from webseg.pipeline.process import PageProcessor, PipelineConfig
    from webseg.pipeline.run import finalize

    cfg = PipelineConfig(stages=("clean",))
    proc = PageProcessor(cfg)
    shell = "<html><head><script src=app.js></script></head><body><div id=root></div></body>"
    with Journal.open(tmp_path / "work" / "pages.jsonl") as j:
        j.append(proc.process("shell", "https://a.example/", parse(shell)))
        j.append(proc.process("ok", "https://a.example/ok", parse(JSON_LD), html=JSON_LD))
    s = finalize(["shell", "ok"], tmp_path, cfg)
    out = [json.loads(x) for x in (tmp_path / "pages.jsonl").read_text().splitlines()]
    assert [(x["status"], x["reason"]) for x in out] == [("empty", "script-only shell"),
                                                         ("ok", None)]
    assert s.ok == 1 and s.empty == {"script-only shell": 1} and not s.errors
    assert "empty (script-only shell)" in s.table()
