"""The page's stop-word counts per leaf (``_leaf_text``'s ``stops``) and the title words
the leaves hold (``tshare``, ``tcover`` and PageLevel's ``title_overlap``) are the same by
the compiled passes (``wordsplit.stops``, ``wordsplit.title_hits``) and by the Python ones
(Counter, most_common, set intersections)."""

from __future__ import annotations

import numpy as np
import pytest

from webseg import _native as native
from webseg.blocks.features import _leaf_text
from webseg.page import ELEMENT, TEXT, Page
from webseg.templates.features import _node_features


def _page(texts: list[str], title: str = "The page") -> Page:
    n = 1 + 2 * len(texts)
    parent, kind, tag, text = [-1], [ELEMENT], ["body"], [""]
    for t in texts:
        parent += [0, len(parent)]
        kind += [ELEMENT, TEXT]
        tag += ["p", "#text"]
        text += ["", t]
    return Page.from_columns(parent=parent, kind=kind, tag=tag, text=text,
                             attrs=[None] * n, title=title)


CASES = [
    [],
    ["", "   "],
    ["a b c a", "b a"],
    # 40 distinct short tokens with tied counts: the first seen win the ties
    [" ".join(f"w{k}" for k in range(40)), " ".join(f"w{k}" for k in range(39, -1, -1))],
    ["the cat and the hat", "Über die Straße, über alles", "東京都の天気は晴れ",
     "longer words only here", "a an the of in on at to"],
    ["x " * 50 + "y " * 50, "y x z"],
    # 40 tokens seen once: the first 30 seen are the stop words (20 in the first leaf)
    [" ".join(f"w{k}" for k in range(20)), " ".join(f"w{k}" for k in range(20, 40))],
]


@pytest.mark.parametrize("texts", CASES)
def test_compiled_and_python_stop_counts_agree(texts: list[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    nat = native.load("wordsplit")
    if nat is None or not hasattr(nat, "stops"):
        pytest.skip("webseg's C extension is not built here (no compiler)")
    page = _page(texts)
    got = _leaf_text(page, page.text_leaves).stops
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    want = _leaf_text(_page(texts), page.text_leaves).stops
    assert got.dtype == want.dtype == np.float64 and np.array_equal(got, want)


def test_the_compiled_pass_refuses_what_is_not_tokens() -> None:
    nat = native.load("wordsplit")
    if nat is None or not hasattr(nat, "stops"):
        pytest.skip("webseg's C extension is not built here (no compiler)")
    with pytest.raises(TypeError):
        nat.stops([["a", 3]], 30, 4, np.empty(1))
    with pytest.raises(TypeError):
        nat.stops(["ab"], 30, 4, np.empty(1))
    with pytest.raises(ValueError, match="expected"):
        nat.stops([["a"]], 30, 4, np.empty(2))


@pytest.mark.parametrize("title", ["", "The page", "Cat and hat: the cat's page", "東京の天気",
                                   "Über Straße über"])
@pytest.mark.parametrize("texts", CASES[2:5])
def test_compiled_and_python_title_words_agree(texts: list[str], title: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    nat = native.load("wordsplit")
    if nat is None or not hasattr(nat, "title_hits"):
        pytest.skip("webseg's C extension is not built here (no compiler)")
    page = _page(texts, title)
    lt = _leaf_text(page, page.text_leaves)
    got = (lt.tshare, lt.tcover, _node_features(page), _node_features(page, lt.texts, lt.tokens))
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    page = _page(texts, title)
    lt = _leaf_text(page, page.text_leaves)
    want = (lt.tshare, lt.tcover, _node_features(page), _node_features(page, lt.texts, lt.tokens))
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w, equal_nan=True)


def test_title_hits_counts_and_pairs() -> None:
    nat = native.load("wordsplit")
    if nat is None or not hasattr(nat, "title_hits"):
        pytest.skip("webseg's C extension is not built here (no compiler)")
    hits, distinct = np.empty(3), np.empty(3)
    pairs = nat.title_hits([["a", "b", "a"], [], ["c", "b"]], {"a": 0, "b": 1}, hits, distinct)
    assert hits.tolist() == [3.0, 0.0, 1.0] and distinct.tolist() == [2.0, 0.0, 1.0]
    assert pairs == [0, 0, 0, 1, 2, 1]
    with pytest.raises(ValueError, match="outside"):
        nat.title_hits([["a"]], {"a": 5}, np.empty(1), np.empty(1))
    with pytest.raises(ValueError, match="one float64"):
        nat.title_hits([["a"]], {"a": 0}, np.empty(2), np.empty(1))
    with pytest.raises(TypeError):
        nat.title_hits([["a", 1]], {"a": 0}, np.empty(1), np.empty(1))
