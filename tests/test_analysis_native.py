"""The compiled token loop (webseg/_native/asciiwords.c) gives exactly the terms of the Python
loop it replaces, on every script's real pages and on edge cases, and the batched and
counting helpers give exactly what the one-text-at-a-time calls give."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from ir.analysis import Analyzer, float_counts, term_counts
from webseg import _native as native

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / ".." / "shared" / "data"

EDGES = ["", " ", "A", "ABC def GHI", "x" * 64, "x" * 65, "The THE the tHe", "don't",
         "1,2;3 4.5", "a\u00a0b", "naïve café Łódź", "İstanbul", "\u212a elvin", "Native™",
         "ǅemal", "ﬁne", "ＡＢＣ full width", "東京 Tokyo", "Москва Moscow", "Αθήνα",
         "tab\there\nnew line", "a" * 200, "0" * 70 + " 7", "mixed123abc ABC123def",
         "\x00\x7f control", "emoji 🙂 here", "smart “quotes” — dash"]

CONFIGS = [{}, {"stemmer": "english"}, {"stopwords": "lucene"}, {"stopwords": "none"},
           {"scheme": "ascii"}, {"latin": "de"}, {"max_token_len": 5},
           {"stemmer": "none", "stopwords": "none"}]


def _compiled():
    mod = native.load("asciiwords")
    if mod is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    return mod


def _page_texts() -> list[str]:
    """Leaf texts and titles of real pages of every language at hand (DAnIEL: Chinese,
    Russian, Greek, Polish, English; WCXB: English and others), a sample of each."""
    from webseg.datasets import load_records
    from webseg.parse import parse

    texts: list[str] = []
    for name in ("boilerplate/daniel-dev", "wcxb-dev"):
        if not (DATA / name / "manifest.jsonl").exists():
            continue
        recs = sorted(load_records(DATA / name), key=lambda r: r.id)
        by_lang: dict[str | None, list] = {}
        for r in recs:
            by_lang.setdefault(r.extra.get("lang"), []).append(r)
        for group in by_lang.values():
            random.Random(7).shuffle(group)
            for r in group[:4]:
                page = parse(r.read_html(), url=r.url)
                texts += [page.title or "", *page.leaf_texts]
    return texts


def _all_terms(texts: list[str], monkeypatch: pytest.MonkeyPatch, pure: bool
               ) -> list[list[list[str]]]:
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1" if pure else "0")
    out = []
    for kw in CONFIGS:
        an = Analyzer(**kw)
        for _ in range(2):  # memos cold, then warm
            out.append([an.tokens(t) for t in texts])
            out.append([an.unstemmed().tokens(t) for t in texts])
    return out


def test_compiled_and_python_loops_give_the_same_terms(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    _compiled()
    texts = EDGES + _page_texts()
    assert _all_terms(texts, monkeypatch, pure=False) == _all_terms(texts, monkeypatch,
                                                                    pure=True)


@pytest.mark.parametrize("pure", [False, True])
def test_tokens_many_is_tokens_of_each(pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1" if pure else "0")
    texts = EDGES + EDGES[::-1]
    for kw in CONFIGS:
        an = Analyzer(**kw)
        assert an.tokens_many(texts) == [an.tokens(t) for t in texts]
        assert an.tokens_many([]) == []


def test_a_full_memo_is_emptied_as_the_python_loop_empties_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled loop stores new words through the Python side, which keeps the memo
    bounded the same way."""
    import ir.analysis as analysis

    _compiled()
    monkeypatch.setattr(analysis, "_LATIN_MEMO_SIZE", 3)
    an = Analyzer()
    assert an.tokens("alpha beta gamma delta Alpha") == ["alpha", "beta", "gamma", "delta",
                                                         "alpha"]
    assert len(analysis._word_memo(an)) <= 3


def test_the_compiled_loop_refuses_bad_input() -> None:
    mod = _compiled()
    with pytest.raises(TypeError):
        mod.words(b"bytes", {}, str, True)
    with pytest.raises(TypeError):
        mod.words("text", [], str, True)
    with pytest.raises(TypeError):
        mod.words("text", {}, None, True)
    with pytest.raises(TypeError):
        mod.words("text", {})
    with pytest.raises(TypeError):
        mod.words_many(("a", "b"), {}, str)
    with pytest.raises(TypeError):
        mod.words_many(["a", 3], {}, str)
    with pytest.raises(ZeroDivisionError):  # an error of the callback propagates
        mod.words("word", {}, lambda t: 1 / 0, True)
    assert mod.words_many(["A b", "é", ""], {}, str.upper) == [["A", "B"], None, []]
    assert mod.words("Ab Cd", {"ab": None}, str.upper, True) == ["CD"]
    assert mod.words("Ab cd", {}, str.upper, False) == ["B", "CD"]


def test_counts_are_counters() -> None:
    toks = ["b", "a", "b", "c", "a", "b", "é", "東京"]
    assert term_counts(toks) == dict(Counter(toks))
    assert list(term_counts(toks)) == list(Counter(toks))
    assert term_counts(iter(toks)) == dict(Counter(toks))
    fc = float_counts(toks)
    assert fc == {t: float(c) for t, c in Counter(toks).items()}
    assert all(type(v) is float for v in fc.values()) and list(fc) == list(Counter(toks))
    assert term_counts([]) == {} and float_counts([]) == {}
