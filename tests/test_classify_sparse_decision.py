"""The stacked page-type model's text views score a page without scipy: the same bits as the
sparse matrix product they replace (any difference could flip a close page type)."""

from __future__ import annotations

import numpy as np
import pytest

from classify.model import load_model
from classify.stacked import _Vec


def _vec_views():
    model = load_model().model
    return [b for b in model.base if isinstance(b.rep, _Vec)]


@pytest.mark.parametrize("k", range(5))
def test_decision_equals_the_sparse_product_bit_for_bit(k: int) -> None:
    views = _vec_views()
    if k >= len(views):
        pytest.skip("the shipped model has fewer text views")
    view = views[k]
    rng = np.random.default_rng(k)
    words = [w for w in view.rep.vocab if " " not in w and ":" not in w][:400] or ["x"]
    docs = [" ".join(rng.choice(words, size=n)) for n in (0, 1, 3, 40, 900)]
    docs.append("nothing in the vocabulary zzqx")
    got = view.decision(docs)
    want = view.decision_X(view.rep.transform(docs))
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    for d in docs:  # one page at a time, as the pipeline asks
        assert view.decision([d]).tobytes() == view.decision_X(view.rep.transform([d])).tobytes()
