"""webseg.parse: a layout-free Page whose structure matches what Chromium builds."""

from __future__ import annotations

import numpy as np
import pytest

from webseg.page import ELEMENT, TEXT, NoLayoutError, Page
from webseg.parse import PARSERS, parse
from webseg.render import Renderer

DOC = b"""<!DOCTYPE html><html><head><title>Parse me</title>
<style>p { color: red }</style><script>var s = "script text";</script></head><body>
<h1 id="top">Heading</h1>
<table><tr><td>c1</td><td>c2 <b>bold</b> tail</td></tr></table>
<ul><li>one</li><li>two <a href="/x">link</a></li></ul>
<p hidden>hidden attribute</p><p style="display: none">inline none</p>
<p style="visibility:hidden">inline hidden</p>
<div><p>nested</p>text after</div>
<template><p>template content</p></template>
<p>last</p>
</body></html>"""


def leaf_texts(page: Page) -> list[str]:
    return [page.leaf_text(i) for i in page.text_leaves]


@pytest.fixture(scope="module", params=PARSERS)
def parsed(request: pytest.FixtureRequest) -> Page:
    return parse(DOC, parser=request.param)


def test_no_layout(parsed: Page) -> None:
    assert parsed.has_layout is False
    with pytest.raises(NoLayoutError, match="without a browser"):
        parsed.require_layout()
    assert not parsed.box.any()  # all boxes are zero
    assert parsed.meta["renderer"] in PARSERS
    assert parsed.title == "Parse me"
    assert Page.from_json(parsed.to_json()).has_layout is False


def test_structure(parsed: Page) -> None:
    assert parsed.tag[0] == "html" and parsed.parent[0] == -1
    assert parsed.tag[:2] == ["html", "head"]
    td = parsed.find_xpath("/html[1]/body[1]/table[1]/tbody[1]/tr[1]/td[1]")  # implied tbody
    assert td is not None and parsed.node_text(td) == "c1"
    assert parsed.attrs[parsed.find_xpath("/html/body/h1")] == {"id": "top"}
    assert parsed.attrs[parsed.find_xpath("/html/body/ul/li[2]/a")] == {"href": "/x"}
    # the template's content is a separate fragment in the DOM, not children
    template = parsed.find_xpath("/html/body/template")
    assert template is not None and parsed.children(template).size == 0
    assert not any("template content" in t for t in parsed.text)


def test_visibility_from_markup(parsed: Page) -> None:
    assert leaf_texts(parsed) == ["Heading", "c1", "c2", "bold", "tail", "one", "two", "link",
                                  "nested", "text after", "last"]
    hidden = {t.strip() for i, t in enumerate(parsed.text)
              if parsed.kind[i] == TEXT and not parsed.visible[i]}
    assert {"hidden attribute", "inline none", "inline hidden", "Parse me"} <= hidden
    # script and style text is not recorded at all
    assert not any("script text" in t or "color: red" in t for t in parsed.text)


@pytest.mark.parametrize("parser", PARSERS)
def test_bytes_are_decoded_like_the_renderer(parser: str) -> None:
    page = parse("<p>caf\u00e9 \u201cq\u201d</p>".encode("cp1252"), encoding="windows-1252",
                 parser=parser)
    assert leaf_texts(page) == ["caf\u00e9 \u201cq\u201d"] and page.encoding == "cp1252"
    page = parse(b'<meta charset="us-ascii"><p>\x93x\x94</p>', parser=parser)
    assert leaf_texts(page) == ["\u201cx\u201d"]
    page = parse("<p>already text \u00e9</p>", parser=parser)  # str input is taken as is
    assert leaf_texts(page) == ["already text \u00e9"]


@pytest.mark.parametrize("parser", PARSERS)
def test_max_nodes(parser: str) -> None:
    with pytest.raises(ValueError, match="more than 10 nodes"):
        parse(b"<p>x</p>" * 20, max_nodes=10, parser=parser)


def test_unknown_parser() -> None:
    with pytest.raises(ValueError, match="unknown parser"):
        parse("<p>x</p>", parser="regex")


@pytest.mark.browser
def test_same_xpaths_and_text_as_rendered(parsed: Page, renderer: Renderer) -> None:
    rendered = renderer.render(DOC)

    def elements(p: Page) -> list[str]:
        return [x for x, k in zip(p.xpaths, p.kind, strict=True) if k == ELEMENT]

    assert elements(parsed) == elements(rendered)
    # and, for this document, the very same node list: ids address the same nodes
    assert parsed.xpaths == rendered.xpaths
    np.testing.assert_array_equal(parsed.parent, rendered.parent)
    assert parsed.tag == rendered.tag
    assert leaf_texts(parsed) == leaf_texts(rendered)
    np.testing.assert_array_equal(parsed.text_leaves, rendered.text_leaves)
    assert parsed.attrs == rendered.attrs


#: Tree-construction cases where a lenient parser (lxml, BeautifulSoup's html.parser) builds
#: another tree than Chromium: misnested formatting, foster parenting, implied elements,
#: processing instructions and comments between text, noscript with scripting off, SVG
#: camel-case names, <image>, whitespace that JavaScript does not count as blank (U+FEFF)
#: and whitespace that it does (U+00A0), declarative shadow roots (not in the light DOM, except
#: a host's second one and one on an element that cannot host a shadow root).
TRICKY = ("<!DOCTYPE html><title> Tricky\n  title </title><body>"
          "<p>a<!-- c -->b<?php echo 1; ?>c</p><b>x<p>y</b>z</p>"
          "<table><tr><td>1</td></tr>stray<tr><td>2</td></table>"
          "<noscript><p>no script</p></noscript><svg><foreignObject><p>f</p></foreignObject>"
          "</svg><image src=i.png><ul><li>one<li>two</ul><dl><dt>t<dd>d</dl>"
          "<p>\ufeff</p><p>\u00a0</p><form><input type=hidden name=h></form>"
          "<select><option>o1<option>o2</select><pre>\ncode\n</pre>"
          "<x-card><template shadowrootmode=open><p>shadow</p></template><span>light</span>"
          "</x-card><div><template shadowrootmode=open>s1</template><template "
          "shadowrootmode=open>s2</template>d</div><a href=#><template shadowrootmode=closed>"
          "s3</template>link</a>")


@pytest.mark.parametrize("parser", PARSERS)
def test_tricky_tree_construction(parser: str) -> None:
    page = parse(TRICKY, parser=parser)
    assert page.title == "Tricky title"
    body = page.body
    assert [page.tag[c] for c in page.children(body)][:5] == ["p", "b", "p", "#text", "table"]
    assert page.find_xpath("/html/body/table/tbody/tr[2]/td") is not None
    assert page.find_xpath("/html/body/svg/foreignobject/p") is not None
    assert page.find_xpath("/html/body/img") is not None
    assert page.find_xpath("/html/body/p[1]/text()[3]") is not None
    assert page.find_xpath("/html/body/x-card/template") is None
    assert page.find_xpath("/html/body/div/template") is not None  # the second shadow root
    assert page.find_xpath("/html/body/a/template") is not None  # <a> cannot host one


@pytest.mark.browser
@pytest.mark.parametrize("parser", PARSERS)
def test_tricky_tree_matches_chromium(parser: str, renderer: Renderer) -> None:
    parsed, rendered = parse(TRICKY, parser=parser), renderer.render(TRICKY.encode())
    assert parsed.xpaths == rendered.xpaths
    assert parsed.title == rendered.title
    assert [t.strip() for t in parsed.text] == [t.strip() for t in rendered.text]
    assert parsed.attrs == rendered.attrs


@pytest.mark.browser
@pytest.mark.parametrize("parser", PARSERS)
def test_deep_nesting_matches_chromium(parser: str, renderer: Renderer) -> None:
    deep = b"<html><body>" + b"<div><span>x</span>" * 700 + b"deep" + b"</div>" * 700 + \
        b"<p>after</p></body></html>"
    parsed, rendered = parse(deep, parser=parser), renderer.render(deep)
    assert parsed.xpaths == rendered.xpaths


#: Whitespace between inline elements and inside pre/code is not a node of the page, but it is
#: recorded (``Page.ws_before``) on the next node: a space where it separates two leaves, the
#: exact characters where whitespace is preserved.
SPACES = ("<!DOCTYPE html><body><p>W<b>orld</b> <i>next</i>\n<a href=#>x</a></p>"
          "<pre><span>type</span> <span>Query</span>\n  <span>{</span></pre>"
          "<p><code>a</code>  <code>b</code></p><table><tr><td colspan=2 rowspan=1>c</td></tr>"
          "</table><time datetime='2020-01-02'>Jan</time><p lang=el>\u03b1</p>"
          "<div>\u00a0</div><p>end</p></body>")


@pytest.mark.parametrize("parser", PARSERS)
def test_whitespace_between_leaves_is_recorded(parser: str) -> None:
    p = parse(SPACES, parser=parser)
    assert [p.leaf_text(i) for i in p.text_leaves][:4] == ["W", "orld", "next", "x"]
    ws = p.ws_before
    assert ws is not None
    by_tag = {(p.tag[i], p.text[i] if p.kind[i] == TEXT else ""): w for i, w in ws.items()}
    assert by_tag[("i", "")] == " "  # </b> <i>: one space
    assert ("b", "") not in by_tag  # W<b>orld: none
    spans = [i for i in range(p.n) if p.tag[i] == "span"]
    assert [ws.get(i, "") for i in spans] == ["", " ", "\n  "]  # verbatim inside <pre>
    codes = [i for i in range(p.n) if p.tag[i] == "code"]
    assert ws.get(codes[1]) == " "  # between two inline <code>: collapsed
    td = next(i for i in range(p.n) if p.tag[i] == "td")
    assert p.attrs[td] == {"colspan": "2", "rowspan": "1"}
    assert p.attrs[next(i for i in range(p.n) if p.tag[i] == "time")] == {
        "datetime": "2020-01-02"}
    # the node list does not change: whitespace nodes are no leaves
    assert all(p.text[i].strip() for i in p.text_leaves)


@pytest.mark.browser
@pytest.mark.parametrize("parser", PARSERS)
def test_whitespace_record_matches_chromium(parser: str, renderer: Renderer) -> None:
    parsed, rendered = parse(SPACES, parser=parser), renderer.render(SPACES.encode())
    assert parsed.xpaths == rendered.xpaths
    assert parsed.ws_before == rendered.ws_before
    assert parsed.attrs == rendered.attrs


#: Texts on the edge of "blank": the renderer's walk keeps a text node when JavaScript's /\S/
#: matches it, which differs from Python's str.isspace on U+FEFF (blank to JavaScript only) and
#: on U+001C-U+001F, U+0085 (blank to Python only); non-ASCII spaces are blank to both.
EDGE_TEXTS = {"\ufeff": False, " \ufeff\n": False, "a\ufeff": True, "\x1c": True,
              " \x1f ": True, "\u0085": True, "\u00a0": False, "\u3000 \u2003": False,
              "\t\n \r\f": False, "\u200b": True, "x": True}


@pytest.mark.parametrize("parser", PARSERS)
def test_blank_texts_as_the_renderer_sees_them(parser: str) -> None:
    body = "".join(f"<p>{t}</p>" for t in EDGE_TEXTS)
    page = parse(f"<!DOCTYPE html><body>{body}</body>", parser=parser)
    ps = [i for i in range(page.n) if page.tag[i] == "p"]
    kept = [len(page.children(i)) > 0 for i in ps]
    assert kept == list(EDGE_TEXTS.values())
