"""Scores that behave: never negative, and a page with more of the query never ranks lower.

Both engines (the page engine and the passage engine of an index with passage evidence) use
Lucene's IDF, positive for every term, so on any index - one document, two, five - each
matching query term adds to a page's score.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir import Index, doc_from_text
from ir.bm25 import EmbeddedBM25, lucene_idf
from ir.index import DEFAULT_FIELDS, DEFAULT_PASSAGES, DEFAULT_REPEATS

QUERY = ["apple", "banana", "cherry"]
LENGTH = 6  # every document: its matching terms once each, padded with its own filler words


def _doc_words(i: int, matching: frozenset[str]) -> list[str]:
    words = [t for t in QUERY if t in matching]
    return words + [f"filler{i}x{j}" for j in range(LENGTH - len(words))]


def test_lucene_idf_is_positive_for_every_document_frequency():
    for n in (1, 2, 5, 1000):
        idf = lucene_idf(np.arange(0, n + 1), n)
        assert (idf > 0).all()
        assert (np.diff(idf) < 0).all()  # rarer terms weigh more


def _subsets(n: int):
    return st.lists(st.frozensets(st.sampled_from(QUERY)), min_size=n, max_size=n)


def _check_monotone(match: list[frozenset[str]], scores: list[float],
                    ranks: dict[int, int]) -> None:
    """Where page a's matching terms strictly include page b's, a scores more and ranks
    higher; no score is negative; a page with a query term is a result."""
    assert min(scores) >= 0
    for a, ma in enumerate(match):
        assert (a in ranks) == bool(ma)
        for b, mb in enumerate(match):
            if ma > mb:
                assert scores[a] > scores[b], (match, scores)
                if mb:
                    assert ranks[a] < ranks[b]


@pytest.mark.parametrize("n", [1, 2, 5])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_engine_more_matching_terms_never_rank_lower(n, data):
    match = data.draw(_subsets(n))
    e = EmbeddedBM25([dict(Counter(_doc_words(i, m))) for i, m in enumerate(match)],
                     k1=1.2, b=0.75)
    q = {t: 1.0 for t in QUERY}
    s = e.scores(q)
    rows, _ = e.top(q, 10)
    _check_monotone(match, s.tolist(), {r: k for k, r in enumerate(rows.tolist())})


@pytest.mark.parametrize("n", [1, 2, 5])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_index_with_fields_and_passages_more_matching_terms_never_rank_lower(tmp_path_factory,
                                                                            n, data):
    """The same on a content-aware index with passage evidence (page engine + passage
    engine: each document's one 50-word window is its content block)."""
    match = data.draw(_subsets(n))
    ix = Index.create(tmp_path_factory.mktemp("ix") / "idx", sources=["windows"],
                      fields=DEFAULT_FIELDS, k1=1.5, b=0.4, repeats=DEFAULT_REPEATS,
                      passages={**DEFAULT_PASSAGES, "source": "windows", "min_terms": 1})
    ix.add(doc_from_text(f"d{i}", " ".join(_doc_words(i, m)), ix.analyzer)
           for i, m in enumerate(match))
    res = ix.search(" ".join(QUERY), k=10, snippets=False)
    got = dict(zip(res.rows.tolist(), res.scores.tolist(), strict=True))
    scores = [got.get(i, 0.0) for i in range(n)]
    _check_monotone(match, scores, {r: k for k, r in enumerate(res.rows.tolist())})


# ------------------------------------------------------------------ the cases users met

#: every page's template words (on all five pages: rank-bm25's IDF made their mean negative)
TEMPLATE = ("home news sport weather travel money culture music film books science health "
            "style food games video photos contact login privacy terms cookies copyright")
PAGES = {  # title, main text: five small pages
    "fruit": ("Fruit snacks", "an apple and a banana make a quick snack recipe"),
    "bananas": ("Yellow fruit", "a banana a day: this recipe uses ripe ones only"),
    "bread": ("Baking", "a recipe for banana bread with flour and yeast"),
    "soup": ("Soup", "a recipe for soup with carrots onions and leeks"),
    "zebra": ("Zebrafacts", "zebras live in herds on the african plains"),
}


@pytest.fixture
def five(tmp_path):
    ix = Index.create(tmp_path / "idx", sources=["windows"], fields=DEFAULT_FIELDS,
                      k1=1.5, b=0.4, repeats=DEFAULT_REPEATS,
                      passages={**DEFAULT_PASSAGES, "source": "windows"})
    ix.add(doc_from_text(i, f"{TEMPLATE} {text}", ix.analyzer, title=title)
           for i, (title, text) in PAGES.items())
    return ix


def test_a_word_only_in_the_title_finds_the_page(five):
    assert DEFAULT_FIELDS["title"] > 0
    res = five.search("zebrafacts", k=5)
    assert res.ids == ["zebra"] and res.scores[0] > 0


def test_both_words_rank_above_one(five):
    """banana on three pages of five (rank-bm25's IDF: negative), apple on one."""
    res = five.search("apple banana", k=5)
    assert res.ids[0] == "fruit" and sorted(res.ids[1:]) == ["bananas", "bread"]
    assert res.scores[0] > res.scores[1] >= res.scores[2] > 0


def test_a_word_on_most_pages_scores_positive(five):
    res = five.search("recipe", k=5)
    assert sorted(res.ids) == ["bananas", "bread", "fruit", "soup"]
    assert (res.scores > 0).all()


def test_a_word_on_every_page_scores_positive():
    e = EmbeddedBM25([{"x": 1.0, "a": 1.0}, {"x": 1.0, "b": 2.0}, {"x": 2.0}])
    assert e.idf("x") > 0
    assert (e.scores({"x": 1.0}) > 0).all()
    one = EmbeddedBM25([{"only": 1.0}])
    assert one.top_list({"only": 1.0}, 3)[0][1] > 0
