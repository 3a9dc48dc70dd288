"""The compiled markup walk of the page-type features gives what the Python walk gives.

``webseg._native.markupwalk`` (built at install) runs :func:`classify.pagefeatures._dom`'s loop
over the elements when it is built; :func:`classify.pagefeatures._dom_walk` is the fallback
and the reference. Tokens (in order), tag / input / value counts and the sibling groups must
not depend on which one ran.
"""

from __future__ import annotations

import random
import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from classify import pagefeatures as pf
from webseg import _native as native
from webseg.parse import parse

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def _walk():
    walk = native.load("markupwalk")
    if walk is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    return walk


def test_the_extensions_are_built_where_a_compiler_is() -> None:
    """`pip install -e .` builds the page-type stage's extensions with the tree walk; a
    missing build must not go unseen on a machine that can build them (`make setup`)."""
    headers = Path(sysconfig.get_paths()["include"], "Python.h").is_file()
    if not (shutil.which("cc") and headers):
        pytest.skip("no C compiler or Python headers: the Python code is the one in use")
    for name in ("markupwalk", "termcount", "textscan"):
        assert native.load(name) is not None, name


def _native_walk(walk, page):
    return walk.walk(np.flatnonzero(page.is_element), page.tag, page.attrs,
                     np.ascontiguousarray(page.parent, dtype=np.int64),
                     np.ascontiguousarray(page.subtree_end, dtype=np.int64), pf._SKIPPED_SET,
                     pf.split_words)


def _same(page) -> None:
    toks, tag_counts, inputs, values, groups, has_img, has_link = pf._dom_walk(page)
    got = _native_walk(_walk(), page)
    # the compiled walk keeps only the sibling groups of five or more (all _dom reads)
    big = {g: c for g, c in groups.items() if c >= 5}
    want = (toks, tag_counts, inputs, values, big, has_img & big.keys(), has_link & big.keys())
    for w, g in zip(want, got, strict=True):
        assert g == w
    for w, g in zip(want[1:4], got[1:4], strict=True):  # the same insertion order too
        assert list(g.items()) == list(w.items())


EDGE_HTML = """<html><head><title>t</title><script>var a = "<div class='x'>";</script></head>
<body class="productCard main-nav__item" id="Top">
<div class="a b c" role="Main"><div class="a">x</div><div class="a">y</div></div>
<ul class="list">""" + "".join(
    f'<li class="item item-{k}"><a href="/p/{k}"><img src="i.png"></a> n{k}</li>'
    for k in range(12)) + """</ul>
<form name="searchForm"><input type="SEARCH" name="q"><input><input type="">
<input type="averyveryverylongtypename"><button role="Button">go</button></form>
<svg class="icon"><g class="inner"></g></svg><template><p class="hidden">h</p></template>
<p class="" id="">empty</p><p class="αβγ Δelta">greek</p><p class="新闻 list">zh</p>
<div class="ABCDEFGHIJKLMNOPQRSTUVWXYZABCdef aB xYz a_b-c9d" role="">r</div>
<div class="">""" + "".join(f'<span class="s"><a href="#{k}">l</a></span>' for k in range(7)) + """
</div><picture><img src="p.png"></picture><select><option>1</option><option>2</option>
</select></body></html>"""


def test_same_walk_on_edge_cases() -> None:
    _same(parse(EDGE_HTML, url="https://example.org/p/1"))


def test_same_words_of_random_ascii_values() -> None:
    """The compiled word split of ASCII values (camelCase, runs over 25 letters, digits and
    separators) against :func:`classify.pagefeatures.split_words`."""
    walk = _walk()
    rng = random.Random(7)
    alphabet = "aAbBzZ -_09:xyQ.é"
    for _ in range(500):
        vals = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 70)))
                for _ in range(4)] + ["q" * rng.randint(20, 80)]
        n = len(vals) + 1
        tags = ["html"] + ["div"] * len(vals)
        attrs = [None] + [{"class": v} for v in vals]
        parent = np.array([-1] + [0] * len(vals), dtype=np.int64)
        end = np.array([n] + list(range(2, n + 1)), dtype=np.int64)
        toks = walk.walk(np.arange(n, dtype=np.int64), tags, attrs, parent, end,
                         pf._SKIPPED_SET, pf.split_words)[0]
        want = ["t:html"]
        for v in vals:
            want += ["t:div"] + (pf.split_words(v)[:12] if v else [])
        assert toks == want


def test_same_stem_counts(monkeypatch) -> None:
    """The compiled stem counts against the Python ones (``str.find`` over the joined
    values) on random values: keys, their upper-case forms, non-ASCII letters whose
    lower-case form is longer (``İ``), separators."""
    _walk()
    rng = random.Random(3)
    parts = list(pf._KEYS) + ["x", "-", "Q", "İ", "Ä", "ß", " ", "\n", "PRODUCT", "Card", "新闻"]
    cases = []
    for _ in range(400):
        cases.append({"".join(rng.choice(parts) for _ in range(rng.randint(0, 6))):
                      rng.randint(1, 5) for _ in range(rng.randint(0, 12))})
    # long values (past the compiled scan's stack buffer), keys at their very end
    cases.append({"x" * 300 + "Product": 2, "-" * 255 + "cta": 1, "a" * 257 + "ct": 4,
                  "Card" * 100: 3})
    fast = [pf.stem_counts(v) for v in cases]
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    for v, f in zip(cases, fast, strict=True):
        assert f == pf.stem_counts(v)


def test_bad_input_raises() -> None:
    walk = _walk()
    ok = (np.arange(2, dtype=np.int64), ["html", "div"], [None, None],
          np.array([-1, 0], dtype=np.int64), np.array([2, 2], dtype=np.int64),
          pf._SKIPPED_SET, pf.split_words)
    walk.walk(*ok)
    with pytest.raises(ValueError):  # an element id past the nodes
        walk.walk(np.array([0, 5], dtype=np.int64), *ok[1:])
    with pytest.raises(ValueError):  # a parent past the nodes
        walk.walk(ok[0], ok[1], ok[2], np.array([-1, 9], dtype=np.int64), *ok[4:])
    with pytest.raises(ValueError):  # arrays of other lengths
        walk.walk(ok[0], ok[1], ok[2], np.array([-1], dtype=np.int64), *ok[4:])
    with pytest.raises(TypeError):
        walk.walk(ok[0], ["html", 3], *ok[2:])
    with pytest.raises(TypeError):
        walk.walk(ok[0], ok[1], [None, {"class": 5}], *ok[3:])


def test_pure_python_gives_the_same_views(monkeypatch) -> None:
    page = parse(EDGE_HTML, url="https://example.org/p/1")
    fast = pf.page_views(page, EDGE_HTML)
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    assert pf.page_views(page, EDGE_HTML) == fast


@pytest.mark.skipif(not (DATA / "wcxb-dev").is_dir(), reason="shared data absent")
def test_same_walk_on_real_pages() -> None:
    from webseg.datasets import load_records
    from webseg.decode import decode_html

    recs = load_records(str(DATA / "wcxb-dev"))[:25]
    daniel = DATA / "boilerplate" / "daniel-dev"
    if daniel.is_dir():
        recs += load_records(str(daniel))[:25]
    for rec in recs:
        _same(parse(decode_html(rec.read_html()).text, url=rec.url))


def test_holder_bits_equal_numpy(monkeypatch) -> None:
    """The compiled holder kinds of the text leaves equal the numpy walk's: random trees
    with holders at every depth (beyond the six ancestors looked at too), no leaves, a leaf
    at the root's child."""
    from webseg.parse import parse

    _walk()
    rng = random.Random(9)
    tags = list(pf._HOLDER_BITS) + ["div", "span", "em", "section"]
    pages = [parse("<p>x</p>"), parse("<html><body></body></html>"), parse("text")]
    for _ in range(60):
        html = ""
        for _ in range(rng.randint(0, 12)):
            opened = [rng.choice(tags) for _ in range(rng.randint(0, 9))]
            html += "".join(f"<{t}>" for t in opened) + "w " + "".join(
                f"</{t}>" for t in reversed(opened))
        pages.append(parse(f"<html><body>{html}</body></html>"))
    fast = [pf._holder_bits(p, p.text_leaves) for p in pages]
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    for p, f in zip(pages, fast, strict=True):
        assert f.tolist() == pf._holder_bits(p, p.text_leaves).tolist()


def test_holder_bits_bad_input_raises() -> None:
    walk = _walk()
    parent = np.array([-1, 0, 1], dtype=np.int64)
    out = np.empty(1, dtype=np.int64)
    walk.holder_bits(np.array([2], np.int64), parent, ["html", "p", "#text"], {"p": 2}, 6, out)
    assert out.tolist() == [2]
    with pytest.raises(ValueError):  # a leaf past the nodes
        walk.holder_bits(np.array([3], np.int64), parent, ["html", "p", "#text"], {}, 6, out)
    with pytest.raises(ValueError):  # a parent past the nodes
        walk.holder_bits(np.array([2], np.int64), np.array([-1, 5, 1], np.int64),
                         ["html", "p", "#text"], {}, 6, out)
    with pytest.raises(ValueError):  # parent not one per tag
        walk.holder_bits(np.array([2], np.int64), parent[:2], ["html", "p", "#text"], {}, 6,
                         out)
    with pytest.raises(ValueError):  # out not one per leaf
        walk.holder_bits(np.array([2], np.int64), parent, ["html", "p", "#text"], {}, 6,
                         np.empty(2, dtype=np.int64))
    with pytest.raises(TypeError):  # bits that are no int
        walk.holder_bits(np.array([2], np.int64), parent, ["html", "p", "#text"], {"p": "x"},
                         6, out)
