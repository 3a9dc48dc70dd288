"""ir: analysis, embedded BM25, the index store, feedback and bad input (no browser)."""

from __future__ import annotations

import gzip
import json
import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from ir import (
    Analyzer,
    Block,
    EmptyQueryError,
    Index,
    IndexCorruptError,
    IndexNotFoundError,
    StoredDoc,
    doc_from_text,
)
from ir.bm25 import EmbeddedBM25
from ir.feedback import BlockParams, block_units, interpolate, params_for, relevance_model

# ---------------------------------------------------------------- analysis


def test_analyzer_defaults_lowercase_stop_stem_fold():
    an = Analyzer()
    assert an.tokens("The Running DOGS of Café 3D!") == ["run", "dog", "cafe", "3d"]
    assert Analyzer(stemmer="none").tokens("running dogs") == ["running", "dogs"]
    assert Analyzer(stopwords="none", stemmer="none").tokens("the cat") == ["the", "cat"]
    assert an.tokens("") == [] and an.tokens("the of and") == []
    assert Analyzer(max_token_len=5).tokens("abcdefgh abc") == ["abc"]


def test_analyzer_rejects_unknown_options_and_round_trips():
    with pytest.raises(ValueError, match="stemmer"):
        Analyzer(stemmer="klingon")
    with pytest.raises(ValueError, match="stop-word"):
        Analyzer(stopwords="klingon")
    a = Analyzer(stopwords="lucene", stemmer="english")
    assert Analyzer.from_dict(a.to_dict()) == a


# ---------------------------------------------------------------- BM25


class LuceneIdfOkapi(BM25Okapi):
    """rank-bm25's BM25Okapi with Lucene's IDF: the reference the embedded engine equals."""

    def _calc_idf(self, nd):
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


_words = st.sampled_from(["a1", "b2", "c3", "d4", "e5", "f6"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_words, min_size=0, max_size=12), min_size=1, max_size=12),
       st.lists(_words, min_size=1, max_size=4))
def test_embedded_scores_equal_okapi_with_lucene_idf(corpus, query):
    if not any(corpus):
        return  # rank-bm25 divides by zero on an all-empty corpus
    ref = LuceneIdfOkapi(corpus).get_scores(query)
    ours = EmbeddedBM25([dict(Counter(d)) for d in corpus])
    w: dict[str, float] = {}
    for t in query:
        w[t] = w.get(t, 0.0) + 1.0
    # weights are stored as float32: equal to rank-bm25 (float64) within float32 precision
    np.testing.assert_allclose(ours.scores(w), ref, rtol=2e-6, atol=1e-6)
    # the same documents added in several batches give the same scores (incremental adds)
    inc = EmbeddedBM25()
    for i in range(0, len(corpus), 3):
        inc.add(dict(Counter(d)) for d in corpus[i: i + 3])
        inc.top(w, 1)  # a query between adds refreshes the weights
    np.testing.assert_allclose(inc.scores(w), ours.scores(w), rtol=1e-6, atol=1e-7)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(_words, min_size=1, max_size=12), min_size=2, max_size=12),
       st.lists(_words, min_size=1, max_size=4), st.data())
def test_removed_rows_count_for_nothing(corpus, query, data):
    """Retiring a row (a superseded document) equals never having added it."""
    gone = data.draw(st.integers(0, len(corpus) - 1))
    e = EmbeddedBM25([dict(Counter(d)) for d in corpus])
    e.remove(gone)
    kept = [d for i, d in enumerate(corpus) if i != gone]
    ref = LuceneIdfOkapi(kept).get_scores(query)
    w = {t: float(query.count(t)) for t in set(query)}
    s = e.scores(w)
    np.testing.assert_allclose(np.delete(s, gone), ref, rtol=2e-6, atol=1e-6)
    rows, _ = e.top(w, 100)
    assert gone not in rows.tolist()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(_words, min_size=1, max_size=12), min_size=2, max_size=12),
       st.lists(st.lists(st.sampled_from(["a1", "b2", "g7", "h8"]), max_size=8), min_size=1,
                max_size=4),
       st.lists(_words, min_size=1, max_size=4), st.data())
def test_replaced_rows_equal_a_collection_built_with_them(corpus, new, query, data):
    """Replacing rows in place (re-scored pages) equals adding the new counts from scratch,
    including new terms and rows that become empty."""
    new = new[:len(corpus)]
    rows = data.draw(st.lists(st.integers(0, len(corpus) - 1), min_size=len(new),
                              max_size=len(new), unique=True))
    e = EmbeddedBM25()
    e.add(dict(Counter(d)) for d in corpus[:1])
    e.add(dict(Counter(d)) for d in corpus[1:])  # two chunks, merged by the replace
    e.top({"a1": 1.0}, 1)
    e.replace({r: dict(Counter(d)) for r, d in zip(rows, new, strict=True)})
    final = list(corpus)
    for r, d in zip(rows, new, strict=True):
        final[r] = d
    ref = EmbeddedBM25([dict(Counter(d)) for d in final])
    w = {t: float(query.count(t)) for t in set(query)} | {"g7": 1.0}
    np.testing.assert_allclose(e.scores(w), ref.scores(w), rtol=1e-6, atol=1e-7)
    for r in range(len(final)):
        assert e.doc_terms(r) == {t: float(c) for t, c in Counter(final[r]).items()}
    with pytest.raises(IndexError):
        e.replace({len(final): {"a1": 1.0}})


def test_empty_collection_scores_nothing():
    e = EmbeddedBM25([])
    assert e.top_list({"x": 1.0}, 5) == []


# ---------------------------------------------------------------- index

DOCS = {
    "d1": "cats purr and cats sleep on warm sofas",
    "d2": "dogs bark at cats in the garden",
    "d3": "stock markets fell sharply as investors sold shares",
    "d4": "investors bought shares after the markets recovered",
    "d5": "a recipe for bread with flour water and yeast",
}


def _index(tmp_path, **kw):
    ix = Index.create(tmp_path / "idx", sources=["windows"], **kw)
    ix.add(doc_from_text(i, t, ix.analyzer, title=i.upper()) for i, t in DOCS.items())
    return ix


def test_index_persists_and_searches(tmp_path):
    _index(tmp_path)
    ix = Index.open(tmp_path / "idx")
    assert len(ix) == 5
    res = ix.search("cats", k=3)
    assert [h.id for h in res.hits] == ["d1", "d2"]  # only pages with the term
    assert res.hits[0].score > res.hits[1].score
    assert "cats" in res.hits[0].snippet
    d = res.to_dict()
    assert d["hits"][0]["rank"] == 1 and json.dumps(d)


def test_incremental_add_and_readd_supersedes(tmp_path):
    ix = _index(tmp_path)
    ix.add([doc_from_text("d6", "cats cats cats everywhere", ix.analyzer)])
    ix.add([doc_from_text("d3", "cats took over the stock market", ix.analyzer)])
    ix = Index.open(tmp_path / "idx")
    assert len(ix) == 6
    assert len(ix.store.manifest["shards"]) == 3
    ids = [h.id for h in ix.search("cats", k=10).hits]
    assert ids[0] == "d6" and "d3" in ids
    assert ix.search("investors", k=10).hits[0].id == "d4"  # old d3 text is gone


def test_create_refuses_to_clobber(tmp_path):
    _index(tmp_path)
    with pytest.raises(FileExistsError):
        Index.create(tmp_path / "idx")
    (tmp_path / "idx" / "lucene").mkdir()  # a stale Lucene index must not survive either
    assert len(Index.create(tmp_path / "idx", overwrite=True)) == 0
    assert not (tmp_path / "idx" / "lucene").exists()


def test_snippet_is_best_matching_block(tmp_path):
    ix = Index.create(tmp_path / "i", sources=["vips"])
    an = ix.analyzer
    blocks = [Block("home news contact", {"home": 1, "news": 1, "contact": 1}, seg=1, rank=0),
              Block("volcano eruption lava flows", dict.fromkeys(an.tokens(
                  "volcano eruption lava flows"), 1), seg=7, rank=1)]
    ix.add([StoredDoc("p", {"home": 1, "news": 1, "contact": 1, "volcano": 1, "erupt": 1,
                            "lava": 1, "flow": 1}, blocks={"vips": blocks})])
    h = ix.search("lava volcano").hits[0]
    assert h.snippet_seg == 7 and h.snippet_source == "vips" and "lava" in h.snippet



def test_snippet_prefers_the_pages_own_text_to_a_repeated_template_block(tmp_path):
    """A sidebar block repeated on every page of a site matches the query better, but the
    snippet comes from the page's own block that matches it."""
    ix = Index.create(tmp_path / "i", sources=["vips"])
    an = ix.analyzer

    def blk(text: str, seg: int) -> Block:
        return Block(text, dict(Counter(an.tokens(text))), seg=seg)

    side = "lava lava lava tours: book volcano lava trips"
    docs = [StoredDoc(f"p{i}", {"lava": 5}, blocks={"vips": [
        blk(side, 1), blk(f"page {i} mentions lava once among many other words here", 2)]})
        for i in range(3)]
    ix.add(docs)
    for h in ix.search("lava volcano", k=3).hits:
        assert h.snippet_seg == 2, h.snippet
    one = Index.create(tmp_path / "j", sources=["vips"])
    one.add([docs[0], *[StoredDoc(f"f{i}", {f"w{i}": 1}) for i in range(5)]])
    # the sidebar on one page only: it is the page's best match
    assert one.search("lava volcano").hits[0].snippet_seg == 1


# ---------------------------------------------------------------- feedback


def test_feedback_terms_of_every_script():
    """Expansion terms are not limited to ASCII: Cyrillic, CJK (one character is a word) and
    Devanagari (combining marks) expand; punctuation and over-long terms do not."""
    units = [({"собака": 2, "狗": 1,
               "कुत्ता": 1, "--": 3, "x" * 21: 1, "a": 2}, 1.0)]
    rm = relevance_model(units, fb_terms=10, df=lambda t: 1, n_docs=100, max_df_ratio=0.5)
    assert set(rm) == {"собака", "狗",
                       "कुत्ता"}


def test_relevance_model_by_hand():
    units = [({"aa": 2, "bb": 2}, 1.0), ({"aa": 1, "cc": 3}, 3.0)]
    rm = relevance_model(units, fb_terms=10, df=lambda t: 1, n_docs=100, max_df_ratio=0.1)
    # aa: 0.5*1 + 0.25*3 = 1.25; bb: 0.5; cc: 0.75*3 = 2.25 -> normalised by 4.0
    assert rm == pytest.approx({"aa": 1.25 / 4, "bb": 0.5 / 4, "cc": 2.25 / 4})
    rm2 = relevance_model(units, fb_terms=1, df=lambda t: 1, n_docs=100, max_df_ratio=0.1)
    assert list(rm2) == ["cc"] and rm2["cc"] == pytest.approx(1.0)
    # frequent terms (df ratio > max_df_ratio), 1-char ASCII terms and punctuation are dropped;
    # letters of other scripts are words
    rm3 = relevance_model([({"aa": 1, "x": 5, "a-b": 5, "é1": 5, "zz": 1}, 1.0)], 10,
                          df=lambda t: 50 if t == "zz" else 1, n_docs=100, max_df_ratio=0.1)
    assert set(rm3) == {"aa", "é1"}


def test_interpolate():
    out = interpolate({"q": 1.0}, {"q": 0.5, "e": 0.5}, 0.5)
    assert out == pytest.approx({"q": 0.75, "e": 0.25})
    assert interpolate({"q": 1.0}, {}, 0.5) == {"q": 1.0}


def test_block_units_prefer_query_blocks_over_boilerplate():
    nav = Block("home sports weather login", {"home": 1, "sport": 1, "weather": 1,
                                              "login": 1})
    rel = Block("volcano lava magma", {"volcano": 2, "lava": 1, "magma": 1})
    other = Block("volcano tours cheap", {"volcano": 1, "tour": 1, "cheap": 1})
    pages = [(0, 5.0), (1, 4.0)]
    blocks = {0: [nav, rel], 1: [nav, other]}
    got = block_units(["volcano"], pages, lambda i: blocks[i], idf=lambda t: 1.0, k1=1.2,
                      b=0.75, p=BlockParams(fb_blocks=2))
    assert [g[0] for g in got] == [rel, other]  # nav blocks never match: not feedback
    assert got[0][1] > got[1][1]


def test_blocks_feedback_expands_from_matching_blocks_only(tmp_path):
    ix = Index.create(tmp_path / "i", sources=["vips"])
    an = ix.analyzer
    rng = random.Random(0)
    docs = []
    for i in range(40):  # pages: shared boilerplate + one topical block
        topic = "volcano lava magma eruption" if i < 3 else rng.choice(
            ["bread flour yeast", "stock market shares", "football goal league"])
        nav = f"menu{i % 3} subscribe newsletter archive"
        blocks = {"vips": [Block(nav, dict.fromkeys(an.tokens(nav), 1), seg=0, rank=0),
                           Block(topic, dict.fromkeys(an.tokens(topic), 1), seg=1, rank=1)]}
        terms: dict[str, int] = {}
        for t in an.tokens(nav + " " + topic):
            terms[t] = terms.get(t, 0) + 1
        docs.append(StoredDoc(f"p{i}", terms, blocks=blocks))
    ix.add(docs)
    res = ix.search("volcano", k=3, prf="blocks", fb_terms=5)
    assert res.feedback_units and all("volcano" in u["text"] for u in res.feedback_units)
    assert "lava" in res.expanded and not any(t.startswith("menu") for t in res.expanded)
    assert {h.id for h in res.hits} == {f"p{i}" for i in range(3)}
    rm = ix.search("volcano", k=3, prf="rm3")
    assert "lava" in rm.expanded and len(rm.feedback_units) == 3


def test_feedback_params_are_checked():
    assert params_for("none") is None
    assert params_for("blocks", fb_pages=10).fb_pages == 10
    with pytest.raises(ValueError, match="unknown blocks parameter"):
        params_for("blocks", fb_docs=3)
    with pytest.raises(ValueError, match="orig_weight"):
        params_for("rm3", orig_weight=2.0)
    with pytest.raises(ValueError, match="unknown feedback"):
        params_for("magic")


# ---------------------------------------------------------------- bad input


def test_empty_and_stopword_queries(tmp_path):
    ix = _index(tmp_path)
    for q in ("", "   ", "the of and", "!!!"):
        with pytest.raises(EmptyQueryError):
            ix.search(q)
    assert ix.search("zebra").hits == []  # unknown term: a valid, empty result
    with pytest.raises(ValueError):
        ix.search("cats", k=0)


def test_unknown_index_path(tmp_path):
    with pytest.raises(IndexNotFoundError):
        Index.open(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(IndexNotFoundError):
        Index.open(tmp_path / "file")


@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete", "manifest"])
def test_corrupted_index_is_reported(tmp_path, damage):
    _index(tmp_path)
    root = tmp_path / "idx"
    shard = root / "00000.docs.jsonl.gz"
    if damage == "truncate":
        shard.write_bytes(shard.read_bytes()[:20])
    elif damage == "garbage":
        shard.write_bytes(gzip.compress(b"{not json\n"))
    elif damage == "delete":
        shard.unlink()
    else:
        (root / "index.json").write_text("{\"format\": ")
    with pytest.raises(IndexCorruptError):
        Index.open(root)


def test_odd_text_gives_valid_documents():
    an = Analyzer()
    assert doc_from_text("e", "", an).status == "empty"
    d = doc_from_text("b", "\x00\x01\ufffd binary \udcff junk" * 3, an)
    assert d.terms.get("binari") == 3
    big = doc_from_text("h", "word " * 200_000, an)
    assert big.terms == {"word": 200_000} and len(big.blocks["windows"]) == 4000
