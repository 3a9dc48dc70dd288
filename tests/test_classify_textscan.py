"""The compiled text scans of the page-type features (``webseg._native.textscan``) give the
Python numbers: the currency marks' offsets (so the same price count) and the word count."""

from __future__ import annotations

import random

import pytest

from classify import pagefeatures as pf
from webseg import _native as native

PIECES = list(pf._CURRENCY_MARKS) + ["1", "9.99", " ", "\u00a0", "\u3000", "\n", "a", "zz",
                                      "K", "р", "руб.", "12,50", "新闻", "\x1c", "\u2028", "$$"]


def _texts() -> list[str]:
    rng = random.Random(5)
    out = ["", " ", "USD", "руб", "zł10", "$", "грн 5"]
    for _ in range(600):
        out.append("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40))))
    return out


def test_same_marks_and_counts(monkeypatch) -> None:
    if native.load("textscan") is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    texts = _texts()
    fast = [(pf._prices(t), pf.count_words(t), native.load("textscan").count_split(t))
            for t in texts]
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    for t, (prices, words, n_split) in zip(texts, fast, strict=True):
        assert prices == pf._prices(t)
        assert prices == pf._PRICE.findall(t)
        assert words == pf.count_words(t)
        assert n_split == len(t.split())


def test_marks_are_every_occurrence_in_order() -> None:
    scan = native.load("textscan")
    if scan is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    assert scan.marks("$$ USD руб", ("$", "USD", "руб", "US")) == [0, 1, 3, 3, 7]
    with pytest.raises(ValueError):
        scan.marks("x", ("",))
    with pytest.raises(TypeError):
        scan.count_split(b"x")


HEAD_PIECES = ["<head>", "</HEAD>", "</head>", "<meta property='og:type' content='Article'>",
               "<script type=\"application/LD+JSON\">", "</script>", "</SCRIPT >",
               '{"@type": "NewsArticle"}', '{"@type": ["A", "B"', "itemtype=",
               'ITEMTYPE = "https://schema.org/Product"', "itemtype='http://x.org/Tür'",
               "xitemtype=Thing", "itemtypeitemtype=q", "\ud800", "İ", "é", "新闻", " ", ">",
               "<link rel='alternate' type='application/rss+xml'>", "ld+json", "<"]


def test_same_head_tokens(monkeypatch) -> None:
    """Metadata tokens from the compiled marker offsets equal those of the lower-cased
    UTF-8 copy's search: upper-case markers, non-ASCII text (offsets in characters, not
    bytes), a lone surrogate, broken JSON, itemtype values with non-ASCII letters."""
    if native.load("textscan") is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    rng = random.Random(11)
    pages = ["".join(rng.choice(HEAD_PIECES) for _ in range(rng.randint(0, 30)))
             for _ in range(500)]
    fast = [pf.head_tokens(h) for h in pages]
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    for h, f in zip(pages, fast, strict=True):
        assert f == pf.head_tokens(h)


def _markers_by_definition(html: str) -> tuple[int, list[int], list[int], list[int]]:
    low = html.translate({c: c + 32 for c in range(ord("A"), ord("Z") + 1)})

    def every(s: str) -> list[int]:
        out, at = [], low.find(s)
        while at >= 0:
            out.append(at)
            at = low.find(s, at + 1)
        return out

    return low.find("</head>"), every("ld+json"), every("itemtype"), every("</script")


@pytest.mark.parametrize("wide", ["", "é", "新", "😀"])  # each storage width of str
def test_markers_at_every_offset(wide: str) -> None:
    """The marker offsets equal a search of the ASCII-lower-cased text, for each marker at
    every offset around the 16-byte steps of the vector scan, near-misses ("<a", "+x",
    "yx") beside them, in text of each storage width."""
    scan = native.load("textscan")
    if scan is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    fill = "ab<c+y Y<p/" + wide
    for marker in ("</HEAD>", "</head>", "LD+JSON", "ld+json", "itemTYPE", "</script",
                   "</Script", "<", "+", "y"):
        for at in range(0, 40):
            for tail in ("", "x" * 20, fill * 3):
                html = (fill * 5)[:at] + marker + tail
                assert scan.markers(html) == _markers_by_definition(html), (marker, at, tail)
    rng = random.Random(2)
    alphabet = ["<", "/", "+", "j", "J", "y", "Y", "p", "P", "itemtype", "ld+json", "</head>",
                "</script", " ", "x", wide or "q"]
    for _ in range(400):
        html = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        assert scan.markers(html) == _markers_by_definition(html)


CLOCK_PIECES = [":", "1", "12", "123", "٣", "::", " ", "a", "12:30", "1:05", "9:5", ".", "x:",
                "\u2028", "新", "😀", "10:00:00"]


def test_clock_count_equals_whole_text_search(monkeypatch) -> None:
    """The clock count from the windows around colons equals the count of the search of the
    whole text, compiled and in Python (colons at the start, the end, side by side,
    Unicode digits, times with seconds)."""
    rng = random.Random(7)
    texts = ["", ":", "1:00", "x1:00", "1:001", "12:30 and 1:05:07", ":12:34:"]
    texts += ["".join(rng.choice(CLOCK_PIECES) for _ in range(rng.randint(0, 60)))
              for _ in range(1500)]
    for pure in ("0", "1"):
        monkeypatch.setenv("WEBSEG_PURE_PYTHON", pure)
        for t in texts:
            assert pf._clock_count(t) == len(pf._CLOCK.findall(t)), t
