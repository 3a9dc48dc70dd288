"""The compiled walk of the language detector's automaton (``webseg/_native/langwalk.c``)
gives py3langid's own feature counts, in the same order, and the same scores; bad tables
raise instead of reading outside them."""

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import boilerplate_spread
from webseg import _native as native
from webseg import lang, langscore

walk = native.load("langwalk")
pytestmark = pytest.mark.skipif(walk is None, reason="webseg's C extensions are not built")

TEXTS = ["The quick brown fox jumps over the lazy dog.", "THE QUICK BROWN FOX", "",
         " ", "a", "Быстрая коричневая лиса", "敏捷的棕色狐狸跳过了懒狗。",
         "Η γρήγορη καφέ αλεπού", "Warszawa jest stolicą Polski", "😀 ok 😀",
         "e\u0301te\u0301", "ab" * 5000]


def compiled(data: bytes, window: int = 0):
    m = langscore._model()
    got = walk.counts(m.nm, m.rowbase, m.out, data, window)
    if got is None:
        return None
    feats = np.frombuffer(got[0], dtype=np.intp).tolist()
    counts = np.frombuffer(got[1], dtype=np.float32).tolist()
    return list(zip(feats, counts, strict=True))


def python(data: bytes):
    visits = langscore._sequential_counts(data)
    return None if visits is None else [(f, float(c)) for f, c in visits.items()]


@pytest.mark.parametrize("text", TEXTS)
def test_counts_are_py3langids(text):
    data = langscore.encode(text)
    assert compiled(data) == python(data)


def test_every_byte_value_and_broken_utf8():
    data = bytes(range(256)) * 3 + b"\xff\xfe\xc3" + bytes(range(255, -1, -1))
    assert compiled(data) == python(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_any_bytes(data):
    assert compiled(data) == python(data)


@pytest.mark.parametrize("text", TEXTS)
def test_scores_identical_both_paths(text, monkeypatch):
    data = langscore.encode(text)
    fast = langscore.scores(data)
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    slow = langscore.scores(data)
    assert fast.tobytes() == slow.tobytes()
    assert fast.tobytes() == lang._identifier()._decide(text).tobytes()


def test_real_pages_every_language(monkeypatch):
    picked = boilerplate_spread(15)  # every collection and DAnIEL's five languages
    if not picked:
        pytest.skip("the boilerplate collections are not here")
    for p in picked:
        text = gzip.decompress(p.read_bytes()).decode("utf-8", "replace")
        for sample in (text[:lang.MAX_CHARS], text[:20000]):
            data = langscore.encode(sample)
            assert compiled(data) == python(data), p
            assert langscore.scores(data).tobytes() == lang._identifier()._decide(
                sample).tobytes(), p


def test_bad_tables_raise():
    m = langscore._model()
    with pytest.raises(ValueError):  # rows pointing past the table
        walk.counts(m.nm[:1000], m.rowbase, m.out, b"hello world")
    with pytest.raises(ValueError):  # outputs and rows of different lengths
        walk.counts(m.nm, m.rowbase, m.out[:5], b"hello")
    with pytest.raises(ValueError):  # not uint32 transitions
        walk.counts(b"\x00\x00\x00", m.rowbase, m.out, b"x")
    bad_rows = np.array([-5], dtype=np.int64)
    with pytest.raises(ValueError):  # a negative row offset
        walk.counts(np.zeros(256, dtype=np.uint32), bad_rows, np.array([-1]), b"\x01")
    states = np.full(256, 7, dtype=np.uint32)  # a transition to a state that does not exist
    with pytest.raises(ValueError):
        walk.counts(states, np.array([0], dtype=np.int64), np.array([-1]), b"x")
    with pytest.raises(TypeError):
        walk.counts(m.nm, m.rowbase, m.out, "text, not bytes")


def test_the_cached_tables_are_the_identifiers():
    # the model read from the cache (no identifier built) holds py3langid's own values
    m = langscore._model()
    ident = lang._identifier()
    assert np.array_equal(m.nm, np.asarray(ident.tk_nextmove))
    assert m.rowbase.tolist() == list(ident._rowbase)
    assert m.out.tolist() == list(ident.tk_output)
    assert m.classes == list(ident.nb_classes)
    assert m.pc.tobytes() == np.asarray(ident.nb_pc).tobytes()
    assert m.alias_pairs == list(ident._alias_pairs)
    assert np.array_equal(m.table, np.asarray(ident.nb_ptc, dtype=np.float32))


def window():
    got, _ = langscore._window()
    if got is None:
        pytest.skip("the automaton's window is not proven here (no writable model cache)")
    return got


@pytest.mark.parametrize("text", TEXTS)
def test_chains_walk_to_the_same_counts(text):
    data = langscore.encode(text)
    assert compiled(data, window()) == python(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_chains_any_bytes(data):
    assert compiled(data, window()) == python(data)


def test_chains_every_length_around_the_parts():
    # the parts' boundaries: texts of 8 * (window + k) + r bytes
    w = window()
    text = "Warszawa jest stolicą Polski, Быстрая лиса, 敏捷的狐狸 the quick fox " * 20
    data = langscore.encode(text)
    for n in range(0, 8 * (w + 3) + 9):
        assert compiled(data[:n], w) == python(data[:n]), n


def test_scores_use_the_known_window():
    assert langscore._known_window() in (0, langscore._window()[0])
