"""The two tree walkers of :class:`webseg.blocks.gbt.TreeEnsemble` give the same leaves.

The compiled walker (scikit-learn's) is what runs when it is available; the numpy walk is the
fallback. Scores must not depend on which one ran, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from webseg.blocks.model import load_model


@pytest.mark.parametrize("stage", ["stage1", "stage2"])
def test_compiled_and_numpy_walks_agree_on_the_shipped_model(stage: str) -> None:
    ens = getattr(load_model(), stage)
    if ens._compiled is None:
        pytest.skip("this scikit-learn has no usable compiled tree walker")
    rng = np.random.default_rng(3)
    X = ens._probe()
    X = np.vstack([X, rng.normal(size=(50, ens.n_features)) * 3])
    X[rng.random(X.shape) < 0.3] = np.nan
    X = np.ascontiguousarray(X)
    a = ens._tree_values_compiled(X, ens._compiled)
    b = ens._tree_values_numpy(X)
    assert np.array_equal(a, b)
    raw = ens.raw(X)
    compiled, ens._compiled = ens._compiled, None
    try:
        assert np.array_equal(raw, ens.raw(X))
    finally:
        ens._compiled = compiled
