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


def _reference_walk(tree: dict, x: np.ndarray) -> float:
    """sklearn's rule, one row, one tree: ``x <= threshold`` left, NaN the learned way."""
    k = 0
    while not tree["leaf"][k]:
        v = x[tree["feature"][k]]
        left = bool(tree["missing_left"][k]) if np.isnan(v) else v <= tree["threshold"][k]
        k = tree["left"][k] if left else tree["right"][k]
    return tree["value"][k]


def test_numpy_walk_follows_nan_rules_and_missing_or_not_splits() -> None:
    """NaN go the learned way at every kind of node, infinite values and thresholds included
    (an infinite threshold that sends NaN right is sklearn's "missing or not" split)."""
    from webseg.blocks.gbt import TreeEnsemble

    inf = float("inf")
    tree = {"feature": [0, 1, 0, 0, 0, 1, 0], "threshold": [inf, 0.5, inf, 0, 0, -inf, 0],
            "left": [1, 3, 5, 0, 0, 0, 0], "right": [2, 4, 6, 0, 0, 0, 0],
            "missing_left": [0, 1, 1, 0, 0, 0, 0], "leaf": [0, 0, 0, 1, 1, 1, 1],
            "value": [0, 0, 0, 1.0, 2.0, 3.0, 4.0]}
    tree2 = {**tree, "threshold": [-inf, 0.5, 1.0, 0, 0, 0, 0],
             "missing_left": [1, 0, 0, 0, 0, 0, 0]}
    ens = TreeEnsemble({"kind": "regression", "baseline": 0.0, "n_features": 2,
                        "trees": [tree, tree2]})
    vals = [np.nan, -inf, inf, -1.0, 0.5, 0.7, 2.0]
    X = np.array([[a, b] for a in vals for b in vals])
    want = np.array([[_reference_walk(t, x) for x in X] for t in (tree, tree2)])
    assert np.array_equal(ens._tree_values_numpy(X), want)
    assert ens._walk_blocks == 3


@pytest.mark.parametrize("left", [[0, -1, -1], [1, -1, -1], [7, -1, -1]])
def test_a_tree_with_a_cycle_or_a_child_outside_it_is_refused(left: list[int]) -> None:
    # node 0 splits; its children must be nodes of the tree: 0 (a cycle to itself), 1 twice,
    # or 7 (no such node) are refused when the ensemble is built, not a hang or a wrong walk
    from webseg.blocks.gbt import TreeEnsemble

    tree = {"feature": [0, 0, 0], "threshold": [0.5, 0.0, 0.0], "left": left,
            "right": [1 if left[0] != 1 else 1, -1, -1], "missing_left": [1, 0, 0],
            "leaf": [0, 1, 1], "value": [0.0, -1.0, 1.0]}
    with pytest.raises(ValueError, match="one tree per root"):
        TreeEnsemble({"kind": "binary-logistic", "baseline": 0.0, "n_features": 1,
                      "trees": [tree]})


def test_a_leaf_walked_by_sibling_numbers_gives_its_value() -> None:
    from webseg.blocks.gbt import TreeEnsemble

    # root splits x <= 0.5; its right child splits x <= 2 (NaN right); leaves -1, 0, 2
    tree = {"feature": [0, 0, 0, 0, 0], "threshold": [0.5, 0.0, 2.0, 0.0, 0.0],
            "left": [1, -1, 3, -1, -1], "right": [2, -1, 4, -1, -1],
            "missing_left": [1, 0, 0, 0, 0], "leaf": [0, 1, 0, 1, 1],
            "value": [0.0, -1.0, 0.0, 0.0, 2.0]}
    ens = TreeEnsemble({"kind": "regression", "baseline": 0.0, "n_features": 1,
                        "trees": [tree]})
    X = np.array([[0.0], [0.5], [1.0], [2.0], [3.0], [np.nan]])
    assert ens.raw(X).tolist() == [-1.0, -1.0, 0.0, 0.0, 2.0, -1.0]
