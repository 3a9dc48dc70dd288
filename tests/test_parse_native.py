"""webseg._native.domwalk: the compiled lexbor walk gives the Python walk's Page, column by
column, on tricky markup and on real pages of several languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from webseg import _native as native
from webseg.decode import DecodeError, decode_html
from webseg.parse import _walk_lexbor

pytestmark = pytest.mark.skipif(native.load("domwalk") is None,
                                reason="webseg._native.domwalk is not built")

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

#: Markup that exercises every rule of the walk: comments, processing instructions, the
#: adoption agency, foster parenting, foreign content (camel-case tags), whitespace kept by
#: tags and by styles, hidden elements (attribute, style, input type), valueless and boolean
#: attributes, a list item's value, declarative shadow roots (on hosts, twice, on a non-host),
#: template content, text skipped in script/style, JavaScript-blank characters.
EDGES = [
    "",
    "plain text, no tags",
    "<!DOCTYPE html><title> Two\n titles </title><title>second</title><p>x",
    "<p>a<!-- c -->b<?php echo 1; ?>c</p><b>x<p>y</b>z</p>"
    "<table><tr><td>1</td></tr>stray<tr><td>2</td></table>",
    "<svg viewBox='0 0 1 1'><foreignObject><p>f</p></foreignObject><clipPath id=c/></svg>"
    "<math><mi>x</mi></math><IMAGE SRC=i.png><DIV CLASS=A>upper</DIV>",
    "<pre>\n  code  <span>a</span>   <b>b</b>\n</pre><p style='white-space: pre-wrap'> x"
    "  <i>y</i>  <span style='white-space:pre-line'>  z  </span></p>"
    "<div style='WHITE-SPACE: PRE'>  <em>k</em>  </div><code> <b>c</b> </code>",
    "<p hidden>h</p><p style='display:none'>n</p><p style='visibility: hidden'>v</p>"
    "<span style='display: inline-block'>d</span><span style='display:block ; color:red'>b"
    "</span><p style=''>empty style</p><p style>valueless style</p>",
    "<form><input type=hidden name=h><input TYPE=HIDDEN><input type=text value=v>"
    "<input class=c></form><ol reversed start=3><li value=7>a<li value>b<li>c</ol>"
    "<input checked><input checked=checked><button value=x>b</button>",
    "<div data-x=1 aria-label=l class=c id=i>attrs</div><a href=/x rel=nofollow>l</a>"
    "<img alt src=a.png><td colspan=2>t</td><meta itemprop=x content=y>",
    "<x-card><template shadowrootmode=open><p>shadow</p></template><span>light</span></x-card>"
    "<div><template shadowrootmode=open>s1</template><template shadowrootmode=open>s2"
    "</template>d</div><a href=#><template shadowrootmode=closed>s3</template>link</a>"
    "<template><p>content</p></template><template shadowrootmode=bogus>t</template>",
    "<script>var a = '<p>no</p>';</script><style>p{}</style><noscript><p>ns</p></noscript>"
    "<textarea>  keep  </textarea><xmp> <b>x</b> </xmp>",
    "<p>\ufeff</p><p> \ufeff\n</p><p>a\ufeff</p><p>\x1c</p><p>\u0085</p><p>\u00a0</p>"
    "<p>\u3000 \u2003</p><p>\u200b</p><b>x</b> <i>y</i>\n<a>z</a>",
    "<frameset><frame src=a.html></frameset>",
    "<div>" + "<span>x</span><div>" * 600 + "deep" + "</div>" * 600 + "<p>after</p></div>",
    "<body>" + "<b>" * 530 + "bold" + "<pre> <i>k</i> </pre>" + "</b>" * 530 + " tail",
    "<p>\u4e2d\u6587\u6bb5\u843d</p><p>\u0420\u0443\u0441\u0441\u043a\u0438\u0439</p>"
    "<p>\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac</p><p>Za\u017c\u00f3\u0142\u0107"
    "</p><p>\U0001f600 emoji</p>",
]


def _both(text: str, monkeypatch: pytest.MonkeyPatch, max_nodes: int = 200_000
          ) -> tuple[object, object]:
    """The walk's output (or its error) in Python and in C."""
    out = []
    for pure in ("1", "0"):
        monkeypatch.setenv("WEBSEG_PURE_PYTHON", pure)
        try:
            cols, ws, title = _walk_lexbor(text, max_nodes)
            got: object = ({k: list(v) for k, v in cols.items()}, list(ws.items()), title)
        except ValueError as e:
            got = ("ValueError", str(e))
        out.append(got)
    return out[0], out[1]


@pytest.mark.parametrize("html", EDGES, ids=range(len(EDGES)))
def test_same_columns_on_edge_cases(html: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pure, compiled = _both(html, monkeypatch)
    assert compiled == pure
    assert repr(compiled) == repr(pure)  # the same types too (bools, ints, None)


@pytest.mark.parametrize("max_nodes", [1, 5, 17, 40])
def test_same_node_limit(max_nodes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    pure, compiled = _both(EDGES[3] + EDGES[6], monkeypatch, max_nodes)
    assert compiled == pure


def _real_pages(limit_per_set: int = 12) -> list[Path]:
    files: list[Path] = []
    for sub in ("boilerplate/daniel-dev/html", "wcxb-dev/html", "boilerplate/cleaneval/html"):
        d = DATA / sub
        if d.is_dir():
            found = sorted(p for p in d.iterdir() if p.is_file())
            files += found[::max(len(found) // limit_per_set, 1)][:limit_per_set]  # all langs
    return files


@pytest.mark.skipif(not _real_pages(), reason="../shared/data is not here")
def test_same_columns_on_real_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = 0
    for path in _real_pages():
        try:
            text = decode_html(path.read_bytes()).text
        except DecodeError:
            continue
        pure, compiled = _both(text, monkeypatch)
        assert compiled == pure, path.name
        seen += 1
    assert seen > 0
