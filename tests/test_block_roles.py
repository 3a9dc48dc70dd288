"""Finer block roles (webseg.blocks.roles): multi-class trees, gold alignment, API, clean JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.test_blocks import ARTICLE, PAGE
from webseg.blocks import FINE_ROLES, ROLES, block_functions
from webseg.blocks.gbt import TreeEnsemble, export_hgb
from webseg.blocks.roles import (
    CONTENT_ROLES,
    LAYOUT_ROLES,
    align_blocks,
    kreuzer_leaf_roles,
    kreuzer_role,
    load_role_model,
)
from webseg.parse import parse


@pytest.mark.parametrize("k", [3, 6])
def test_multiclass_ensemble_equals_sklearn_after_json_round_trip(k: int) -> None:
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(k)
    X = rng.normal(size=(900, 5))
    X[rng.random(X.shape) < 0.15] = np.nan
    y = (np.digitize(np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 2])
                     + rng.normal(scale=0.3, size=900), np.linspace(-1, 1, k - 1)))
    m = HistGradientBoostingClassifier(max_iter=20, max_leaf_nodes=7, random_state=0).fit(X, y)
    d = json.loads(json.dumps(export_hgb(m)))
    assert d["kind"] == "multiclass-softmax" and d["n_classes"] == k
    ens = TreeEnsemble(d)
    Xt = rng.normal(size=(300, 5))
    Xt[rng.random(Xt.shape) < 0.2] = np.nan
    np.testing.assert_allclose(ens.predict_proba(Xt), m.predict_proba(Xt), atol=1e-10)
    assert ens.predict_proba(np.zeros((0, 5))).shape == (0, k)
    with pytest.raises(ValueError):
        ens.predict_proba(np.zeros((3, 4)))
    d["baseline"] = d["baseline"][:-1]
    with pytest.raises(ValueError):
        TreeEnsemble(d)


def _leaf_text(page, k: int) -> str:
    return page.text[int(page.text_leaves[k])]


def test_align_blocks_assigns_l3s_labels_to_leaves() -> None:
    page = parse(PAGE, url="https://daily.example/a")
    blocks = [[None, "Daily Town News Sport Weather Culture"], [1, "Council approves budget"],
              [2, ARTICLE], [2, ARTICLE[::-1].title()], [2, ARTICLE], [4, "Related"],
              [4, "Mayor visits school Roads to be repaired"],
              [0, "Imprint Privacy policy Copyright 2024 Daily Town"]]
    roles, cov = align_blocks(page, blocks)
    assert cov > 0.9
    got = {_leaf_text(page, k).strip(): CONTENT_ROLES[r] for k, r in enumerate(roles)}
    assert got["Council approves budget"] == "title"
    assert got[ARTICLE.strip()] == "body"
    assert got["Mayor visits school"] == "related"
    assert got["Sport"] == "boilerplate" and got["Imprint"] == "boilerplate"
    # no blocks: everything is boilerplate; coverage undefined
    roles0, cov0 = align_blocks(page, [])
    assert (roles0 == CONTENT_ROLES.index("boilerplate")).all() and np.isnan(cov0)


def test_kreuzer_role_mapping() -> None:
    idx = LAYOUT_ROLES.index
    assert kreuzer_role([]) == idx("other")
    assert kreuzer_role(["Header"]) == idx("header")
    assert kreuzer_role(["Header", "Menu"]) == idx("navigation")
    assert kreuzer_role(["Footer", "LinkList"]) == idx("footer")
    assert kreuzer_role(["Content", "LinkList"]) == idx("navigation")
    assert kreuzer_role(["Content", "Article"]) == idx("content")
    assert kreuzer_role(["Sidebar", "LinkList"]) == idx("sidebar")
    assert kreuzer_role(["Ad"]) == idx("other")


def test_kreuzer_leaf_roles_innermost_and_missing() -> None:
    page = parse(PAGE)
    blocks = [{"xpath": "/html[1]/body[1]/header[1]", "level": 1, "type": "Header"},
              {"xpath": "/html[1]/body[1]/header[1]/nav[1]", "level": 2, "type": "Menu"},
              {"xpath": "/html[1]/body[1]/main[1]", "level": 1, "type": "Content"},
              {"xpath": "/html[1]/body[1]/footer[1]", "level": 1, "type": "Footer"},
              {"xpath": "/html[1]/body[1]/div[9]", "level": 1, "type": "Ad"}]
    roles, missing = kreuzer_leaf_roles(page, blocks)
    assert missing == 1
    got = {_leaf_text(page, k).strip(): LAYOUT_ROLES[r] for k, r in enumerate(roles)}
    assert got["Daily Town"] == "header" and got["Sport"] == "navigation"
    assert got["Council approves budget"] == "content" and got["Imprint"] == "footer"


def test_block_functions_fine_roles() -> None:
    page = parse(PAGE, url="https://daily.example/a")
    bf = block_functions(page)
    assert bf._fine is None  # lazy: nothing computed for the main decision
    assert bf.fine_roles == FINE_ROLES
    assert bf.proba.shape == (page.n, len(ROLES)) and ROLES[0] == "main"
    for head, roles in FINE_ROLES.items():
        p = bf.fine_proba(head)
        assert p.shape == (page.n, len(roles))
        rows = p.sum(axis=1)
        leaves = page.text_leaves
        np.testing.assert_allclose(rows[leaves], 1.0, atol=1e-5)
        assert ((rows < 1e-6) | (np.abs(rows - 1) < 1e-4)).all()
    h1 = next(i for i in range(page.n) if page.tag[i] == "h1")
    r = bf.role_of(h1)
    assert set(r) == set(FINE_ROLES) and r["content"] in CONTENT_ROLES
    assert r["layout"] in LAYOUT_ROLES
    art = next(k for k in page.text_leaves.tolist() if page.text[k].strip() == ARTICLE.strip())
    assert bf.role_of(art)["content"] == "body"
    with pytest.raises(ValueError):
        bf.fine_proba("nope")
    with pytest.raises(IndexError):
        bf.role_of(page.n)


def test_role_model_meta_names_licence() -> None:
    m = load_role_model()
    assert "research use only" in m.meta["licence"]
    assert set(m.heads) == set(FINE_ROLES)


def test_clean_json_has_roles_for_blocks_method() -> None:
    from webseg.clean import extract

    res = extract(parse(PAGE, url="https://daily.example/a"))
    d = json.loads(res.to_json())
    assert len(d["roles"]) == len(d["xpaths"]) and d["xpaths"]
    assert all(set(r) == set(FINE_ROLES) for r in d["roles"])
