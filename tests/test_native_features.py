"""The block features' compiled helpers (``webseg._native``) give what their Python paths give.

The compiled code runs when webseg's C extensions are built; the Python code is the fallback
(and the only path for what the C code declines, such as non-ASCII class values). Features
must not depend on which one ran, bit for bit: checked on edge cases, on random values and on
real pages of several languages and scripts (WCXB, DAnIEL zh/ru/el/pl/en; skipped when the
data is absent).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg import _native as native
from webseg.blocks import align, vocab
from webseg.blocks.features import leaf_features
from webseg.parse import parse

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
WCXB = DATA / "wcxb-dev"
DANIEL = DATA / "boilerplate" / "daniel-dev"


@pytest.mark.parametrize("name", ["vocabmask", "wordsplit", "fusion"])
def test_the_extensions_are_built_where_a_compiler_is(name: str) -> None:
    """`pip install -e .` builds them; a missing build must not go unseen on a machine that
    can build it (after editing a C source: `python setup.py build_ext --inplace`)."""
    import shutil
    import sysconfig

    headers = Path(sysconfig.get_paths()["include"], "Python.h").is_file()
    if not (shutil.which("cc") and headers):
        pytest.skip("no C compiler or Python headers: the Python paths are the ones in use")
    assert native.load(name) is not None


def _vocabmask():
    nat = native.load("vocabmask")
    if nat is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    return nat


def _py_mask(value: str) -> int:
    vocab._value_mask.cache_clear()
    vocab._token_mask.cache_clear()
    return vocab._value_mask(value)


EDGE = ["", "a", "ABC", "aBC", "aBcD", "a1B2C", "articleBody", "site-footer__inner", "XMLHttp",
        "navBar", "NAVIGATION", "comments", "commentList", "repl", "post-x", "mainNavigation",
        "HEADERtop", "topBAR", "sideNav", "ad", "AD", "Ad-slot", "adSlot123", "9Nav", "_nav_",
        "nav\tmenu\nfooter", "  ", "x" * 600 + "Nav", "a" * 300, "subscribeForm",
        "page-numbers", "teaser-title"]


@pytest.mark.parametrize("value", EDGE)
def test_compiled_class_mask_equals_python_on_edge_cases(value: str) -> None:
    nat = _vocabmask()
    got = nat.mask2(value, None, vocab._WORD_BITS, vocab._STEM_BITS, vocab._STEM_LENS)
    assert got == _py_mask(value)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcdefnavmenuNAVFOOTERxyz0123456789-_ .:AZ", max_size=40),
       st.one_of(st.none(), st.text(alphabet="abcmainNavfooterX9-_", max_size=20)))
def test_compiled_class_mask_equals_python_on_random_ascii(cls: str, ident: str | None
                                                           ) -> None:
    nat = _vocabmask()
    got = nat.mask2(cls, ident, vocab._WORD_BITS, vocab._STEM_BITS, vocab._STEM_LENS)
    assert got == _py_mask(cls) | (_py_mask(ident) if ident else 0)


@pytest.mark.parametrize("value", ["navİgation", "Σnav", "ﬀnav", "menü", "菜单 nav", "\u212aelvin"])
def test_non_ascii_values_take_the_python_path(value: str) -> None:
    nat = _vocabmask()
    assert nat.mask2(value, None, vocab._WORD_BITS, vocab._STEM_BITS, vocab._STEM_LENS) is None
    assert nat.mask2(None, value, vocab._WORD_BITS, vocab._STEM_BITS, vocab._STEM_LENS) is None


def test_bad_arguments_raise() -> None:
    nat = _vocabmask()
    with pytest.raises(TypeError):
        nat.mask2(3, None, vocab._WORD_BITS, vocab._STEM_BITS, vocab._STEM_LENS)
    with pytest.raises(TypeError):
        nat.mask2("a", None, [], vocab._STEM_BITS, vocab._STEM_LENS)
    with pytest.raises(ValueError):
        nat.mask2("a", None, vocab._WORD_BITS, vocab._STEM_BITS, (0,))
    with pytest.raises(TypeError):
        nat.mask2("a", None)


def test_compiled_class_mask_on_every_word_and_stem() -> None:
    """Each vocabulary word and stem alone, extended, cut short and in camelCase, so that
    every entry of the compiled look-up tables is reached."""
    nat = _vocabmask()
    values = []
    for w in list(vocab._WORD_BITS) + list(vocab._STEM_BITS):
        values += [w, w + "s", w + "x9", w[:-1], "x-" + w, w.capitalize() + "Box",
                   "my" + w.capitalize(), w.upper()]
    for v in values:
        got = nat.mask2(v, None, vocab._WORD_BITS, vocab._STEM_BITS, vocab._STEM_LENS)
        if v.isascii():
            assert got == _py_mask(v), v


def _py_scan(attrs, tags):
    """The Python loop of ``_markup`` (what the compiled scan must equal)."""
    n = len(attrs)
    masks, codes, link = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, bool)
    classes = {"": 0}
    for i, a in enumerate(attrs):
        if a:
            c = a.get("class")
            mk = vocab._mask3(c, a.get("id"), a.get("role"))
            if mk:
                masks[i] = mk
            if c:
                codes[i] = classes.setdefault(c, len(classes))
            if "href" in a and tags[i] == "a":
                link[i] = True
    return masks, codes, link, classes


def test_compiled_attribute_scan_equals_python_loop() -> None:
    _vocabmask()
    attrs = [None, {}, {"class": ""}, {"class": "nav"}, {"id": "mainFooter"},
             {"class": "menü", "id": "x"}, {"role": "navigation"}, {"role": ""},
             {"class": "comments", "role": "Main  Article", "id": "c"}, {"href": "/"},
             {"href": "/", "class": "nav"}, {"class": "nav"}, {"class": "sidebar widget"},
             {"class": "nav", "id": ""}, {"class": "ΣΑΣ nav"}, {"title": "x"}]
    tags = ["div", "div", "p", "ul", "div", "div", "nav", "div", "section", "a", "span", "a",
            "aside", "a", "div", "a"]
    masks, codes, link = np.zeros(len(tags), np.int64), np.zeros(len(tags), np.int64), \
        np.zeros(len(tags), bool)
    classes = {"": 0}
    assert vocab.scan_attrs(attrs, tags, masks, codes, link, classes)
    want = _py_scan(attrs, tags)
    assert np.array_equal(masks, want[0]) and np.array_equal(codes, want[1])
    assert np.array_equal(link, want[2]) and classes == want[3]


def test_compiled_attribute_scan_bad_input_raises() -> None:
    _vocabmask()
    z = np.zeros(2, np.int64)
    with pytest.raises(ValueError):  # outputs too short
        vocab.scan_attrs([None, None], ["a", "b"], np.zeros(1, np.int64), z, np.zeros(2, bool),
                         {})
    with pytest.raises(ValueError):  # tags too short
        vocab.scan_attrs([None, None], ["a"], z, z.copy(), np.zeros(2, bool), {})
    with pytest.raises(TypeError):
        vocab.scan_attrs([None, ["class"]], ["a", "b"], z, z.copy(), np.zeros(2, bool), {})
    with pytest.raises(TypeError):
        vocab._VOCABMASK.scan([None], ["a"])


def _real_pages() -> list[tuple[str, bytes, str | None]]:
    """A few pages per collection and DAnIEL language: (name, html, url)."""
    out = []
    for root, per_lang in ((WCXB, None), (DANIEL, ("zh", "ru", "el", "pl", "en"))):
        man = root / "manifest.jsonl"
        if not man.is_file():
            continue
        seen: dict[str, int] = {}
        for line in man.open(encoding="utf-8"):
            r = json.loads(line)
            key = r.get("lang", "") if per_lang else ""
            if per_lang and key not in per_lang:
                continue
            if seen.get(key, 0) >= (4 if per_lang else 12):
                continue
            seen[key] = seen.get(key, 0) + 1
            out.append((f"{root.name}/{r['id']}", gzip.decompress((root / r["html"]).read_bytes()),
                        r.get("url")))
    return out


def test_leaf_features_equal_with_and_without_the_compiled_masks(monkeypatch) -> None:
    _vocabmask()
    pages = _real_pages()
    if not pages:
        pytest.skip("no WCXB or DAnIEL pages here")
    for name, html, url in pages:
        vocab._mask3.cache_clear()
        fast = leaf_features(parse(html, url=url))
        with monkeypatch.context() as mp:
            mp.setattr(vocab, "_VOCABMASK", None)
            vocab._mask3.cache_clear()
            vocab._value_mask.cache_clear()
            slow = leaf_features(parse(html, url=url))
        vocab._mask3.cache_clear()
        assert np.array_equal(fast.X, slow.X, equal_nan=True), name


# --------------------------------------------------------------------------- words


def _wordsplit():
    nat = native.load("wordsplit")
    if nat is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    return nat


def test_unspaced_range_table_is_the_regex_class() -> None:
    """The compiled split's code-point table holds exactly what ``_UNSPACED_CHAR`` matches."""
    every = "".join(map(chr, range(0x110000)))
    want = np.zeros(0x110000, dtype=bool)
    for mt in align._UNSPACED_CHAR.finditer(every):
        want[mt.start()] = True
    t = align._UNSPACED_TABLE.reshape(-1, 2).astype(np.int64)
    assert (np.diff(t[:, 0]) > 0).all()
    cp = np.arange(0x110000)
    k = np.searchsorted(t[:, 0], cp, side="right") - 1
    got = (k >= 0) & (cp <= t[np.maximum(k, 0), 1])
    assert np.array_equal(got, want)


def test_compiled_words_equal_python_on_every_code_point() -> None:
    """Every code point, in runs, between letters and between unspaced letters (where a
    word character joins or splits a run), as words() splits them."""
    _wordsplit()
    texts = []
    for lo in range(0, 0x110000, 2048):  # texts of 2048 code points each, in four contexts
        chars = list(map(chr, range(lo, lo + 2048)))
        texts += ["".join(chars), " ".join(chars), "".join(f"ab{ch}cd " for ch in chars),
                  "".join(f"北{ch}京" for ch in chars), "".join(f"Σ{ch} " for ch in chars)]
    assert align.words_many(texts) == [align.words(t) for t in texts]


WORD_EDGE = ["", " ", "a", "Hello, World!", "snake_case and CamelCase 123abc", "ΟΔΟΣ ΟΔΟΣ.",
             "ΣΑΣ Σ", "İstanbul KELVIN K", "ﬁne ﬀ", "北京 is big", "東京は日本の首都",
             "กรุงเทพมหานคร", "Москва — столица", "Zażółć gęślą jaźń", "مرحبا بالعالم",
             "😀 ok 😀", "𠀀𠀁 x", "e\u0301te\u0301", "a\u200bb", "x" * 5000, "\ud800 lone",
             "tab\tnew\nline", "१२३ ٣٤٥", "ǅungla ǈ"]


def test_compiled_words_equal_python_on_edge_cases() -> None:
    _wordsplit()
    assert align.words_many(WORD_EDGE) == [align.words(t) for t in WORD_EDGE]
    assert align.words_many(tuple(WORD_EDGE)) == [align.words(t) for t in WORD_EDGE]
    assert align.words_many([]) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=8))
def test_compiled_words_equal_python_on_random_text(texts: list[str]) -> None:
    _wordsplit()
    assert align.words_many(texts) == [align.words(t) for t in texts]


def test_compiled_words_bad_input_raises() -> None:
    nat = _wordsplit()
    with pytest.raises(TypeError):
        nat.words(["a", 3], align._UNSPACED_TABLE)
    with pytest.raises(TypeError):
        nat.words(5, align._UNSPACED_TABLE)
    with pytest.raises(ValueError):
        nat.words(["a"], np.zeros(3, dtype=np.uint32))
    with pytest.raises(TypeError):
        nat.words(["a"])


def test_words_many_without_the_extension(monkeypatch) -> None:
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    assert align.words_many(WORD_EDGE) == [align.words(t) for t in WORD_EDGE]


def test_compiled_words_on_real_pages() -> None:
    _wordsplit()
    pages = _real_pages()
    if not pages:
        pytest.skip("no WCXB or DAnIEL pages here")
    for name, html, url in pages:
        texts = parse(html, url=url).leaf_texts
        assert align.words_many(texts) == [align.words(t) for t in texts], name


def test_leaf_features_equal_without_any_extension(monkeypatch) -> None:
    """All of the block features' compiled helpers off (as on a machine without a compiler):
    the same feature matrix and tokens."""
    _wordsplit()
    _vocabmask()
    pages = _real_pages()
    if not pages:
        pytest.skip("no WCXB or DAnIEL pages here")
    for name, html, url in pages:
        vocab._mask3.cache_clear()
        fast = leaf_features(parse(html, url=url))
        with monkeypatch.context() as mp:
            mp.setenv("WEBSEG_PURE_PYTHON", "1")
            mp.setattr(vocab, "_VOCABMASK", None)
            vocab._mask3.cache_clear()
            slow = leaf_features(parse(html, url=url))
        vocab._mask3.cache_clear()
        assert np.array_equal(fast.X, slow.X, equal_nan=True), name
        assert fast.tokens == slow.tokens, name


# --------------------------------------------------------------------------- block fusion

FUSION_PARAMS = [{}, {"mode": "plain"}, {"theta_max": 0.0}, {"theta_max": 1.0},
                 {"wrap_width": 1}, {"wrap_width": 7, "mode": "plain", "theta_max": 0.5}]


def _fuse_both(page, monkeypatch, **kw):
    from webseg.segmenters.blockfusion import BlockFusion

    bf = BlockFusion(**kw)
    fast = bf._fuse(page)
    with monkeypatch.context() as mp:
        mp.setenv("WEBSEG_PURE_PYTHON", "1")
        slow = bf._fuse(page)
    return fast, slow


def test_compiled_fusion_equals_python_on_real_pages(monkeypatch) -> None:
    if native.load("fusion") is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    pages = _real_pages()
    if not pages:
        pytest.skip("no WCXB or DAnIEL pages here")
    for name, html, url in pages:
        page = parse(html, url=url)
        for kw in FUSION_PARAMS:
            fast, slow = _fuse_both(page, monkeypatch, **kw)
            assert fast[0] == slow[0], (name, kw)
            assert fast[3] == slow[3]


@pytest.mark.parametrize("html", [
    b"<p></p>", b"<p>one</p>", b"<p>a</p><p>b</p><hr><p>c</p>",
    b"<div>" + b"word " * 500 + b"</div><div>x</div><h2>Head</h2><p>" + b"w " * 90 + b"</p>",
    "<p>北京欢迎你</p><p>Москва</p><ul><li>a<li>b<li>c</ul>".encode(),
    b"<table><tr><td>1</td><td>2</td></tr></table><p>" + b"longwordlongwordlongword " * 30
    + b"</p>"])
@pytest.mark.parametrize("kw", FUSION_PARAMS)
def test_compiled_fusion_equals_python_on_edge_cases(html, kw, monkeypatch) -> None:
    if native.load("fusion") is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    fast, slow = _fuse_both(parse(html), monkeypatch, **kw)
    assert fast[0] == slow[0]


def test_compiled_fusion_bad_input_raises() -> None:
    nat = native.load("fusion")
    if nat is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    cum = np.array([0, 3, 6], dtype=np.int64)
    starts = np.array([0, 1, 2], dtype=np.int64)
    cuts = np.array([0, 1, 2], dtype=np.int64)
    bar = np.zeros(3, dtype=bool)
    assert len(nat.fuse(cum, starts, cuts, bar, 80, 0.5)) in (1, 2)
    with pytest.raises(ValueError):  # cuts past the leaves
        nat.fuse(cum, starts, np.array([0, 1, 5], dtype=np.int64), bar, 80, 0.5)
    with pytest.raises(ValueError):  # cuts not increasing
        nat.fuse(cum, starts, np.array([0, 1, 1, 2], dtype=np.int64), bar, 80, 0.5)
    with pytest.raises(ValueError):  # barrier of the wrong length
        nat.fuse(cum, starts, cuts, np.zeros(2, dtype=bool), 80, 0.5)
    with pytest.raises(ValueError):  # token starts past the tokens
        nat.fuse(cum, np.array([0, 1, 3], dtype=np.int64), cuts, bar, 80, 0.5)
    with pytest.raises(ValueError):  # decreasing prefix sums
        nat.fuse(np.array([0, 3, 2], dtype=np.int64), starts, cuts, bar, 80, 0.5)
    with pytest.raises(ValueError):
        nat.fuse(cum, np.array([0, 2, 1], dtype=np.int64), cuts, bar, 80, 0.5)
    with pytest.raises(ValueError):
        nat.fuse(cum, starts, cuts, bar, -1, 0.5)
    with pytest.raises(ValueError):
        nat.fuse(cum, starts, cuts, bar, 2**50, 0.5)


# --------------------------------------------------------------------------- character counts


def _counts_both(texts: list[str], monkeypatch) -> tuple:
    from webseg.blocks.features import _char_counts

    lens = np.fromiter(map(len, texts), dtype=np.float64, count=len(texts))
    fast = _char_counts(texts, lens)
    with monkeypatch.context() as mp:
        mp.setenv("WEBSEG_PURE_PYTHON", "1")
        slow = _char_counts(texts, lens)
    return fast, slow


def test_compiled_char_counts_on_every_code_point(monkeypatch) -> None:
    """Every code point, in runs, before a space and before a letter, after a full stop (a
    sentence end counts only before white space or at the end)."""
    _wordsplit()
    texts = ["." + chr(c) for c in range(0x80)] + [chr(c) for c in range(0x80)]
    for lo in range(0, 0x110000, 2048):  # texts of 2048 code points each, in four contexts
        chars = list(map(chr, range(lo, lo + 2048)))
        texts += ["".join(chars), " ".join(chars), "x".join(chars),
                  "".join("." + ch for ch in chars)]
    fast, slow = _counts_both(texts, monkeypatch)
    for f, s in zip(fast, slow, strict=True):
        assert np.array_equal(f, s)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=60), max_size=8))
def test_compiled_char_counts_on_random_text(texts: list[str]) -> None:
    _wordsplit()
    import os

    from webseg.blocks.features import _char_counts

    lens = np.fromiter(map(len, texts), dtype=np.float64, count=len(texts))
    fast = _char_counts(texts, lens)
    os.environ["WEBSEG_PURE_PYTHON"] = "1"
    try:
        slow = _char_counts(texts, lens)
    finally:
        del os.environ["WEBSEG_PURE_PYTHON"]
    for f, s in zip(fast, slow, strict=True):
        assert np.array_equal(f, s)


def test_compiled_char_counts_bad_input_raises() -> None:
    nat = _wordsplit()
    with pytest.raises(ValueError):
        nat.counts(["ab", "c"], np.zeros(5))
    with pytest.raises(TypeError):
        nat.counts(["ab", 3], np.zeros(6))
    with pytest.raises(BufferError):
        nat.counts(["ab"], b"123456789012345678901234")  # read-only


def test_compiled_char_counts_on_real_pages(monkeypatch) -> None:
    _wordsplit()
    pages = _real_pages()
    if not pages:
        pytest.skip("no WCXB or DAnIEL pages here")
    for name, html, url in pages:
        fast, slow = _counts_both(parse(html, url=url).leaf_texts, monkeypatch)
        for f, s in zip(fast, slow, strict=True):
            assert np.array_equal(f, s), name
