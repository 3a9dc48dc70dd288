"""The block model's fast paths give exactly what the plain definitions give.

Each optimisation of :mod:`webseg.blocks` keeps the outputs: these tests compare it with a
slow, obvious reference implementation.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webseg.blocks import vocab
from webseg.blocks.features import FEATURE_NAMES, leaf_features
from webseg.blocks.gbt import TreeEnsemble, export_hgb
from webseg.page import normalize_text
from webseg.parse import parse
from webseg.templates.features import _node_features, node_features

_WS = re.compile(r"\s+")


def _reference_raw(ens_dict: dict, X: np.ndarray) -> np.ndarray:
    """One row, one tree at a time, sklearn's split rule; sums as TreeEnsemble.raw does."""
    vals = np.zeros((len(ens_dict["trees"]), len(X)))
    for t, tree in enumerate(ens_dict["trees"]):
        for r, x in enumerate(X):
            i = 0
            while not tree["leaf"][i]:
                v = x[tree["feature"][i]]
                left = tree["missing_left"][i] if np.isnan(v) else v <= tree["threshold"][i]
                i = tree["left"][i] if left else tree["right"][i]
            vals[t, r] = tree["value"][i]
    return ens_dict["baseline"] + vals.sum(axis=0)


@pytest.fixture(scope="module")
def fitted():
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(800, 6))
    X[rng.random(X.shape) < 0.2] = np.nan
    # NaN itself is informative in column 2: the trees learn splits that send NaN one way
    y = ((np.nan_to_num(X[:, 0]) + np.isnan(X[:, 2]) - 0.5 * np.nan_to_num(X[:, 1])
          + rng.normal(scale=0.3, size=800)) > 0.3).astype(int)
    # deep leaf-wise trees (31 leaves, no depth limit), as the shipped model
    m = HistGradientBoostingClassifier(max_iter=15, max_leaf_nodes=31, random_state=0).fit(X, y)
    return m, json.loads(json.dumps(export_hgb(m)))


@pytest.mark.parametrize("nan_share", [0.0, 0.3, 1.0])
def test_tree_ensemble_equals_reference_walk(fitted, nan_share):
    m, d = fitted
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 6))
    X[rng.random(X.shape) < nan_share] = np.nan
    ens = TreeEnsemble(d)
    assert np.array_equal(ens.raw(X), _reference_raw(d, X))
    np.testing.assert_allclose(ens.predict_proba(X), m.predict_proba(X)[:, 1], atol=1e-12)
    # one row and no rows
    assert np.array_equal(ens.raw(X[:1]), _reference_raw(d, X[:1]))
    assert ens.raw(X[:0]).shape == (0,)


def _reference_token_mask(t: str) -> int:
    m = 0
    for k, (words, stems) in enumerate(vocab.CATEGORIES.values()):
        if t in words or (len(t) >= 4 and t.startswith(stems)):
            m |= 1 << k
    return m


_CLASSY = st.lists(st.sampled_from(list("abcmnorstuvAMNS09-_ \t\u00a0K\u0130")
                                   + ["nav", "menu", "Footer", "sidebar", "comment", "crumb",
                                      "navigation", "header", "copyright", " "]),
                   max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(_CLASSY)
def test_value_mask_equals_per_token_definition(value):
    want = 0
    for t in vocab.tokens(value):
        want |= _reference_token_mask(t)
    assert vocab._value_mask(value) == want


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .\t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u3000é")),
               max_size=30))
def test_normalize_text_equals_regex_definition(text):
    assert normalize_text(text) == _WS.sub(" ", text).strip()


PAGE = """<html><head><title>Budget news</title></head><body>
<div class="menu"><a href="/a">Home</a> <a href="https://other.example/x">Out</a>
<a href="/b">Budget</a></div>
<div class="post"><h1>Budget  approved</h1><p>The   council approved the budget.</p>
<p class="post">Second   paragraph, with <a href="#c">a link</a>.</p>
<p style="display:none">hidden text</p><p class="post"> </p></div>
<ul><li class="x">one</li><li class="x">two</li><li class="y">three</li><li>four</li></ul>
</body></html>"""


def test_node_features_reuse_equals_plain():
    page = parse(PAGE, url="https://news.example/budget")
    leaves = page.text_leaves.tolist()
    texts = [normalize_text(page.text[j]) for j in leaves]
    toks = [re.findall(r"\w+", t.lower()) for t in texts]
    is_link = np.array([t == "a" and "href" in (a or {}) for t, a in
                        zip(page.tag, page.attrs, strict=True)])
    assert np.array_equal(_node_features(page, texts, toks, is_link), node_features(page),
                          equal_nan=True)


def test_sibling_signature_features_equal_string_keys():
    page = parse(PAGE, url="https://news.example/budget")
    lf = leaf_features(page)
    par = page.parent
    els = [i for i in range(1, page.n) if page.is_element[i]]
    sig = {i: (page.tag[i], (page.attrs[i] or {}).get("class", "")) for i in els}
    for k, leaf in enumerate(lf.leaves.tolist()):
        p1 = int(par[leaf])
        if p1 <= 0:
            continue
        sibs = [j for j in els if par[j] == par[p1]]
        same = sum(sig[j] == sig[p1] for j in sibs) / len(sibs)
        assert lf.X[k, FEATURE_NAMES.index("p1_same_sig_share")] == pytest.approx(same)
