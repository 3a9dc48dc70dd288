"""The stacked page-type model's trees give the same logits, bit for bit, walked by the
compiled walk (``webseg._native.treewalk``) as by the numpy walks (one row without missing
values, and the general one)."""

from __future__ import annotations

import numpy as np
import pytest

from classify.model import load_model
from webseg import _native as native


def test_compiled_and_numpy_walks_give_the_same_logits(monkeypatch) -> None:
    if native.load("treewalk") is None:
        pytest.skip("webseg's C extension is not built here (no compiler)")
    trees = load_model().model.trees
    if trees is None:
        pytest.skip("the shipped model's stacker is not trees")
    rng = np.random.default_rng(1)
    width = int(trees._f.max()) + 1
    inner = ~trees._leaf
    X = rng.normal(0.0, 2.0, size=(80, width))
    for j in range(width):  # every feature at one of its thresholds, exactly or nudged
        thr = trees._t[inner & (trees._f == j)]
        if len(thr):
            v = rng.choice(thr, size=len(X))
            X[:, j] = v + rng.choice([-1e-9, 0.0, 1e-9], size=len(X)) * np.maximum(abs(v), 1)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:20] = np.nan_to_num(X[:20])  # some rows with no missing value (the one-row path)
    fast = [trees.raw(X[i:i + 1]) for i in range(len(X))] + [trees.raw(X)]
    monkeypatch.setenv("WEBSEG_PURE_PYTHON", "1")
    slow = [trees.raw(X[i:i + 1]) for i in range(len(X))] + [trees.raw(X)]
    for f, s in zip(fast, slow, strict=True):
        assert f.tobytes() == s.tobytes()
