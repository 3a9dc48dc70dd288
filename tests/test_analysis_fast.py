"""The analyzer's shortcuts (English-only text with non-ASCII punctuation, remembered Latin
runs) give exactly the terms of the script-run analysis they skip."""

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from ir.analysis import (
    Analyzer,
    _bigrams,
    _language_stemmer,
    _normal,
    _runs,
    _script_language,
    _to_simplified,
    stopwords_for,
)


def script_runs(an: Analyzer, text: str) -> list[str]:
    """The script-run analysis, run by run, no shortcut (frozen copy of the rules)."""
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for m in _runs().finditer(text):
        kind, run = m.lastgroup, m.group()
        if kind == "latin":
            out.extend(an._latin(run))
        elif kind == "cjk":
            out.extend(_bigrams(_to_simplified(run.casefold())))
        elif kind == "sea":
            out.extend(_bigrams(run))
        else:
            lang = _script_language(run[0])
            w = _normal(run, lang)
            if len(w) > an.max_token_len or (an.stopwords != "none"
                                             and w in stopwords_for(lang)):
                continue
            stem = _language_stemmer(lang) if an.stemmer != "none" else None
            out.append(stem(w) if stem else w)
    return out


CASES = [
    "Don\u2019t stop \u2014 the \u201crunning\u201d dogs\u00a0barked\u2026 \u00a9 2024",
    "Caf\u00e9 cr\u00e8me at \u0141\u00f3d\u017a, na\u00efve co\u00f6perate",
    "\u2122 \u2460\u2461 \ufb01nal \uff21\uff22\uff23 \u00bd \u00b2",  # NFKC makes letters/digits
    "\u041f\u0440\u0438\u0432\u0435\u0442 world \u4e2d\u6587\u6587\u672c and "
    "\u0e20\u0e32\u0e29\u0e32",
    "A\u0301ccent combining, \u0130stanbul, \u212awh, \u00dfe stra\u00dfe",
    "running runners ran \u2022 running runners ran \u2022 running",
]

ALPHABET = st.sampled_from(list("abcXYZ019 .,'-_\n\t") + [
    "\u2019", "\u201c", "\u2014", "\u00a0", "\u2026", "\u00a9", "\u2122", "\u2460", "\u00e9",
    "\u0301", "\u0141", "\u00df", "\u0130", "\u0416", "\u4e2d", "\u0e01", "\u00bd", "\uff21",
    "\ufb01", "\u0663", "\u00aa"])


def test_cases_match_script_runs():
    for an in (Analyzer(), Analyzer(stopwords="none", stemmer="none"), Analyzer(latin="de")):
        for text in CASES:
            assert an.tokens(text) == script_runs(an, text), (an, text)
            assert an.tokens(text) == script_runs(an, text)  # again, from the memo


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=60).map("".join))
def test_random_text_matches_script_runs(text):
    for an in (Analyzer(), Analyzer(stemmer="english", stopwords="lucene")):
        if text.isascii():
            continue  # the English path, tested in test_analysis_scripts
        assert an.tokens(text) == script_runs(an, text)


def test_memo_results_are_not_shared():
    an = Analyzer()
    first = an.tokens("caf\u00e9 runners")
    first.append("junk")
    assert an.tokens("caf\u00e9 runners") == ["cafe", "runner"]


WORDS = st.lists(ALPHABET.filter(lambda c: not c.isspace()), min_size=1, max_size=8).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=12), st.lists(WORDS, max_size=12))
def test_no_token_crosses_a_space(a, b):
    """What the index stage relies on to analyse a page's text once: the terms of two texts
    joined by a space are the terms of one, then of the other."""
    an = Analyzer()
    left, right = " ".join(a), " ".join(b)
    assert an.tokens(f"{left} {right}") == an.tokens(left) + an.tokens(right)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=1, max_size=30).map(" ".join), max_size=12),
       st.integers(min_value=1, max_value=20))
def test_windows_from_pieces_are_the_same(pieces, size):
    from ir.blocks import window_blocks
    from ir.pipeline import PageTokens

    text = " ".join(pieces)
    an = Analyzer()
    want = window_blocks(text, an, size=size)
    toks: list[str] = []
    got = window_blocks(text, PageTokens(an), size=size, pieces=pieces, text_tokens=toks)
    assert [(b.text, b.terms) for b in got] == [(b.text, b.terms) for b in want]
    if text.isascii() or not any("\u4e00" <= c <= "\u9fff" or "\u0e00" <= c <= "\u0e7f"
                                 for c in text):
        assert toks == an.tokens(text)
