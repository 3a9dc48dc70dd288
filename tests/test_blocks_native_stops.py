"""The page's stop-word counts per leaf (``_leaf_text``'s ``stops``) are the same by the
compiled pass (``wordsplit.stops``) and by the Python one (Counter, most_common)."""

from __future__ import annotations

import numpy as np
import pytest

from webseg import _native as native
from webseg.blocks.features import _leaf_text
from webseg.page import ELEMENT, TEXT, Page


def _page(texts: list[str]) -> Page:
    n = 1 + 2 * len(texts)
    parent, kind, tag, text = [-1], [ELEMENT], ["body"], [""]
    for t in texts:
        parent += [0, len(parent)]
        kind += [ELEMENT, TEXT]
        tag += ["p", "#text"]
        text += ["", t]
    return Page.from_columns(parent=parent, kind=kind, tag=tag, text=text,
                             attrs=[None] * n, title="The page")


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
