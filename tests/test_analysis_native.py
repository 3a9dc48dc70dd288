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
    for toks in (["a"], ["a", "b", "c"], ["a", "b", "a"], ["x"] * 3):  # distinct or not
        for given in (toks, iter(toks)):
            fc = float_counts(given)
            assert list(fc.items()) == [(t, float(c)) for t, c in Counter(toks).items()]
            assert all(type(v) is float for v in fc.values())


def test_separators_are_what_the_unicode_path_makes_of_them() -> None:
    """Every character :func:`ir.analysis._separator` accepts, between, before and after
    ASCII words, curly quotes and other separators, gives exactly the script-run analysis'
    tokens (NFKC, the wordy test, lower-casing): the claim the compiled fast path rests on."""
    import unicodedata

    from ir.analysis import _separator

    an = Analyzer()
    seps = [chr(c) for c in range(0x80, 0x3400) if _separator(chr(c))]
    seps += [c for c in "\uff0c\uff08\u3000\U0001f642\U0001f680" if _separator(c)]
    assert {"\u2019", "\u2014", "\u00a0", "\u201c", "\u00a9", "\U0001f642"} <= set(seps)
    assert not any(_separator(c) for c in "\u2122\u00b2\u00bd\u00e9\u00a8\u0301\u4e2d\u0416")
    for s in seps:
        for text in (f"Ab{s}cd", f"{s}X1", f"The{s}{s}\u2019s", f"a{s}\u00a0b{s}"):
            assert an._unicode_tokens(text) == an._english_words(
                unicodedata.normalize("NFKC", text).lower())


def test_no_separator_composes_with_its_neighbours() -> None:
    """The second character of every canonical composition is a mark or a letter (never a
    separator, which has neither in its NFKC form), so a separator neither composes with
    the character before it nor, being of class 0, reorders around it."""
    import unicodedata

    for c in range(0x110000):
        d = unicodedata.decomposition(chr(c))
        if not d or d.startswith("<"):
            continue
        parts = d.split()
        if len(parts) == 2:
            second = chr(int(parts[1], 16))
            assert (unicodedata.combining(second)
                    or unicodedata.category(second)[0] in "LM"), hex(c)


def test_text_with_separators_has_the_script_run_tokens(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """The compiled fast path (a text whose non-ASCII characters are separators read as
    ASCII) against the pure-Python analysis, on mixes of ASCII, separators and other
    characters, one by one and in a page's batch."""
    _compiled()
    rng = random.Random(3)
    alphabet = list("ab Z9 ,.-'") + list("’“”—–…©®™²½é¨ßд中\u00a0\u200b\u3000\uff0c🙂\u0301")
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
             for _ in range(600)]
    for kw in ({}, {"stopwords": "none", "stemmer": "none"}, {"max_token_len": 3},
               {"scheme": "ascii"}):
        monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
        want = [Analyzer(**kw).tokens(t) for t in texts]
        monkeypatch.setenv("WEBSEG_PURE_PYTHON", "0")
        an = Analyzer(**kw)
        assert an.tokens_many(texts) == want
        assert [an.tokens(t) for t in texts] == want


def test_the_separator_table_is_read_safely() -> None:
    mod = _compiled()
    table = bytearray(0x3000)
    table[0x2019] = 1
    table[0xe9] = 2
    assert mod.words_many(["A\u2019b", "caf\u00e9", "x\u2014y", "\U0001f642 z"], {},
                          str.upper, table) == [["A", "B"], None, 0x2014, 0x1f642]
    assert mod.words_many(["A\u2019b"], {}, str.upper, None) == [None]
    with pytest.raises(TypeError):
        mod.words_many(["A\u2019b"], {}, str.upper, "not a buffer")


def test_a_build_without_the_table_is_used_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled module from before the separator table (no ``SEPARATOR_TABLE``) still gives
    the same tokens: the table is not passed to it."""
    import types

    import ir.analysis as analysis

    mod = _compiled()
    old = types.SimpleNamespace(words=mod.words,
                                words_many=lambda texts, memo, miss: mod.words_many(
                                    texts, memo, miss))
    texts = EDGES + ["it\u2019s \u201cquoted\u201d \u2014 text"]
    want = [Analyzer().tokens(t) for t in texts]
    monkeypatch.setattr(analysis, "load_native", lambda name: old)
    an = Analyzer()
    assert an.tokens_many(texts) == want
    assert [an.tokens(t) for t in texts] == want
