"""The two tree walkers of :class:`webseg.blocks.gbt.TreeEnsemble` give the same leaves.

The compiled walker (scikit-learn's) is what a long run switches to when it is available; the
numpy walk is what short runs use and the fallback. Scores must not depend on which one ran,
bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from webseg.blocks.model import load_model


@pytest.mark.parametrize("stage", ["stage1", "stage2"])
def test_compiled_and_numpy_walks_agree_on_the_shipped_model(stage: str) -> None:
    ens = getattr(load_model(), stage)
    if not ens.use_compiled():
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


def test_short_runs_do_not_import_the_compiled_walker() -> None:
    """A one-page command must not pay scikit-learn's import: the switch waits for enough rows."""
    from webseg.blocks.gbt import COMPILED_AFTER_ROWS, TreeEnsemble

    ens = load_model().stage1
    fresh = TreeEnsemble.__new__(TreeEnsemble)
    fresh.__dict__.update(ens.__dict__)
    fresh._compiled, fresh._compiled_tried, fresh._rows_scored = None, False, 0
    X = np.zeros((10, fresh.n_features))
    fresh.raw(X)
    assert not fresh._compiled_tried
    fresh._rows_scored = COMPILED_AFTER_ROWS
    first = fresh.raw(X)
    assert fresh._compiled_tried
    assert np.array_equal(first, ens.raw(X))
