"""webseg.clean: masks, the four output formats, methods and the ``webseg clean`` command.

The block model is replaced by a fake (``block_functions`` keeping every leaf outside
``nav``/``footer``/``aside``) so these tests check the plumbing, not the model; most pages are
parsed (:mod:`webseg.parse`) so no browser is needed.
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_inputs import write_warc
from webseg.clean import DEFAULT_METHOD, METHODS, CleanResult, extract
from webseg.clean.json_out import FIELDS, SCHEMA
from webseg.clean.mask import node_mask, roots
from webseg.clean.txt import BLOCK_TAGS, block_owner
from webseg.cli import main
from webseg.page import ELEMENT, TEXT, NoLayoutError, Page
from webseg.parse import parse

BOILER = ("nav", "footer", "aside")

DOC = """<!DOCTYPE html><html><head><title>Doc &amp; title</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Main <em>heading</em></h1>
<p>First paragraph with a <a href="/x?a=1&amp;b=(2)">link</a>, and <code>a_b*c</code> inline.</p>
<p># not a heading <b>bold</b>. 1. not a list</p>
<h2>Lists</h2>
<ul><li>one</li><li>two<ul><li>two.a</li></ul></li><li><p>three</p></li></ul>
<ol><li>first</li><li>second</li></ol>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr>
<tr><td>c</td><td><p>2</p></td></tr></table>
<pre><code>def f(x):
    return x * 2
</code></pre>
<blockquote><p>quoted text</p></blockquote>
<p>&lt;script&gt;alert("x")&lt;/script&gt; <a href="javascript:alert(1)">js link</a>
<a href=" JaVaScRiPt:alert(2)">js two</a> <img src="data:image/png;base64,xx" alt="pic"></p>
</article><aside>Related stories</aside><footer>Footer text</footer></body></html>"""


def boiler_mask(page: Page) -> np.ndarray:
    """True per visible text leaf outside nav/footer/aside."""
    return np.array([not any(page.tag[a] in BOILER for a in page.ancestors(j))
                     for j in page.text_leaves.tolist()], dtype=bool)


@pytest.fixture
def fake_blocks(monkeypatch: pytest.MonkeyPatch) -> list[Page]:
    """A stand-in ``webseg.blocks`` with the BLOCKS_API shape; returns the pages it saw."""
    seen: list[Page] = []

    def block_functions(page: Page, site_pages=(), model=None, decoder=None):
        seen.append(page)
        keep = np.zeros(page.n, dtype=bool)
        keep[page.text_leaves[boiler_mask(page)]] = True
        return types.SimpleNamespace(page=page, keep=keep)

    # the submodules the clean layer imports from the real package, imported before the stand-in
    # hides it (else the result depends on which test imported them first)
    import webseg.blocks.siterepeat  # noqa: F401

    mod = types.ModuleType("webseg.blocks")
    mod.block_functions = block_functions  # type: ignore[attr-defined]
    mod.ROLES = ("main", "other")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "webseg.blocks", mod)
    return seen


@pytest.fixture(scope="module")
def result() -> CleanResult:
    page = parse(DOC, url="https://example.org/a/b.html")
    return CleanResult(page=page, leaf_keep=boiler_mask(page), method="test")


# --------------------------------------------------------------------------- masks


@st.composite
def trees(draw: st.DrawFn) -> tuple[Page, np.ndarray]:
    """Random pre-order trees whose leaves are text nodes, with a random leaf mask."""
    n = draw(st.integers(2, 30))
    parent = [-1]
    for i in range(1, n):
        path = [i - 1]  # pre-order: the parent is on the path from node i-1 to the root
        while parent[path[-1]] >= 0:
            path.append(parent[path[-1]])
        parent.append(draw(st.sampled_from(path)))
    has_kids = set(parent)
    kind = [ELEMENT if i in has_kids or i == 0 else TEXT for i in range(n)]
    tag = ["div" if k == ELEMENT else "#text" for k in kind]
    text = ["" if k == ELEMENT else f"w{i}" for i, k in enumerate(kind)]
    page = Page.from_columns(parent=parent, kind=kind, tag=tag, text=text, attrs=[None] * n)
    mask = np.array(draw(st.lists(st.booleans(), min_size=len(page.text_leaves),
                                  max_size=len(page.text_leaves))), dtype=bool)
    return page, mask


@settings(max_examples=150, deadline=None)
@given(trees())
def test_node_mask_and_roots_match_brute_force(tree: tuple[Page, np.ndarray]) -> None:
    page, mask = tree
    kept_leaves = set(page.text_leaves[mask].tolist())
    all_leaves = set(page.text_leaves.tolist())
    keep = node_mask(page, mask)
    for i in range(page.n):
        sub = set(page.descendants(i)) & all_leaves
        assert keep[i] == (bool(sub) and sub <= kept_leaves)
    rs = roots(page, keep).tolist()
    covered = set()
    for r in rs:
        assert r == 0 or not keep[page.parent[r]]
        covered |= set(page.descendants(r)) & all_leaves
    assert covered == kept_leaves  # the roots' subtrees hold exactly the kept text
    assert rs == sorted(rs)


@settings(max_examples=100, deadline=None)
@given(trees(), st.lists(st.sampled_from(["div", "span", "br", "p", "b"]), min_size=30,
                         max_size=30))
def test_block_owner_matches_brute_force(tree: tuple[Page, np.ndarray], tags: list[str]) -> None:
    page, _ = tree
    page.tag = [t if t == "#text" else (tags[i] if i else "body")
                for i, t in enumerate(page.tag)]
    key = block_owner(page)
    for j in page.text_leaves.tolist():
        for k in page.text_leaves.tolist():
            # same line <=> same nearest block ancestor and no <br> between them in it
            def owner(i: int) -> int:
                while i and page.tag[i] not in BLOCK_TAGS:
                    i = int(page.parent[i])
                return i

            a, b = sorted((j, k))
            same = owner(a) == owner(b) and not any(
                page.tag[x] == "br" and page.is_ancestor(owner(a), x) for x in range(a, b))
            assert (key[j] == key[k]) == same


def test_mask_length_is_checked() -> None:
    page = parse("<p>a</p><p>b</p>")
    with pytest.raises(ValueError, match="leaf mask"):
        node_mask(page, np.ones(5, dtype=bool))


# --------------------------------------------------------------------------- formats


def test_markdown_structure(result: CleanResult) -> None:
    md = result.to_markdown()
    blocks = md.split("\n\n")
    assert blocks[0] == "# Main heading"
    assert "First paragraph with a link, and `a_b*c` inline." in blocks
    assert "\\# not a heading **bold**. 1. not a list" in blocks  # no accidental heading
    assert "## Lists" in blocks
    assert "- one\n- two\n  - two.a\n- three" in blocks
    assert "1. first\n2. second" in blocks  # a new list after a blank line
    assert "| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n| c | 2 |" in blocks
    assert "```\ndef f(x):\n    return x * 2\n```" in md  # code keeps its indentation
    assert "> quoted text" in blocks
    assert "Home" not in md and "Footer" not in md and "Related" not in md
    # text cannot become raw HTML: every "<" before a tag name is escaped
    assert re.search(r"(?<!\\)<script", md) is None and "\\<script>" in md
    assert md.endswith("\n") and "\n\n\n" not in md


def test_markdown_links(result: CleanResult) -> None:
    md = result.to_markdown(links=True)
    assert "[link](https://example.org/x?a=1&b=%282%29)" in md  # resolved, parens escaped
    assert "js link" in md and "javascript" not in md.lower()
    assert "[link]" not in result.to_markdown(links=False)


def test_text(result: CleanResult) -> None:
    lines = result.text.splitlines()
    assert lines[0] == "Main heading"
    assert "First paragraph with a link, and a_b*c inline." in lines  # no space before ","
    assert "Home" not in result.text and "Footer" not in result.text
    assert result.to_text() == result.text == result.format("txt")


def test_json_fields(result: CleanResult) -> None:
    d = json.loads(result.to_json())
    assert tuple(d) == FIELDS  # the one page-result schema, in its order
    assert d["url"] == "https://example.org/a/b.html" and d["title"] == "Doc & title"
    assert d["text"] == result.text and d["page_type"] is None and d["method"] == "test"
    assert d["status"] == "ok" and d["reason"] is None and d["schema"] == SCHEMA
    assert d["xpaths"] == ["/html[1]/body[1]/article[1]"]
    page = result.page
    for x in d["xpaths"]:
        i = page.find_xpath(x)
        assert i is not None and result.keep[i]


def test_html_is_escaped_and_safe(result: CleanResult) -> None:
    out = result.to_html()
    assert out.startswith("<!DOCTYPE html>") and "<title>Doc &amp; title</title>" in out
    assert "<h1>Main <em>heading</em></h1>" in out
    assert "&lt;script&gt;" in out and "<script" not in out
    assert "javascript" not in out.lower() and "data:" not in out
    assert 'href="https://example.org/x?a=1&amp;b=(2)"' in out
    assert "Home" not in out and "Footer" not in out


def test_html_unwraps_odd_tag_names() -> None:
    page = parse('<p>a</p><a"onmouseover=x>b</a"onmouseover=x><x-y title=\'"q"\'>c</x-y>')
    res = CleanResult(page, np.ones(len(page.text_leaves), dtype=bool), "test")
    out = res.to_html()
    assert "onmouseover" not in out and ">b<" in out
    assert '<x-y title="&quot;q&quot;">c</x-y>' in out


def test_unknown_format(result: CleanResult) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        result.format("pdf")


def test_nothing_kept_gives_empty_outputs() -> None:
    page = parse("<p>only boilerplate</p>")
    res = CleanResult(page, np.zeros(1, dtype=bool), "test")
    assert res.text == "" and res.to_markdown() == "" and res.xpaths == []
    assert json.loads(res.to_json())["xpaths"] == []
    assert "<article>\n</article>" in res.to_html()


def test_same_output_for_rendered_and_parsed_masks() -> None:
    """Formats depend only on the tree and the mask: two parses give identical outputs."""
    a, b = parse(DOC, parser="lexbor"), parse(DOC, parser="html5lib")
    ra = CleanResult(a, boiler_mask(a), "t")
    rb = CleanResult(b, boiler_mask(b), "t")
    assert ra.to_markdown(links=True) == rb.to_markdown(links=True)
    assert ra.xpaths == rb.xpaths and ra.text == rb.text


# --------------------------------------------------------------------------- methods


def test_blocks_method_uses_the_block_model(fake_blocks: list[Page]) -> None:
    page = parse(DOC)
    res = extract(page, "blocks", page_type="article")
    assert fake_blocks == [page]
    assert res.method == "blocks" and res.page_type == "article"
    assert "Main heading" in res.text and "Home" not in res.text
    assert json.loads(res.to_json())["page_type"] == {"type": "article", "probability": None,
                                                      "probabilities": None}


def test_pagelevel_needs_layout_and_unknown_methods_fail() -> None:
    page = parse(DOC)
    with pytest.raises(NoLayoutError):
        extract(page, "pagelevel")
    with pytest.raises(ValueError, match="unknown method"):
        extract(page, "magic")
    assert DEFAULT_METHOD in METHODS


def test_dedup_strip_default_follows_clean() -> None:
    from dedup.cli import DEFAULT_STRIP
    from webseg.pipeline import PipelineConfig

    assert DEFAULT_STRIP == DEFAULT_METHOD
    assert PipelineConfig().clean_segmenter == PipelineConfig().dedup_strip == DEFAULT_METHOD


# --------------------------------------------------------------------------- CLI


def run(*args: str, input: bytes | None = None):
    return CliRunner().invoke(main, ["clean", *args], input=input)


ARTICLE = ("<html><head><title>T{i}</title></head><body><nav>Menu Home</nav>"
           "<h1>Story {i}</h1><p>Body text {i} here.</p><footer>Legal</footer></body></html>")


def test_cli_directory_json_lines_with_one_error_per_bad_page(tmp_path: Path,
                                                              fake_blocks: list[Page]) -> None:
    d = tmp_path / "pages"
    d.mkdir()
    for i in range(3):
        (d / f"p{i}.html").write_text(ARTICLE.format(i=i))
    (d / "empty.html").write_bytes(b"")
    (d / "binary.html").write_bytes(bytes(range(256)) * 20)
    r = run(str(d), "--no-render", "--method", "blocks", "--format", "json")
    assert r.exit_code == 1, r.output  # some inputs failed
    every = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert all(tuple(x) == FIELDS for x in every)  # one schema, error lines too
    assert all(x["source"] == x["id"] for x in every)  # each line names its input
    bad = {Path(x["id"]).name: x for x in every if x["status"] == "error"}
    assert sorted(bad) == ["binary.html", "empty.html"]
    assert bad["empty.html"]["error"]["stage"] == "decode"
    assert bad["empty.html"]["reason"].startswith("decode: ")
    lines = [x for x in every if x["status"] == "ok"]
    assert [Path(x["id"]).name for x in lines] == ["p0.html", "p1.html", "p2.html"]
    assert lines[0]["text"] == "Story 0\nBody text 0 here." and lines[0]["title"] == "T0"
    assert lines[0]["xpaths"] == ["/html[1]/body[1]/h1[1]", "/html[1]/body[1]/p[1]"]
    assert lines[0]["url"] == (d / "p0.html").resolve().as_uri()
    err = r.stderr
    assert err.count("webseg: error:") == 2
    assert "empty.html: decode:" in err and "binary.html: decode:" in err
    assert "5 records: 3 ok, 2 failed" in err


def test_cli_directory_to_files(tmp_path: Path, fake_blocks: list[Page]) -> None:
    d = tmp_path / "pages"
    (d / "a").mkdir(parents=True)
    (d / "b").mkdir()
    (d / "a" / "x.html").write_text(ARTICLE.format(i=1))
    (d / "b" / "x.html").write_text(ARTICLE.format(i=2))  # same stem: no overwrite
    out = tmp_path / "out"
    r = run(str(d), "--no-render", "-m", "blocks", "-f", "markdown", "-o", str(out))
    assert r.exit_code == 0, r.output
    files = sorted(p.name for p in out.iterdir())
    assert files == ["records.jsonl", "x-2.md", "x.md"]  # the file -> record mapping
    assert (out / "x.md").read_text() == "# Story 1\n\nBody text 1 here.\n"


def test_cli_warc(tmp_path: Path, fake_blocks: list[Page]) -> None:
    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [("http://example.org/1", "text/html; charset=utf-8",
                       ARTICLE.format(i=1).encode()),
                      ("http://example.org/logo.png", "image/png", b"\x89PNG\r\n\x1a\n"),
                      ("http://example.org/2", "text/html", ARTICLE.format(i="\u00e9").encode())])
    r = run(str(warc), "--no-render", "-m", "blocks", "-f", "json")
    assert r.exit_code == 0, r.output  # the PNG is skipped (a note), not a failure
    every = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert [x["status"] for x in every] == ["ok", "skipped", "ok"]
    assert "not an HTML response" in every[1]["reason"] and every[1]["error"] is None
    lines = [x for x in every if x["status"] == "ok"]
    assert [x["url"] for x in lines] == ["http://example.org/1", "http://example.org/2"]
    assert lines[1]["text"] == "Story \u00e9\nBody text \u00e9 here."
    assert all("#" in x["id"] and x["source"] == str(warc) for x in every)
    assert [x["warc"]["target_uri"] for x in every] == [
        "http://example.org/1", "http://example.org/logo.png", "http://example.org/2"]
    assert "not an HTML response" in r.stderr
    out = tmp_path / "o"
    r = run(str(warc), "--no-render", "-m", "blocks", "-o", str(out))
    assert r.exit_code == 0
    # files named from the records' URLs, with the file -> record mapping beside them
    assert sorted(p.name for p in out.iterdir()) == [
        "example.org_1.txt", "example.org_2.txt", "records.jsonl"]
    mapping = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert [m["url"] for m in mapping] == ["http://example.org/1", "http://example.org/2"]


def test_cli_usage_errors(tmp_path: Path) -> None:
    p = tmp_path / "p.html"
    p.write_text(ARTICLE.format(i=1))
    assert run(str(p), "--no-render", "--method", "pagelevel").exit_code == 2
    assert run(str(p), "--method", "magic").exit_code == 2
    assert run(str(tmp_path / "missing.html")).exit_code == 2
    assert run(str(p), "--format", "pdf").exit_code == 2
    assert run(str(p), str(p), "--no-render", "-m", "blocks").exit_code == 2  # several -> -o


def test_cli_no_render_refuses_urls(tmp_path: Path, fake_blocks: list[Page]) -> None:
    lst = tmp_path / "urls.txt"
    lst.write_text("http://127.0.0.1:9/a\n")
    r = run(str(lst), "--no-render", "-m", "blocks")
    assert r.exit_code == 1 and "URLs need rendering" in r.stderr


def test_cli_stdin(fake_blocks: list[Page]) -> None:
    r = run("-", "--no-render", "-m", "blocks", input=ARTICLE.format(i=7).encode())
    assert r.exit_code == 0 and r.stdout == "Story 7\nBody text 7 here.\n"


BAD = {
    "nested": b"<div>" * 20000 + b"deep" + b"</div>" * 20000,
    "unclosed": b"<table><tr><td><p><b><i><table><tr><td>" * 300 + b"x",
    "nul": b"<p>a\x00b</p>" * 10,
    "huge_text": b"<p>" + b"word " * 400_000 + b"</p>",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_cli_bad_pages_give_a_result_or_an_error(tmp_path: Path, name: str,
                                                 fake_blocks: list[Page]) -> None:
    p = tmp_path / f"{name}.html"
    p.write_bytes(BAD[name])
    r = run(str(p), "--no-render", "-m", "blocks", "-f", "json")
    assert r.exit_code in (0, 1), r.output
    if r.exit_code == 0:
        assert "xpaths" in json.loads(r.stdout)
    else:
        assert r.stderr.count("webseg: error:") == 1


def test_cli_too_many_nodes_is_an_error(tmp_path: Path, fake_blocks: list[Page]) -> None:
    p = tmp_path / "big.html"
    p.write_bytes(b"<p>x</p>" * 3000)
    r = run(str(p), "--no-render", "-m", "blocks", "--max-nodes", "1000")
    assert r.exit_code == 1 and "parse: DOM has more than 1000 nodes" in r.stderr


@pytest.mark.browser
def test_cli_rendered_and_no_render_agree(tmp_path: Path, fake_blocks: list[Page]) -> None:
    p = tmp_path / "doc.html"
    p.write_text(DOC)
    rendered = run(str(p), "-m", "blocks", "-f", "json")
    parsed = run(str(p), "-m", "blocks", "-f", "json", "--no-render")
    assert rendered.exit_code == parsed.exit_code == 0, rendered.output + parsed.output
    assert fake_blocks[0].has_layout and not fake_blocks[1].has_layout
    a, b = json.loads(rendered.stdout), json.loads(parsed.stdout)
    assert a["xpaths"] == b["xpaths"] and a["text"] == b["text"]


def test_cli_md_is_markdown(tmp_path: Path, fake_blocks: list[Page]) -> None:
    page = tmp_path / "x.html"
    page.write_text(ARTICLE.format(i=1))
    short = run(str(page), "--no-render", "-m", "blocks", "-f", "md")
    long = run(str(page), "--no-render", "-m", "blocks", "-f", "markdown")
    assert short.exit_code == 0, short.output
    assert short.stdout == long.stdout and short.stdout.startswith("# Story 1")


@pytest.mark.browser
def test_cli_pagelevel_formats_on_the_fixture() -> None:
    fixture = Path(__file__).parent / "fixtures" / "news.html"
    r = run(str(fixture), "--method", "pagelevel", "--format", "markdown")
    assert r.exit_code == 0, r.output
    assert "Ferry timetable changes this winter" in r.stdout and "Privacy" not in r.stdout


def test_cli_page_type_from_a_model(tmp_path: Path, fake_blocks: list[Page],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import classify.model

    class FakeTypes:
        def predict_proba_pages(self, pages, htmls=None, urls=None):
            assert htmls is not None and "Story 3" in htmls[0]
            assert urls is not None and urls[0].startswith("file://")
            return [{"article": 0.9, "forum": 0.1} for _ in pages]

    monkeypatch.setattr(classify.model, "load_model", lambda *a, **k: FakeTypes())
    p = tmp_path / "p.html"
    p.write_text(ARTICLE.format(i=3))
    r = run(str(p), "--no-render", "-m", "blocks", "-f", "json", "--page-type")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["page_type"] == {
        "type": "article", "probability": 0.9, "probabilities": {"article": 0.9, "forum": 0.1}}

    def missing(*a, **k):
        raise FileNotFoundError("page-type model x not found")

    monkeypatch.setattr(classify.model, "load_model", missing)
    r = run(str(p), "--no-render", "-m", "blocks", "--page-type")
    assert r.exit_code == 2 and "not found" in r.output


def test_shipped_block_model_on_the_fixture() -> None:
    """The real model, without a browser: the article stays, navigation and footer go."""
    html = (Path(__file__).parent / "fixtures" / "news.html").read_bytes()
    res = extract(parse(html), "blocks")
    assert res.text.splitlines()[0] == "Ferry timetable changes this winter"
    assert "Privacy" not in res.text
    assert res.xpaths and all(res.page.find_xpath(x) is not None for x in res.xpaths)
    md = res.to_markdown()
    assert md.startswith("## Ferry timetable changes this winter\n\n")


@pytest.mark.parametrize(("body", "lang", "rtl"), [
    ("<p>今天的天气很好，我们去公园散步，然后在湖边的小餐馆吃午饭。下午我们参观了博物馆，"
     "看到了很多古代的瓷器和书画作品。</p>", "zh", False),
    ("<p>ذهبنا اليوم إلى الحديقة العامة وتناولنا الغداء في مطعم صغير بجانب البحيرة، ثم زرنا "
     "المتحف القديم في وسط المدينة ورأينا الكثير من الأعمال الفنية.</p>", "ar", True),
])
def test_html_declares_the_pages_language_and_direction(body: str, lang: str,
                                                        rtl: bool) -> None:
    page = parse(f"<html><head><title>t</title></head><body>{body}</body></html>")
    res = CleanResult(page, np.ones(len(page.text_leaves), dtype=bool), "test")
    assert res.language is not None and res.language["code"] == lang
    out = res.to_html()
    want = f'<html lang="{lang}" dir="rtl">' if rtl else f'<html lang="{lang}">'
    assert want in out and out.count("<html") == 1
    assert out.count('<meta charset="utf-8">') == 1


def test_html_without_a_known_language_has_no_lang() -> None:
    from webseg.clean.html_out import html_open_tag

    assert html_open_tag(None) == "<html>" and html_open_tag('x"><script>') == "<html>"
    assert html_open_tag("he") == '<html lang="he" dir="rtl">'
