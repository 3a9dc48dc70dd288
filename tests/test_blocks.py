"""Block-function model (webseg.blocks): features, tree predictor, context, decoding, API."""

from __future__ import annotations

import json

import numpy as np
import pytest

from webseg.blocks import ROLES, block_functions
from webseg.blocks.align import align_gold, page_words
from webseg.blocks.context import CONTEXT_NAMES, context_features
from webseg.blocks.features import CONTEXT_LEVELS, FEATURE_NAMES, GEOMETRY, leaf_features
from webseg.blocks.gbt import TreeEnsemble, export_hgb
from webseg.blocks.vocab import CATEGORY_NAMES, attr_mask, tokens
from webseg.parse import parse

ARTICLE = (
    "The city council approved the new budget on Tuesday after a long debate about schools. "
    "Members argued for hours about the cost of repairs, and the mayor promised a review. "
    "Teachers welcomed the decision, saying that the money would fix leaking roofs. "
    "Opponents said the plan raised taxes too quickly and warned of future deficits. "
)

PAGE = f"""<!DOCTYPE html><html><head><title>Council approves budget | Daily Town</title></head>
<body>
<header class="site-header"><a href="/">Daily Town</a>
<nav class="main-menu"><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li>
<li><a href="/weather">Weather</a></li><li><a href="/culture">Culture</a></li></ul></nav>
</header>
<main><article class="post">
<h1>Council approves budget</h1>
<p>{ARTICLE}</p><p>{ARTICLE[::-1].title()}</p><p>{ARTICLE}</p>
</article>
<aside class="sidebar related"><h2>Related</h2><ul>
<li><a href="/a">Mayor visits school</a></li><li><a href="/b">Roads to be repaired</a></li>
</ul></aside></main>
<footer id="footer"><a href="/imprint">Imprint</a> <a href="/privacy">Privacy policy</a>
<p>Copyright 2024 Daily Town</p></footer>
</body></html>"""


@pytest.fixture(scope="module")
def page():
    return parse(PAGE, url="https://daily.example/2024/budget")


def test_vocab_tokens_and_masks():
    assert tokens("site-footer__inner") == ["site", "footer", "inner"]
    assert tokens("articleBody") == ["article", "body"]
    m = attr_mask({"class": "comments-area", "role": "navigation"})
    assert m & (1 << CATEGORY_NAMES.index("comment"))
    assert m & (1 << CATEGORY_NAMES.index("nav"))
    assert attr_mask(None) == 0 and attr_mask({"href": "/"}) == 0


def test_features_on_parsed_page(page):
    lf = leaf_features(page)
    m = len(page.text_leaves)
    assert lf.X.shape == (m, len(FEATURE_NAMES))
    assert lf.ranges.shape == (m, len(CONTEXT_LEVELS), 2)
    geo = [FEATURE_NAMES.index(g) for g in GEOMETRY]
    assert np.isnan(lf.X[:, geo]).all()  # no layout: geometry unknown
    other = np.setdiff1d(np.arange(len(FEATURE_NAMES)), geo)
    assert np.isfinite(lf.X[:, other]).all()
    # every leaf lies inside each of its context ranges, and ranges grow going up
    idx = np.arange(m)
    assert np.all((lf.ranges[:, :, 0] <= idx[:, None]) & (idx[:, None] < lf.ranges[:, :, 1]))
    b = [CONTEXT_LEVELS.index(x) for x in ("b0", "b1", "b2")]
    assert np.all(lf.ranges[:, b[1], 0] <= lf.ranges[:, b[0], 0])
    assert np.all(lf.ranges[:, b[2], 1] >= lf.ranges[:, b[1], 1])
    nav = FEATURE_NAMES.index("cat_any_nav")
    texts = [page.leaf_text(j) for j in lf.leaves]
    assert lf.X[texts.index("Sport"), nav] == 1
    assert lf.X[texts.index("Council approves budget"), nav] == 0


def test_features_empty_page():
    p = parse("<html><body></body></html>")
    lf = leaf_features(p)
    assert lf.X.shape == (0, len(FEATURE_NAMES))


def test_tree_ensemble_equals_sklearn_after_json_round_trip():
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    X[rng.random(X.shape) < 0.15] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * 0.5
          + rng.normal(scale=0.3, size=600)) > 0).astype(int)
    m = HistGradientBoostingClassifier(max_iter=25, max_leaf_nodes=7, random_state=0).fit(X, y)
    ens = TreeEnsemble(json.loads(json.dumps(export_hgb(m))))
    Xt = rng.normal(size=(200, 5))
    Xt[rng.random(Xt.shape) < 0.2] = np.nan
    np.testing.assert_allclose(ens.predict_proba(Xt), m.predict_proba(Xt)[:, 1], atol=1e-12)
    with pytest.raises(ValueError):
        ens.predict_proba(np.zeros((3, 4)))


def test_context_features_properties():
    rng = np.random.default_rng(1)
    m = 30
    s = rng.random(m)
    chars = rng.integers(1, 100, m).astype(float)
    lo = np.maximum(np.arange(m)[:, None] - np.arange(len(CONTEXT_LEVELS))[None, :], 0)
    hi = np.minimum(np.arange(m)[:, None] + np.arange(len(CONTEXT_LEVELS))[None, :] + 1, m)
    ranges = np.stack([lo, hi], axis=2)
    C = context_features(s, chars, ranges)
    assert C.shape == (m, len(CONTEXT_NAMES))
    assert np.isfinite(C).all()
    col = {n: k for k, n in enumerate(CONTEXT_NAMES)}
    np.testing.assert_allclose(C[:, col["s1"]], s)
    # level means are weighted means of s: inside [min s, max s]
    lv = [col[f"{x}_mean"] for x in CONTEXT_LEVELS]
    assert np.all((C[:, lv] >= s.min() - 1e-12) & (C[:, lv] <= s.max() + 1e-12))
    # the best region is one contiguous run of leaves
    inb = np.flatnonzero(C[:, col["in_best"]])
    assert len(inb) and np.all(np.diff(inb) == 1)
    assert context_features(np.zeros(0), np.zeros(0), np.zeros((0, 8, 2), int)).shape[0] == 0


def test_decide_threshold_and_fallback():
    from webseg.blocks.model import decide

    s = np.array([0.1, 0.3, 0.35, 0.05])
    assert not decide(s, 0.5).any()
    np.testing.assert_array_equal(decide(s, 0.5, fallback=True), [False, True, True, False])
    np.testing.assert_array_equal(decide(s, 0.3, fallback=True), s >= 0.3)
    assert not decide(np.array([0.1, 0.05]), 0.5, fallback=True).any()  # too weak to fall back
    assert decide(np.zeros(0), 0.5, fallback=True).shape == (0,)


def test_alignment_labels(page):
    al = align_gold(page, "Council approves budget\n" + ARTICLE)
    toks, owner = page_words(page)
    assert al.coverage == 1.0
    texts = [page.leaf_text(j) for j in page.text_leaves]
    assert al.content[texts.index("Council approves budget")]
    assert not al.content[texts.index("Sport")]
    assert len(owner) == len(toks)


def test_page_f1_equals_bow_prf(page):
    from eval.templates.textmetrics import bow_prf
    from webseg.blocks.train import PageTable, page_arrays

    lf = leaf_features(page)
    gold = "Council approves budget " + ARTICLE + " extra words"
    arr = page_arrays(lf, gold)
    t = PageTable(X=arr["X"], y=np.zeros(len(lf.leaves), np.int8), words=arr["words"],
                  chars=arr["chars"], ranges=arr["ranges"], off=np.array([0, len(lf.leaves)]),
                  meta=[{}], tok_ids=[arr["tok_ids"]], tok_off=[arr["tok_off"]],
                  gold_counts=[arr["gold_counts"]],
                  gold_unmatched=np.array([int(arr["gold_unmatched"][0])]))
    from webseg.blocks.train import page_f1

    rng = np.random.default_rng(2)
    for _ in range(5):
        keep = rng.random(len(lf.leaves)) < 0.5
        text = " ".join(t for t, k in zip((page.leaf_text(j) for j in lf.leaves), keep,
                                          strict=True) if k)
        assert page_f1(t, 0, keep) == pytest.approx(bow_prf(text, gold), nan_ok=True)




def test_block_functions_api(page):
    bf = block_functions(page)
    n = page.n
    assert ROLES[0] == "main"
    assert bf.proba.shape == (n, len(ROLES)) and bf.proba.dtype == np.float32
    assert bf.main.shape == (n,) and bf.keep.shape == (n,) and bf.keep.dtype == bool
    shares = bf.role_shares()
    assert set(shares) == set(ROLES) and sum(shares.values()) == pytest.approx(1.0)
    kept = bf.kept_leaves()
    assert np.all(np.diff(kept) > 0) and np.all(page.text_leaf_mask[kept])
    # an element is kept exactly when all of its visible text is kept
    leaves = page.text_leaves
    for i in np.flatnonzero(page.is_element):
        lo, hi = np.searchsorted(leaves, [i, page.subtree_end[i]])
        if hi > lo:
            assert bf.keep[i] == bool(np.all(bf.keep[leaves[lo:hi]]))


def test_fixture_page_keeps_article_drops_boilerplate(page):
    text = block_functions(page).main_text()
    assert "The city council approved the new budget" in text
    for boiler in ("Weather", "Imprint", "Privacy policy", "Roads to be repaired"):
        assert boiler not in text


def test_bad_input():
    with pytest.raises(TypeError):
        block_functions("<html></html>")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        block_functions(parse("<p>x</p>"), decoder="nope")
    empty = block_functions(parse(""))
    assert empty.main_text() == "" and not empty.keep.any()


def test_choose_decision_picks_best_threshold_nearest_half():
    from webseg.blocks.train import PageTable, choose_decision

    # one page, four one-word leaves; the gold is the first two words
    m = 4
    t = PageTable(X=np.zeros((m, 1)), y=np.array([1, 1, 0, 0], np.int8), words=np.ones(m),
                  chars=np.ones(m), ranges=np.zeros((m, 8, 2), np.int32),
                  off=np.array([0, m]), meta=[{"id": "a", "site": "a"}],
                  tok_ids=[np.arange(m, dtype=np.int32)], tok_off=[np.arange(m + 1)],
                  gold_counts=[np.array([1, 1, 0, 0], np.int32)],
                  gold_unmatched=np.zeros(1, np.int64))
    thr, fb, f1 = choose_decision(t, np.array([0]), np.array([0.9, 0.32, 0.2, 0.1]))
    assert (thr, fb, f1) == (0.3, False, 1.0)  # 0.25 and 0.3 both keep the two; 0.3 is nearer
    # nothing reaches any threshold: only the fallback keeps something
    thr, fb, f1 = choose_decision(t, np.array([0]), np.array([0.2, 0.2, 0.05, 0.05]))
    assert fb and f1 == 1.0
