"""Many texts identified at once give exactly what py3langid gives one text at a time."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg import lang, langscore

ROOT = Path(__file__).resolve().parents[1]
DANIEL = ROOT / ".." / "shared" / "data" / "boilerplate" / "daniel-dev"

TEXTS = ["The quick brown fox jumps over the lazy dog near the river bank.",
         "THE QUICK BROWN FOX", "Der schnelle braune Fuchs springt über den faulen Hund.",
         "Быстрая коричневая лиса перепрыгивает через ленивую собаку.",
         "敏捷的棕色狐狸跳过了懒狗。", "東京は日本の首都であり、最大の都市です。",
         "Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο.",
         "القاهرة هي عاصمة جمهورية مصر العربية", "", " ", "a", "1234 !!!", "😀 ok 😀",
         "Warszawa jest stolicą Polski i największym miastem kraju nad Wisłą.",
         "e\u0301te\u0301 cafe\u0301", "\ufb01ne \uff21\uff22\uff23"]


def reference(text, hints=()):
    """The identification as it was written before batching: py3langid's own ``_decide``
    per text, varieties merged by ``bincount``."""
    declared = []
    for h in hints:
        for c in lang.normalize_hint(h):
            if c not in declared:
                declared.append(c)
    sample = text[:lang.MAX_CHARS]
    n = lang._letters(sample, lang.MIN_LETTERS)
    if n == 0:
        return (lang.Language(declared[0], lang.HINT_CONFIDENCE, "hint") if declared
                else lang.UNKNOWN)
    codes, cols = lang._columns()
    probs = np.bincount(cols, weights=lang._identifier()._decide(sample),
                        minlength=len(codes))
    return lang._decide(declared, n, codes, probs, int(probs.argmax()))


def test_the_shipped_automaton_is_proven_windowed():
    m = langscore._model()
    window, pad = langscore._window()
    assert window is not None and 1 <= window <= 8
    assert m.nm[m.rowbase[0] + pad] == 0


def test_read_only_cache_walks_sequentially(monkeypatch, tmp_path):
    # no writable cache: no proof is computed (it would cost every process a second), and
    # many texts are scored one by one, with the same results
    monkeypatch.setattr(langscore, "_cache_file", lambda name: None)
    langscore._window.cache_clear()
    try:
        assert langscore._window() == (None, 0)
        got = lang.identify_many(TEXTS)
        assert got == [reference(t) for t in TEXTS]
    finally:
        langscore._window.cache_clear()


def test_scores_bit_for_bit():
    ident = lang._identifier()
    data = [langscore.encode(t) for t in TEXTS]
    many = langscore.scores_many(data)
    for t, d, row in zip(TEXTS, data, many, strict=True):
        want = ident._decide(t)
        assert np.array_equal(langscore.scores(d), want), t
        assert row.dtype == want.dtype and np.array_equal(row, want), t


def test_identify_many_equals_one_by_one():
    hints = [[], ["en"], ["ru"], ["en-US"], ["zh-Hant"], [], ["el"], ["ar"], ["fr"], [], [],
             [], [], ["pl", "en"], ["fr"], []]
    got = lang.identify_many(TEXTS, hints)
    for t, h, g in zip(TEXTS, hints, got, strict=True):
        assert g == reference(t, h) == lang.identify(t, h), t


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=80), min_size=2, max_size=6))
def test_identify_many_any_text(texts):
    got = lang.identify_many(texts)
    assert got == [reference(t) for t in texts]


def test_bad_input():
    with pytest.raises(ValueError):
        lang.identify_many(["a", "b"], [["en"]])
    with pytest.raises(TypeError):
        lang.identify_many(["a", b"b"])  # type: ignore[list-item]
    assert lang.identify_many([]) == []


def test_not_an_aho_corasick_automaton_is_not_windowed():
    # two states that swap on every byte: the state is the parity of the length, which no
    # window of the last bytes decides
    nm = np.asarray([1] * 256 + [0] * 256, dtype=np.uint32)
    assert langscore.window_of(nm, np.asarray([0, 256], dtype=np.int64)) == (None, 0)


def test_small_aho_corasick_automaton():
    # strings {"a", "ab"}: states 0 (""), 1 ("a"), 2 ("ab"); "b" is not in the set
    a, b = ord("a"), ord("b")
    rows = np.zeros((3, 256), dtype=np.uint32)
    rows[:, a] = 1
    rows[1, b] = 2
    assert langscore.window_of(rows.ravel(), np.asarray([0, 256, 512])) == (2, 255)
    rows[2, a] = 0  # "aba" must end in state "a"
    assert langscore.window_of(rows.ravel(), np.asarray([0, 256, 512]))[0] is None


@pytest.mark.skipif(not (DANIEL / "manifest.jsonl").is_file(), reason="daniel-dev absent")
def test_daniel_gold_texts():
    rows = [json.loads(x) for x in (DANIEL / "manifest.jsonl").open(encoding="utf-8")]
    texts = [(DANIEL / r["gold"]).read_text(encoding="utf-8") for r in rows if r["gold"]]
    got = lang.identify_many(texts)
    assert got == [reference(t) for t in texts]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7f), max_size=120),
       st.integers(min_value=-2, max_value=60))
def test_ascii_letter_count_is_the_loops(text, enough):
    n = 0
    for ch in text:
        if ch.isalpha():
            n += 1
            if n >= enough:
                break
    assert lang._letters(text, enough) == n
