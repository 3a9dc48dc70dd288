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
from webseg.blocks import vocab
from webseg.blocks.features import leaf_features
from webseg.parse import parse

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
WCXB = DATA / "wcxb-dev"
DANIEL = DATA / "boilerplate" / "daniel-dev"


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
