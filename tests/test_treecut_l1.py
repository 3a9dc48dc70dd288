"""Level-1 exploration helpers (eval.treecut_l1): context features line up with the tree."""

from __future__ import annotations

import numpy as np

from eval.treecut_l1 import context_features
from tests.test_gcuts import two_column_page
from webseg.treecut import prepare


def test_context_features_shape_and_parent_columns():
    prep = prepare(two_column_page())
    assert prep is not None
    F = context_features(prep)
    n, d = prep.X.shape
    assert F.shape == (n, 3 * d + 3)
    assert np.isfinite(F).all()
    t = prep.tree
    for v in range(1, n):
        p = int(t.parent[v])
        assert np.allclose(F[v, d:2 * d], prep.X[p])          # the parent's features
        assert np.allclose(F[v, 2 * d:3 * d], prep.X[v] - prep.X[p])
        share = (t.leaf_hi[v] - t.leaf_lo[v]) / max(t.leaf_hi[p] - t.leaf_lo[p], 1)
        assert np.isclose(F[v, 3 * d], share) and 0 < share <= 1
    assert np.isclose(F[0, 3 * d], 1.0)                        # the root is its own "parent"
