"""The metadata reader's one-pass scan (``webseg._native.htmlscan``) finds what the scans it
replaces find, and the metadata is the same with it and without it.

``find`` must give every occurrence of every word (exact) and, for each tag name, a superset
of the places where a case-insensitive expression starting with ``<name`` can match (Python's
IGNORECASE lets the Kelvin sign match ``k`` and the long s match ``s``): checked on edge cases
and random strings of all three string kinds. The metadata (every field, its sources, the
language hints, the titles) must not depend on whether the compiled scan ran: checked on
crafted pages and on real pages of several sets and languages (skipped without the data).
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg import _native as native
from webseg.clean import metadata as md_mod
from webseg.clean import titles

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def _scan():
    mod = native.load("htmlscan")
    if mod is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    return mod


def test_the_extension_is_built_where_a_compiler_is() -> None:
    import os
    import shutil
    import sysconfig

    if os.environ.get("WEBSEG_PURE_PYTHON", "") not in ("", "0"):
        pytest.skip("WEBSEG_PURE_PYTHON: the Python paths are the ones in use")
    headers = Path(sysconfig.get_paths()["include"], "Python.h").is_file()
    if not (shutil.which("cc") and headers):
        pytest.skip("no C compiler or Python headers: the Python paths are the ones in use")
    assert native.load("htmlscan") is not None


def _occurrences(text: str, word: str) -> list[int]:
    return [m.start() for m in re.finditer(f"(?={re.escape(word)})", text)]


def _tag_rule(text: str, p: int, name: str) -> bool:
    """The documented candidate rule: '<', then the name in any ASCII case or a non-ASCII
    character in place of each of its characters."""
    if text[p] != "<" or p + 1 + len(name) > len(text):
        return False
    return all(c == w or c.lower() == w and c.isascii() or not c.isascii()
               for c, w in zip(text[p + 1:p + 1 + len(name)], name, strict=True))


def _check(text: str, words: tuple[str, ...], tags: tuple[str, ...]) -> None:
    got = _scan().find(text, words, tags)
    assert len(got) == len(words) + len(tags)
    for w, pos in zip(words, got, strict=False):
        assert pos == _occurrences(text, w), w
    for name, pos in zip(tags, got[len(words):], strict=True):
        assert pos == [p for p in range(len(text)) if _tag_rule(text, p, name)], name
        can = {m.start() for m in re.finditer(f"(?i)(?=<{name})", text)}
        assert can <= set(pos), name  # every place the expression can match is a candidate


EDGE = ["", "<", "<m", "<meta", "<META name=x>", "<MeTa", "<linK rel=canonical>",
        "<lin\u212a rel=canonical>",
        "<ſcript type=application/ld+json>", "<Ｍeta>", "aaaa", "itemitemprop",
        "<h1><H1 x><h1>", "x<body><BODY", "ld+jsonLD+JSONld+JSON", "<\u00e9meta", "<😀eta",
        "author Author byline writer", "<<meta<link", "\x00<meta\x00", "<scrip", "<script"]


@pytest.mark.parametrize("text", EDGE)
@pytest.mark.parametrize("suffix", ["", "é", "ж", "😀"])  # the three string kinds
def test_edge_cases(text: str, suffix: str) -> None:
    _check(text + suffix, md_mod._SCAN_WORDS, md_mod._SCAN_TAGS)
    _check(suffix + text, ("aa", "a", "😀", "é<", "\x00<"), ("meta", "h1"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="<>mMeEtTaAlLiInNkKſhH1 \"'=/éж😀\u212a", max_size=60))
def test_random_strings(text: str) -> None:
    _check(text, ("me", "<m", "a", "ta", "ſ", "<h1"), ("meta", "link", "h1", "script"))


def test_bad_arguments_raise() -> None:
    mod = _scan()
    with pytest.raises(TypeError):
        mod.find(b"bytes", (), ())
    with pytest.raises(TypeError):
        mod.find("x", ["list"], ())
    with pytest.raises(ValueError):
        mod.find("x", ("",), ())
    with pytest.raises(ValueError):
        mod.find("x", (1,), ())
    with pytest.raises(ValueError):
        mod.find("x", (), ("Meta",))  # tag names are lower case
    with pytest.raises(ValueError):
        mod.find("x", (), ("a-b",))
    with pytest.raises(ValueError):
        mod.find("x", tuple("abcdefghij" * 7), ())  # at most 64


def _both(monkeypatch: pytest.MonkeyPatch, fn, *args):
    """``fn(*args)`` with the compiled scan and without it."""
    _scan()
    with_scan = fn(*args)
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    without = fn(*args)
    monkeypatch.delenv("WEBSEG_PURE_PYTHON")
    return with_scan, without


def _metadata(html: str, url: str | None = None) -> dict:
    return dict(vars(md_mod.extract_metadata(html, url=url)))


PAGES = [
    # tags in odd cases, a Kelvin sign in "link", JSON-LD spelled two ways, microdata
    '<html lang=de><head><META property="og:title" content="A title"><lin\u212a rel="canonical" '
    'href="/a"><title>T | Site</title><ScRiPt type="application/ld+json">{"@type": '
    '"NewsArticle", "headline": "Head", "datePublished": "2024-01-02"}</script></head>'
    '<BODY><H1>Head</H1><span itemprop="author">Jo Lee</span></BODY></html>',
    # ld+json only spelled with capitals: not read; a byline; <h1> after a logo
    '<html><head><script type="application/LD+Json">{"headline": "X"}</script><title>A b c'
    '</title></head><body><h1><img src=logo.png></h1><h1>A b c</h1><div class="byline">By '
    'Ann Smith</div><p>Nov 21, 2018</p></body></html>',
    # overlapping and repeated words, itemprop in capitals, a meta tag inside a quoted value
    '<html><head><meta name="description" content="<meta name=author content=x>"><meta '
    'ITEMPROP="datePublished" content="2020-05-06"></head><body><div class="author author">'
    '<a rel="author">itemitemprop</a></div><time datetime="2021-01-01">x</time></body></html>',
    "", "<html>", "<h1", "<meta", "no markup at all, author byline writer itemprop",
    '<html><body><h1 class="a>b">Tïtle ünïcode 😀</h1><ſcript type="application/ld+json">'
    '{"headline": "S"}</script></body></html>',
]


@pytest.mark.parametrize("html", PAGES)
def test_metadata_same_with_and_without_the_scan(html: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = _both(monkeypatch, _metadata, html, "https://example.org/2024/01/02/x")
    assert a == b


@pytest.mark.parametrize("html", PAGES)
def test_tag_matches_equal_finditer(html: str) -> None:
    mod = _scan()
    marks = md_mod._Marks(html, mod)
    for pattern, tags in ((md_mod._TAG_RE, md_mod._FIELD_TAGS), (md_mod._LD_RE, ("script",))):
        got = [m.span() for m in md_mod._matches(pattern, html, marks.starts(*tags))]
        assert got == [m.span() for m in pattern.finditer(html)]
    for start in range(0, len(html) + 1, 7):
        a = titles._h1_start(html, start, marks.tags["h1"])
        b = titles._H1_START.search(html, start)
        assert (a and a.span()) == (b and b.span())


def _real_pages(limit_per_set: int = 40) -> list[tuple[str, str, str | None]]:
    from webseg.datasets import KNOWN_ENCODINGS
    from webseg.decode import decode_html

    out = []
    for d in sorted((DATA / "boilerplate").glob("*")) + [DATA / "wcxb-dev"]:
        man = d / "manifest.jsonl"
        if not man.is_file():
            continue
        for line in man.read_text(encoding="utf-8").splitlines()[:limit_per_set]:
            rec = json.loads(line)
            with gzip.open(d / rec["html"], "rb") as f:
                raw = f.read()
            html = decode_html(raw, encoding=KNOWN_ENCODINGS.get(d.name)).text
            out.append((f"{d.name}/{rec['id']}", html, rec.get("url") or rec.get("url_declared")))
    return out


def test_real_pages_same_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every field, source, language hint and title candidate, on real pages of six sets
    (English, Chinese, Russian, Greek, Polish...)."""
    pages = _real_pages()
    if not pages:
        pytest.skip("shared data not found")

    def run() -> list[dict]:
        return [_metadata(html, url) for _, html, url in pages]

    a, b = _both(monkeypatch, run)
    for (pid, _, _), x, y in zip(pages, a, b, strict=True):
        assert x == y, pid
