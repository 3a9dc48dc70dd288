"""The multilingual known-item harness: query construction and scoring (no data needed)."""

from eval.multilingual.search import make_query, summarise


def test_query_is_the_most_lettered_window_of_the_middle_third():
    text = " ".join(["a1"] * 9 + ["alpha", "betagamma", "delta", "epsilon"] + ["b2"] * 9)
    assert make_query(text, "en") == "alpha betagamma delta epsilon"


def test_chinese_query_is_six_letters_from_the_middle():
    text = "前言。" * 5 + "北京是中国的首都城市" + "，结尾。" * 5
    q = make_query(text, "zh")
    assert len(q) == 6 and all(c.isalpha() for c in q) and q in text


def test_short_texts_give_a_query():
    assert make_query("one two", "en") == "one two"
    assert make_query("北京", "zh") == "北京"


def test_summarise_success_and_mrr():
    pages = [{"id": "a", "lang": "en", "site": "x"}, {"id": "b", "lang": "en", "site": "y"},
             {"id": "c", "lang": "zh", "site": "z"}]
    got = {"s": {"a": ["a"], "b": ["a", "b"], "c": ["a"] * 0}}
    rows = {(r["lang"]): r for r in summarise(pages, got)}
    assert rows["en"]["success@10"] == 1.0 and rows["en"]["mrr"] == 0.75
    assert rows["zh"]["success@10"] == 0.0 and rows["all"]["pages"] == 3


def test_content_f1_counts_chinese_characters():
    from eval.multilingual.content import f1

    assert f1("北京是中国的首都", "北京是中国的首都") == 1.0
    # half the characters: a Chinese sentence is not one all-or-nothing "word"
    assert 0.6 < f1("北京是中国", "北京是中国的首都") < 0.8
    assert f1("", "") == 1.0 and f1("x", "") == 0.0


def test_dedup_spaces_normalisation_keeps_sentences_whole():
    from eval.multilingual.dedup import spaces_words

    assert spaces_words("北京是中国的首都。 Hello, World") == ["北京是中国的首都", "hello", "world"]


def test_behind_lists_queries_a_peer_ranks_better():
    from eval.multilingual.search import behind

    pages = [{"id": "a", "lang": "en"}, {"id": "b", "lang": "zh"}, {"id": "c", "lang": "en"}]
    got = {"webseg": {"a": ["x", "a"], "b": ["b"], "c": []},
           "bm25s": {"a": ["a"], "b": ["x", "b"], "c": ["c"]}}
    rows = behind(pages, {"a": "qa", "b": "qb", "c": "qc"}, got)
    assert [r["id"] for r in rows] == ["a", "c"]
    assert rows[0]["ranks"] == {"webseg": 2, "bm25s": 1} and rows[0]["top"] == ["x", "a"]
    assert rows[1]["ranks"]["webseg"] is None  # not found at all: behind any peer that finds it
