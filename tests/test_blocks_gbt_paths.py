"""The two tree walkers of :class:`webseg.blocks.gbt.TreeEnsemble` give the same leaves.

The compiled walk (``webseg._native.treewalk``, built at install) is what runs when it is
built; the numpy walk is the fallback. Scores must not depend on which one ran, bit for bit.
"""

from __future__ import annotations

import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from webseg import _native as native
from webseg.blocks.model import load_model


def _walk():
    walk = native.load("treewalk")
    if walk is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    return walk


def test_the_extension_is_built_where_a_compiler_is() -> None:
    """`pip install -e .` (the README's set-up) builds it; a missing build must not go unseen
    on a machine that can build it (after editing the C source: `make setup`)."""
    headers = Path(sysconfig.get_paths()["include"], "Python.h").is_file()
    if not (shutil.which("cc") and headers):
        pytest.skip("no C compiler or Python headers: the numpy walk is the one in use")
    assert native.load("treewalk") is not None


def _models() -> dict:
    """Every shipped ensemble: the block model's two stages, its per-page decision, and the
    role model's heads."""
    from webseg.blocks.roles import load_role_model

    m = load_model()
    out = {"stage1": m.stage1, "stage2": m.stage2}
    if m.page_decision is not None:
        out["page_decision"] = m.page_decision.ensemble
    for name, (_roles, ens) in load_role_model().heads.items():
        out[f"roles-{name}"] = ens
    return out


@pytest.mark.parametrize("which", ["stage1", "stage2", "page_decision", "roles-content",
                                   "roles-layout"])
def test_compiled_and_numpy_walks_agree_on_the_shipped_models(which: str) -> None:
    walk = _walk()
    ens = _models().get(which)
    if ens is None:
        pytest.skip(f"no {which} ensemble in the shipped models")
    rng = np.random.default_rng(3)
    X = ens._probe()
    X = np.vstack([X, rng.normal(size=(50, ens.n_features)) * 3])
    X[rng.random(X.shape) < 0.3] = np.nan
    leaves = ens.native_leaves(X, walk)
    assert np.array_equal(ens.value[leaves], ens._tree_values_numpy(X))
    assert ens.leaf[leaves].all()


def test_scores_are_the_same_without_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    _walk()
    ens = load_model().stage1
    X = ens._probe()
    compiled = ens.raw(X)
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    assert native.load("treewalk") is None
    assert np.array_equal(compiled, ens.raw(X))


@pytest.mark.parametrize("left", [[0, 1, 2], [5, 1, 2]])
def test_the_compiled_walk_refuses_a_cycle_or_a_node_outside_the_arrays(
        left: list[int]) -> None:
    """Called with malformed arrays directly (TreeEnsemble refuses them before), it raises
    instead of looping or reading out of bounds."""
    walk = _walk()
    i8 = np.int64
    X = np.array([[0.0]])
    out = np.empty(1, dtype=i8)
    with pytest.raises(ValueError, match="malformed"):
        walk.leaves(X, 1, 1, np.zeros(3, i8), np.full(3, 1.0), np.ones(3, bool),
                    np.array(left, i8), np.array([2, 1, 2], i8), np.array([0, 1, 1], bool),
                    np.zeros(1, i8), out)
    with pytest.raises(ValueError, match="expected"):  # arrays of different lengths
        walk.leaves(X, 1, 1, np.zeros(2, i8), np.full(3, 1.0), np.ones(3, bool),
                    np.array(left, i8), np.array([2, 1, 2], i8), np.array([0, 1, 1], bool),
                    np.zeros(1, i8), out)
    with pytest.raises(ValueError, match="malformed"):  # a feature outside the row
        walk.leaves(X, 1, 1, np.array([3, 0, 0], i8), np.full(3, 1.0), np.ones(3, bool),
                    np.array([1, 1, 2], i8), np.array([2, 1, 2], i8),
                    np.array([0, 1, 1], bool), np.zeros(1, i8), out)


def _reference_walk(tree: dict, x: np.ndarray) -> float:
    """sklearn's rule, one row, one tree: ``x <= threshold`` left, NaN the learned way."""
    k = 0
    while not tree["leaf"][k]:
        v = x[tree["feature"][k]]
        left = bool(tree["missing_left"][k]) if np.isnan(v) else v <= tree["threshold"][k]
        k = tree["left"][k] if left else tree["right"][k]
    return tree["value"][k]


def test_both_walks_follow_nan_rules_and_missing_or_not_splits() -> None:
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
    walk = native.load("treewalk")
    if walk is not None:
        assert np.array_equal(ens.value[ens.native_leaves(X, walk)], want)
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


@pytest.mark.parametrize("which", ["stage1", "stage2", "page_decision", "roles-content"])
def test_the_summing_walk_gives_numpys_scores_bit_for_bit(which: str,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """``raw`` by the compiled summing walk (``treewalk.sums``, rows read in place in either
    memory order) equals the numpy walk's, for every row count (one row is summed by numpy
    pairwise, so it keeps the leaf walk) and multi-class heads."""
    _walk()
    ens = _models().get(which)
    if ens is None:
        pytest.skip(f"no {which} ensemble in the shipped models")
    rng = np.random.default_rng(5)
    X = np.vstack([ens._probe(), rng.normal(size=(40, ens.n_features)) * 3])
    X[rng.random(X.shape) < 0.3] = np.nan
    cases = [X[:n] for n in (0, 1, 2, 3, 9, len(X))]
    cases += [np.asfortranarray(X), X[::-1], X[:, :][::2]]
    compiled = [ens.raw(c) for c in cases]
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    for c, got in zip(cases, compiled, strict=True):
        want = ens.raw(c)
        assert got.shape == want.shape and np.array_equal(got, want)


def test_the_summing_walk_refuses_malformed_records() -> None:
    """Records whose child does not follow them, lies outside the arrays or whose feature
    is outside the row, roots outside the nodes and X too short raise, never read out of
    bounds or loop."""
    walk = _walk()
    from webseg.blocks.gbt import TreeEnsemble

    tree = {"feature": [0, 0, 0], "threshold": [0.5, 0.0, 0.0], "left": [1, -1, -1],
            "right": [2, -1, -1], "missing_left": [1, 0, 0], "leaf": [0, 1, 1],
            "value": [0.0, -1.0, 1.0]}
    ens = TreeEnsemble({"kind": "regression", "baseline": 0.0, "n_features": 1,
                        "trees": [tree]})
    nodes, values, roots = ens._sum_tables
    X = np.array([[0.0], [1.0]])
    out = np.empty(2)
    walk.sums(X, 2, 1, 1, 1, nodes, values, roots, 1, out)
    assert out.tolist() == [-1.0, 1.0]
    for field, value in (("left", 0), ("left", 2), ("fn", 5)):
        bad = nodes.copy()
        bad[field][0] = value
        with pytest.raises(ValueError, match="malformed"):
            walk.sums(X, 2, 1, 1, 1, bad, values, roots, 1, out)
    with pytest.raises(ValueError, match="outside the nodes"):
        walk.sums(X, 2, 1, 1, 1, nodes, values, np.array([3], np.int32), 1, out)
    with pytest.raises(ValueError, match="outside the buffer"):
        walk.sums(X, 3, 1, 1, 1, nodes, values, roots, 1, np.empty(3))
    with pytest.raises(ValueError, match="expected"):
        walk.sums(X, 2, 1, 1, 1, nodes[:2], values, roots, 1, out)
