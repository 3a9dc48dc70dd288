"""The stacked page-type model: page views, JSON trees, count-based TF-IDF, save/load, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.feature_extraction.text import TfidfVectorizer

from classify import pagefeatures as pf
from classify.model import PageTypeModel, StackedPageTypeModel, load_model
from classify.pagefeatures import STRUCT_NAMES, head_tokens, page_views, split_words
from classify.stacked import (
    STACKERS,
    StackedModel,
    _fast_analyzer,
    _Trees,
    _trees_to_dict,
    _Vec,
    count_matrix,
    inner_score,
    wps_doc,
)
from webseg.cli import main
from webseg.page import normalize_text
from webseg.parse import parse

SHOP = """<html><head><title>Blue kettle {k} | Shop</title>
<meta property="og:type" content="product">
<script type="application/ld+json">{{"@context": "https://schema.org", "@graph": [
 {{"@type": "Product", "offers": {{"@type": "Offer", "price": "12"}}}},
 {{"@type": ["BreadcrumbList"]}}]}}</script></head>
<body><div class="product-card" itemscope itemtype="https://schema.org/Product">
<h1>Blue kettle {k}</h1><span class="price">€{k}9,99</span>
<form><input type="number" name="qty"><button class="add-to-cart">Add</button></form>
</div></body></html>"""
FORUM = """<html><head><title>Thread {k} - Forum</title>
<script type="application/ld+json">{{"@type": "DiscussionForumPosting", broken</script></head>
<body><div id="thread"><div class="comment reply"><span class="author">u{k}</span>
<p>I think so {k}</p></div><div class="comment reply"><span class="author">v{k}</span>
<p>Quote: no</p></div><div class="comment reply"><span class="author">w</span><p>ok</p></div>
<div class="comment reply"><span class="author">x</span><p>yes</p></div>
<div class="comment reply"><span class="author">y</span><p>fine</p></div></div></body></html>"""
ARTICLE = """<html><head><title>News story {k}</title>
<meta property="og:type" content="article"><meta property="article:published_time"
content="2025-01-01"></head><body><article><h1>Story {k}</h1><p>{text}</p><p>{text}</p>
</article></body></html>"""


def _page(kind: str, k: int):
    tpl = {"product": SHOP, "forum": FORUM, "article": ARTICLE}[kind]
    html = tpl.format(k=k, text="Long paragraph of reporting words. " * 20)
    url = {"product": f"https://shop{k % 3}.example/p/kettle-{k}",
           "forum": f"https://forum{k % 3}.example/t/{k}/reply",
           "article": f"https://news{k % 3}.example/2025/01/0{k % 9 + 1}/story-{k}"}[kind]
    return parse(html, url=url), html, url


def test_page_views_read_markup_url_and_metadata():
    page, html, url = _page("product", 1)
    v = page_views(page, html, url)
    assert set(v) == {"text", "title", "url", "dom", "head", "struct"}
    assert "og:product" in v["head"].split()
    assert {"ld:product", "ld:offer", "ld:breadcrumblist", "it:product"} <= set(
        v["head"].split())
    assert "product" in v["dom"].split() and "t:form" in v["dom"].split()
    assert "first:p" in v["url"].split() and "d=2" in v["url"].split()
    assert v["title"].startswith("Blue kettle 1")
    s = v["struct"]
    assert set(s) == set(STRUCT_NAMES)
    assert s["price_count"] > 0 and s["tag_form"] > 0 and s["input_number"] > 0
    assert s["stem_product"] > 0
    f, fh, fu = _page("forum", 2)
    fv = page_views(f, fh, fu)
    assert "ld:discussionforumposting" in fv["head"].split()  # broken JSON: literal types
    assert fv["struct"]["stem_comment"] > 0 and fv["struct"]["rep_groups5"] > 0
    # no source: an empty metadata view, never an error
    assert page_views(page)["head"] == ""


def test_head_tokens_tolerate_garbage():
    assert head_tokens(None) == [] and head_tokens("") == []
    assert head_tokens("<meta name=x content='a'><script type=application/ld+json>{[") == [
        "mp:x"]
    toks = head_tokens('<META PROPERTY="og:type" CONTENT="Article">' + "<p>" * 10_000)
    assert "og:article" in toks
    # non-ASCII text before the markers: offsets are found in UTF-8 bytes, sliced in text
    html = ('<html><head><title>Ünïcödé 中文 ✓</title><meta name="é" content=x>'
            '<meta property="og:type" content="Produkt"></head><body>Привет '
            '<script type="Application/LD+JSON">{"@type": "Straße"}</script>'
            '<div ITEMTYPE="https://schema.org/Café">x</div><meta name="late"></body>')
    assert head_tokens(html) == ["mp:é", "mp:og:type", "og:produkt", "ld:straße", "it:café"]


def test_split_words_is_language_neutral_markup_splitting():
    assert split_words("productCard main-nav__item col-3") == ["product", "card", "main",
                                                                "nav", "item", "col"]
    assert split_words("статья-текст") == ["статья", "текст"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "cc", "dd", "e", "ff"]), max_size=8),
                min_size=3, max_size=12),
       st.integers(1, 3), st.sampled_from([None, 3]))
def test_count_based_tfidf_equals_fitting_the_vectorizer(words, min_df, max_features):
    docs = [" ".join(w) for w in words]
    params = {"token_pattern": r"\S+", "ngram_range": (1, 2), "min_df": min_df,
              "max_features": max_features, "sublinear_tf": True, "dtype": np.float32}
    vocab, X = count_matrix(params, docs)
    ours = _Vec(dict(params)).fit_counts(vocab, X)
    try:
        ref = TfidfVectorizer(**params).fit(docs)
    except ValueError:  # sklearn: no term left; ours keeps one dummy column
        assert ours.vocab == ["<none>"]
        return
    ref_vocab = ref.get_feature_names_out().tolist()
    if max_features is None:  # (ties in max_features may be broken differently)
        assert ours.vocab == ref_vocab
        assert np.allclose(ours.idf, ref.idf_)
        assert np.allclose(ours.transform_counts(X).toarray(), ref.transform(docs).toarray(),
                           atol=1e-6)
        assert np.allclose(ours.transform(docs).toarray(), ref.transform(docs).toarray(),
                           atol=1e-6)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_json_trees_reproduce_sklearn(seed, k):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 5))
    y = (X[:, 0] * 2 + X[:, 1] > 0).astype(int) + (X[:, 2] > 0.5) * (k > 2)
    y = np.array([f"c{v % k}" for v in y])
    if len(set(y)) < 2:
        return
    hgb = HistGradientBoostingClassifier(max_iter=10, max_leaf_nodes=7,
                                         random_state=0).fit(X, y)
    t = _Trees.from_dict(json.loads(json.dumps(_trees_to_dict(hgb))))
    Xt = rng.normal(size=(50, 5))
    raw = t.raw(Xt)
    ref = hgb.predict_proba(Xt)
    e = np.exp(raw - raw.max(1, keepdims=True))
    assert np.allclose(e / e.sum(1, keepdims=True), ref, atol=1e-5)


def _corpus(n: int = 24):
    kinds = ["product", "forum", "article"]
    docs, y, groups = [], [], []
    for k in range(n):
        kind = kinds[k % 3]
        page, html, url = _page(kind, k)
        docs.append(page_views(page, html, url))
        y.append(kind)
        groups.append(f"site{k % 6}")
    return docs, y, groups


@pytest.fixture(scope="module")
def stacked_model() -> StackedPageTypeModel:
    docs, y, groups = _corpus()
    return StackedPageTypeModel(StackedModel(inner_folds=2).fit(docs, y, groups),
                                {"note": "test"})


def test_stacked_model_learns_and_round_trips(stacked_model, tmp_path):
    page, html, url = _page("forum", 99)
    probs = stacked_model.predict_proba_pages([page], [html], [url])[0]
    assert set(probs) == {"article", "forum", "product"}
    assert abs(sum(probs.values()) - 1) < 1e-6 and max(probs, key=probs.get) == "forum"
    assert stacked_model.predict_pages([page])[0][0] == "forum"  # no source, no URL: still
    path = tmp_path / "m.json.gz"
    stacked_model.save(path)
    m2 = load_model(path)
    assert isinstance(m2, StackedPageTypeModel) and m2.info == {"note": "test"}
    p2 = m2.predict_proba_pages([page], [html], [url])[0]
    assert all(abs(p2[c] - probs[c]) < 1e-4 for c in probs)
    assert stacked_model.model.predict_proba([]).shape == (0, 3)
    with pytest.raises(ValueError, match="not a 'paper' model"):
        load_model(path, "paper")


def test_load_model_errors_and_methods(tmp_path):
    with pytest.raises(ValueError, match="unknown method"):
        load_model(method="nope")
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "webseg.classify.pagetype-stacked", "version": 1, "model": {}}')
    with pytest.raises(ValueError, match="malformed"):
        load_model(bad)
    assert isinstance(load_model(method="paper"), PageTypeModel)


def test_shipped_default_is_the_stacked_model():
    m = load_model()
    assert isinstance(m, StackedPageTypeModel) and len(m.classes) == 7
    page, html, url = _page("product", 3)
    (probs,) = m.predict_proba_pages([page], [html], [url])
    assert set(probs) == set(m.classes) and abs(sum(probs.values()) - 1) < 1e-6


def test_cli_predict_json_gives_every_probability(stacked_model, tmp_path):
    model = tmp_path / "m.json"
    stacked_model.save(model)
    page, _, _ = _page("product", 5)
    pj = tmp_path / "p.page.json"
    page.save(pj)
    r = CliRunner().invoke(main, ["classify", "predict", str(pj), "--model", str(model),
                                  "--json"])
    assert r.exit_code == 0, r.output
    obj = json.loads(r.stdout)["page_type"]
    assert obj["type"] == "product"
    assert set(obj["probabilities"]) == {"article", "forum", "product"}
    assert obj["probability"] == max(obj["probabilities"].values())


def test_trees_for_a_fold_with_two_of_three_classes():
    X = np.arange(40, dtype=float).reshape(20, 2)
    y = np.array(["a", "c"] * 10)
    m = StackedModel()
    m.classes = np.array(["a", "b", "c"], dtype=object)
    t = m._fit_trees(X, y)
    raw = t.raw(X)
    assert raw.shape == (20, 3) and (raw[:, 1] < raw[:, 0]).all()


# ---------------------------------------------------------------- fast structure counts
_KEYS = sorted({k for keys in pf._STEMS.values() for k in keys})


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.lists(st.sampled_from(_KEYS + ["x", "-", "Q", "İ", " ", "\n"]),
                                max_size=6).map("".join), st.integers(1, 5), max_size=12))
def test_stem_counts_equal_the_substring_definition(values):
    ref: dict[str, int] = {}
    for v, c in values.items():
        for stem, keys in pf._STEMS.items():
            if any(k in v.lower() for k in keys):
                ref[stem] = ref.get(stem, 0) + c
    assert dict(pf.stem_counts(values)) == ref


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="0123456789 .,$€kr zł lei Ft USDEURa\n", max_size=60))
def test_price_prefilter_never_changes_the_count(text):
    assert pf._price_count(text) == len(pf._PRICE.findall(text))


def _reference_text_stats(page):
    """The per-leaf ancestor walk _text_stats replaced by numpy steps."""
    shares = {"a": 0, "p": 0, "pre": 0, "td": 0, "li": 0}
    heads = []
    for j in page.text_leaves.tolist():
        n = len(normalize_text(page.text[j]))
        seen, anc = set(), int(page.parent[j])
        for _ in range(6):
            if anc < 0:
                break
            seen.add(page.tag[anc])
            anc = int(page.parent[anc])
        seen |= {"pre"} if "code" in seen else set()
        seen |= {"td"} if "th" in seen else set()
        for k in shares:
            shares[k] += n if k in seen else 0
        if seen & {"h1", "h2", "h3"}:
            heads.append(normalize_text(page.text[j]))
    return shares, heads


@pytest.mark.parametrize("html", [
    "<html><body><h2>Title <a href=x>link</a></h2><ul><li><a>one</a></li><li>two</li></ul>"
    "<table><tr><th>h</th><td><code>x = 1</code></td></tr></table><p>para <em>emph</em></p>"
    "<div><div><div><div><div><div><div><p>deep</p></div></div></div></div></div></div></div>"
    "</body></html>",
    "<html><body>" + "<p>word " * 300 + "</body></html>",
    "<html><body></body></html>"])
def test_text_stats_match_the_per_leaf_walk(html):
    page = parse(html)
    _, title, st_ = pf._text_stats(page)
    shares, heads = _reference_text_stats(page)
    c = max(1, sum(len(normalize_text(page.text[j])) for j in page.text_leaves.tolist()))
    assert st_["link_words"] == shares["a"]
    assert st_["p_chars_share"] == shares["p"] / c
    assert st_["pre_code_share"] == shares["pre"] / c
    assert st_["table_cell_share"] == shares["td"] / c
    assert st_["list_item_share"] == shares["li"] / c
    assert title == " ".join([page.title or ""] + heads[:59])


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="ab cD Éé 12_-\n\u00a0\u2003\x1c\t", max_size=80),
       st.sampled_from([(1, 1), (1, 2), (2, 3)]),
       st.sampled_from([r"(?u)\b\w\w+\b", r"\S+"]))
def test_fast_analyzer_gives_sklearns_tokens(doc, ngrams, pattern):
    from collections import Counter

    params = {"token_pattern": pattern, "ngram_range": ngrams}
    ref = TfidfVectorizer(**params).build_analyzer()
    assert Counter(_fast_analyzer(params)(doc)) == Counter(ref(doc))
    assert _fast_analyzer({"analyzer": "char_wb"}) is None


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="ab cD Éé 12_-\n\u00a0\u2003\x1c\t北京是首都Москва", max_size=80),
       st.sampled_from([(1, 1), (1, 2), (2, 3)]))
def test_fast_analyzer_gives_sklearns_tokens_for_every_script(doc, ngrams):
    from collections import Counter

    from classify.stacked import sklearn_params

    params = {"tokens": "words", "ngram_range": ngrams}
    ref = TfidfVectorizer(**sklearn_params(params)).build_analyzer()
    assert Counter(_fast_analyzer(params)(doc)) == Counter(ref(doc))


def test_text_views_tokenise_unspaced_scripts_and_old_models_keep_their_tokens():
    from classify.stacked import VIEW_SPECS

    docs = ["北京是中国的首都，新闻报道说", "北京新闻 今天报道", "Москва новости", "Москва сегодня"]
    vocab, _ = count_matrix(VIEW_SPECS["text"][1], docs)
    assert "北京" in vocab and "新闻" in vocab and "москва" in vocab
    old = {"token_pattern": r"(?u)\b\w\w+\b", "ngram_range": (1, 1)}
    vocab_old, _ = count_matrix(old, docs)
    assert "北京是中国的首都" in vocab_old and "北京" not in vocab_old
    # a saved vectoriser keeps its tokenisation through JSON
    v = _Vec(dict(VIEW_SPECS["text"][1], min_df=1)).fit(docs)
    w = _Vec.from_dict(json.loads(json.dumps(v.to_dict())))
    assert w.params["tokens"] == "words"
    assert np.allclose(w.transform(docs).toarray(), v.transform(docs).toarray())


def test_wps_doc_tags_words_with_their_position():
    assert wps_doc(["Top News", "", "", "", "", "", "", "", "", "x Буква"]) == \
        "0:top 0:news 9:буква"
    assert wps_doc([]) == "" and wps_doc(None) == ""


def test_auto_stacker_chooses_among_every_kind_and_keeps_them():
    rng = np.random.default_rng(0)
    y = np.array(["a"] * 40 + ["b"] * 12 + ["c"] * 8, dtype=object)
    base = rng.normal(size=(60, 6)) + (y[:, None] == np.array(["a", "b", "c"] * 2)) * 2.0
    structs = [{} for _ in y]
    folds = [(np.arange(60)[np.arange(60) % 3 != k], np.arange(60)[np.arange(60) % 3 == k])
             for k in range(3)]
    m = StackedModel(views=("v",), stacker="auto")
    metas = m.fit_stacker(base, structs, y, folds, calibrate=True, keep=True)
    assert set(metas) == set(STACKERS) and m.info["stacker"] in STACKERS
    assert all(f"inner_oof_score_{k}" in m.info for k in STACKERS)
    chosen = m.info["stacker"]
    assert (m.trees is not None) == chosen.startswith("gbdt")
    p = m.proba_from_base(base, structs)
    assert p.shape == (60, 3) and np.allclose(p.sum(1), 1)
    # balanced weights move predictions towards the rare types
    lr, bal = (StackedModel(views=("v",), stacker=k) for k in ("lr", "lr-bal"))
    for s in (lr, bal):
        s.fit_stacker(base, structs, y, folds, calibrate=False)
    assert (bal.proba_from_base(base, structs).argmax(1) != 0).sum() >= \
        (lr.proba_from_base(base, structs).argmax(1) != 0).sum()
    with pytest.raises(ValueError, match="unknown stacker"):
        StackedModel(stacker="svm").fit_stacker(base, structs, y, folds, calibrate=False)
    assert inner_score(np.array([0, 1, 1]), np.array([0, 1, 1])) == 1.0


def test_cli_train_refuses_the_evaluation_only_wps_view(tmp_path):
    r = CliRunner().invoke(main, ["classify", "train", "--data", str(tmp_path), "-o",
                                  str(tmp_path / "m.json"), "--views", "text,wps"])
    assert r.exit_code != 0 and "evaluation-only" in r.output


def test_structure_counts_do_not_assume_spaces_or_word_boundaries():
    assert pf.count_words("北京是中国的首都 hello world") == 10
    assert pf.count_words("one two  three\n") == 3 and pf.count_words("") == 0
    assert pf._DATE.findall("日期2012-01-04 发布 2012年1月4日 v1.2.2012.5") == [
        "2012-01-04", "2012年1月4日"]
    assert pf._CLOCK.findall("发布09:15 at 12:30, not 1:2:3") == ["09:15", "12:30"]
    toks, st_ = pf._url_tokens("http://news.example.cn/%E6%96%B0%E9%97%BB/2012/01/04/a.html")
    assert "新闻" in toks and "first:新闻" in toks and st_["url_date"] == 1.0


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.-/: 年月日x\u0661", max_size=24))
def test_date_and_clock_patterns_match_as_their_lookbehind_first_forms(s):
    """The date and clock patterns start with a digit (fast) and find exactly what the
    plain forms, a lookbehind then the alternatives, find."""
    import re

    date = re.compile(r"(?<![\d.])(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}"
                      r"[-/.]\d{2,4}|\d{4}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?日)?)(?![\d.])")
    clock = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?![\d:])")
    assert pf._DATE.findall(s) == date.findall(s)
    assert pf._CLOCK.findall(s) == clock.findall(s)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "b", "Cc", "dd", "é", "北京", "ff"]), max_size=9),
                min_size=2, max_size=8),
       st.sampled_from(["text", "title", "url"]))
def test_word_pairs_as_tuples_give_the_joined_pairs_rows_exactly(words, view):
    """Counting word pairs as tuples (prediction's path) gives bit-identical TF-IDF rows, in
    the same column order, as counting the joined pair strings of the analyzer."""
    from classify.stacked import VIEW_SPECS

    docs = [" ".join(w) for w in words]
    v = _Vec(dict(VIEW_SPECS[view][1], min_df=1, max_features=None)).fit(docs)
    fast = v.transform(docs)
    assert v._pairs is not None
    v._pairs = None  # the analyzer's joined strings
    slow = v.transform(docs)
    assert np.array_equal(fast.indptr, slow.indptr)
    assert np.array_equal(fast.indices, slow.indices)
    assert np.array_equal(fast.data, slow.data)
